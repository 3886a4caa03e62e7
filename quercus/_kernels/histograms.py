"""Per-node, per-feature weighted class-count histograms.

A histogram is returned compact: only the bins that hold at least one of the node's
samples, in ascending bin order, with their weighted class counts and sample counts.
"""

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def feature_histogram(codes_f, idx, y, w, n_bins, n_classes):
    """Compact histogram of one feature over the samples ``idx``.

    Parameters
    ----------
    codes_f : int32 array (n_samples,)
        Bin code of every training sample for this feature, in ``[0, n_bins)``.
    idx : int64 array (m,)
        The node's sample indices, ``m >= 1``.
    y : int32 array, class codes in ``[0, n_classes)``; w : float64 array, weights >= 0.

    Returns
    -------
    bins : int64 array (b,), the bins present, ascending
    counts : float64 array (b, n_classes), weighted class counts per bin
    n : int64 array (b,), number of samples per bin
    """
    m = idx.shape[0]
    # A dense pass costs O(n_bins) to clear and compact; a sort costs O(m log m).
    if n_bins <= 4 * m + 256:
        dense = np.zeros((n_bins, n_classes))
        dense_n = np.zeros(n_bins, dtype=np.int64)
        for i in range(m):
            s = idx[i]
            b = codes_f[s]
            dense[b, y[s]] += w[s]
            dense_n[b] += 1
        n_present = 0
        for b in range(n_bins):
            if dense_n[b] > 0:
                n_present += 1
        bins = np.empty(n_present, dtype=np.int64)
        counts = np.empty((n_present, n_classes))
        n = np.empty(n_present, dtype=np.int64)
        j = 0
        for b in range(n_bins):
            if dense_n[b] > 0:
                bins[j] = b
                n[j] = dense_n[b]
                for k in range(n_classes):
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
    counts = np.zeros((n_present, n_classes))
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
        counts[j, y[s]] += w[s]
        n[j] += 1
    return bins, counts, n
