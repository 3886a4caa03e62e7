"""A small cross-validated cost-complexity fit: the whole data's tree and its folds'
trees grown by one kernel call.

On a table of a few dozen rows the Python around each kernel call costs more than the
growing: the fit used to grow the whole data's tree in one ``grow_subtree`` call, then
set up and grow the folds' trees in a second. Here the folds are dealt first, and the
whole data's tree is root 0 of the folds' call (roots 1..k are the folds, each on its
training rows of the same bins). The folds then grow to the whole tree's floor
(``cp * R(root)``) rather than to the smallest alpha they are scored at, which only the
whole tree's weakest links tell: their subtrees at every alpha they are scored at are the
same, and so are the table's numbers.
"""

import itertools
import numbers

import numpy as np

from . import _pruning
from ._binning import Bins
from ._grower import (HIST_MIN_SAMPLES, _root_stats, _table_tree, subtree_blocks,
                      subtree_layout, subtree_limit)
from ._kernels.folds import MAX_CLASSES, table_moments
from ._kernels.schema import FRACTIONAL

# The largest table (rows x columns) grown this way: below it the folds run on one thread
# (FOLD_THREADS_MIN_CELLS), and the Python around a second call is a large share of a fit.
MAX_CELLS = _pruning.FOLD_THREADS_MIN_CELLS

# False: the whole data's tree and the folds are grown by separate calls (the tests'
# switch, to compare the two).
ENABLED = True


def eligible(params, target, data, cfg, w_user, fold_bins, codes, draws):
    """Whether a cross-validated fit can grow its tree and folds in one call: an integer
    ``cv``, exact bins the folds take their rows of (``fold_bins`` is the fit's
    :class:`~quercus._binning.Bins`), the folds' settings the same as the whole tree's
    (fixed sizes, no weight fraction, no random ``draws`` in growth, surrogates
    searched alike), weights that
    are the user's (no class weights) and positive, and the folds' scoring kernel able
    to score them (``table_moments``: no absolute error, Poisson, fractional rule,
    entropy as the loss, or more than MAX_CLASSES classes). ``codes``: a classifier's
    label codes (None for a regressor)."""
    n, p = data.codes.shape
    regression = target.regression
    return (ENABLED and isinstance(params.cv, numbers.Integral)
            and n * p < MAX_CELLS and n <= subtree_limit(n, regression)
            and isinstance(fold_bins, Bins) and fold_bins.exact
            and data.w is w_user and not cfg.pre_prune
            and isinstance(params.min_samples_split, numbers.Integral)
            and isinstance(params.min_samples_leaf, numbers.Integral)
            and not float(params.min_weight_fraction_leaf)
            and not draws
            and params.criterion not in ("absolute_error", "poisson")
            and cfg.missing_mode != FRACTIONAL and params.ccp_loss != "entropy"
            and not (cfg.surrogates_always and not data.has_missing)
            and (regression or (codes is not None and params.class_weight is None
                                and target.n_classes <= MAX_CLASSES))
            and bool((w_user > 0).all()))


class Grown:
    """The whole data's tree (root 0) and the folds (roots 1..k) of ``splits`` grown by
    one call, their tables kept for scoring the folds."""

    def __init__(self, data, cfg, splits, codes):
        """None-like (``ok`` False) when a fold's training rows lack a class: its
        classes would not be the whole data's, and it is grown on its own."""
        n, p = data.codes.shape
        regression = data.is_regression
        trains = [train for train, _ in splits]
        sizes = [n] + [t.size for t in trains]
        starts = _starts(sizes)
        idx = np.concatenate([np.arange(n, dtype=np.int64), *trains])
        w = data.w[idx]
        k = len(splits)
        self.ok = True
        if regression:
            fold_stats = [[wf.sum(), wf @ data.y[t], wf @ data.y2[t]]
                          for t, wf in zip(trains, (data.w[t] for t in trains))]
        else:
            n_classes = data.n_stats
            # Every fold's weighted class counts from one bincount over (fold, class), each
            # summed in row order, as a fold's own bincount sums it.
            fold_of = np.repeat(np.arange(k), sizes[1:])
            fold_stats = np.bincount(fold_of * n_classes + codes[idx[n:]], weights=w[n:],
                                     minlength=k * n_classes).reshape(k, n_classes)
            if not fold_stats.all():
                self.ok = False
                return
        stats = np.vstack([_root_stats(data)[None], fold_stats])
        if bool((data.w == 1.0).all()):  # (sums of ones, exact in any order: the sizes)
            total_w = np.array(sizes, dtype=np.float64)
        else:  # (each root's weight summed as its own array sums it)
            total_w = np.array([float(data.w.sum())]
                               + [float(w[a:b].sum())
                                  for a, b in zip(starts[1:-1].tolist(), starts[2:].tolist())])
        layout = subtree_layout(data, cfg, dense=n >= HIST_MIN_SAMPLES)
        (self.nodes, self.slots, self.cat_map, self.cats, self.surs, self.sur_starts,
         _) = subtree_blocks(data, cfg, layout, idx, w, starts, stats,
                             np.zeros((k + 1, p), dtype=bool), np.zeros(k + 1, dtype=np.int64),
                             total_w)
        self.idx, self.starts = idx, starts
        tests = [test for _, test in splits]
        self.test, self.test_sizes = np.concatenate(tests), [t.size for t in tests]
        self.y, self.n_stats, self.regression = data.y, data.n_stats, regression

    def whole_tree(self):
        """The whole data's tree (:class:`~quercus._tree.TreeArrays`), from root 0's
        block."""
        surs = type(self.surs)(*(a[:self.sur_starts[1]].copy() for a in self.surs))
        return _table_tree(self.nodes, int(self.slots[1]),
                           self.cat_map[:self.cats[1]].copy(), surs)

    def scorer(self, X_all, held_out_all, w_err, risk_loss):
        """``every_fold`` for :func:`quercus._pruning.complexity_table`: the folds'
        held-out (count, mean, m2) at ``thresholds``, in fold order, from one
        ``table_moments`` call on their blocks. ``held_out_all``: every row's target
        (class codes as floats, or values)."""
        def every_fold(splits, floor, thresholds, y_codes):
            test = self.test
            mean, m2 = table_moments(
                self.nodes, self.slots[1:], self.cat_map, self.cats[1:], self.surs,
                self.sur_starts[1:], self.y, self.idx, self.starts[1:], self.n_stats,
                self.regression, risk_loss, X_all[test], held_out_all[test], w_err[test],
                _starts(self.test_sizes), thresholds)
            # (As lists: merged on Python floats, see _pruning._merge_all.)
            return list(zip(self.test_sizes, mean.tolist(), m2.tolist()))
        return every_fold


def _starts(sizes):
    """The offsets of blocks of ``sizes`` laid end to end: 0, then each block's end (int64).

    Examples
    --------
    >>> _starts([3, 0, 2]).tolist()
    [0, 3, 3, 5]
    """
    return np.array([0, *itertools.accumulate(sizes)], dtype=np.int64)

