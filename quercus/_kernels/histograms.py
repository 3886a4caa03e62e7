"""Per-node, per-feature weighted class-count histograms.

A histogram is returned compact: only the bins that hold at least one of the node's
samples, in ascending bin order, with their weighted class counts and sample counts.
"""

import numpy as np

from ._jit import hot, inner, kernel
from .criteria import is_regression


@inner
def _accumulate(hist, row, y, y2, w, criterion):
    if is_regression(criterion):
        hist[row, 0] += w
        hist[row, 1] += w * y
        hist[row, 2] += w * y2
    else:
        hist[row, np.int64(y)] += w


@kernel(inline="always")
def dense_pass(n_bins, m):
    """Whether a node of ``m`` samples takes a feature's histogram of ``n_bins`` bins (its
    missing bin included) by the dense pass rather than by sorting its samples: clearing
    and compacting cost O(n_bins), a sort O(m log m). Every place that chooses between
    the two (a node's own histogram, the subtree kernel's scratch and presorting, the
    surrogate search, the streamed scan) asks this, so they choose alike.

    Examples
    --------
    >>> bool(dense_pass(296, 10)), bool(dense_pass(297, 10))
    (True, False)
    """
    return n_bins <= 4 * m + 256


@kernel
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
    if dense_pass(n_bins, idx.shape[0]):
        bins = np.empty(n_bins, dtype=np.int64)
        dense = np.empty((n_bins, n_stats))
        dense_n = np.empty(n_bins, dtype=np.int64)
        nb = dense_histogram_into(codes_f, idx, wi, y, y2, n_bins, criterion, bins, dense,
                                  dense_n)
        return bins[:nb], dense[:nb], dense_n[:nb]
    return sorted_histogram(codes_f, sorted_positions(codes_f, idx), idx, wi, y, y2, n_stats,
                            criterion)


@inner
def dense_histogram_into(codes_f, idx, wi, y, y2, n_bins, criterion, bins, dense, dense_n):
    """:func:`feature_histogram`'s dense pass in the caller's scratch (at least ``n_bins``
    rows of ``bins``, ``dense`` and ``dense_n``; ``dense`` as wide as the stats): every
    bin cleared and summed in sample order, then the present ones moved to the front.
    Returns how many bins are present: the histogram is the first that many rows."""
    for b in range(n_bins):
        dense_n[b] = 0
        for k in range(dense.shape[1]):
            dense[b, k] = 0.0
    for i in range(idx.shape[0]):
        s = idx[i]
        b = np.int64(codes_f[s])
        _accumulate(dense, b, y[s], y2[s], wi[i], criterion)
        dense_n[b] += 1
    j = 0
    for b in range(n_bins):
        if dense_n[b] > 0:  # j <= b: a row moves forward, never over one still to read
            bins[j] = b
            dense_n[j] = dense_n[b]
            for k in range(dense.shape[1]):
                dense[j, k] = dense[b, k]
            j += 1
    return j


@kernel
def class_totals(y, wi, n_stats):
    """The weight of each class over all samples (``y``: class codes as floats), summed in
    sample order: ``np.bincount(y.astype(np.int64), weights=wi, minlength=n_stats)``
    without its copy of the labels (8 bytes a sample).

    Examples
    --------
    >>> import numpy as np
    >>> class_totals(np.array([1.0, 0.0, 1.0]), np.array([0.5, 1.0, 2.0]), 3).tolist()
    [1.0, 2.5, 0.0]
    """
    out = np.zeros(n_stats)
    for i in range(y.shape[0]):
        out[np.int64(y[i])] += wi[i]
    return out


@inner
def known_and_missing_totals(codes_f, idx, wi, y, y2, missing_code, n_stats, criterion):
    """The stats of the node's samples ``idx`` whose code is known (row 0) and missing
    (row 1, code ``missing_code``), summed in sample order, and how many of each."""
    sums = np.zeros((2, n_stats))
    n_known = np.int64(0)
    for i in range(idx.shape[0]):
        s = idx[i]
        missing = np.int64(codes_f[s]) == missing_code
        _accumulate(sums, 1 if missing else 0, y[s], y2[s], wi[i], criterion)
        n_known += 0 if missing else 1
    return sums, n_known, idx.shape[0] - n_known


@kernel
def slice_positions(codes_f, idx, shift, n_slices):
    """The node's sample positions ``0..m-1`` grouped by slice of ``2**shift`` codes (slice
    ``s``: codes ``s << shift ..``; ``n_slices`` of them cover every code), in position
    order within a slice, and where each slice's run starts (``starts[s]..starts[s + 1]``):
    :func:`slice_histogram` then reads only a slice's own samples. int32 positions: 4 bytes
    a sample."""
    m = idx.shape[0]
    starts = np.zeros(n_slices + 1, dtype=np.int64)
    for i in range(m):
        starts[(np.int64(codes_f[idx[i]]) >> shift) + 1] += 1
    for s in range(n_slices):
        starts[s + 1] += starts[s]
    fill = starts[:n_slices].copy()
    pos = np.empty(m, dtype=np.int32)
    for i in range(m):
        s = np.int64(codes_f[idx[i]]) >> shift
        pos[fill[s]] = i
        fill[s] += 1
    return pos, starts


@inner
def slice_histogram(codes_f, idx, wi, y, y2, pos, c0, dense, dense_n, criterion):
    """Dense histogram of the codes ``c0 .. c0 + len(dense_n) - 1`` over the node's samples
    at positions ``pos`` (in position order: :func:`slice_positions`' run of that slice),
    added into ``dense`` / ``dense_n``, which are zero on entry (the caller clears each bin
    it has read, rather than the whole slice): each bin summed in sample order, as
    :func:`feature_histogram`'s dense pass does (``splits.stream_numeric`` scores a
    feature slice by slice from it)."""
    for j in range(pos.shape[0]):
        i = pos[j]
        s = idx[i]
        b = np.int64(codes_f[s]) - c0
        _accumulate(dense, b, y[s], y2[s], wi[i], criterion)
        dense_n[b] += 1


@kernel
def sorted_positions(codes_f, idx):
    """Positions ``0..m-1`` of the samples ``idx`` ordered by code, ties in position order.

    A stable sort written out (insertion sort for a few samples, else a byte-wise LSD radix
    sort of the codes): numba's own sorts would add their compile to a cold cache's, and
    the radix passes are linear in ``m``."""
    m = idx.shape[0]
    key = np.empty(m, dtype=np.int64)
    out = np.empty(m, dtype=np.int32)
    top = np.int64(0)
    for i in range(m):
        key[i] = np.int64(codes_f[idx[i]])
        out[i] = i
        top = max(top, key[i])
    if m <= 32:
        for i in range(1, m):
            k = key[i]
            pos = out[i]
            j = i - 1
            while j >= 0 and key[j] > k:
                key[j + 1] = key[j]
                out[j + 1] = out[j]
                j -= 1
            key[j + 1] = k
            out[j + 1] = pos
        return out
    key2 = np.empty(m, dtype=np.int64)
    out2 = np.empty(m, dtype=np.int32)
    start = np.empty(257, dtype=np.int64)
    shift = 0
    while (top >> shift) > 0:
        start[:] = 0
        for i in range(m):
            start[((key[i] >> shift) & 255) + 1] += 1
        for d in range(256):
            start[d + 1] += start[d]
        for i in range(m):
            d = (key[i] >> shift) & 255
            key2[start[d]] = key[i]
            out2[start[d]] = out[i]
            start[d] += 1
        key, key2 = key2, key
        out, out2 = out2, out
        shift += 8
    return out


@inner
def sorted_histogram(codes_f, order, idx, wi, y, y2, n_stats, criterion):
    """:func:`feature_histogram`'s compact histogram from the positions ``order`` of the
    samples ``idx`` already sorted by code (no sort; each bin summed in position order)."""
    m = order.shape[0]
    n_present = 0
    prev = -1
    for i in range(m):
        b = np.int64(codes_f[idx[order[i]]])
        if b != prev:
            n_present += 1
            prev = b
    bins = np.empty(n_present, dtype=np.int64)
    counts = np.empty((n_present, n_stats))
    n = np.empty(n_present, dtype=np.int64)
    sorted_histogram_into(codes_f, order, idx, wi, y, y2, criterion, bins, counts, n)
    return bins, counts, n


@hot
def sorted_histogram_into(codes_f, order, idx, wi, y, y2, criterion, bins, counts, n,
                          keep=None, total=None, missing_code=-1):
    """:func:`sorted_histogram` written into the caller's scratch (``bins``, ``counts``,
    ``n``: at least as many rows as the node has samples), in one pass. Returns how many
    bins are present: the histogram is the first that many rows, the same sums.
    ``keep``: only the samples at positions ``pos`` with ``keep[pos] >= 0`` (None: every
    one, and the test is not compiled). ``total``: also written, the stats of every bin
    but the missing one (code ``missing_code``), each bin added as it closes, in bin
    order: ``splits._totals``' sums of the known bins, the same bits, without a pass over
    the bins (None: not compiled)."""
    # (Two loops, not one with a regression flag tested inside it: that one made the
    # subtree kernel slower as a whole.)
    if is_regression(criterion):
        return _sorted_sums_into(codes_f, order, idx, wi, y, y2, bins, counts, n, keep, total,
                                 missing_code)
    if counts.shape[1] == 2:
        return _sorted_pairs_into(codes_f, order, idx, wi, y, bins, counts, n, keep, total,
                                  missing_code)
    j = -1
    prev = np.int64(-1)
    if total is not None:
        for k in range(counts.shape[1]):
            total[k] = 0.0
    for i in range(order.shape[0]):
        pos = order[i]
        if keep is not None:
            if keep[pos] < 0:
                continue
        s = idx[pos]
        b = np.int64(codes_f[s])
        if b != prev:
            if total is not None and j >= 0:
                _add_row(total, counts, j)
            j += 1
            bins[j] = b
            prev = b
            n[j] = 0
            for k in range(counts.shape[1]):
                counts[j, k] = 0.0
        _accumulate(counts, j, y[s], y2[s], wi[pos], criterion)
        n[j] += 1
    if total is not None and j >= 0 and prev != missing_code:
        _add_row(total, counts, j)
    return j + 1


@hot
def _sorted_sums_into(codes_f, order, idx, wi, y, y2, bins, counts, n, keep, total,
                      missing_code):
    """:func:`sorted_histogram_into` for regression sums (weight, w*y, w*y^2): a bin's
    sums are kept in scalars while it is open and written when it closes. The same
    additions in the same order as the row-by-row ``counts[j, k] +=``, so the same bits,
    without each row's add waiting on the store of the row before."""
    j = -1
    prev = np.int64(-1)
    t0 = t1 = t2 = 0.0
    c0 = c1 = c2 = 0.0
    n_j = np.int64(0)
    for i in range(order.shape[0]):
        pos = order[i]
        if keep is not None:
            if keep[pos] < 0:
                continue
        s = idx[pos]
        b = np.int64(codes_f[s])
        if b != prev:
            if j >= 0:
                counts[j, 0] = c0
                counts[j, 1] = c1
                counts[j, 2] = c2
                n[j] = n_j
                t0 += c0
                t1 += c1
                t2 += c2
            j += 1
            bins[j] = b
            prev = b
            c0 = c1 = c2 = 0.0
            n_j = 0
        w = wi[pos]
        c0 += w
        c1 += w * y[s]
        c2 += w * y2[s]
        n_j += 1
    if j >= 0:
        counts[j, 0] = c0
        counts[j, 1] = c1
        counts[j, 2] = c2
        n[j] = n_j
        if prev != missing_code:
            t0 += c0
            t1 += c1
            t2 += c2
    if total is not None:
        total[0] = t0
        total[1] = t1
        total[2] = t2
    return j + 1


@hot
def _sorted_pairs_into(codes_f, order, idx, wi, y, bins, counts, n, keep, total,
                       missing_code):
    """:func:`sorted_histogram_into` for two classes (``y`` 0 or 1: a two-class target,
    or the surrogate search's primary directions), an open bin's two weights in scalars.
    ``w * (1 - y)`` and ``w * y`` are ``w`` and 0.0 exactly, and adding 0.0 to a weight
    leaves it as it is, so the same bits as ``counts[j, y] += w``, without a branch on a
    class that follows no pattern along a feature's order."""
    j = -1
    prev = np.int64(-1)
    t0 = t1 = 0.0
    c0 = c1 = 0.0
    n_j = np.int64(0)
    for i in range(order.shape[0]):
        pos = order[i]
        if keep is not None:
            if keep[pos] < 0:
                continue
        s = idx[pos]
        b = np.int64(codes_f[s])
        if b != prev:
            if j >= 0:
                counts[j, 0] = c0
                counts[j, 1] = c1
                n[j] = n_j
                t0 += c0
                t1 += c1
            j += 1
            bins[j] = b
            prev = b
            c0 = c1 = 0.0
            n_j = 0
        w = wi[pos]
        yv = y[s]
        c0 += w * (1.0 - yv)
        c1 += w * yv
        n_j += 1
    if j >= 0:
        counts[j, 0] = c0
        counts[j, 1] = c1
        n[j] = n_j
        if prev != missing_code:
            t0 += c0
            t1 += c1
    if total is not None:
        total[0] = t0
        total[1] = t1
    return j + 1


@kernel(inline="always")
def _add_row(total, counts, j):
    for k in range(counts.shape[1]):
        total[k] += counts[j, k]


@inner
def compact_histogram(dense, dense_n):
    """The compact form (bins present, their stats and counts) of one feature's dense
    histogram ``dense[bin, stat]`` with sample counts ``dense_n[bin]``."""
    n_present = _n_present(dense_n)
    bins = np.empty(n_present, dtype=np.int64)
    counts = np.empty((n_present, dense.shape[1]))
    n = np.empty(n_present, dtype=np.int64)
    compact_histogram_into(dense, dense_n, bins, counts, n)
    return bins, counts, n


@inner
def compact_histogram_into(dense, dense_n, bins, counts, n):
    """:func:`compact_histogram` written into the caller's ``bins``, ``counts`` and ``n``
    (room for every present bin); returns how many bins are present."""
    nb, n_stats = dense.shape
    j = 0
    for b in range(nb):
        if dense_n[b] > 0:
            bins[j] = b
            n[j] = dense_n[b]
            for k in range(n_stats):
                counts[j, k] = dense[b, k]
            j += 1
    return j


@kernel(inline="always")
def _n_present(dense_n):
    """How many bins of a dense histogram hold samples."""
    n_present = 0
    for b in range(dense_n.shape[0]):
        if dense_n[b] > 0:
            n_present += 1
    return n_present


@kernel
def build_histograms(codes, features, hist_offsets, idx, wi, y, y2, n_stats, criterion):
    """Dense histograms of ``features`` over the samples ``idx`` (weights ``wi``).

    Feature ``f``'s bins (its missing bin last) are rows ``hist_offsets[f]`` to
    ``hist_offsets[f + 1]`` of the returned ``hist`` (float64, (total, n_stats)) and
    ``hist_n`` (int64 sample counts); rows of features not listed stay zero.
    """
    total = hist_offsets[hist_offsets.shape[0] - 1]
    hist = np.zeros((total, n_stats))
    hist_n = np.zeros(total, dtype=np.int64)
    fill_histograms(hist, hist_n, codes, features, hist_offsets, idx, wi, y, y2, criterion)
    return hist, hist_n


@kernel
def fill_histograms(hist, hist_n, codes, features, hist_offsets, idx, wi, y, y2, criterion):
    """Add the samples ``idx`` to the rows of ``features`` in ``hist`` / ``hist_n`` (as
    :func:`build_histograms` lays them out). Each feature is summed in sample order, and
    features own disjoint rows: threads may fill different features of the same arrays
    (``quercus._threads``) and the sums do not depend on how many there are."""
    for j in range(features.shape[0]):
        _dense_into(hist, hist_n, codes[:, features[j]], hist_offsets[features[j]], idx, wi,
                    y, y2, criterion)


@inner
def _dense_into(hist, hist_n, col, off, idx, wi, y, y2, criterion):
    """Add one feature's samples to its rows ``off..`` of the dense histograms."""
    for i in range(idx.shape[0]):
        s = idx[i]
        row = off + np.int64(col[s])
        _accumulate(hist, row, y[s], y2[s], wi[i], criterion)
        hist_n[row] += 1


@kernel
def subtract_histograms(hist, hist_n, minus, minus_n):
    """``hist - minus`` written into ``hist`` / ``hist_n`` (a parent's histograms, which
    its split no longer needs, become its largest child's without reading that child's
    samples, and no third set is held per split). Sample counts subtract exactly; a
    weight left where no sample is (rounding) is cleared so that empty bins stay empty.
    Returns (hist, hist_n), the same arrays. Both growers subtract with it.

    Examples
    --------
    >>> import numpy as np
    >>> hist, hist_n = np.array([[3.0, 1.0], [0.5, 0.0]]), np.array([4, 1])
    >>> out, out_n = subtract_histograms(hist, hist_n, np.array([[1.0, 1.0], [0.5, 0.0]]),
    ...                                  np.array([2, 1]))
    >>> out.tolist(), out_n.tolist(), out is hist
    ([[2.0, 0.0], [0.0, 0.0]], [2, 0], True)
    """
    for r in range(hist.shape[0]):
        hist_n[r] -= minus_n[r]
        for k in range(hist.shape[1]):
            hist[r, k] = 0.0 if hist_n[r] == 0 else hist[r, k] - minus[r, k]
    return hist, hist_n
