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
    lo: np.ndarray       # float64, flat: smallest observed value of each numeric bin
    hi: np.ndarray       # float64, flat: largest observed value of each numeric bin
    offsets: np.ndarray  # int64 (p + 1,): feature f's bins are lo/hi[offsets[f]:offsets[f+1]]


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
    edges = []  # numeric: upper edges between bins (codes by searchsorted)
    for j in range(p):
        if is_categorical[j]:
            n_bins[j] = max(len(categories[j]), 1)
            edges.append(np.zeros(0))
        else:
            edges.append(_numeric_edges(X_enc[:, j], max_bins))
            n_bins[j] = len(edges[-1]) + 1
    codes = np.empty((n, p), dtype=code_dtype(int(n_bins.max())), order="F")
    offsets = np.zeros(p + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(np.where(is_categorical, 0, n_bins))
    flat_edges = np.concatenate(edges) if p else np.zeros(0)
    edge_offsets = np.zeros(p + 1, dtype=np.int64)
    edge_offsets[1:] = np.cumsum([len(e) for e in edges])
    lo = np.full(offsets[-1], np.inf)
    hi = np.full(offsets[-1], -np.inf)
    _code_columns(np.asarray(X_enc, dtype=np.float64), np.asarray(is_categorical, bool),
                  n_bins, flat_edges, edge_offsets, offsets, codes, lo, hi)
    return Bins(codes, n_bins, lo, hi, offsets)


def _numeric_edges(col, max_bins):
    """Edges between bins of one numeric column: midpoints of adjacent distinct values."""
    known = col[~np.isnan(col)]
    if max_bins is not None and known.size > _EDGE_SAMPLE:
        # Enough distinct values in a sample settle it: the column needs quantile bins.
        sample = known[np.random.default_rng(0).choice(known.size, _EDGE_SAMPLE,
                                                       replace=False)]
        uniq, counts = np.unique(sample, return_counts=True)
        if uniq.size <= max_bins:
            uniq, counts = np.unique(known, return_counts=True)
    else:
        uniq, counts = np.unique(known, return_counts=True)
    if max_bins is not None and uniq.size > max_bins:
        # Close a bin at the first distinct value whose cumulative count reaches each
        # quantile; a heavy value closes several quantiles at once (fewer, fuller bins).
        cum = np.cumsum(counts)
        targets = cum[-1] * np.arange(1, max_bins) / max_bins
        last = np.unique(np.searchsorted(cum, targets, side="left"))
        last = last[last < uniq.size - 1]
        return _midpoints(uniq[last], uniq[last + 1])
    return _midpoints(uniq[:-1], uniq[1:])


def _midpoints(lo, hi):
    """Midpoints as the split search computes them (scikit-learn's rule)."""
    t = lo / 2.0 + hi / 2.0
    return np.where((t == hi) | np.isinf(t), lo, t)


@njit(cache=True, nogil=True, parallel=True)
def _code_columns(X, is_cat, n_bins, edges, edge_offsets, offsets, codes, lo, hi):
    """Fill ``codes`` column by column (in parallel) and each numeric bin's lo/hi.

    A value goes to the first bin whose upper edge is at or above it (``x <= edge`` goes
    left, as a split does)."""
    n, p = X.shape
    for j in prange(p):
        miss = n_bins[j]
        if is_cat[j]:
            for i in range(n):
                v = X[i, j]
                codes[i, j] = miss if np.isnan(v) else np.int64(v)
            continue
        e = edges[edge_offsets[j]:edge_offsets[j + 1]]
        base = offsets[j]
        for i in range(n):
            v = X[i, j]
            if np.isnan(v):
                codes[i, j] = miss
                continue
            b = np.searchsorted(e, v, side="left")
            codes[i, j] = b
            if v < lo[base + b]:
                lo[base + b] = v
            if v > hi[base + b]:
                hi[base + b] = v
