"""The bins of cross-validation folds, from every row's exact ranks.

A fold's rows are binned as :func:`quercus._binning.bin_features` bins them alone, but
from the ranks of their values among the whole data's distinct values (found once, by one
exact binning of every row): a fold's distinct values and their counts are then a count of
its ranks, with no sort of its columns, and every column is cut at once but for the
greedy walk (:func:`quercus._binning._bin_ends`) of each column with quantile bins. A fold's
bins are the very arrays binning its rows gives (``tests/test_pruning.py`` compares them).
"""

import numpy as np

from ._binning import _EDGE_SAMPLE, Bins, _bin_ends, _midpoints, bin_features, code_dtype


class FoldBins:
    """Binning of subsets of the rows of ``X_enc`` (the encoded training matrix of
    schema ``is_categorical``, ``categories``) into ``max_bins``, as
    :func:`~quercus._binning.bin_features` bins each subset alone.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.5], [0.1], [0.9], [0.3]])
    >>> fold = FoldBins(X, np.array([False]), [None], 2).take_rows(np.array([0, 2, 3]))
    >>> fold.codes[:, 0].tolist(), fold.lo.tolist(), fold.hi.tolist()
    ([0, 1, 0], [0.3, 0.9], [0.5, 0.9])
    """

    def __init__(self, X_enc, is_categorical, categories, max_bins):
        self.is_cat = np.asarray(is_categorical, dtype=np.bool_)
        self.max_bins = max_bins
        ranks = bin_features(X_enc, self.is_cat, categories, None)
        self.n_bins = ranks.n_bins
        self.ranks = ranks.codes
        # Every numeric column's distinct values, then a slot for its missing values, end
        # to end: a fold's ranks become slots, counted in one pass over all its columns.
        self.numeric = np.flatnonzero(~self.is_cat)
        sizes = ranks.n_bins[self.numeric] + 1
        self.slot_start = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
        self.missing_slot = self.slot_start + sizes - 1
        self.slot_column = np.repeat(np.arange(self.numeric.size), sizes)
        self.slot_value = np.full(int(sizes.sum()), np.nan)
        for k, j in enumerate(self.numeric):
            s = self.slot_start[k]
            self.slot_value[s:s + sizes[k] - 1] = ranks.hi[ranks.offsets[j]:
                                                           ranks.offsets[j + 1]]

    @classmethod
    def of(cls, X_enc, is_categorical, categories, max_bins):
        """The fold binner of ``X_enc``, or None where it could give other bins than
        binning a fold's rows: quantile edges from a sample of long columns, and a column
        holding -0.0, whose bins may keep either zero as the fold's sort order says."""
        if X_enc.shape[0] > _EDGE_SAMPLE:
            return None
        numeric_zero = (X_enc == 0) & ~np.asarray(is_categorical, dtype=np.bool_)
        if np.signbit(X_enc[numeric_zero]).any():
            return None
        return cls(X_enc, is_categorical, categories, max_bins)

    def take_rows(self, rows):
        """The :class:`~quercus._binning.Bins` of the rows ``rows`` (an index array), or
        None when a quantile edge is not between the two values it parts (which the
        midpoint rule does not give, but the bins below rely on): the fold is then binned
        from its values."""
        ranks = self.ranks[rows]
        slots = ranks[:, self.numeric].astype(np.int64) + self.slot_start
        counts = np.bincount(slots.ravel(), minlength=self.slot_value.size)
        present = counts > 0
        present[self.missing_slot] = False
        # The fold's distinct values and their counts, column after column, and each
        # one's rank in its column: its code in an exact column.
        values, counts = self.slot_value[present], counts[present]
        column = self.slot_column[present]
        n_distinct = np.bincount(column, minlength=self.numeric.size)
        start = np.concatenate(([0], np.cumsum(n_distinct)))
        code = np.arange(values.size) - start[column]
        cut = (np.flatnonzero(n_distinct > self.max_bins) if self.max_bins is not None
               else np.zeros(0, dtype=np.int64))
        n_bins = self.n_bins.copy()
        n_bins[self.numeric] = n_distinct
        hi_index = [np.arange(start[k], start[k + 1]) for k in range(self.numeric.size)]
        lo_index = None
        if cut.size:
            quantile = self._quantile(values, counts, start, cut, column, code)
            if quantile is None:
                return None
            bins_of, bin_lo, bin_hi = quantile
            lo_index = list(hi_index)
            for k, (a, b) in zip(cut, zip(bins_of[:-1], bins_of[1:])):
                lo_index[k], hi_index[k] = bin_lo[a:b], bin_hi[a:b]
                n_bins[self.numeric[k]] = b - a
        slot_code = np.empty(self.slot_value.size, dtype=np.int64)
        slot_code[present] = code
        slot_code[self.missing_slot] = n_bins[self.numeric]
        return self._bins(ranks, slot_code[slots], n_bins, values, hi_index, lo_index)

    def _quantile(self, values, counts, start, cut, column, code):
        """Cut the columns ``cut`` into quantile bins as :func:`~quercus._binning.
        bin_features` does, writing their distinct values' bins into ``code``. Returns
        (each column's first bin, every bin's first and last value index), or None.

        Each bin ends at a value :func:`~quercus._binning._bin_ends` picks, its edge the
        midpoint of that value and the next. With every edge at or above the one and below
        the other, a value's bin (``searchsorted(edges, value)`` in ``bin_features``) is
        the number of its column's bin ends before it, and a bin spans the values between
        two ends (``_bin_ranges``)."""
        ends = [start[k] + _bin_ends(counts[start[k]:start[k + 1]], self.max_bins)
                for k in cut]
        last = np.concatenate(ends)
        edges = _midpoints(values[last], values[last + 1])
        if not ((edges >= values[last]).all() and (edges < values[last + 1]).all()):
            return None
        n_ends = np.array([e.size for e in ends])
        first_end = np.concatenate(([0], np.cumsum(n_ends)))
        rank_of_cut = np.full(self.numeric.size, -1)
        rank_of_cut[cut] = np.arange(cut.size)
        inside = np.flatnonzero(rank_of_cut[column] >= 0)
        code[inside] = (np.searchsorted(last, inside, side="left")
                        - first_end[rank_of_cut[column[inside]]])
        # A column's bins: from its first value to its first end, then from after each
        # end to the next, the last one to its last value.
        bins_of = np.concatenate(([0], np.cumsum(n_ends + 1)))
        first_bin, last_bin = bins_of[:-1], bins_of[1:] - 1
        bin_lo = np.empty(bins_of[-1], dtype=np.int64)
        bin_hi = np.empty(bins_of[-1], dtype=np.int64)
        ends_here = np.ones(bins_of[-1], dtype=np.bool_)
        ends_here[last_bin] = False
        bin_hi[ends_here] = last
        bin_hi[last_bin] = start[cut + 1] - 1
        after_end = np.ones(bins_of[-1], dtype=np.bool_)
        after_end[first_bin] = False
        bin_lo[after_end] = last + 1
        bin_lo[first_bin] = start[cut]
        return bins_of, bin_lo, bin_hi

    def _bins(self, ranks, numeric_codes, n_bins, values, hi_index, lo_index):
        """The :class:`~quercus._binning.Bins` of the fold's ``numeric_codes`` (its
        categorical columns' from ``ranks``) and bins running from ``values[lo_index[k]]``
        to ``values[hi_index[k]]`` in numeric column ``k`` (``lo_index`` None: every bin
        exact, its ``lo`` the same array as its ``hi``)."""
        p = n_bins.size
        codes = np.empty((ranks.shape[0], p), dtype=code_dtype(int(n_bins.max(initial=0))),
                         order="F")
        codes[:, self.is_cat] = ranks[:, self.is_cat]
        codes[:, self.numeric] = numeric_codes
        offsets = np.zeros(p + 1, dtype=np.int64)
        offsets[1:] = np.cumsum(np.where(self.is_cat, 0, n_bins))
        take = np.concatenate(hi_index) if hi_index else np.zeros(0, dtype=np.int64)
        hi = values[take]
        lo = hi if lo_index is None else values[np.concatenate(lo_index)]
        return Bins(codes, n_bins, lo, hi, offsets)
