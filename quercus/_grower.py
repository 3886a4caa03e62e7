"""Tree growth: the frontier, the stopping rules, kernel calls, and the frozen tree.

Python orchestrates one node at a time; every per-sample loop runs in a kernel
(``search_node``, ``route``, ``scatter``). Each pending node owns its samples and their
weights at that node: under C4.5's rule a sample missing the split attribute goes down every
branch with a share of its weight, so siblings can hold the same sample.
"""

from dataclasses import dataclass
from functools import cached_property

import numba
import numpy as np

from . import _memory
from ._binning import lazy_features
from ._kernels.absolute import ae_category_order
from ._kernels.complexity import weighted_risk
from ._kernels.criteria import (ABSOLUTE_ERROR, GINI, SQUARED_ERROR,
                                criterion_code)  # noqa: F401 (criterion_code: re-export)
from ._kernels.draws import Draws, child_key, node_draws, root_key
from ._kernels.histograms import class_totals, fill_histograms, subtract_histograms
from ._kernels.node import may_split as _may_split_rule
from ._kernels.node import (plan_histograms, scan_order, settle_node, settle_value,
                            split_branches)
from ._kernels.splits import (TIE_EPS, resolve_threshold, search_features,
                              unpack_search)
from ._kernels.builder import as_parent, surrogate_table, unsplit, write_stats
from ._kernels.prepruning import HeldOut, split_pays
from ._kernels.split_step import split_rows
from ._kernels.schema import (CAT_BINARY, CAT_MULTIWAY, CAT_SUBSET, FRACTIONAL, LEARNED,
                              MULTIWAY, NUMERIC, SURROGATE, Binned)
from ._kernels.subtree import grow_subtree
from ._kernels.surrogates import all_surrogates, route_missing, select_surrogates
from ._kernels.selection import choose_split
from ._threads import in_order, over_features
from ._tree import TreeArrays, TreeBuilder

MISSING_CODES = {"fractional": FRACTIONAL, "surrogate": SURROGATE, "learned": LEARNED}
# Features with at most this many bins (missing bin included) keep dense histograms that
# children inherit: the larger child of a binary split gets its histograms by subtracting
# its sibling's from its parent's, without reading its samples. Below HIST_MIN_SAMPLES
# samples a node builds its histograms directly (cheaper than holding them).
DENSE_MAX_BINS = 1024
HIST_MIN_SAMPLES = 512
# Below this many (sample, feature) cells a node is searched on one thread: waking the
# others costs more than the work, and small nodes are most of a deep tree's.
PARALLEL_MIN_CELLS = 100_000
# A node with at most this many samples has its whole subtree grown by one kernel call
# (``grow_subtree``), when the configuration allows: below it, Python's per-node work would
# cost more than the split searches. On big data the bound rises to an eighth of the rows,
# so that the top few nodes (searched in parallel over the features) leave subtrees
# enough to share out to the threads (grown in parallel, presorted). The share does not
# depend on the number of threads: which nodes are deferred decides the nodes' numbering,
# and the tree must be the same, numbered alike, on any number of them ...
SUBTREE_MAX_SAMPLES = 2048
# The most big nodes one step of the Python grower searches together. Several were no
# faster than one on two cores, and slower in exact mode (benchmarks/results/
# design_choices.md); one keeps the depth-first numbering. A fit over partitions would take
# a whole level a step.
FRONTIER_WIDTH = 1
SUBTREES_PER_FIT = 8
# ... but no more than this many: a subtree's presorted orders (exact attributes with more
# values than its rows) take 2 bytes a row and attribute (positions within the subtree,
# which presorts at most PRESORT_MAX_ROWS rows) and one row of scratch, on every thread
# at once: the bound caps what the threads hold together at the fit's peak.
SUBTREE_MAX_ROWS = 32_768
# A regression subtree on continuous targets grows to about a row a leaf: its node tables
# (2 nodes a row, 80 bytes a node) then weigh as much as its presorted orders, on every
# thread, until spliced. So regressors take smaller subtrees (a lower peak, no slower); a
# classifier's tree stops at pure nodes, far from a row a leaf, and grows slower in
# smaller subtrees.
SUBTREE_MAX_ROWS_REGRESSION = 8_192
# A numeric feature whose node histogram would take more than this many bytes (its dense
# stats and counts) is scored slice by slice (``stream_numeric``): the same split, while a
# thread's scratch stays this size instead of growing with the distinct values (a bin
# each at the root of an exact fit, on every thread) ...
STREAM_BYTES = 2 << 20
# ... or 4 bytes a training row, if that is less (but not below this): on a mid-size fit
# the threads' whole histograms would be a sizeable part of its peak; a big fit keeps
# STREAM_BYTES, as narrower slices make it slower and no lighter.
STREAM_MIN_BYTES = 256 << 10
# Up to this many cells, whether any sample misses a feature is asked of the whole code
# matrix at once (a boolean a cell), above it column by column.
MISSING_AT_ONCE_CELLS = 1 << 16


def stream_width(n_stats, n_rows):
    """Bins of a histogram of ``STREAM_BYTES`` (or of 4 bytes a row of the fit's
    ``n_rows``, at least ``STREAM_MIN_BYTES``): a feature with more is streamed (in
    slices of the largest power of two up to it, which the kernel chooses).

    Examples
    --------
    >>> stream_width(2, 750_000), stream_width(2, 75_000)  # two classes
    (87381, 12500)
    """
    budget = min(STREAM_BYTES, max(STREAM_MIN_BYTES, 4 * n_rows))
    return max(budget // (8 * (n_stats + 1)), 256)


def subtree_limit(n_samples, regression=False):
    """Largest node handed to the subtree kernel in a fit of ``n_samples`` rows (a
    negative ``SUBTREE_MAX_SAMPLES`` turns the kernel off); the same on any number of
    threads.

    Examples
    --------
    >>> subtree_limit(40_000), subtree_limit(100)
    (5000, 2048)
    """
    if SUBTREE_MAX_SAMPLES < 0:
        return -1
    cap = min(SUBTREE_MAX_ROWS, SUBTREE_MAX_ROWS_REGRESSION) if regression else SUBTREE_MAX_ROWS
    share = min(n_samples // SUBTREES_PER_FIT, cap)
    return max(SUBTREE_MAX_SAMPLES, share)


def threads_for(cells):
    """Threads to share work over ``cells`` (sample, feature) pairs among: the fit's
    (``n_jobs``) for big work, else one."""
    return numba.get_num_threads() if cells >= PARALLEL_MIN_CELLS else 1


@dataclass
class GrowConfig:
    """Resolved growth settings (integers and flags, no strings)."""

    criterion: int
    gain_ratio: bool
    cat_mode: int
    missing_mode: int
    max_surrogate: int
    random_splitter: bool
    max_depth: int
    min_samples_split: int
    min_samples_leaf: int
    min_weight_leaf: float
    min_impurity_decrease: float
    max_features: int
    min_objects: float = 0.0     # C4.5's minimum cases (J48's -M), 0: off
    pre_prune: bool = False      # the book's section 4.3.1, on ``validation``
    strict: bool = True          # pre-pruning splits only on a strict improvement
    priority: np.ndarray = None  # class tie-break order (first appearance)
    surrogates_always: bool = True  # False: surrogates only where the node has missing values
    # Cost-complexity floor: a node whose risk R(t) (loss ``risk_loss``, a RISK_* code of
    # _kernels/complexity.py; R(t) as a share of the root's weight) is below ``risk_floor``
    # is a leaf. It is one in every subtree of the weakest-link sequence at alphas from
    # risk_floor up (R(t) bounds its subtree's g(t)), so those subtrees are unchanged.
    # A node whose chosen split cannot survive at the floor whatever its children do
    # (``complexity.collapses_at_floor``) is a leaf too: an economy only, the subtrees
    # from the floor up are the same.
    risk_floor: float = 0.0
    risk_loss: int = 0


@dataclass
class BinnedData:
    """Training data as the kernels want it."""

    codes: np.ndarray        # uint8/uint16/int32 (n, p), Fortran order; missing = n_bins[f]
    n_bins: np.ndarray       # int64 (p,), bins of observed values
    is_cat: np.ndarray       # bool (p,)
    bin_lo: np.ndarray       # float64 (k,): smallest value of each numeric bin
    bin_hi: np.ndarray       # float64 (k,): largest value (the same array when all are exact)
    bin_offsets: np.ndarray  # int64 (p + 1,)
    y: np.ndarray            # float64: class codes, or targets
    y2: np.ndarray           # float64: y*y (squared error), y*log(y) (Poisson), unused
    w: np.ndarray            # float64 weights
    n_stats: int             # n_classes, or 3 for regression
    n_out: int               # n_classes, or 1 for regression
    scratch: np.ndarray = None  # float64 (n,), per-sample work space of the surrogate search
    # Lazy features' values (no value table): the training matrix, its rows per sample.
    source: np.ndarray = None
    source_rows: np.ndarray = None

    @classmethod
    def from_bins(cls, bins, is_cat, y, y2, w, n_stats, n_out):
        """From :class:`quercus._binning.Bins` and the targets."""
        # Writable arrays: a read-only target (a pandas Series' values) would compile every
        # kernel a second time for the read-only type. (Most arrays given already are
        # ones, as every fold's are: taken as they are, without np.require's checks.)
        def writable(a):
            if (type(a) is np.ndarray and a.dtype == np.float64 and a.flags.c_contiguous
                    and a.flags.writeable):
                return a
            return np.require(a, np.float64, ["C", "W"])

        y, y2, w = writable(y), writable(y2), writable(w)
        return cls(bins.codes, bins.n_bins, is_cat, bins.lo, bins.hi, bins.offsets, y, y2, w,
                   n_stats, n_out, source=bins.source, source_rows=bins.source_rows)

    @cached_property
    def value_args(self):
        """The arguments of ``resolve_threshold`` after the sample list: the training
        matrix's buffer as (float64, float32) (the other one empty; both when every
        feature has its value table), its row and column strides (in values) and the
        samples' rows of it (empty: the same)."""
        rows = (np.zeros(0, dtype=np.int64) if self.source_rows is None
                else np.ascontiguousarray(self.source_rows, dtype=np.int64))
        X = self.source
        none64, none32 = np.zeros(0), np.zeros(0, dtype=np.float32)
        if X is None:
            return (none64, none32), 0, 0, rows
        if X.flags.c_contiguous:
            flat, strides = X.reshape(-1), (X.shape[1], 1)
        else:
            flat, strides = X.reshape(-1, order="F"), (1, X.shape[0])
        return ((flat, none32) if X.dtype == np.float64 else (none64, flat)), *strides, rows

    @cached_property
    def _lazy(self):
        lazy = np.zeros(len(self.n_bins), dtype=bool)
        lazy[lazy_features(self.is_cat, self.n_bins, self.bin_offsets)] = True
        return lazy

    def is_lazy(self, f):
        """Whether numeric feature ``f`` keeps no value table (values read from X)."""
        return bool(self._lazy[f])

    def threshold_of(self, f, idx, split_bin):
        """The threshold of a split of lazy feature ``f`` after bin ``split_bin`` at the
        node of samples ``idx``: the midpoint of the two values around it there."""
        return float(resolve_threshold(self.codes[:, f], idx, split_bin, self.n_bins[f],
                                       *self.value_args[:3], self.value_args[3], f))

    def with_value_tables(self):
        """This data with a value table for every numeric feature (the lazy ones' made
        from the training matrix): what the explanation and re-pruning read."""
        if self.source is None:
            return self
        lo, hi, offsets = [], [], np.zeros(len(self.n_bins) + 1, dtype=np.int64)
        for f in range(len(self.n_bins)):
            sl = slice(self.bin_offsets[f], self.bin_offsets[f + 1])
            if self.is_lazy(f):
                col = self.source[:, f]
                part_hi = part_lo = np.unique(col[~np.isnan(col)]).astype(np.float64,
                                                                          copy=False)
            else:
                part_lo, part_hi = self.bin_lo[sl], self.bin_hi[sl]
            lo.append(part_lo)
            hi.append(part_hi)
            offsets[f + 1] = offsets[f] + len(part_hi)
        lo, hi = np.concatenate(lo), np.concatenate(hi)
        if self.bin_lo is self.bin_hi:
            lo = hi
        return BinnedData(self.codes, self.n_bins, self.is_cat, lo, hi, offsets, self.y,
                          self.y2, self.w, self.n_stats, self.n_out)

    @cached_property
    def binned(self):
        """The bins as the kernels take them: a :data:`~quercus._kernels.schema.Binned`
        record of ``codes``, ``n_bins``, ``bin_lo``, ``bin_hi`` and ``bin_offsets``."""
        return Binned(self.codes, self.n_bins, self.bin_lo, self.bin_hi, self.bin_offsets)

    @cached_property
    def cat_mask(self):
        """``is_cat`` for the split search kernels, None when no feature is categorical:
        numba then compiles them without the categorical scorers (a numeric fit's first
        run compiles less). Read at every node: computed once."""
        return self.is_cat if self.is_cat.any() else None

    @property
    def has_missing(self):
        """Whether any sample misses any feature (codes ``n_bins[f]``)."""
        if not hasattr(self, "_has_missing"):
            if self.codes.size <= MISSING_AT_ONCE_CELLS:
                # (one comparison: a call per column was most of it on a small table)
                self._has_missing = bool((self.codes == self.n_bins).any())
            else:  # column by column: a whole-matrix comparison holds n * p booleans
                self._has_missing = any(bool((self.codes[:, j] == self.n_bins[j]).any())
                                        for j in range(self.codes.shape[1]))
        return self._has_missing

    @property
    def is_regression(self):
        return self.n_out == 1 and self.n_stats == 3


def node_value_and_impurity(data, cfg, idx, wi, stats):
    """Prediction stats of a node and its impurity under the configured criterion (the
    subtree kernel's rule, :func:`~quercus._kernels.node.settle_value`)."""
    value = np.empty(data.n_out)
    imp = settle_value(value, stats, data.y, idx, wi, cfg.criterion, data.is_regression,
                       absolute_flag(cfg))
    return value, float(imp)


@dataclass
class Validation:
    """Held-out rows for pre-pruning: encoded X (NaN missing), targets, weights, and the
    class tie-break ranks the test reads (:meth:`prepared`)."""

    X: np.ndarray
    y: np.ndarray
    w: np.ndarray
    priority: np.ndarray = None

    def prepared(self, cfg, data):
        """These rows as the validation test reads them: contiguous float64 arrays, and
        ``cfg``'s class priority as int64 (empty for a regressor)."""
        priority = (np.zeros(0, dtype=np.int64) if data.is_regression or cfg.priority is None
                    else np.ascontiguousarray(cfg.priority, dtype=np.int64))
        return Validation(np.ascontiguousarray(self.X, dtype=np.float64),
                          np.ascontiguousarray(self.y, dtype=np.float64),
                          np.ascontiguousarray(self.w, dtype=np.float64), priority)

    def root(self):
        """The root's validation rows and their weights: all of them."""
        return np.arange(self.X.shape[0], dtype=np.int64), self.w


def grow(data, cfg, seed, validation=None):
    """Grow a tree on ``data`` with ``cfg``; ``seed`` (a non-negative int) keys the nodes'
    random draws (``max_features``, the random splitter: :mod:`quercus._kernels.draws`),
    None when there are none. With ``cfg.pre_prune``, a node is split only when the split
    lowers the error on ``validation`` (strictly, unless ``cfg.strict`` is False). Returns
    (:class:`TreeArrays`, the list of splits pre-pruning refused)."""
    n, p = data.codes.shape
    # What encoding and binning freed stays in the C allocator's heap, where a tree grown
    # in memory maps (or by other threads) cannot reuse it: handed back first, so that it
    # does not sit idle under the growing tree at the fit's peak.
    _memory.release_if_big(n * p)
    limit = subtree_limit(n, data.is_regression)
    key0 = root_key(seed) if draws_per_node(cfg, p) else 0
    if cfg.pre_prune:
        validation = validation.prepared(cfg, data)
    if n <= limit:
        # The whole tree in one kernel call, its tables taken as they are (a small fit:
        # the builder and the splice would cost more than growing it). Slot j is node j.
        *tables, refused = whole_tree_tables(data, cfg, key0, validation)
        return _table_tree(*tables), _refusals(cfg, refused, lambda slot: slot)
    idx0 = np.arange(n, dtype=np.int64)
    w0 = data.w  # (no kernel writes a node's weights: no copy, 8 bytes a row less)
    stats0 = _root_stats(data)
    total_w = float(w0.sum())
    floor_w = risk_floor_weight(cfg, total_w)
    tree = TreeBuilder(data.n_out)
    root = tree.add(1, 0)
    _expect_regression_tree(data, cfg, tree, [(n, 0)])
    all_features = np.arange(p, dtype=np.int64)
    val0 = validation.root() if cfg.pre_prune else None
    layout = histogram_layout(data, cfg)
    hist0 = node_histograms(data, layout, idx0, w0)
    # The streamed split search's slice width, or None when no feature has more bins
    # (then that path of the search is not even compiled).
    stream = stream_width(data.n_stats, n)
    if not (p and int(data.n_bins.max()) + 1 > stream):
        stream = None
    # With every weight 1 and no sample spread over branches, every node's weights are
    # ones: views of ``data.w``, not lists of their own (8 bytes a pending row less, and
    # none made at a split).
    unit = not may_spread(data, cfg) and bool((data.w == 1.0).all())
    stack = [(root, idx0, w0, stats0, np.zeros(p, dtype=bool), val0, hist0, key0)]
    # The stack holds the root's samples only until the root is split (8 bytes a row; its
    # weights are the fit's own).
    del idx0, w0, hist0
    log = []  # pre-pruning decisions
    deferred = []  # small nodes whose subtrees the kernel grows once the top is done
    # Nodes taken off the stack at each step: a constant, so that the node numbering
    # does not depend on the machine. (A node's validation test reads its own rows only:
    # any width decides as one at a time.)
    width = FRONTIER_WIDTH
    while stack:
        # The step's frontier: each node settled (leaf, small node for the kernel, or to
        # search), then every (node, feature) searched in one parallel call, then each
        # searched node split, its children pushed for the steps to come.
        frontier = []
        for _ in range(min(width, len(stack))):
            node, idx, wi, stats, used, val, hist, key = stack.pop()
            if idx.size <= limit:
                deferred.append((node, idx, wi, stats, used, key, val))
                continue
            value, imp = node_value_and_impurity(data, cfg, idx, wi, stats)
            depth = int(tree["depth"][node])
            imp, weight, searchable = settle_node(
                stats, imp, idx, wi, data.y, data.is_regression, depth, cfg.max_depth,
                cfg.min_samples_split, cfg.min_samples_leaf, cfg.min_weight_leaf,
                float(cfg.min_objects), floor_w, cfg.risk_loss)
            tree["value"][node] = value
            write_stats(tree.nodes(), node, imp, weight, idx.size)
            features = all_features[~used]
            if not searchable or features.size == 0:
                continue
            features, uniforms = node_draws(features, cfg.max_features,
                                            cfg.random_splitter, key)
            frontier.append(_Pending(node, [idx, wi], stats, used, val, hist, imp, weight,
                                     depth, features, uniforms, key))
        del idx, wi, hist
        found = _search_frontier(data, cfg, layout, frontier, stream)
        splits, keys = [], []
        for pending, cands in zip(frontier, found):
            best = choose_split(cands.found, cands.decrease, cands.split_info, cfg.gain_ratio)
            if best >= 0 and (pending.weight / total_w * cands.decrease[best] + TIE_EPS
                              >= cfg.min_impurity_decrease):
                split = _split_best(data, cfg, tree, pending, cands, best, floor_w,
                                    validation, unit, log)
                if split is not None:
                    splits.append(split)
                    keys.append(pending.key)
            pending.rows.clear()  # (a node's rows go with its step, split or not)
            pending.hist = None
        del frontier, found
        # The children's histograms, all in one call: the step's histogram work is a sum
        # over rows. Then the children are pushed, each node's first child on top.
        hists = _step_histograms(data, layout, splits)
        for (kids, _), kid_hists, key in zip(splits, hists, keys):
            for c, item in reversed(kids):
                stack.append(item + (kid_hists[c] if c < 2 else None, child_key(key, c)))
        del splits, hists
    if deferred:
        _memory.release_if_big(n * p)  # (what the top nodes' searches freed)
    log += _grow_below(data, cfg, tree, deferred, total_w, validation)
    return tree.freeze(), log


class _Pending:
    """A node of a step's frontier, settled and to be searched: its samples and weights
    (``rows``, a list the split empties), stats, the multiway attributes used above it,
    its validation rows, histograms, impurity, weight, depth, the features to search
    with their random-splitter draws, and its key (:mod:`quercus._kernels.draws`)."""

    __slots__ = ("node", "rows", "stats", "used", "val", "hist", "imp", "weight", "depth",
                 "features", "uniforms", "key")

    def __init__(self, *values):
        for name, value in zip(self.__slots__, values):
            setattr(self, name, value)


def _search_frontier(data, cfg, layout, frontier, stream):
    """The :class:`~quercus._kernels.splits.Candidates` of every node of ``frontier``:
    every (node, feature) pair searched in one call shared out to the fit's threads."""
    if not frontier:
        return []
    sizes = np.array([pn.features.size for pn in frontier], dtype=np.int64)
    starts = np.zeros(len(frontier) + 1, dtype=np.int64)
    starts[1:] = np.cumsum(sizes)
    hargs = [_hist_args(data, layout, pn.hist) for pn in frontier]

    def search(pos):
        # ``pos`` is increasing: the pairs of each node come together, in feature order.
        nodes = np.searchsorted(starts, pos, side="right") - 1
        parts = []
        for j in np.unique(nodes):
            pn = frontier[j]
            local = pos[nodes == j] - starts[j]
            parts.append(search_features(
                data.binned, data.cat_mask, pn.features[local], pn.rows[0], pn.rows[1],
                data.y, data.y2, data.n_stats, cfg.criterion, cfg.cat_mode, cfg.missing_mode,
                cfg.min_samples_leaf, cfg.min_weight_leaf, pn.uniforms[local],
                float(cfg.min_objects), *hargs[j], stream, absolute_flag(cfg)))
        if len(parts) == 1:
            return parts[0]
        return tuple(np.concatenate(arrays) for arrays in zip(*parts))

    cells = sum(pn.rows[0].size * pn.features.size for pn in frontier)
    found, kind, res, ints = over_features(search, int(starts[-1]), threads_for(cells))
    return [unpack_search(found[s:e], kind[s:e], res[s:e], ints[s:e])
            for s, e in zip(starts[:-1], starts[1:])]


def _split_best(data, cfg, tree, pending, cands, best, collapse_floor, validation, unit,
                log):
    """Split ``pending``'s node by its candidate ``best``, unless the split collapses at
    the floor, or pre-pruning refuses it (logged in ``log``): then None. Returns the
    node's children and their histograms' request, as :func:`_split_node` does."""
    node, idx, wi = pending.node, pending.rows[0], pending.rows[1]
    f = int(pending.features[best])
    k = int(cands.kind[best])
    split_bin = int(cands.split_bin[best])
    threshold = float(cands.threshold[best])
    if k == NUMERIC and np.isnan(threshold):
        threshold = data.threshold_of(f, idx, split_bin)
    cat_map = np.zeros(1, dtype=np.int64)
    if k == CAT_SUBSET:
        cat_map = _subset_map(data, cfg, idx, wi, f, split_bin)
    branch, known_w, any_missing, missing_child, gone = split_branches(
        data.codes[:, f], data.n_bins[f], k, split_bin, cat_map, idx, wi,
        cfg.missing_mode, int(cands.miss_dir[best]), pending.stats, pending.imp,
        pending.weight, data.y, data.y2, data.n_stats, data.is_regression, cfg.criterion,
        criterion_for_stats(data), cfg.risk_loss, collapse_floor)
    if gone:
        return None
    mark = (tree.count, {k_: len(v) for k_, v in tree.flat.items()})
    # The node's rows are handed over, so that the split can drop them once they are in
    # its children's (at the root of a big fit, 16 bytes a row less at its peak).
    rows = pending.rows
    rows.append(branch)
    del idx, wi, branch
    kids, request, verdict = _split_node(
        data, cfg, tree, node, rows, pending.used, f, k, split_bin, threshold,
        (known_w, any_missing, missing_child, cat_map), float(cands.rho[best]), pending.depth,
        pending.val, validation, pending.hist, unit)
    if verdict is not None and not verdict[0]:
        _undo_split(tree, node, mark)
        log.append(refusal(node, f, *verdict[1:], cfg.strict))
        return None
    return kids, request


def refusal(node, feature, split_err, leaf_err, strict):
    """The pruning report's entry of a split pre-pruning refused at ``node``."""
    return {"node": node, "feature": feature, "leaves_removed": 0,
            "error_before": split_err, "error_after": leaf_err,
            "reason": "pre-pruning: the split does not lower the validation error" if strict
            else "pre-pruning: the split raises the validation error"}


def may_spread(data, cfg):
    """Whether a split may send a sample down several branches (C4.5's fractional rule
    on data with missing values), each with a share of its weight."""
    return cfg.missing_mode == FRACTIONAL and data.has_missing


def absolute_flag(cfg):
    """The split searches' ``absolute`` argument: True for the absolute-error criterion,
    else None (its search is then not compiled)."""
    return True if cfg.criterion == ABSOLUTE_ERROR else None


def draws_per_node(cfg, p):
    """Whether growth draws at random at each node (of ``p`` features): the random
    splitter, or ``max_features`` below ``p``."""
    return cfg.random_splitter or cfg.max_features < p


def _grow_below(data, cfg, tree, deferred, total_w, validation):
    """Grow the subtrees of the ``deferred`` small nodes, each in one kernel call, and
    append them to ``tree``, biggest first. The calls are independent and release the GIL,
    so they run on the fit's threads; the tree does not depend on how many. Returns the
    pruning report's entries of the splits pre-pruning refused in them."""
    # Read here, not in the threads: splicing grows the tree's arrays meanwhile.
    depth = {item[0]: int(tree["depth"][item[0]]) for item in deferred}
    layout = subtree_layout(data, cfg)

    def one(item):
        return _subtree(data, cfg, layout, item, depth[item[0]], total_w, validation)

    # Biggest first, so that no thread is left with a big one at the end; spliced in that
    # order as they finish (on any number of threads: the tree's node order is the same),
    # so that the tables of finished subtrees do not pile up before they are copied.
    # (Sorted in place, stably: the caller's list must not keep the items either.)
    deferred.sort(key=lambda item: -item[1].size)
    threads = numba.get_num_threads()
    work = sum(item[1].size for item in deferred) * data.codes.shape[1]
    parallel = threads > 1 and len(deferred) > 1 and work >= PARALLEL_MIN_CELLS
    results = in_order(lambda i: one(deferred[i]), len(deferred), threads if parallel else 1)
    log = []
    for i, (*result, refused) in enumerate(results):
        # A node's rows and weights go once its subtree is spliced (together 16 bytes a
        # training row until the last subtree is grown).
        node, deferred[i] = deferred[i][0], None
        first = tree.count
        _splice(tree, node, *result)
        # (Block slot 0 is the node, slot j its (j-1)-th new node.)
        log += _refusals(cfg, refused, lambda slot: node if slot == 0 else first + slot - 1)
    return log


def _refusals(cfg, refused, node_of):
    """The pruning report's entries of the kernel's ``refused`` splits (its rows: root,
    block slot, feature, errors), ``node_of`` a block slot's node in the tree."""
    return [refusal(node_of(int(slot)), int(f), float(split_err), float(leaf_err),
                    cfg.strict) for _, slot, f, split_err, leaf_err in refused]


def _expect_regression_tree(data, cfg, tree, sizes):
    """Tell a regressor's ``tree`` how many nodes it can reach below its leaves of
    ``sizes`` ((rows, depth) pairs; see :func:`subtree_node_bound`), so that a big one takes
    room for them at once (``TreeBuilder.expect``). Nodes on continuous targets split to
    about a row a leaf, to the bound; a classifier's stop at pure nodes far below it (room
    in maps for its bound would be fresh memory where the tree could reuse the heap's
    freed blocks, raising the peak), so its tree grows as it goes. Called once, at the
    root: the bound of any later frontier is no larger, and room is only ever added."""
    if data.is_regression:
        bound = subtree_node_bound(data, cfg, sizes)
        if bound is not None:
            tree.expect(tree.count + bound)


def subtree_node_bound(data, cfg, sizes):
    """At most how many nodes the subtrees below leaves of ``sizes`` ((rows, depth)
    pairs) add, or None when there is no such bound: a multiway split may have empty
    branches, and a spread sample is in several children. Otherwise every split is binary
    and each leaf holds at least ``min_samples_leaf`` rows, so a node of ``m`` rows has at
    most ``m // min_samples_leaf`` leaves (and at most 2**(levels left)).

    Examples
    --------
    >>> cfg = GrowConfig(criterion=0, gain_ratio=False, cat_mode=1, missing_mode=1,
    ...                  max_surrogate=0, random_splitter=False, max_depth=3,
    ...                  min_samples_split=2, min_samples_leaf=2, min_weight_leaf=0.0,
    ...                  min_impurity_decrease=0.0, max_features=1)
    >>> import types
    >>> data = types.SimpleNamespace(cat_mask=None, has_missing=False)  # no categories
    >>> subtree_node_bound(data, cfg, [(10, 1), (100, 2)])  # 4 leaves, then 2
    8
    """
    # (cat_mask is None when no attribute is categorical)
    if may_spread(data, cfg) or (cfg.cat_mode == CAT_MULTIWAY and data.cat_mask is not None):
        return None
    total = 0
    for m, depth in sizes:
        leaves = max(1, m // max(1, cfg.min_samples_leaf))
        levels = cfg.max_depth - depth
        if levels < 62:
            leaves = min(leaves, 1 << max(0, levels))
        total += 2 * leaves - 2
    return total


def whole_tree_tables(data, cfg, key=0, validation=None):
    """The kernel's tables (``grow_subtree``'s: slot j is node j) of the tree of ``data``
    grown in one call, as :func:`grow` grows a small fit (at most ``subtree_limit``
    rows): what a cross-validation fold is scored from, with no :class:`TreeArrays`
    made, and the splits pre-pruning refused (on ``validation``, as
    :meth:`Validation.prepared` makes it). ``key``: the root's (its random draws')."""
    n, p = data.codes.shape
    val = validation.root() if cfg.pre_prune else None
    root = (0, np.arange(n, dtype=np.int64), data.w, _root_stats(data),
            np.zeros(p, dtype=bool), key, val)
    # (Below HIST_MIN_SAMPLES rows no node keeps dense histograms: no layout to work out.)
    layout = subtree_layout(data, cfg, dense=n >= HIST_MIN_SAMPLES)
    return _subtree(data, cfg, layout, root, 0, float(data.w.sum()), validation)


_NO_DENSE = np.zeros(0, dtype=np.int64)
# The subtree kernel's nodes start with room for a node every this many rows (growing
# by half when full reallocates each of the record's arrays). A regressor's subtree
# reaches about two nodes a row and grows a few times; a classifier's stops at pure
# nodes, far fewer, and a finished subtree holds its room until it is spliced, after
# those before it: a classifier starts with less.
NODE_ROOM_ROWS = 2
NODE_ROOM_ROWS_CLASSIFIER = 8


def subtree_layout(data, cfg, dense=True):
    """(presort, dense features, histogram offsets) of :func:`_subtree`'s calls; none
    dense without ``dense``."""
    # Presorting needs every sample in exactly one child; absolute error sorts its own.
    presort = not may_spread(data, cfg) and cfg.criterion != ABSOLUTE_ERROR
    layout = histogram_layout(data, cfg) if dense else None
    if layout is None:
        return presort, _NO_DENSE, np.zeros(data.codes.shape[1] + 1, dtype=np.int64)
    return (presort, *layout)


def _subtree(data, cfg, layout, item, depth, total_w, validation=None):
    """The kernel's (nodes, count, cat_map, surs, refused) of the subtree below a
    deferred node ``item`` (node, samples, weights, stats, attributes used above, key,
    its validation rows and their weights or None) at ``depth``: see ``grow_subtree``.
    ``layout``: :func:`subtree_layout`."""
    _, idx, wi, stats, used, key, val = item
    vargs = None
    if val is not None:
        vargs = HeldOut(validation.X, validation.y, val[0], val[1],
                        np.array([0, val[0].size]), validation.priority, bool(cfg.strict))
    nodes, slots, cat_map, _, surs, _, refused = subtree_blocks(
        data, cfg, layout, idx, wi, np.array([0, idx.size]), stats[None], used[None],
        np.array([depth]), np.array([total_w]), np.array([key], dtype=np.int64), vargs)
    return nodes, int(slots[1]), cat_map, surs, refused


def subtree_blocks(data, cfg, layout, idx, w, root_start, stats, used, depth, total_w,
                   keys=None, validation=None):
    """``grow_subtree``'s tables of the subtrees below several roots, grown in one call:
    root r has the samples ``idx[root_start[r]:root_start[r + 1]]`` (weights ``w``
    alike), stats ``stats[r]``, attributes ``used[r]`` used above it, depth ``depth[r]``,
    key ``keys[r]`` (its random draws'; None: no draws), and its tree's root weighs
    ``total_w[r]`` (which scales ``cfg``'s floor). ``validation``: ``grow_subtree``'s
    (pre-pruning's rows), or None."""
    presort, dense, hist_offsets = layout
    room = max(64, idx.size // (NODE_ROOM_ROWS if data.is_regression
                                else NODE_ROOM_ROWS_CLASSIFIER))
    draws = None
    if draws_per_node(cfg, data.codes.shape[1]):
        draws = Draws(keys, np.int64(cfg.max_features), bool(cfg.random_splitter))
    return grow_subtree(
        data.binned, data.cat_mask, data.y, data.y2, data.n_stats, data.is_regression,
        cfg.criterion, cfg.gain_ratio, cfg.cat_mode, cfg.missing_mode, cfg.max_depth,
        cfg.min_samples_split, cfg.min_samples_leaf, cfg.min_weight_leaf,
        cfg.min_impurity_decrease, cfg.min_objects, total_w, idx, w, root_start, stats, used,
        depth, presort, dense, hist_offsets, HIST_MIN_SAMPLES,
        risk_floor_weight(cfg, total_w), cfg.risk_loss, _surrogate_args(data, cfg),
        *data.value_args, room, draws, absolute_flag(cfg), validation)


def _surrogate_args(data, cfg):
    """``grow_subtree``'s ``surrogates``: (max_surrogate, always), or None where no node
    can search any (then the kernel is compiled without that code, as a fit on complete
    data needs)."""
    if cfg.missing_mode != SURROGATE or cfg.max_surrogate == 0 or not (
            cfg.surrogates_always or data.has_missing):
        return None
    return np.int64(cfg.max_surrogate), bool(cfg.surrogates_always)


def risk_floor_weight(cfg, total_w):
    """``cfg.risk_floor`` in weight (times the root's ``total_w``), a hair lower: a node
    below it collapses in the weakest-link sequence at ``risk_floor`` however the risks'
    sums round."""
    return cfg.risk_floor * total_w * (1.0 - 1e-9)


def root_risk(data, cfg):
    """R(root) of loss ``cfg.risk_loss``: the scale of rpart's ``cp``."""
    stats = _root_stats(data)
    w = float(data.w.sum())
    if w <= 0.0:
        return 0.0
    _, imp = node_value_and_impurity(data, cfg, np.arange(data.w.shape[0]), data.w, stats)
    return float(weighted_risk(stats, imp, w, cfg.risk_loss)) / w


def _table_tree(nodes, count, cat_map, surs):
    """The tree whose every node the kernel grew (slot j is node j): what splicing its
    nodes below a lone root gives, without the builder."""
    fields = {name: a[:count].copy() for name, a in zip(nodes._fields, nodes)}
    first_child = fields["first_child"]
    first_child[first_child >= 0] += 1
    fields["cat_map"] = cat_map
    fields.update(zip(surs._fields, surs))  # (the kernel's own copies)
    return TreeArrays(**fields)


def _splice(tree, node, nodes, count, cat_map, surs):
    """Copy a subtree grown by the kernel (slot 0 is ``node``, slot j its (j-1)-th new
    node, cat_map and surrogate offsets from 0) into ``tree``."""
    first = tree.count
    if count > 1:
        tree.add(count - 1, 0, init=False)  # (every field is written below)
    rows = np.concatenate(([node], np.arange(first, first + count - 1)))
    first_child = nodes.first_child[:count]
    internal = first_child >= 0
    first_child[internal] += first
    cat_map_start = nodes.cat_map_start[:count]
    cat_map_start[cat_map_start >= 0] += len(tree.flat["cat_map"])
    nodes.sur_start[:count][internal] += len(tree.flat["sur_feature"])
    for name, values in zip(nodes._fields, nodes):
        tree[name][rows] = values[:count]
    for name, values in zip(surs._fields, surs):
        tree.flat[name].extend(values)
    tree.flat["cat_map"].extend(cat_map)


# The kernels' rule run as plain Python: the same arithmetic, no compiled call per node.


def may_split(cfg, depth, m, weight):
    """The size and depth rules allow splitting a node of ``m`` samples and ``weight``
    (:func:`quercus._kernels.node.may_split`, the subtree kernel's rule)."""
    return _may_split_rule(depth, m, weight, cfg.max_depth, cfg.min_samples_split,
                           cfg.min_samples_leaf, cfg.min_weight_leaf, cfg.min_objects)


def histogram_layout(data, cfg):
    """(features with dense histograms, their row offsets) or None when no node keeps
    histograms: absolute error scans sorted samples, and with ``max_features`` a node
    searches only some features, so it would not pay to build them all."""
    p = data.codes.shape[1]
    if cfg.criterion == ABSOLUTE_ERROR or cfg.max_features < p:
        return None
    sizes = np.where(data.n_bins + 1 <= DENSE_MAX_BINS, data.n_bins + 1, 0)
    if not sizes.any():
        return None
    offsets = np.zeros(p + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(sizes)
    return np.flatnonzero(sizes).astype(np.int64), offsets


def node_histograms(data, layout, idx, wi):
    """A node's dense histograms (hist, hist_n), or None when it is too small to keep them."""
    if layout is None or idx.size < HIST_MIN_SAMPLES:
        return None
    return _dense_histograms_of(data, layout, [(idx, wi)])[0]


def _dense_histograms_of(data, layout, rows):
    """The dense histograms (hist, hist_n) of ``layout``'s features over each (samples,
    weights) of ``rows``: every (rows, feature) pair in one call shared out to the fit's
    threads when the work is big. Each is a sum over its rows, in sample order."""
    features, offsets = layout
    size = int(offsets[-1])
    out = [(np.zeros((size, data.n_stats)), np.zeros(size, dtype=np.int64)) for _ in rows]
    crit = criterion_for_stats(data)
    p = features.size

    def fill(pos):
        which = pos // p
        for j in np.unique(which):
            (idx, wi), (hist, hist_n) = rows[j], out[j]
            fill_histograms(hist, hist_n, data.codes, features[pos[which == j] % p],
                            offsets, idx, wi, data.y, data.y2, crit)

    cells = sum(idx.size for idx, _ in rows) * p
    over_features(fill, len(rows) * p, threads_for(cells))
    return out


def _hist_args(data, layout, hist):
    """The histogram arguments of ``search_features``: the node's, or none."""
    if hist is None:
        return (np.zeros((0, data.n_stats)), np.zeros(0, dtype=np.int64),
                np.zeros(data.codes.shape[1] + 1, dtype=np.int64))
    return hist[0], hist[1], layout[1]


def _histogram_request(cfg, parent, child_weight, offsets, child_stats, depth, spread):
    """Which children of a binary split keep histograms: (the parent's, the smaller
    child, the larger, whether the smaller keeps its own), or None (:func:`_split_node`
    adds the smaller child's rows). The rule is the subtree kernel's
    (:func:`quercus._kernels.node.histogram_plan`). C4.5's fractional copies (``spread``)
    put a sample in both children, so there the parent's counts are not the sum of the
    children's: no subtraction."""
    if parent is None or spread or offsets.shape[0] != 3:
        return None
    big, keep_big, keep_small = plan_histograms(
        offsets, child_stats, child_weight, depth, HIST_MIN_SAMPLES, cfg.max_depth,
        cfg.min_samples_split, cfg.min_samples_leaf, cfg.min_weight_leaf,
        float(cfg.min_objects))
    if not keep_big:
        return None
    return parent, 1 - int(big), int(big), bool(keep_small)


def _step_histograms(data, layout, splits):
    """The children's histograms of a step's ``splits`` (as :func:`_split_node` returns
    them), a pair (hist, hist_n) or None per child: the smaller child's of each request
    built from its rows (all of them in one call), the larger's by subtraction."""
    out = [[None, None] for _ in splits]
    asked = [(j, req) for j, (_, req) in enumerate(splits) if req is not None]
    if not asked:
        return out
    built = _dense_histograms_of(data, layout, [req[4] for _, req in asked])
    for (j, (parent, small, big, keep_small, _)), h_small in zip(asked, built):
        out[j][big] = subtract_histograms(*parent, *h_small)
        if keep_small:
            out[j][small] = h_small
    return out


_NO_SURROGATES = surrogate_table(0)


def _undo_split(tree, node, mark):
    """Turn ``node`` back into a leaf: drop its children (not pushed yet)."""
    count, flat_lengths = mark
    tree.count = count
    for k_, n_ in flat_lengths.items():
        del tree.flat[k_][n_:]
    unsplit(tree.nodes(), node)


def _root_stats(data):
    """The stats of every sample (the root's), summed without a copy of the targets (the
    copies, freed at once, stayed fragmented in the heap and raised the fit's peak)."""
    if data.is_regression:
        return np.array([data.w.sum(), data.w @ data.y, data.w @ data.y2])
    return class_totals(data.y, data.w, data.n_stats)


def _split_node(data, cfg, tree, node, rows, used, f, k, split_bin, thr, routed, rho,
                depth, val=None, validation=None, parent_hist=None, unit=False):
    """Split ``node``: returns (its non-empty children as (child, stack item without
    histograms), what :func:`_step_histograms` needs for theirs, and with validation rows
    ``val`` pre-pruning's verdict (pays, error with the split, error as a leaf), else
    None: the caller undoes a split that does not pay). ``rows`` is the list [samples,
    weights, branches] of the node, emptied here: the caller keeps no reference to them,
    so they go as soon as the children have theirs. ``routed``: the rest of what
    ``split_branches`` said of the split (known weight per child, whether any sample
    misses the attribute, the missing child) and its categories' children (``cat_map``).
    ``unit``: every weight is 1 and stays 1 (no sample is spread), so the children's
    weights are views of ``data.w``."""
    idx, wi, branch = rows
    rows.clear()
    known_w, any_missing, missing_child, cat_map = routed
    nbf = int(data.n_bins[f])
    n_children = nbf if k == MULTIWAY else 2
    cat_map_start = -1
    if k == CAT_SUBSET:
        cat_map_start = len(tree.flat["cat_map"])
        tree.flat["cat_map"].extend(cat_map)
    sur_start, sur_count = len(tree.flat["sur_feature"]), 0
    surs = _NO_SURROGATES
    if cfg.missing_mode == SURROGATE and k != MULTIWAY and (any_missing
                                                            or cfg.surrogates_always):
        surs = _add_surrogates(data, cfg, tree, idx, wi, branch, f)
        sur_count = len(surs.sur_feature)
        if any_missing:
            route_missing(data.codes, data.n_bins, data.bin_hi, data.bin_offsets, idx,
                          branch, surs, missing_child, *data.value_args)
    first = tree.add(n_children, depth + 1, init=False)  # (made leaves by split_rows)
    children = split_rows(
        tree.nodes(), first, node, k, f, thr, split_bin if k == CAT_BINARY else -1,
        n_children, rho, cfg.missing_mode, missing_child, bool(any_missing), known_w,
        sur_start, sur_count, cat_map_start, idx, wi, branch, data.y, data.y2, data.n_stats,
        criterion_for_stats(data), unit)
    del branch, idx, wi
    if unit:
        children = children._replace(w=data.w[:children.rows.size])
    child_idx, child_w, offsets, child_stats, child_weight = children
    child_used = used
    if k == MULTIWAY:
        child_used = used.copy()
        child_used[f] = True
    child_val, verdict = [None] * n_children, None
    if val is not None:
        pays, split_err, leaf_err, vrows, vw, voff = split_pays(
            validation.X, validation.y, val[0], val[1], k, f, thr,
            split_bin if k == CAT_BINARY else -1, n_children, cfg.missing_mode, missing_child,
            cat_map, surs, 0, len(surs.sur_feature), children, data.y, cfg.criterion,
            absolute_flag(cfg), tree["value"][node], validation.priority, data.is_regression,
            cfg.strict)
        child_val = [(vrows[voff[c]:voff[c + 1]], vw[voff[c]:voff[c + 1]])
                     for c in range(n_children)]
        verdict = (bool(pays), float(split_err), float(leaf_err))
    spread = cfg.missing_mode == FRACTIONAL and any_missing
    request = _histogram_request(cfg, parent_hist, child_weight, offsets, child_stats, depth,
                                 spread)
    kids = []
    for c in range(n_children):
        cid = first + c
        s, e = offsets[c], offsets[c + 1]
        if e > s and child_weight[c] > 0:
            # Own copies: a pending sibling must not keep the whole level's buffer alive.
            kids.append((c, (cid, child_idx[s:e].copy(),
                             child_w[:e - s] if unit else child_w[s:e].copy(),
                             child_stats[c], child_used, child_val[c])))
        else:
            # An empty branch (or one of zero weight) is a leaf predicting as its parent.
            as_parent(tree.nodes(), cid, node, e - s)
    if request is not None:
        # The smaller child's rows, for its histograms: its stack item's (or, for a child
        # of no weight, a copy of its slice: the level's buffer goes now).
        small = request[1]
        s, e = offsets[small], offsets[small + 1]
        mine = dict(kids).get(small)
        rows = ((mine[1], mine[2]) if mine is not None else
                (child_idx[s:e].copy(), child_w[:e - s] if unit else child_w[s:e].copy()))
        request = request + (rows,)
    return kids, request, verdict


def criterion_for_stats(data):
    return SQUARED_ERROR if data.is_regression else GINI


def _subset_map(data, cfg, idx, wi, f, n_left):
    """Child (0 left, 1 right, -1 absent here) of every category of an ordered split:
    the first ``n_left`` of :func:`ordered_categories` left, as the subtree kernel's
    ``node.subset_map``."""
    cat_map = np.full(int(data.n_bins[f]), -1, dtype=np.int64)
    ordered = ordered_categories(data, cfg.criterion, idx, wi, f)
    cat_map[ordered[:n_left]] = 0
    cat_map[ordered[n_left:]] = 1
    return cat_map


def ordered_categories(data, criterion, idx, wi, f):
    """The categories present at a node in the order an ordered split scans them: by mean
    target (:func:`quercus._kernels.node.scan_order`), or by weighted median for absolute
    error."""
    nbf = int(data.n_bins[f])
    if criterion == ABSOLUTE_ERROR:
        return ae_category_order(data.codes[:, f], nbf, idx, wi, data.y)
    return scan_order(data.codes[:, f], nbf, idx, wi, data.y, data.y2, data.n_stats,
                      criterion)


def _add_surrogates(data, cfg, tree, idx, wi, branch, f):
    """Find and store the node's surrogate splits, best agreement first: the attributes
    searched on the fit's threads, then kept as ``grow_subtree`` keeps them
    (``keep_surrogates``). Returns the node's surrogates (a ``Surrogates`` record)."""
    known = branch >= 0
    if not known.any() or cfg.max_surrogate == 0:
        return surrogate_table(0)
    sidx = idx[known]
    sw = wi[known]
    if data.scratch is None:
        data.scratch = np.zeros(data.codes.shape[0])
    direction = data.scratch  # only the entries of sidx are read
    direction[sidx] = branch[known]
    p = data.codes.shape[1]

    def search(pos):
        return all_surrogates(data.binned, data.cat_mask, pos, f, sidx, sw, direction)

    found = over_features(search, p, threads_for(sidx.size * p))
    surs = select_surrogates(data.codes, data.n_bins, *found, sidx,
                             np.int64(cfg.max_surrogate), *data.value_args)
    for name, values in zip(surs._fields, surs):
        tree.flat[name].extend(values)
    return surs


def bin_of_threshold(data, f, threshold):
    """The last bin of numeric feature ``f`` at or below ``threshold``."""
    hi = data.bin_hi[data.bin_offsets[f]:data.bin_offsets[f + 1]]
    return int(np.searchsorted(hi, threshold, side="right") - 1)
