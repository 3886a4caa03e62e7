"""Per-feature bins: exact (one per distinct value) or quantile (``max_bins``).

Every feature's values become small integer codes, one column each (Fortran order), in the
narrowest unsigned type that holds them (uint8 up to 255 bins, uint16 up to 65,535, else
int32); a missing value takes the reserved code ``n_bins[f]``. A numeric bin keeps the
smallest and the largest observed value it holds (``lo``, ``hi``; equal in exact mode), so a
threshold between two bins is the midpoint of two observed values, as the book's T_a is.
"""

from dataclasses import dataclass

import numba
import numpy as np
from numba import prange

from ._kernels._jit import inner, kernel, read_only
from ._threads import over_features

# Quantile edges are found on a deterministic subsample of this many rows, as LightGBM and
# scikit-learn's histogram trees do; the bins' lo/hi come from every row.
_EDGE_SAMPLE = 200_000
# Exact numeric features with more distinct values than this keep no value table when the
# fit can read the training matrix (``lazy``): below it the table is small.
LAZY_MIN_VALUES = 4096


# Bins.take_rows copies at most this many cells through numpy's whole-matrix take (its
# C-ordered copies are small there), and a column at a time above.
TAKE_WHOLE_MAX_CELLS = 1 << 16


@dataclass
class Bins:
    """Codes of every sample and the observed range of every numeric bin."""

    codes: np.ndarray    # (n, p) uint8 / uint16 / int32, Fortran order
    n_bins: np.ndarray   # int64 (p,)
    lo: np.ndarray       # float64 (k,): smallest observed value of each numeric bin,
    #                      feature f's at offsets[f]:offsets[f+1]
    hi: np.ndarray       # float64 (k,): largest; the same array as lo when every bin is exact
    offsets: np.ndarray  # int64 (p + 1,)
    # The matrix the lazy features' values are read from (None: no lazy feature), and the
    # row of it of each sample (None: the same row).
    source: np.ndarray = None
    source_rows: np.ndarray = None

    @property
    def exact(self):
        """Whether every numeric bin holds one distinct value (no quantile bins)."""
        return self.lo is self.hi

    def take_rows(self, rows):
        """The bins of a subset of the rows (an index array), coded as before.

        With :attr:`exact` bins this is what binning those rows alone would give, up to
        the bins of values they lack, which stay empty: a node's split search only sees the
        bins present among its rows, and a threshold is the midpoint of the two observed
        values around it, so a tree grown on either is the same (cross-validation folds
        are grown so, without binning their rows again).

        Examples
        --------
        >>> import numpy as np
        >>> b = bin_features(np.array([[0.5], [0.1], [0.9]]), np.array([False]), [None])
        >>> b.take_rows(np.array([2, 0])).codes[:, 0].tolist()
        [2, 1]
        """
        codes = np.empty((len(rows), self.codes.shape[1]), dtype=self.codes.dtype, order="F")
        # ("clip": every row is a valid index.) numpy takes from a whole matrix through
        # C-ordered copies of it and of the Fortran-ordered result, on every fold's thread
        # at once; a column at a time makes none, for a call per column.
        if codes.size <= TAKE_WHOLE_MAX_CELLS:
            np.take(self.codes, rows, axis=0, out=codes, mode="clip")
        else:
            for j in range(codes.shape[1]):
                np.take(self.codes[:, j], rows, out=codes[:, j], mode="clip")
        source_rows = None
        if self.source is not None:
            rows = np.asarray(rows, dtype=np.int64)
            source_rows = rows if self.source_rows is None else self.source_rows[rows]
        return Bins(codes, self.n_bins, self.lo, self.hi, self.offsets, self.source,
                    source_rows)


def can_read_values(X):
    """Whether a fit may read lazy features' values from ``X`` itself: a writable,
    contiguous float64 or float32 matrix (the kernels take its buffer as it is).

    Examples
    --------
    >>> import numpy as np
    >>> can_read_values(np.zeros((3, 2))), can_read_values(np.zeros((3, 2))[:, :1])
    (True, False)
    >>> can_read_values(np.zeros((3, 2), dtype=np.float32))
    True
    """
    return (isinstance(X, np.ndarray) and X.dtype in (np.float64, np.float32) and X.ndim == 2
            and X.flags.writeable and (X.flags.c_contiguous or X.flags.f_contiguous))


def lazy_features(is_cat, n_bins, offsets):
    """Numeric features with fewer values in the table than bins: their values are read
    from the training matrix (``bin_features(..., lazy=True)``).

    Examples
    --------
    >>> import numpy as np
    >>> lazy_features(np.array([False, True, False]), np.array([3, 2, 5]),
    ...               np.array([0, 3, 3, 3])).tolist()
    [2]
    """
    sizes = np.diff(offsets)
    return np.flatnonzero(~np.asarray(is_cat, dtype=bool) & (sizes < n_bins))


def code_dtype(max_code):
    """The narrowest code type holding ``0 .. max_code``."""
    if max_code <= np.iinfo(np.uint8).max:
        return np.uint8
    if max_code <= np.iinfo(np.uint16).max:
        return np.uint16
    return np.int32


def bin_features(X_enc, is_categorical, categories, max_bins=None, lazy=False):
    """Bin every column of the encoded matrix.

    Numeric columns with at most ``max_bins`` distinct values (or any, when ``max_bins`` is
    None) get one bin per distinct value; the others get ``max_bins`` bins of about equal
    sample counts, cut between distinct values (a value never spans two bins). Categorical
    columns keep their category codes. Missing (NaN) gets the code ``n_bins[f]``.
    With ``lazy``, exact columns of more than ``LAZY_MIN_VALUES`` distinct values keep no
    value table (the caller keeps ``X_enc`` for the thresholds).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.5], [0.1], [0.9], [np.nan]])
    >>> b = bin_features(X, np.array([False]), [None])
    >>> b.codes[:, 0].tolist(), b.n_bins.tolist(), b.hi.tolist()
    ([1, 0, 2, 3], [3], [0.1, 0.5, 0.9])
    """
    n, p = X_enc.shape
    is_cat = np.asarray(is_categorical, dtype=np.bool_)
    n_bins = np.zeros(p, dtype=np.int64)
    for j in np.flatnonzero(is_cat):
        n_bins[j] = max(len(categories[j]), 1)
    small = _small_exact(X_enc, is_cat, n_bins, max_bins)
    if small is not None:
        return small
    numeric = np.flatnonzero(~is_cat)
    # Codes start as narrow as the categories allow and widen (at most twice, copying the
    # columns coded so far) when a numeric column has more bins.
    codes = np.empty((n, p), dtype=code_dtype(int(n_bins.max(initial=0))), order="F")
    # Columns whose quantile edges come from a sample are coded afterwards, in parallel over
    # rows, measuring their bins' ranges on the way.
    track = np.zeros(p, dtype=np.bool_)
    edges = [np.zeros(0)] * p
    threads = _threads_for(n, numeric.size, max_bins, codes.dtype)
    if threads > 1:
        values, lo_parts, offsets = _bin_on_threads(X_enc, numeric, max_bins, lazy, codes,
                                                    n_bins, track, edges, threads)
    else:
        codes, values, lo_parts, offsets = _bin_in_order(X_enc, numeric, max_bins, lazy,
                                                         codes, n_bins, track, edges)
    if track.any() or (is_cat.any() and n > 0):
        n_track = np.zeros(p + 1, dtype=np.int64)  # offsets of the tracked bins' ranges
        n_track[1:] = np.cumsum(np.where(track, n_bins, 0))
        n_chunks = (n + _ROWS - 1) // _ROWS
        code_rows = _code_rows_parallel if n_chunks > 1 else _code_rows
        lo_t, hi_t = code_rows(read_only(X_enc), is_cat | track, is_cat, n_bins,
                               _flat(edges), _flat_offsets(edges), codes, n_track, n_chunks)
        lo_t, hi_t = lo_t.min(axis=0), hi_t.max(axis=0)  # min / max: exact in any order
        for j in np.flatnonzero(track):
            values[offsets[j]:offsets[j + 1]] = hi_t[n_track[j]:n_track[j + 1]]
            lo_parts[offsets[j]] = lo_t[n_track[j]:n_track[j + 1]]
    lows = bin_lows(values, lo_parts)
    # (Only a lazy binning leaves a column without its table.)
    lazy_made = lazy and lazy_features(is_cat, n_bins, offsets).size > 0
    return Bins(codes, n_bins, lows, values, offsets, X_enc if lazy_made else None)


# Below this many cells of numeric columns binning stays on one thread: handing columns to
# another costs more than it saves.
THREADS_MIN_CELLS = 100_000


def _threads_for(n, n_numeric, max_bins, code_type):
    """Threads to bin ``n_numeric`` columns of ``n`` rows on: the fit's (numba's setting)
    when the code type cannot change, else one. Histogram bins (``max_bins``) whose codes
    fit the type the categories already need never widen it, so every column can be
    written where it lies, by any thread; exact bins may widen it part way, and their
    tables (up to a row a value) are laid out in column order as they come."""
    if max_bins is None or max_bins > np.iinfo(code_type).max:
        return 1
    if n * n_numeric < THREADS_MIN_CELLS:
        return 1
    return min(numba.get_num_threads(), n_numeric)


# A table of at most this many rows and cells whose every numeric column gets exact bins is
# binned by one kernel call (:func:`_small_exact`): column by column, and by whole-matrix
# NumPy calls, the calls were most of binning a small table. (Bigger tables keep the column
# path, as they did when the whole-matrix calls had these limits.)
SMALL_EXACT_MAX_ROWS = 1024
SMALL_EXACT_MAX_CELLS = 200_000


def _small_exact(X_enc, is_cat, n_bins, max_bins):
    """:func:`bin_features`' Bins of a small table whose every numeric column gets one bin
    per distinct value, from one kernel call (:func:`_exact_bins`): the NumPy calls of
    the other paths, a few microseconds each, were most of binning a table of a few
    dozen rows. None when that does not apply: too many rows or cells, more rows than
    ``max_bins``, or a -0.0 in a numeric column (its column's own sort decides which zero
    its bin keeps). ``n_bins`` holds the categorical columns' counts; the numeric ones'
    are written. (Every column keeps its value table: a lazy one needs more than
    ``LAZY_MIN_VALUES`` values.)"""
    n, p = X_enc.shape
    if (n > SMALL_EXACT_MAX_ROWS or n * p > SMALL_EXACT_MAX_CELLS
            or (max_bins is not None and n > max_bins)):
        return None
    codes, values, offsets, ok = _exact_bins(read_only(X_enc), is_cat, n_bins)
    if not ok:
        return None
    numeric = ~is_cat
    n_bins[numeric] = np.diff(offsets)[numeric]  # (a numeric column's values: its bins)
    codes = codes.astype(code_dtype(int(n_bins.max(initial=0))), order="F")
    return Bins(codes, n_bins, values, values, offsets)


@kernel
def _exact_bins(X, is_cat, n_bins):
    """(codes, values, offsets, ok) of exact bins: each numeric column's distinct known
    values in order (its part of ``values``, ``offsets[j]`` to ``offsets[j + 1]``) and
    every row's rank among them, a categorical column's codes as they are; a missing
    value gets the code of the bin after the last (``n_bins[j]`` for a categorical
    column, read only). ``codes``: int32, Fortran order. Not ok (and the rest
    unfinished) when a numeric column holds a -0.0."""
    n, p = X.shape
    codes_t = np.empty((p, n), dtype=np.int32)  # (transposed: the codes in Fortran order)
    values = np.empty(n * p)
    offsets = np.zeros(p + 1, dtype=np.int64)
    known = np.empty(n, dtype=np.int64)
    col = np.empty(n)
    k = 0
    for j in range(p):
        if is_cat[j]:
            for i in range(n):
                v = X[i, j]
                codes_t[j, i] = n_bins[j] if np.isnan(v) else np.int64(v)
            offsets[j + 1] = k
            continue
        m = 0
        for i in range(n):
            v = X[i, j]
            if np.isnan(v):
                continue
            if v == 0.0 and np.signbit(v):
                return codes_t.T, values, offsets, False
            known[m] = i
            col[m] = v
            m += 1
        order = np.argsort(col[:m])
        n_distinct = 0
        for r in range(m):
            v = col[order[r]]
            if n_distinct == 0 or v != values[k + n_distinct - 1]:
                values[k + n_distinct] = v
                n_distinct += 1
            codes_t[j, known[order[r]]] = n_distinct - 1
        for i in range(n):
            if np.isnan(X[i, j]):
                codes_t[j, i] = n_distinct
        k += n_distinct
        offsets[j + 1] = k
    return codes_t.T, values[:k].copy(), offsets, True


def _column_bins(col, max_bins, lazy, scratch):
    """The bins of numeric column ``col``: its quantile edges when they come from a sample
    (the column is coded afterwards, with the categories), else (the column ranked, its
    number of bins, its bins' smallest and largest values, and ``lut`` (rank -> code; empty
    for the rank itself)). Exact bins have one array for both ends (empty: no value table,
    ``lazy``). ``scratch``: see :class:`SortedColumn`."""
    sampled = _sampled_edges(col, max_bins)
    if sampled is not None:
        return sampled
    ranked = SortedColumn(col, scratch)
    quantile = max_bins is not None and ranked.n_distinct > max_bins
    table = quantile or not (lazy and ranked.n_distinct > LAZY_MIN_VALUES)
    uniq, counts = ranked.distinct(counts=quantile) if table else (None, None)
    lut = np.zeros(0, dtype=np.int64)  # rank -> code: none, the rank itself
    if quantile:
        e = _quantile_edges(uniq, counts, max_bins)
        lut = np.searchsorted(e, uniq, side="left")  # bins hold x <= edge
        lo, hi = _bin_ranges(uniq, lut, len(e) + 1)
    elif table:
        lo = hi = uniq
    else:
        lo = hi = np.zeros(0)  # read from X_enc when a split needs them
    return ranked, len(hi) if quantile else ranked.n_distinct, lo, hi, lut


def _bin_in_order(X_enc, numeric, max_bins, lazy, codes, n_bins, track, edges):
    """Bin the ``numeric`` columns one after the other, widening ``codes`` when a column
    needs it and writing ``n_bins``, ``track`` and ``edges`` in place. Returns (the codes,
    the value table, the quantile bins' smallest values (start in it -> values), the
    features' offsets in it)."""
    n, p = X_enc.shape
    # Exact bins need every distinct value: at most n per column, so the values go into a
    # buffer of that bound whose unwritten pages never become resident, shrunk in place at
    # the end (a list of per-column arrays joined at the end would hold them twice).
    values = np.empty(n * len(numeric) if max_bins is None else (max_bins + 1) * len(numeric))
    lo_parts = {}
    offsets = np.zeros(p + 1, dtype=np.int64)
    is_numeric = np.zeros(p, dtype=np.bool_)
    is_numeric[numeric] = True
    written = []  # the columns coded so far (the others are coded after binning)
    scratch = None  # one column's values in sort order, reused by every column
    for j in range(p):
        offsets[j + 1] = offsets[j]
        if not is_numeric[j]:
            continue
        if scratch is None:
            scratch = np.empty(n)  # (its pages take memory only once a column is copied)
        found = _column_bins(X_enc[:, j], max_bins, lazy, scratch)
        if isinstance(found, np.ndarray):  # quantile edges from a sample
            track[j], edges[j] = True, found
            n_bins[j] = len(found) + 1
            offsets[j + 1] += n_bins[j]
            if n_bins[j] > np.iinfo(codes.dtype).max:  # (coded after binning)
                codes = widen_codes(codes, n_bins[j], written)
            continue
        ranked, n_bins[j], lo, hi, lut = found
        if n_bins[j] > np.iinfo(codes.dtype).max:
            codes = widen_codes(codes, n_bins[j], written)
        values[offsets[j]:offsets[j] + len(hi)] = hi
        if lo is not hi:
            lo_parts[offsets[j]] = lo
        offsets[j + 1] += len(hi)
        ranked.write_codes(codes[:, j], lut, n_bins[j])
        written.append(j)
        del ranked, found, lut
    # Keep only the written part (a mmapped buffer shrinks without a copy).
    values.resize(offsets[-1], refcheck=False)
    return codes, values, lo_parts, offsets


def _bin_on_threads(X_enc, numeric, max_bins, lazy, codes, n_bins, track, edges, threads):
    """Bin the ``numeric`` columns on ``threads`` threads, each column whole by one thread
    (so the bins are those of one thread), writing ``codes`` (whose type holds every code:
    see :func:`_threads_for`), ``n_bins``, ``track`` and ``edges`` in place. Returns the
    value table, the quantile bins' smallest values (start in it -> values) and the
    features' offsets in it, in column order, as the serial loop lays them out."""
    n, p = X_enc.shape
    his = [np.zeros(0)] * p
    los = [None] * p

    def run(positions):
        scratch = np.empty(n)  # this thread's (pages taken only once a column is copied)
        for k in positions:
            j = numeric[k]
            found = _column_bins(X_enc[:, j], max_bins, lazy, scratch)
            if isinstance(found, np.ndarray):
                track[j], edges[j], n_bins[j] = True, found, len(found) + 1
                continue
            ranked, n_bins[j], lo, hi, lut = found
            ranked.write_codes(codes[:, j], lut, n_bins[j])
            his[j] = hi
            if lo is not hi:
                los[j] = lo

    over_features(run, numeric.size, threads)
    offsets = np.zeros(p + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([n_bins[j] if track[j] else his[j].size for j in range(p)])
    values = np.zeros(offsets[-1])
    lo_parts = {}
    for j in numeric:
        if not track[j]:
            values[offsets[j]:offsets[j + 1]] = his[j]
        if los[j] is not None:
            lo_parts[offsets[j]] = los[j]
    return values, lo_parts, offsets


def bin_lows(hi, lo_parts):
    """The bins' smallest values (``Bins.lo``) given their largest (``hi``): ``hi`` itself
    when every bin is exact, else a copy of it (at most max_bins values a column) with
    each quantile column's smallest values written at its start in ``hi``
    (``lo_parts``: start -> values).

    Examples
    --------
    >>> import numpy as np
    >>> hi = np.array([1.0, 2.0, 5.0, 9.0])
    >>> bin_lows(hi, {}) is hi, bin_lows(hi, {2: np.array([3.0, 6.0])}).tolist()
    (True, [1.0, 2.0, 3.0, 6.0])
    """
    if not lo_parts:
        return hi
    lo = hi.copy()
    for start, part in lo_parts.items():
        lo[start:start + part.size] = part
    return lo


class SortedColumn:
    """A numeric column's sort order, from which its distinct values and every row's code
    are read (``np.unique(..., return_inverse=True)`` of the known values) without making
    the sorted values or the ranks. A column with missing values, or one that is not
    contiguous, is copied into ``scratch`` (float64, at least the column's length, reused
    column after column; a C-ordered matrix's column is a row apart, and gathering from it
    would miss the cache at every read). A missing value becomes +inf there, to sort last:
    sorting NaNs is slower, and the bins hold no infinity (it is refused). Only the sort
    order (8 bytes a row) is made per column.
    At the end of binning this sits on top of the whole code matrix, which is why it keeps
    no ``np.unique``-style ranks (sort order, sorted values and ranks, each a row long).

    Examples
    --------
    >>> import numpy as np
    >>> col = SortedColumn(np.array([0.5, np.nan, 0.1, 0.5]), np.empty(4))
    >>> col.n_distinct, col.distinct()[0].tolist()
    (2, [0.1, 0.5])
    >>> codes = np.empty(4, dtype=np.uint8)
    >>> col.write_codes(codes, np.zeros(0, dtype=np.int64), 2)
    >>> codes.tolist()
    [1, 2, 0, 1]
    """

    def __init__(self, col, scratch):
        n = col.size
        nan = np.isnan(col)
        n_nan = int(np.count_nonzero(nan))
        values = col
        if n_nan or not col.flags.c_contiguous:
            values = scratch[:n]
            np.copyto(values, col)
            values[nan] = np.inf
        del nan
        # (Read-only either way: the kernels are compiled for one array type.)
        self.values = read_only(values)
        self.known = n - n_nan
        self.order = np.argsort(self.values)
        self.n_distinct = _count_distinct(self.values, self.order, self.known)

    def distinct(self, counts=False):
        """The distinct known values, ascending, and their counts (an empty array unless
        ``counts``)."""
        return _distinct_values(self.values, self.order, self.known, self.n_distinct, counts)

    def write_codes(self, out, lut, missing):
        """Write every row's code into ``out`` (any integer type): ``lut[rank]`` for a known
        value (its rank itself when ``lut`` is empty), ``missing`` for a missing one."""
        _write_codes(self.values, self.order, self.known, lut, missing, out)


@kernel
def _count_distinct(values, order, known):
    """Distinct values among ``values[order[:known]]`` (ascending)."""
    u = 0
    prev = 0.0
    for i in range(known):
        v = values[order[i]]
        if u == 0 or v != prev:
            u += 1
            prev = v
    return u


@kernel
def _distinct_values(values, order, known, n_distinct, with_counts):
    """The ``n_distinct`` distinct values of ``values[order[:known]]`` (ascending) and,
    ``with_counts``, how many rows hold each."""
    uniq = np.empty(n_distinct)
    counts = np.zeros(n_distinct if with_counts else 0, dtype=np.int64)
    r = -1
    for i in range(known):
        v = values[order[i]]
        if r < 0 or v != uniq[r]:
            r += 1
            uniq[r] = v
        if with_counts:
            counts[r] += 1
    return uniq, counts


@kernel
def _write_codes(values, order, known, lut, missing, out):
    """``out[row]``: the rank of the row's value among the distinct known values (through
    ``lut`` unless it is empty), or ``missing``."""
    identity = lut.shape[0] == 0
    r = -1
    prev = 0.0
    for i in range(known):
        v = values[order[i]]
        if r < 0 or v != prev:
            r += 1
            prev = v
        out[order[i]] = r if identity else lut[r]
    for i in range(known, order.shape[0]):
        out[order[i]] = missing


def widen_codes(codes, max_code, written):
    """``codes`` in a type holding ``max_code``, copying only the ``written`` columns: the
    others' pages were never touched, so a widening costs the written columns' memory, not
    a whole second matrix.

    Examples
    --------
    >>> import numpy as np
    >>> codes = np.zeros((3, 2), dtype=np.uint8, order="F")
    >>> codes[:, 0] = [1, 2, 3]
    >>> wide = widen_codes(codes, 300, [0])
    >>> wide.dtype.name, wide[:, 0].tolist()
    ('uint16', [1, 2, 3])
    """
    wider = np.empty(codes.shape, dtype=code_dtype(max_code), order="F")
    for j in written:
        wider[:, j] = codes[:, j]
    return wider


# Rows per parallel task of the coding pass (rows are read whole: C-ordered X streams).
_ROWS = 16_384


def _flat(arrays):
    return np.concatenate(arrays) if arrays else np.zeros(0)


def _flat_offsets(arrays):
    offsets = np.zeros(len(arrays) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(a) for a in arrays])
    return offsets


def _sampled_edges(col, max_bins):
    """Quantile edges of a long numeric column from a deterministic sample, when the sample
    alone has more than ``max_bins`` distinct values; None when every distinct value is
    needed (exact bins, or quantile bins cut from all of them)."""
    if max_bins is None or col.size <= _EDGE_SAMPLE:
        return None
    known = col[~np.isnan(col)]
    if known.size <= _EDGE_SAMPLE:
        return None
    sample = known[np.random.default_rng(0).choice(known.size, _EDGE_SAMPLE, replace=False)]
    uniq, counts = np.unique(sample, return_counts=True)
    if uniq.size <= max_bins:
        return None
    return _quantile_edges(uniq, counts, max_bins)


def _quantile_edges(uniq, counts, max_bins):
    """Edges of at most ``max_bins`` bins of about equal counts over the sorted distinct
    values ``uniq`` (with their ``counts``); see :func:`_bin_ends`."""
    last = _bin_ends(counts, max_bins)
    return _midpoints(uniq[last], uniq[last + 1])


@kernel
def _bin_ends(counts, max_bins):
    """Index of the last distinct value of every bin but the last, walking the values in
    order: a bin closes once it holds the mean share of the samples not yet binned, or
    before a value that alone holds that much (which then gets a bin of its own), and the
    mean is taken again over the bins left. A heavy value thus takes one bin, not the
    several quantiles it spans, and the others share the rest (as LightGBM's bins do)."""
    n_values = counts.shape[0]
    ends = np.empty(min(max_bins, n_values), dtype=np.int64)
    rest = 0.0
    for i in range(n_values):
        rest += counts[i]
    bins_left = max_bins
    acc = 0.0
    k = 0
    for i in range(n_values - 1):
        if bins_left <= 1:
            break
        acc += counts[i]
        mean = rest / bins_left
        if acc >= mean or counts[i + 1] >= mean:
            ends[k] = i
            k += 1
            rest -= acc
            acc = 0.0
            bins_left -= 1
    return ends[:k]


@kernel
def fold_numeric_bins(ranks, rows, numeric, n_ranks, values, offsets, max_bins):
    """The bins of the rows ``rows`` in the ``numeric`` columns, as :func:`bin_features`
    bins those rows alone, from every row's exact bins: ``ranks`` (their codes: a column's
    distinct values in order, ``n_ranks[j]`` for missing) and the values they stand for
    (column ``j``'s at ``values[offsets[j]:offsets[j + 1]]``). ``max_bins`` < 0: none.

    A column's distinct values among the rows and their counts are a count of its ranks
    (no sort); with more of them than ``max_bins`` they are cut by :func:`_bin_ends`, the
    edges the midpoints of the values around each end (:func:`_midpoints`' rule).

    Returns (ok, codes (rows x columns), n_bins, lo, hi, any cut): the bins' smallest and
    largest values, column after column. ok is False when an edge is not
    strictly above the value it ends at and at or below the next (the rule can give that
    only where the midpoint rounds: the caller then bins the rows' values).

    Examples
    --------
    >>> import numpy as np
    >>> b = bin_features(np.array([[0.5], [0.1], [0.9], [0.3]]), np.array([False]), [None])
    >>> ok, codes, n_bins, lo, hi, cut = fold_numeric_bins(
    ...     b.codes, np.array([0, 2, 3]), np.array([0]), b.n_bins, b.hi, b.offsets, 2)
    >>> codes[:, 0].tolist(), n_bins.tolist(), lo.tolist(), hi.tolist(), bool(cut)
    ([0, 1, 0], [2], [0.3, 0.9], [0.5, 0.9], True)
    """
    m = rows.shape[0]
    q = numeric.shape[0]
    codes = np.empty((m, q), dtype=np.int64)
    n_bins = np.empty(q, dtype=np.int64)
    most = 0  # the bins of every column, at most its distinct values
    for k in range(q):
        most += n_ranks[numeric[k]]
    lo = np.empty(most)
    hi = np.empty(most)
    base = 0  # where this column's bins start in lo and hi
    any_cut = False
    for k in range(q):
        j = numeric[k]
        nr = n_ranks[j]
        count = np.zeros(nr + 1, dtype=np.int64)
        for i in range(m):
            count[np.int64(ranks[rows[i], j])] += 1
        n_distinct = 0
        for r in range(nr):
            if count[r] > 0:
                n_distinct += 1
        rank_of = np.empty(n_distinct, dtype=np.int64)  # the rows' distinct values' ranks
        counts = np.empty(n_distinct, dtype=np.int64)
        code_of = np.empty(nr + 1, dtype=np.int64)       # rank -> the rows' code
        d = 0
        for r in range(nr):
            if count[r] > 0:
                rank_of[d] = r
                counts[d] = count[r]
                code_of[r] = d
                d += 1
        if max_bins < 0 or n_distinct <= max_bins:
            n_bins[k] = n_distinct
            for v in range(n_distinct):
                hi[base + v] = values[offsets[j] + rank_of[v]]
                lo[base + v] = hi[base + v]
        else:
            any_cut = True
            ends = _bin_ends(counts, max_bins)
            n_bins[k] = ends.shape[0] + 1
            for e in range(ends.shape[0]):
                a = values[offsets[j] + rank_of[ends[e]]]
                b = values[offsets[j] + rank_of[ends[e] + 1]]
                edge = a / 2.0 + b / 2.0
                if edge == b or np.isinf(edge):
                    edge = a
                if not (edge >= a and edge < b):
                    return (False, codes, n_bins, lo, hi, any_cut)
            first = 0
            for b in range(n_bins[k]):
                last = ends[b] if b < ends.shape[0] else n_distinct - 1
                lo[base + b] = values[offsets[j] + rank_of[first]]
                hi[base + b] = values[offsets[j] + rank_of[last]]
                for v in range(first, last + 1):
                    code_of[rank_of[v]] = b
                first = last + 1
        base += n_bins[k]
        code_of[nr] = n_bins[k]  # missing
        for i in range(m):
            codes[i, k] = code_of[np.int64(ranks[rows[i], j])]
    return (True, codes, n_bins, lo[:base].copy(), hi[:base].copy(), any_cut)


def _bin_ranges(uniq, which, n_bins):
    """Smallest and largest distinct value of each bin, ``which[i]`` being the bin of
    ``uniq[i]`` (sorted)."""
    k = np.arange(n_bins)
    return (uniq[np.searchsorted(which, k, side="left")],
            uniq[np.searchsorted(which, k, side="right") - 1])


def _midpoints(lo, hi):
    """Midpoints as the split search computes them (scikit-learn's rule)."""
    t = lo / 2.0 + hi / 2.0
    return np.where((t == hi) | np.isinf(t), lo, t)


@inner
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


@kernel
def _code_rows(X, columns, is_cat, n_bins, edges, edge_offsets, codes, track_offsets,
               n_chunks):
    """Fill the ``columns`` of ``codes`` (categorical, and numeric by sampled edges), block
    of rows by block; return per block the smallest and largest value of every bin of the
    numeric ones."""
    lo, hi = _range_outputs(n_chunks, track_offsets[X.shape[1]])
    for c in range(n_chunks):
        _code_block(c, X, columns, is_cat, n_bins, edges, edge_offsets, codes,
                    track_offsets, lo, hi)
    return lo, hi


@kernel(parallel=True)
def _code_rows_parallel(X, columns, is_cat, n_bins, edges, edge_offsets, codes,
                        track_offsets, n_chunks):
    """:func:`_code_rows` in parallel over the blocks of rows."""
    lo, hi = _range_outputs(n_chunks, track_offsets[X.shape[1]])
    for c in prange(n_chunks):
        _code_block(c, X, columns, is_cat, n_bins, edges, edge_offsets, codes,
                    track_offsets, lo, hi)
    return lo, hi


@inner
def _range_outputs(n_chunks, n_track):
    return np.full((n_chunks, n_track), np.inf), np.full((n_chunks, n_track), -np.inf)


@inner
def _code_block(c, X, columns, is_cat, n_bins, edges, edge_offsets, codes, track_offsets,
                lo, hi):
    """Code the ``columns`` of the rows of block ``c``: a category by its code, a number by
    its sampled edges (recording its bin's range)."""
    n, p = X.shape
    for i in range(c * _ROWS, min(n, (c + 1) * _ROWS)):
        for j in range(p):
            if not columns[j]:
                continue
            v = X[i, j]
            if np.isnan(v):
                codes[i, j] = n_bins[j]
            elif is_cat[j]:
                codes[i, j] = np.int64(v)
            else:
                b = _bin_of(edges, edge_offsets[j], edge_offsets[j + 1], v)
                codes[i, j] = b
                t = track_offsets[j] + b
                lo[c, t] = min(lo[c, t], v)
                hi[c, t] = max(hi[c, t], v)
