"""Split search: the best candidate split of every feature at one node.

One search serves every algorithm. Per feature it builds the compact histogram, turns each
candidate into ``branch_stats`` and scores it with :func:`split_scores`:

- numeric: a cumulative scan over the sorted bins, two branches, threshold at the midpoint of
  the two adjacent observed values (the textbook's T_a, computed as scikit-learn does);
- categorical multiway (ID3/C4.5): one branch per category;
- categorical binary (CART, the seeds' rule): ``a == v`` against ``a != v`` for each v.

Which feature wins is decided in Python (``_selection.py``): argmax of the decrease, or C4.5's
"gain at least average, then best gain ratio".
"""

import numpy as np
from numba import njit

from .criteria import impurity, split_scores
from .histograms import feature_histogram

# Node kinds of the fitted tree; also the split kinds returned by the search.
LEAF = 0
NUMERIC = 1
MULTIWAY = 2
CAT_BINARY = 3

# Tolerance for "strictly better": floating sums of tied splits differ in the last bits,
# and ties must go to the first candidate (smallest threshold, first category).
TIE_EPS = 1e-12


@njit(cache=True, nogil=True)
def midpoint(lo, hi):
    """Threshold between two adjacent observed values, as scikit-learn computes it."""
    t = lo / 2.0 + hi / 2.0
    if t == hi or np.isinf(t):
        t = lo
    return t


@njit(cache=True, nogil=True)
def _branch_ok(n_left, n_right, w_left, w_right, min_leaf_n, min_leaf_w):
    return (n_left >= min_leaf_n and n_right >= min_leaf_n
            and w_left >= min_leaf_w and w_right >= min_leaf_w)


@njit(cache=True, nogil=True)
def _row_sum(a, r):
    s = 0.0
    for k in range(a.shape[1]):
        s += a[r, k]
    return s


@njit(cache=True, nogil=True)
def _two_way_child_impurity(stats, w_left, w_right, criterion):
    """Weighted mean impurity of a two-branch split, without allocating (hot loop)."""
    return (w_left * impurity(stats[0], criterion)
            + w_right * impurity(stats[1], criterion)) / (w_left + w_right)


@njit(cache=True, nogil=True)
def best_split_numeric(bins, counts, n, values, criterion, min_leaf_n, min_leaf_w, u):
    """Best binary threshold split of one numeric feature from its compact histogram.

    ``values[bin]`` is the observed value of each bin. ``u`` in [0, 1) draws one random
    threshold (``splitter="random"``); ``u < 0`` scans every midpoint.
    Returns (found, child_impurity, decrease, split_info, last_left_bin, threshold).
    """
    nb, n_classes = counts.shape
    best = (False, 0.0, -np.inf, 0.0, -1, 0.0)
    if nb < 2:
        return best
    total = np.zeros(n_classes)
    total_n = 0
    for b in range(nb):
        total_n += n[b]
        for k in range(n_classes):
            total[k] += counts[b, k]
    stats = np.zeros((2, n_classes))
    lo_t = 0
    hi_t = nb - 1
    if u >= 0.0:
        vmin = values[bins[0]]
        vmax = values[bins[nb - 1]]
        draw = vmin + u * (vmax - vmin)
        t = 0
        while t < nb - 2 and values[bins[t + 1]] <= draw:
            t += 1
        lo_t = t
        hi_t = t + 1
    best_t = -1
    best_child = np.inf
    left_n = 0
    for b in range(lo_t):
        left_n += n[b]
        for k in range(n_classes):
            stats[0, k] += counts[b, k]
    for t in range(lo_t, hi_t):
        left_n += n[t]
        for k in range(n_classes):
            stats[0, k] += counts[t, k]
            stats[1, k] = total[k] - stats[0, k]
        w_left = _row_sum(stats, 0)
        w_right = _row_sum(stats, 1)
        if not _branch_ok(left_n, total_n - left_n, w_left, w_right, min_leaf_n, min_leaf_w):
            continue
        child = _two_way_child_impurity(stats, w_left, w_right, criterion)
        if best_t < 0 or child < best_child - TIE_EPS:
            best_t = t
            best_child = child
    if best_t < 0:
        return best
    # Score the winner in full (decrease and split information) from its branch stats.
    stats[:] = 0.0
    for b in range(best_t + 1):
        for k in range(n_classes):
            stats[0, k] += counts[b, k]
    for k in range(n_classes):
        stats[1, k] = total[k] - stats[0, k]
    child, dec, info = split_scores(stats, criterion)
    if u >= 0.0:
        thr = draw
    else:
        thr = midpoint(values[bins[best_t]], values[bins[best_t + 1]])
    return (True, child, dec, info, bins[best_t], thr)


@njit(cache=True, nogil=True)
def best_split_multiway(counts, n, criterion, min_leaf_n, min_leaf_w):
    """Multiway split of a categorical feature: one branch per category present.

    Empty categories are branches too (leaves with the parent's class), but add nothing
    to the scores. Returns (found, child_impurity, decrease, split_info).
    """
    nb = counts.shape[0]
    if nb < 2:
        return False, 0.0, -np.inf, 0.0
    for b in range(nb):
        if n[b] < min_leaf_n or _row_sum(counts, b) < min_leaf_w:
            return False, 0.0, -np.inf, 0.0
    child, dec, info = split_scores(counts, criterion)
    return True, child, dec, info


@njit(cache=True, nogil=True)
def best_split_one_vs_rest(bins, counts, n, criterion, min_leaf_n, min_leaf_w, u):
    """Best ``a == v`` / ``a != v`` split of a categorical feature.

    Returns (found, child_impurity, decrease, split_info, category).
    """
    nb, n_classes = counts.shape
    best = (False, 0.0, -np.inf, 0.0, -1)
    if nb < 2:
        return best
    total = np.zeros(n_classes)
    total_n = 0
    for b in range(nb):
        total_n += n[b]
        for k in range(n_classes):
            total[k] += counts[b, k]
    stats = np.zeros((2, n_classes))
    lo = 0
    hi = nb
    if u >= 0.0:
        lo = min(int(u * nb), nb - 1)
        hi = lo + 1
    for b in range(lo, hi):
        for k in range(n_classes):
            stats[0, k] = counts[b, k]
            stats[1, k] = total[k] - counts[b, k]
        if not _branch_ok(n[b], total_n - n[b], _row_sum(stats, 0), _row_sum(stats, 1),
                          min_leaf_n, min_leaf_w):
            continue
        child, dec, info = split_scores(stats, criterion)
        if dec > best[2] + TIE_EPS:
            best = (True, child, dec, info, bins[b])
    return best


@njit(cache=True, nogil=True)
def search_node(codes, n_bins, is_cat, bin_values, bin_offsets, features, idx, y, w,
                n_classes, criterion, multiway, min_leaf_n, min_leaf_w, uniforms):
    """Best split of each candidate feature at a node.

    Parameters
    ----------
    codes : int32 array (n_samples, n_features), Fortran order: bin codes.
    n_bins : int64 array (n_features,); is_cat : bool array (n_features,).
    bin_values, bin_offsets : observed value of every numeric bin, flat, with offsets.
    features : int64 array of the features to try, in column order.
    idx : int64 array, the node's samples. ``multiway``: categorical split kind.
    uniforms : float64 array (len(features),), ``< 0`` for an exhaustive search.

    Returns
    -------
    found (bool), kind (int8), child_impurity, decrease, split_info (float64),
    split_bin (int64: last left bin or the category ``v``), threshold (float64),
    each of length ``len(features)``.
    """
    nf = features.shape[0]
    found = np.zeros(nf, dtype=np.bool_)
    kind = np.zeros(nf, dtype=np.int8)
    child = np.zeros(nf)
    dec = np.full(nf, -np.inf)
    info = np.zeros(nf)
    split_bin = np.full(nf, -1, dtype=np.int64)
    threshold = np.zeros(nf)
    for i in range(nf):
        f = features[i]
        bins, counts, n = feature_histogram(codes[:, f], idx, y, w, n_bins[f], n_classes)
        if is_cat[f]:
            if multiway:
                ok, c, d, s = best_split_multiway(counts, n, criterion, min_leaf_n, min_leaf_w)
                kind[i] = MULTIWAY
                found[i] = ok
                child[i] = c
                dec[i] = d
                info[i] = s
            else:
                ok, c, d, s, v = best_split_one_vs_rest(bins, counts, n, criterion,
                                                        min_leaf_n, min_leaf_w, uniforms[i])
                kind[i] = CAT_BINARY
                found[i] = ok
                child[i] = c
                dec[i] = d
                info[i] = s
                split_bin[i] = v
        else:
            values = bin_values[bin_offsets[f]:bin_offsets[f + 1]]
            ok, c, d, s, b, t = best_split_numeric(bins, counts, n, values, criterion,
                                                   min_leaf_n, min_leaf_w, uniforms[i])
            kind[i] = NUMERIC
            found[i] = ok
            child[i] = c
            dec[i] = d
            info[i] = s
            split_bin[i] = b
            threshold[i] = t
    return found, kind, child, dec, info, split_bin, threshold
