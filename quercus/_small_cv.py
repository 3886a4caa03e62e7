"""A small cross-validated cost-complexity fit: the whole data's tree and its folds'
trees grown by one kernel call.

On a table of a few dozen rows the Python around each kernel call costs more than the
growing: the fit used to grow the whole data's tree in one ``grow_subtree`` call, then
set up and grow the folds' trees in a second. Here the folds are dealt first, and the
whole data's tree is root 0 of the folds' call (roots 1..k are the folds, each on its
training rows of the same bins); from ``FOLD_THREADS_MIN_CELLS`` cells the roots are
shared out to the threads, a call each. The folds then grow to the whole tree's floor
(``cp * R(root)``) rather than to the smallest alpha they are scored at, which only the
whole tree's weakest links tell: their subtrees at every alpha they are scored at are the
same, and so are the table's numbers.
"""

import itertools
import numbers

import numpy as np

from ._binning import Bins
from ._grower import (HIST_MIN_SAMPLES, _root_stats, _table_tree, subtree_blocks,
                      subtree_layout, subtree_limit)
from ._kernels.folds import table_moments
from ._threads import in_order

# Folds of at most this many training rows are grown and scored together, a call per
# thread (here, and by _fit's every_fold): there the Python around each fold was the cost;
# bigger folds gain nothing and a call would hold several folds' tables at once.
EVERY_FOLD_MAX_ROWS = 512

# False: the whole data's tree and the folds are grown by separate calls (the tests'
# switch, to compare the two).
ENABLED = True


def eligible(params, target, data, cfg, w_user, fold_bins, codes):
    """Whether a cross-validated fit whose folds the kernels score
    (:func:`quercus._fit.kernels_score_folds`) can grow its tree and folds in one call: an
    integer ``cv`` whose folds have at most EVERY_FOLD_MAX_ROWS rows, exact bins the
    folds take their rows of (``fold_bins`` is the fit's :class:`~quercus._binning.Bins`),
    the folds' settings the same as the whole tree's (fixed sizes, no weight fraction,
    surrogates searched alike), and weights that are the user's (no class weights) and
    positive. ``codes``: a classifier's label codes (None for a regressor)."""
    n, p = data.codes.shape
    return (ENABLED and isinstance(params.cv, numbers.Integral)
            and n - n // min(int(params.cv), n) <= EVERY_FOLD_MAX_ROWS  # (the biggest fold)
            and n <= subtree_limit(n, target.regression)
            and isinstance(fold_bins, Bins) and fold_bins.exact
            and data.w is w_user and not cfg.pre_prune
            and isinstance(params.min_samples_split, numbers.Integral)
            and isinstance(params.min_samples_leaf, numbers.Integral)
            and not float(params.min_weight_fraction_leaf)
            and not (cfg.surrogates_always and not data.has_missing)
            and (target.regression or codes is not None)
            and bool((w_user > 0).all()))


class Grown:
    """The folds (roots) of ``splits`` grown by one kernel call (a call per thread:
    :func:`parts`), their tables kept for scoring them; with ``whole``, the whole data's
    tree too, as root 0 (the folds are then roots 1..k)."""

    def __init__(self, data, cfg, splits, codes, threads=1, whole=True):
        """``ok`` False when a fold's training rows lack a class: its classes would not
        be the whole data's, and it is grown on its own."""
        n, p = data.codes.shape
        regression = data.is_regression
        trains = [train for train, _ in splits]
        first = 1 if whole else 0  # (the first fold's root)
        sizes = [n] * first + [t.size for t in trains]
        starts = _starts(sizes)
        idx = np.concatenate([np.arange(n, dtype=np.int64)] * first + trains)
        w = data.w[idx]
        k = len(splits)
        self.ok, self.first = True, first
        if regression:
            stats = [[wf.sum(), wf @ data.y[t], wf @ data.y2[t]]
                     for t, wf in zip(trains, (data.w[t] for t in trains))]
        else:
            n_classes, a = data.n_stats, starts[first]
            # Every fold's weighted class counts from one bincount over (fold, class), each
            # summed in row order, as a fold's own bincount sums it.
            fold_of = np.repeat(np.arange(k), sizes[first:])
            stats = np.bincount(fold_of * n_classes + codes[idx[a:]], weights=w[a:],
                                minlength=k * n_classes).reshape(k, n_classes)
            # (A fold without every class among its training rows, of positive weights:
            # its own classes and codes. A splitter's training rows need not be the rest.)
            if not stats.all():
                self.ok = False
                return
        if whole:
            stats = np.vstack([_root_stats(data)[None], stats])
        else:
            stats = np.asarray(stats, dtype=np.float64)
        if bool((data.w == 1.0).all()):  # (sums of ones, exact in any order: the sizes)
            total_w = np.array(sizes, dtype=np.float64)
        else:  # (each root's weight summed as its own array sums it)
            total_w = np.array([float(data.w.sum())] * first
                               + [float(w[a:b].sum()) for a, b in
                                  zip(starts[first:-1].tolist(), starts[first + 1:].tolist())])
        # (No root of fewer than HIST_MIN_SAMPLES rows keeps dense histograms.)
        layout = subtree_layout(data, cfg, dense=max(sizes) >= HIST_MIN_SAMPLES)
        starts_list = starts.tolist()

        def grow(roots):
            """The tables of roots ``roots.start .. roots.stop - 1``, and their rows."""
            r0, r1 = roots.start, roots.stop
            a, b = starts_list[r0], starts_list[r1]
            rows = idx[a:b]
            tables = subtree_blocks(data, cfg, layout, rows, w[a:b], starts[r0:r1 + 1] - a,
                                    stats[r0:r1], np.zeros((r1 - r0, p), dtype=bool),
                                    np.zeros(r1 - r0, dtype=np.int64), total_w[r0:r1])
            return tables[:6], rows, starts[r0:r1 + 1] - a

        self.parts = parts(sizes, threads)
        self.blocks = list(in_order(lambda i: grow(self.parts[i]), len(self.parts),
                                    len(self.parts)))
        tests = [test for _, test in splits]
        self.tests, self.test_sizes = tests, [t.size for t in tests]
        self.y, self.n_stats, self.regression = data.y, data.n_stats, regression

    def whole_tree(self):
        """The whole data's tree (:class:`~quercus._tree.TreeArrays`), from root 0's
        block (grown ``whole``)."""
        (nodes, slots, cat_map, cats, surs, sur_starts), _, _ = self.blocks[0]
        surs = type(surs)(*(a[:sur_starts[1]].copy() for a in surs))
        return _table_tree(nodes, int(slots[1]), cat_map[:cats[1]].copy(), surs)

    def scorer(self, X_all, held_out_all, w_err, risk_loss):
        """``every_fold`` for :func:`quercus._pruning.complexity_table`: the folds'
        held-out (count, mean, m2) at ``thresholds``, in fold order, from a
        ``table_moments`` call on each thread's blocks. ``held_out_all``: every row's
        target (class codes as floats, or values)."""
        def every_fold(splits, floor, thresholds, y_codes):
            out = []
            for roots, block in zip(self.parts, self.blocks):
                (nodes, slots, cat_map, cats, surs, sur_starts), rows, starts = block
                # (root 0 of a whole grow, the whole data's, is not a fold)
                first = self.first if roots.start == 0 else 0
                folds = range(roots.start + first - self.first, roots.stop - self.first)
                if not folds:
                    continue
                test = (self.tests[folds.start] if len(folds) == 1
                        else np.concatenate(self.tests[folds.start:folds.stop]))
                sizes = self.test_sizes[folds.start:folds.stop]
                mean, m2 = table_moments(
                    nodes, slots[first:], cat_map, cats[first:], surs, sur_starts[first:],
                    self.y, rows, starts[first:], self.n_stats, self.regression, risk_loss,
                    X_all[test], held_out_all[test], w_err[test], _starts(sizes), thresholds)
                # (As lists: merged on Python floats, see _pruning._merge_all.)
                out.extend(zip(sizes, mean.tolist(), m2.tolist()))
            return out
        return every_fold


def parts(sizes, threads):
    """The roots (rows ``sizes``; root 0 the whole data's) each of ``threads`` threads
    grows: consecutive ranges of about the same rows.

    Examples
    --------
    >>> parts([100] + [90] * 10, 2)
    [range(0, 5), range(5, 11)]
    >>> parts([14] + [12] * 10, 1)
    [range(0, 11)]
    """
    threads = max(1, min(threads, len(sizes)))
    total = sum(sizes)
    bounds, run = [0], 0
    for r, size in enumerate(sizes):
        if (len(bounds) < threads and r > bounds[-1]
                and run + size / 2 > total * len(bounds) / threads):
            bounds.append(r)
        run += size
    return [range(a, b) for a, b in zip(bounds, bounds[1:] + [len(sizes)])]


def _starts(sizes):
    """The offsets of blocks of ``sizes`` laid end to end: 0, then each block's end (int64).

    Examples
    --------
    >>> _starts([3, 0, 2]).tolist()
    [0, 3, 3, 5]
    """
    return np.array([0, *itertools.accumulate(sizes)], dtype=np.int64)

