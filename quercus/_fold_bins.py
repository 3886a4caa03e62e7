"""The bins of cross-validation folds, from every row's exact ranks.

A fold's rows are binned as :func:`quercus._binning.bin_features` bins them alone, but
from the ranks of their values among the whole data's distinct values (found once, by one
exact binning of every row): a fold's distinct values and their counts are then a count of
its ranks, with no sort of its columns, all in one kernel call
(:func:`quercus._binning.fold_numeric_bins`). A fold's bins are the very arrays binning its
rows gives (``tests/test_pruning.py`` compares them).
"""

import numpy as np

from ._binning import _EDGE_SAMPLE, Bins, bin_features, code_dtype, fold_numeric_bins


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
        self.max_bins = -1 if max_bins is None else int(max_bins)
        self.ranks = bin_features(X_enc, self.is_cat, categories, None)
        self.numeric = np.flatnonzero(~self.is_cat).astype(np.int64)

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
        ranks = self.ranks
        rows = np.asarray(rows, dtype=np.int64)
        ok, numeric_codes, numeric_bins, lo, hi, cut = fold_numeric_bins(
            ranks.codes, rows, self.numeric, ranks.n_bins, ranks.hi, ranks.offsets,
            self.max_bins)
        if not ok:
            return None
        n_bins = ranks.n_bins.copy()
        n_bins[self.numeric] = numeric_bins
        p = n_bins.size
        codes = np.empty((rows.size, p), dtype=code_dtype(int(n_bins.max(initial=0))),
                         order="F")
        for j in np.flatnonzero(self.is_cat):
            codes[:, j] = ranks.codes[rows, j]
        codes[:, self.numeric] = numeric_codes
        offsets = np.zeros(p + 1, dtype=np.int64)
        offsets[1:] = np.cumsum(np.where(self.is_cat, 0, n_bins))
        return Bins(codes, n_bins, lo if cut else hi, hi, offsets)
