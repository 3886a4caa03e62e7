"""rpart's surrogate splits: the split on another attribute that best mimics the primary."""

import numpy as np

from ._jit import kernel
from .criteria import GINI
from .histograms import feature_histogram
from .schema import CAT_BINARY, NUMERIC
from .splits import _split_missing, midpoint


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
    nk, miss, n_miss = _split_missing(bins, counts, n, n_real_bins)
    tot0 = miss[0]
    tot1 = miss[1]
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
    thr = midpoint(hi[bins[best_b]], lo[bins[best_b + 1]]) if lo.shape[0] > 0 else np.nan
    return best / total, majority, NUMERIC, bins[best_b], thr, best_flip


@kernel
def all_surrogates(codes, n_bins, is_cat, bin_lo, bin_hi, bin_offsets, features, primary, idx,
                   wi, direction):
    """:func:`best_surrogate` for every attribute in ``features`` but ``primary``, in one
    call (threads share a node's attributes out in chunks: ``quercus._threads``).

    Returns arrays (agreement, majority, kind, bin_or_category, threshold, flip), entry
    ``i`` for ``features[i]``; the primary's entry has agreement -1.
    """
    nf = features.shape[0]
    agree, majority, kind, where = (np.full(nf, -1.0), np.zeros(nf), np.zeros(nf, np.int8),
                                    np.full(nf, -1, dtype=np.int64))
    thr, flip = np.zeros(nf), np.zeros(nf, dtype=np.int8)
    for i in range(nf):
        g = features[i]
        if g == primary:
            continue
        lo = bin_lo[bin_offsets[g]:bin_offsets[g + 1]]
        hi = bin_hi[bin_offsets[g]:bin_offsets[g + 1]]
        agree[i], majority[i], kind[i], where[i], thr[i], flip[i] = best_surrogate(
            codes[:, g], idx, wi, direction, n_bins[g], is_cat[g], lo, hi)
    return agree, majority, kind, where, thr, flip
