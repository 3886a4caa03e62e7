"""rpart's surrogate splits: the split on another attribute that best mimics the primary."""

import numpy as np

from ._jit import inner, kernel
from .borrow import borrowed
from .criteria import GINI
from .histograms import (dense_histogram_into, dense_pass, feature_histogram,
                         sorted_histogram_into)
from .schema import CAT_BINARY, NUMERIC
from .splits import known_bins, resolve_threshold
from .thresholds import TIE_EPS, midpoint
from .builder import first_surrogates, surrogate_table


@kernel(inline="always")
def best_surrogate(codes_g, idx, wi, direction, n_real_bins, is_cat, lo, hi):
    """Best surrogate split on one attribute.

    ``idx``/``wi`` are the node's samples whose primary attribute is known, ``direction``
    (float64, 0 = left, 1 = right, indexed by sample) where the primary split sends them.
    Agreement is the weight of those samples that the surrogate sends the same way, over
    all of them (a sample missing this attribute counts as a disagreement).

    Returns (agreement, majority, kind, bin_or_category, threshold, flip): ``flip`` means
    the surrogate's left side stands for the primary's right side; ``majority`` is the
    agreement of "everything to the primary's bigger side".
    """
    bins, counts, n = feature_histogram(codes_g, idx, wi, direction, direction,
                                        n_real_bins + 1, np.int64(2), np.int64(GINI))
    return score_surrogate(bins, counts, bins.shape[0], n_real_bins, is_cat, lo, hi, 0,
                           lo.shape[0])


@kernel(inline="always")
def score_surrogate(bins, counts, nb, n_real_bins, is_cat, bin_lo, bin_hi, v0, v1):
    """:func:`best_surrogate` from the attribute's compact histogram of the samples'
    directions, its first ``nb`` rows (``bins`` present, ascending, the missing bin last;
    ``counts`` of direction 0 and 1): read in place, so that a search's scratch is
    neither sliced nor copied for each attribute. The attribute's value table is
    ``bin_lo[v0:v1]`` / ``bin_hi[v0:v1]`` (none: a lazy feature)."""
    # (The missing bin's weights start the totals; zeros without one.)
    nk = known_bins(bins, nb, n_real_bins)
    tot0 = counts[nb - 1, 0] if nk < nb else 0.0
    tot1 = counts[nb - 1, 1] if nk < nb else 0.0
    k0 = 0.0
    k1 = 0.0
    for b in range(nk):
        k0 += counts[b, 0]
        k1 += counts[b, 1]
    tot0 += k0
    tot1 += k1
    total = tot0 + tot1
    majority = max(tot0, tot1) / total if total > 0.0 else 0.0
    best = -1.0
    best_b = -1
    best_flip = 0
    if nk >= 2:
        l0 = 0.0
        l1 = 0.0
        last = nk - 1 if not is_cat else nk
        for t in range(last):
            if is_cat:
                fwd = counts[t, 0] + k1 - counts[t, 1]
                rev = counts[t, 1] + k0 - counts[t, 0]
            else:
                l0 += counts[t, 0]
                l1 += counts[t, 1]
                fwd = l0 + (k1 - l1)
                rev = l1 + (k0 - l0)
            if fwd > best + 1e-12:
                best, best_b, best_flip = fwd, t, 0
            if rev > best + 1e-12:
                best, best_b, best_flip = rev, t, 1
    if best_b < 0 or total <= 0.0:
        return 0.0, majority, NUMERIC, -1, 0.0, 0
    if is_cat:
        return best / total, majority, CAT_BINARY, bins[best_b], 0.0, best_flip
    # No value table (a lazy feature): the grower resolves the threshold of the kept ones.
    thr = (midpoint(bin_hi[v0 + bins[best_b]], bin_lo[v0 + bins[best_b + 1]]) if v1 > v0
           else np.nan)
    return best / total, majority, NUMERIC, bins[best_b], thr, best_flip


@inner
def surrogate_outputs(nf):
    """(agreement, majority, kind, bin_or_category, threshold, flip) for ``nf`` attributes,
    a row per attribute: what :func:`all_surrogates` returns, and the layout of its
    ``scratch``'s outputs. Each row starts as the primary's (agreement -1)."""
    return (np.full(nf, -1.0), np.zeros(nf), np.zeros(nf, np.int8),
            np.full(nf, -1, dtype=np.int64), np.zeros(nf), np.zeros(nf, dtype=np.int8))


@kernel(forceinline=True)
def all_surrogates(binned, is_cat, features, primary, idx, wi, direction, presorted=None,
                   scratch=None):
    """:func:`best_surrogate` for every attribute in ``features`` but ``primary``, in one
    call (threads share a node's attributes out in chunks: ``quercus._threads``), on the
    :data:`~quercus._kernels.schema.Binned` record ``binned`` (``is_cat``: which attributes
    are categorical, None when none is).

    ``presorted``: the subtree kernel's presorted orders of the node, (orders, slot of
    each attribute or -1, the node's first column, the node's samples, their weights,
    their branches, -1 where the primary is missing), of which ``idx`` are the samples
    of a known branch; an attribute with a slot and at least as many bins as the node has
    samples takes its histogram from its order (the same sums: a bin's samples in the same
    order) instead of clearing one of every bin. None: not compiled.

    ``scratch``: the subtree kernel's arrays for what every search would otherwise
    allocate, reused from node to node: a histogram's (bins, directions' weights, counts),
    with a row per sample and per bin of the attributes that take it, and the six outputs
    (a row per attribute), of which views are returned. None: allocated here.

    Returns arrays (agreement, majority, kind, bin_or_category, threshold, flip), entry
    ``i`` for ``features[i]``; the primary's entry has agreement -1.
    """
    # (The arguments lent to the loop below, which hands them to a helper per attribute:
    # the caller holds them. Not the scratch, whose views are returned, nor the optional
    # arguments, which numba prunes by their being None.)
    binned, features = borrowed(binned), borrowed(features)
    idx, wi, direction = borrowed(idx), borrowed(wi), borrowed(direction)
    codes, n_bins, bin_lo, bin_hi, bin_offsets = binned
    nf = features.shape[0]
    m = idx.shape[0]
    if scratch is None:
        agree, majority, kind, where, thr, flip = surrogate_outputs(nf)
        s_bins = np.empty(m if presorted is not None else 0, dtype=np.int64)
        s_counts = np.empty((s_bins.shape[0], 2))
        s_n = np.empty(s_bins.shape[0], dtype=np.int64)
    else:
        s_bins, s_counts, s_n, agree, majority, kind, where, thr, flip = scratch
        agree, majority, kind, where = agree[:nf], majority[:nf], kind[:nf], where[:nf]
        thr, flip = thr[:nf], flip[:nf]
    if presorted is not None:  # (unpacked once: each unpacking counts references)
        srt, slot_of, p_start, node_idx, node_w, branch = borrowed(presorted)
    for i in range(nf):
        g = features[i]
        if g == primary:
            agree[i], majority[i], kind[i], where[i], thr[i], flip[i] = -1.0, 0.0, 0, -1, 0.0, 0
            continue
        cat = np.bool_(False)
        if is_cat is not None:
            cat = is_cat[g]
        # (The order where the node has fewer samples than the attribute bins: a dense
        # histogram's clearing and compacting would be most of its cost.)
        if (presorted is not None and slot_of[g] >= 0
                and n_bins[g] >= node_idx.shape[0]):
            # (its samples of a known primary branch: the histogram best_surrogate builds)
            nb = sorted_histogram_into(codes[:, g],
                                       srt[slot_of[g], p_start:p_start + node_idx.shape[0]],
                                       node_idx, node_w, direction, direction,
                                       np.int64(GINI), s_bins, s_counts, s_n, branch)
            agree[i], majority[i], kind[i], where[i], thr[i], flip[i] = score_surrogate(
                s_bins, s_counts, nb, n_bins[g], cat, bin_lo, bin_hi, bin_offsets[g],
                bin_offsets[g + 1])
        elif (scratch is not None and n_bins[g] + 1 <= s_bins.shape[0]
              and dense_pass(n_bins[g] + 1, m)):
            # (best_surrogate's dense histogram, in the scratch)
            nb = dense_histogram_into(codes[:, g], idx, wi, direction, direction,
                                      n_bins[g] + 1, np.int64(GINI), s_bins, s_counts, s_n)
            agree[i], majority[i], kind[i], where[i], thr[i], flip[i] = score_surrogate(
                s_bins, s_counts, nb, n_bins[g], cat, bin_lo, bin_hi, bin_offsets[g],
                bin_offsets[g + 1])
        else:
            agree[i], majority[i], kind[i], where[i], thr[i], flip[i] = best_surrogate(
                codes[:, g], idx, wi, direction, n_bins[g], cat,
                bin_lo[bin_offsets[g]:bin_offsets[g + 1]],
                bin_hi[bin_offsets[g]:bin_offsets[g + 1]])
    return agree, majority, kind, where, thr, flip


@inner
def keep_surrogates(codes, n_bins, agree, majority, kind, where, thr, flip, sidx,
                    max_surrogate, surs, n_sur, xv, x_row_stride, x_col_stride, x_rows):
    """Of a node's surrogate candidates (:func:`all_surrogates`' arrays over every
    attribute, searched on its samples ``sidx`` of known primary attribute), those that
    agree with the split better than its majority, best agreement first (ties by column),
    at most ``max_surrogate``, written into ``surs`` (a
    :data:`~quercus._kernels.schema.Surrogates` record with room for ``max_surrogate``
    entries from entry ``n_sur``). A lazy feature's threshold is resolved from the training
    matrix (``xv`` ..: see :func:`resolve_threshold`). Returns how many."""
    p = agree.shape[0]
    good = np.zeros(p, dtype=np.bool_)
    n_good = 0
    for g in range(p):
        if where[g] >= 0 and agree[g] > majority[g] + TIE_EPS:
            good[g] = True
            n_good += 1
    n_kept = min(n_good, max_surrogate)
    for r in range(n_kept):
        g = -1  # the best left: highest agreement, then lowest column
        for h in range(p):
            if good[h] and (g < 0 or agree[h] > agree[g]):
                g = h
        good[g] = False
        t = thr[g]
        if kind[g] == NUMERIC and np.isnan(t):
            t = resolve_threshold(codes[:, g], sidx, where[g], n_bins[g], xv, x_row_stride,
                                  x_col_stride, x_rows, g)
        e = n_sur + r
        surs.sur_feature[e] = g
        surs.sur_kind[e] = kind[g]
        surs.sur_threshold[e] = t
        surs.sur_category[e] = where[g] if kind[g] == CAT_BINARY else -1
        surs.sur_flip[e] = flip[g]
        surs.sur_agreement[e] = agree[g]
    return n_kept


@kernel
def select_surrogates(codes, n_bins, agree, majority, kind, where, thr, flip, sidx,
                      max_surrogate, xv, x_row_stride, x_col_stride, x_rows):
    """:func:`keep_surrogates` into a :data:`~quercus._kernels.schema.Surrogates` record
    of their own, an entry each.

    Examples
    --------
    >>> import numpy as np
    >>> codes = np.array([[0, 0, 1], [1, 1, 0]], dtype=np.uint8)  # (3 attributes)
    >>> n_bins = np.array([2, 2, 2])
    >>> agree, majority = np.array([-1.0, 1.0, 0.9]), np.full(3, 0.5)
    >>> kind, where = np.ones(3, dtype=np.int8), np.array([-1, 0, 0])  # 1: NUMERIC
    >>> thr, flip = np.array([0.0, 2.5, 7.0]), np.array([0, 0, 1], dtype=np.int8)
    >>> no_x = (np.zeros(0), np.zeros(0, dtype=np.float32))
    >>> surs = select_surrogates(codes, n_bins, agree, majority, kind, where, thr, flip,
    ...                          np.arange(2), 5, no_x, 0, 0, np.zeros(0, dtype=np.int64))
    >>> surs.sur_feature.tolist(), surs.sur_threshold.tolist()  # attribute 2 agrees less
    ([1, 2], [2.5, 7.0])
    """
    surs = surrogate_table(min(max_surrogate, agree.shape[0]))
    n = keep_surrogates(codes, n_bins, agree, majority, kind, where, thr, flip, sidx,
                        max_surrogate, surs, 0, xv, x_row_stride, x_col_stride, x_rows)
    return first_surrogates(surs, n)


@inner
def follow_surrogates(codes, n_bins, bin_hi, bin_offsets, idx, branch, surs, start, count,
                      fallback, xv, x_row_stride, x_col_stride, x_rows):
    """Send the node's samples ``idx`` that miss the split attribute (``branch`` < 0) by
    the first of its surrogates (entries ``start .. start + count`` of ``surs``) whose
    attribute they have, else to ``fallback``: ``branch`` is written in place. A lazy
    feature (no value table) compares the training matrix's value with the threshold."""
    last_bin = np.empty(count, dtype=np.int64)
    lazy = np.zeros(count, dtype=np.bool_)
    for j in range(count):
        g = surs.sur_feature[start + j]
        hi = bin_hi[bin_offsets[g]:bin_offsets[g + 1]]
        lazy[j] = hi.shape[0] < n_bins[g]  # (lazy_features' rule)
        last_bin[j] = np.searchsorted(hi, surs.sur_threshold[start + j], side="right") - 1
    x64, x32 = xv
    for i in range(idx.shape[0]):
        if branch[i] >= 0:
            continue
        s = idx[i]
        out = -1
        for j in range(count):
            g = surs.sur_feature[start + j]
            c = np.int64(codes[s, g])
            if c == n_bins[g]:
                continue
            if surs.sur_kind[start + j] == NUMERIC:
                if lazy[j]:
                    r = x_rows[s] if x_rows.shape[0] > 0 else s
                    a = r * x_row_stride + g * x_col_stride
                    v = x64[a] if x64.shape[0] > 0 else np.float64(x32[a])
                    go = 1 if v > surs.sur_threshold[start + j] else 0
                else:
                    go = 1 if c > last_bin[j] else 0
            else:
                go = 1 if c != surs.sur_category[start + j] else 0
            if surs.sur_flip[start + j]:
                go = 1 - go
            out = go
            break
        branch[i] = out if out >= 0 else fallback


@kernel
def route_missing(codes, n_bins, bin_hi, bin_offsets, idx, branch, surs, fallback, xv,
                  x_row_stride, x_col_stride, x_rows):
    """:func:`follow_surrogates` by every entry of ``surs``: a split node's surrogates,
    best first (none: every missing sample to ``fallback``).

    Examples
    --------
    >>> import numpy as np
    >>> codes = np.array([[2, 0], [2, 1], [0, 2]], dtype=np.uint8)  # 2 bins each; 2: missing
    >>> n_bins, offsets = np.array([2, 2]), np.array([0, 2, 4])
    >>> bin_hi = np.array([1.0, 2.0, 1.0, 2.0])  # each bin's largest value
    >>> branch = np.array([-1, -1, 0])
    >>> from quercus._kernels.builder import surrogate_table
    >>> surs = surrogate_table(1)  # attribute 1, NUMERIC (1), threshold 1.5, not flipped
    >>> surs.sur_feature[0], surs.sur_kind[0], surs.sur_threshold[0] = 1, 1, 1.5
    >>> surs.sur_flip[0] = 0
    >>> no_x = (np.zeros(0), np.zeros(0, dtype=np.float32))
    >>> route_missing(codes, n_bins, bin_hi, offsets, np.arange(3), branch, surs, 1, no_x,
    ...               0, 0, np.zeros(0, dtype=np.int64))
    >>> branch.tolist()  # row 0: bin 0 <= 1.5 goes left; row 1: bin 1 goes right
    [0, 1, 0]
    """
    follow_surrogates(codes, n_bins, bin_hi, bin_offsets, idx, branch, surs, 0,
                      surs.sur_feature.shape[0], fallback, xv, x_row_stride, x_col_stride,
                      x_rows)
