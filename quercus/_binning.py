"""Per-feature bins: exact (one per distinct value) or quantile (``max_bins``).

Every feature's values become small integer codes, one column each (Fortran order), in the
narrowest unsigned type that holds them (uint8 up to 255 bins, uint16 up to 65,535, else
int32); a missing value takes the reserved code ``n_bins[f]``. A numeric bin keeps the
smallest and the largest observed value it holds (``lo``, ``hi``; equal in exact mode), so a
threshold between two bins is the midpoint of two observed values, as the book's T_a is.
"""

from dataclasses import dataclass

import numpy as np
from numba import njit, prange

# Quantile edges are found on a deterministic subsample of this many rows, as LightGBM and
# scikit-learn's histogram trees do; the bins' lo/hi come from every row.
_EDGE_SAMPLE = 200_000


@dataclass
class Bins:
    """Codes of every sample and the observed range of every numeric bin."""

    codes: np.ndarray    # (n, p) uint8 / uint16 / int32, Fortran order
    n_bins: np.ndarray   # int64 (p,)
    range: np.ndarray    # float64 (2, k): smallest (row 0) and largest (row 1) observed
    #                      value of each numeric bin; feature f's at offsets[f]:offsets[f+1]
    offsets: np.ndarray  # int64 (p + 1,)

    @property
    def lo(self):
        return self.range[0]

    @property
    def hi(self):
        return self.range[1]


def code_dtype(max_code):
    """The narrowest code type holding ``0 .. max_code``."""
    if max_code <= np.iinfo(np.uint8).max:
        return np.uint8
    if max_code <= np.iinfo(np.uint16).max:
        return np.uint16
    return np.int32


def bin_features(X_enc, is_categorical, categories, max_bins=None):
    """Bin every column of the encoded matrix.

    Numeric columns with at most ``max_bins`` distinct values (or any, when ``max_bins`` is
    None) get one bin per distinct value; the others get ``max_bins`` bins of about equal
    sample counts, cut between distinct values (a value never spans two bins). Categorical
    columns keep their category codes. Missing (NaN) gets the code ``n_bins[f]``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.5], [0.1], [0.9], [np.nan]])
    >>> b = bin_features(X, np.array([False]), [None])
    >>> b.codes[:, 0].tolist(), b.n_bins.tolist(), b.hi.tolist()
    ([1, 0, 2, 3], [3], [0.1, 0.5, 0.9])
    """
    n, p = X_enc.shape
    n_bins = np.zeros(p, dtype=np.int64)
    # Per numeric feature, what fills its bins' range: the distinct values (exact), the
    # bins' (lo, hi) (quantile bins of known values), or None: measured while coding.
    known = [None] * p
    edges = [np.zeros(0)] * p  # the sampled edges of the others
    track = np.zeros(p, dtype=np.bool_)
    for j in range(p):
        if is_categorical[j]:
            n_bins[j] = max(len(categories[j]), 1)
            continue
        e, uniq = _numeric_edges(X_enc[:, j], max_bins)
        n_bins[j] = len(e) + 1
        if uniq is None:
            track[j], edges[j] = True, e
        else:
            known[j] = uniq if len(uniq) == n_bins[j] else np.vstack(_bin_ranges(uniq, e))
    offsets = np.zeros(p + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(np.where(is_categorical, 0, n_bins))
    # The largest values of known bins are their search edges too (a value's bin is the
    # first whose largest value reaches it).
    bin_range = np.zeros((2, offsets[-1]))
    for j in range(p):
        if known[j] is not None:
            bin_range[:, offsets[j]:offsets[j + 1]] = known[j]
            known[j] = None
    codes = np.empty((n, p), dtype=code_dtype(int(n_bins.max())), order="F")
    # A numeric column whose distinct values are all known is coded from their ranks (one
    # sort, column by column); a binary search per value misses the cache on big columns.
    precoded = ~np.asarray(is_categorical, dtype=np.bool_) & ~track
    for j in np.flatnonzero(precoded):
        _code_by_rank(X_enc[:, j], bin_range[1, offsets[j]:offsets[j + 1]], n_bins[j],
                      codes[:, j])
    track_offsets = np.zeros(p + 1, dtype=np.int64)
    track_offsets[1:] = np.cumsum(np.where(track, n_bins, 0))
    n_chunks = (n + _ROWS - 1) // _ROWS
    code_rows = _code_rows_parallel if n_chunks > 1 else _code_rows
    lo_t, hi_t = code_rows(X_enc, np.asarray(is_categorical, dtype=np.bool_), n_bins,
                           bin_range[1], offsets, _flat(edges), _flat_offsets(edges), codes,
                           track_offsets, n_chunks, precoded)
    lo_t, hi_t = lo_t.min(axis=0), hi_t.max(axis=0)  # min / max: exact in any order
    for j in np.flatnonzero(track):
        bin_range[0, offsets[j]:offsets[j + 1]] = lo_t[track_offsets[j]:track_offsets[j + 1]]
        bin_range[1, offsets[j]:offsets[j + 1]] = hi_t[track_offsets[j]:track_offsets[j + 1]]
    return Bins(codes, n_bins, bin_range, offsets)


# Rows per parallel task of the coding pass (rows are read whole: C-ordered X streams).
_ROWS = 16_384


def _flat(arrays):
    return np.concatenate(arrays) if arrays else np.zeros(0)


def _flat_offsets(arrays):
    offsets = np.zeros(len(arrays) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(a) for a in arrays])
    return offsets


def _code_by_rank(col, hi, n_bins_f, out):
    """Codes of one numeric column whose bins' largest values ``hi`` are known: the bin of
    each distinct value (by rank), spread back to the rows; NaN gets ``n_bins_f``."""
    nan = np.isnan(col)
    known = col[~nan] if nan.any() else col
    uniq, inv = np.unique(known, return_inverse=True)
    # A value's bin is the first whose largest value reaches it.
    which = np.searchsorted(hi, uniq, side="left").astype(out.dtype)
    if nan.any():
        out[nan] = n_bins_f
        out[~nan] = which[inv]
    else:
        out[:] = which[inv]


def _numeric_edges(col, max_bins):
    """Edges between the bins of one numeric column (midpoints of adjacent distinct values),
    and the column's sorted distinct values, or None when the edges come from a sample."""
    known = col[~np.isnan(col)]
    if max_bins is not None and known.size > _EDGE_SAMPLE:
        # Enough distinct values in a sample settle it: the column needs quantile bins.
        sample = known[np.random.default_rng(0).choice(known.size, _EDGE_SAMPLE,
                                                       replace=False)]
        uniq, counts = np.unique(sample, return_counts=True)
        if uniq.size > max_bins:
            return _quantile_edges(uniq, counts, max_bins), None
    uniq, counts = np.unique(known, return_counts=True)
    if max_bins is not None and uniq.size > max_bins:
        return _quantile_edges(uniq, counts, max_bins), uniq
    return _midpoints(uniq[:-1], uniq[1:]), uniq


def _quantile_edges(uniq, counts, max_bins):
    """Close a bin at the first distinct value whose cumulative count reaches each
    quantile; a heavy value closes several quantiles at once (fewer, fuller bins)."""
    cum = np.cumsum(counts)
    targets = cum[-1] * np.arange(1, max_bins) / max_bins
    last = np.unique(np.searchsorted(cum, targets, side="left"))
    last = last[last < uniq.size - 1]
    return _midpoints(uniq[last], uniq[last + 1])


def _bin_ranges(uniq, edges):
    """Smallest and largest distinct value of each bin (bins hold ``x <= edge``)."""
    which = np.searchsorted(edges, uniq, side="left")
    k = np.arange(len(edges) + 1)
    return (uniq[np.searchsorted(which, k, side="left")],
            uniq[np.searchsorted(which, k, side="right") - 1])


def _midpoints(lo, hi):
    """Midpoints as the split search computes them (scikit-learn's rule)."""
    t = lo / 2.0 + hi / 2.0
    return np.where((t == hi) | np.isinf(t), lo, t)


@njit(cache=True, nogil=True)
def _bin_of(edges, start, stop, v):
    """First bin whose upper edge is at or above ``v`` (``x <= edge`` goes left, as a
    split does): a binary search of ``edges[start:stop]``."""
    lo, hi = start, stop
    while lo < hi:
        mid = (lo + hi) >> 1
        if edges[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo - start


@njit(cache=True, nogil=True)
def _code_rows(X, is_cat, n_bins, hi, offsets, edges, edge_offsets, codes, track_offsets,
               n_chunks, precoded):
    """Fill ``codes`` but for the ``precoded`` columns, block of rows by block; return per
    block the smallest and largest value of every tracked bin (features whose edges came
    from a sample)."""
    lo, hi_t = _range_outputs(n_chunks, track_offsets[X.shape[1]])
    for c in range(n_chunks):
        _code_block(c, X, is_cat, n_bins, hi, offsets, edges, edge_offsets, codes,
                    track_offsets, lo, hi_t, precoded)
    return lo, hi_t


@njit(cache=True, nogil=True, parallel=True)
def _code_rows_parallel(X, is_cat, n_bins, hi, offsets, edges, edge_offsets, codes,
                        track_offsets, n_chunks, precoded):
    """:func:`_code_rows` in parallel over the blocks of rows."""
    lo, hi_t = _range_outputs(n_chunks, track_offsets[X.shape[1]])
    for c in prange(n_chunks):
        _code_block(c, X, is_cat, n_bins, hi, offsets, edges, edge_offsets, codes,
                    track_offsets, lo, hi_t, precoded)
    return lo, hi_t


@njit(cache=True, nogil=True)
def _range_outputs(n_chunks, n_track):
    return np.full((n_chunks, n_track), np.inf), np.full((n_chunks, n_track), -np.inf)


@njit(cache=True, nogil=True)
def _code_block(c, X, is_cat, n_bins, hi, offsets, edges, edge_offsets, codes,
                track_offsets, lo_t, hi_t, precoded):
    """Code rows of block ``c``: a tracked feature by its sampled edges (recording its bins'
    ranges), the others by their bins' largest values."""
    n, p = X.shape
    for i in range(c * _ROWS, min(n, (c + 1) * _ROWS)):
        for j in range(p):
            if precoded[j]:
                continue
            v = X[i, j]
            if np.isnan(v):
                codes[i, j] = n_bins[j]
            elif is_cat[j]:
                codes[i, j] = np.int64(v)
            elif track_offsets[j + 1] > track_offsets[j]:
                b = _bin_of(edges, edge_offsets[j], edge_offsets[j + 1], v)
                codes[i, j] = b
                t = track_offsets[j] + b
                lo_t[c, t] = min(lo_t[c, t], v)
                hi_t[c, t] = max(hi_t[c, t], v)
            else:
                codes[i, j] = _bin_of(hi, offsets[j], offsets[j + 1], v)
