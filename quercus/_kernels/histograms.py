"""Per-node, per-feature weighted class-count histograms.

A histogram is returned compact: only the bins that hold at least one of the node's
samples, in ascending bin order, with their weighted class counts and sample counts.
"""

import numpy as np
from numba import njit

from .criteria import GINI


@njit(cache=True, nogil=True)
def _accumulate(hist, row, y, y2, w, criterion):
    if criterion > GINI:
        hist[row, 0] += w
        hist[row, 1] += w * y
        hist[row, 2] += w * y2
    else:
        hist[row, np.int64(y)] += w


@njit(cache=True, nogil=True)
def feature_histogram(codes_f, idx, wi, y, y2, n_bins, n_stats, criterion):
    """Compact histogram of one feature over the samples ``idx``.

    Parameters
    ----------
    codes_f : int32 array (n_samples,)
        Bin code of every training sample for this feature, in ``[0, n_bins)``.
    idx : int64 array (m,)
        The node's sample indices, ``m >= 1``.
    wi : float64 array (m,)
        The weight of each of the node's samples at this node (fractional under C4.5's
        missing-value rule), >= 0.
    y : float64 array, class codes (classification) or targets; y2 : float64 array, the
        second regression statistic per sample (unused for classification).

    Returns
    -------
    bins : int64 array (b,), the bins present, ascending
    counts : float64 array (b, n_stats), the stats of each bin
    n : int64 array (b,), number of samples per bin
    """
    m = idx.shape[0]
    # A dense pass costs O(n_bins) to clear and compact; a sort costs O(m log m).
    if n_bins <= 4 * m + 256:
        dense = np.zeros((n_bins, n_stats))
        dense_n = np.zeros(n_bins, dtype=np.int64)
        for i in range(m):
            s = idx[i]
            b = codes_f[s]
            _accumulate(dense, b, y[s], y2[s], wi[i], criterion)
            dense_n[b] += 1
        n_present = 0
        for b in range(n_bins):
            if dense_n[b] > 0:
                n_present += 1
        bins = np.empty(n_present, dtype=np.int64)
        counts = np.empty((n_present, n_stats))
        n = np.empty(n_present, dtype=np.int64)
        j = 0
        for b in range(n_bins):
            if dense_n[b] > 0:
                bins[j] = b
                n[j] = dense_n[b]
                for k in range(n_stats):
                    counts[j, k] = dense[b, k]
                j += 1
        return bins, counts, n
    local = np.empty(m, dtype=np.int64)
    for i in range(m):
        local[i] = codes_f[idx[i]]
    order = np.argsort(local, kind="mergesort")
    n_present = 0
    prev = -1
    for i in range(m):
        b = local[order[i]]
        if b != prev:
            n_present += 1
            prev = b
    bins = np.empty(n_present, dtype=np.int64)
    counts = np.zeros((n_present, n_stats))
    n = np.zeros(n_present, dtype=np.int64)
    j = -1
    prev = -1
    for i in range(m):
        pos = order[i]
        b = local[pos]
        if b != prev:
            j += 1
            bins[j] = b
            prev = b
        s = idx[pos]
        _accumulate(counts, j, y[s], y2[s], wi[pos], criterion)
        n[j] += 1
    return bins, counts, n
