"""Post-pruning on the flat tree: reduced-error, pessimistic (C4.5), cost-complexity.

Every method works on a copy of ``TreeArrays``: it marks internal nodes as leaves (their
``value`` is already stored, so nothing is refitted), and :func:`compact` drops the nodes no
longer reachable and renumbers the rest, siblings kept contiguous. Each method returns the
new tree and a report: one record per pruned node with the errors that decided it (its
feature as an index, named by :func:`finish`). The methods read the tree, the statistics of
the rows routed through it and its :class:`~quercus._target.Target`, never an estimator.
"""

import functools
import math
import numbers
import threading

import numba
import numpy as np
from scipy.stats import norm

from ._kernels.complexity import collapse_alphas, held_out_moments, weakest_links
from ._kernels.criteria import ENTROPY, impurity
from ._kernels.pessimistic import added_errors_z, collapse_no_better, prune_pessimistic
from ._kernels.predict import accumulate_node_stats, path_lengths_and_nodes, predict_tree
from ._kernels.schema import FRACTIONAL, LEAF
from ._prepare import class_priority
from ._threads import in_order
from ._tree import _ALL_FIELDS, _FIELDS, _FLAT, TreeArrays

_EPS = 1e-9


# ---------------------------------------------------------------- structure
def copy_tree(tree):
    return TreeArrays(**{k: getattr(tree, k).copy() for k in _ALL_FIELDS})


def compact(tree):
    """Drop unreachable nodes and renumber breadth-first (children contiguous, after their
    parent). Returns (new tree, old index of each new node)."""
    # (Python lists: a pruned tree is walked node by node, and numpy's scalar reads
    # cost more than the walk.)
    kind = tree.kind.tolist()
    first = tree.first_child.tolist()
    n_children = tree.n_children.tolist()
    order, depth, new_first = [0], [0], []
    cut = []  # the new indices of the leaves that were split (pruned nodes)
    for node, d in zip(order, depth):  # (order grows as it is read: breadth-first)
        if kind[node] == LEAF:
            if n_children[node]:
                cut.append(len(new_first))
            new_first.append(-1)
            continue
        new_first.append(len(order))
        k = n_children[node]
        order.extend(range(first[node], first[node] + k))
        depth.extend([d + 1] * k)
    old = np.asarray(order, dtype=np.int64)
    fields = {name: getattr(tree, name)[old] for name in _FIELDS}  # (copies)
    fields["first_child"] = np.asarray(new_first, dtype=np.int64)
    fields["depth"] = np.asarray(depth, dtype=np.int64)
    if cut:  # (a pruned split's fields: a leaf's)
        fields["n_children"][cut] = 0
        fields["feature"][cut] = -1
        fields["threshold"][cut] = 0.0
        fields["category"][cut] = -1
        fields["sur_count"][cut] = 0
    flat = {k: getattr(tree, k).copy() for k in _FLAT}
    return TreeArrays(**fields, **flat), old


def finish(tree, report, feature_names, renumber=False):
    """Compact a pruned tree, renumber its report's nodes to the new indices and name
    their features (``feature_names`` of the feature indices). ``renumber``: compact even
    when nothing was pruned (cost-complexity pruning: a tree grown only as far as the
    pruning keeps is numbered as the whole tree pruned)."""
    report = [dict(r, feature=None if r["feature"] < 0 else feature_names[r["feature"]])
              for r in report]
    if not renumber and not any(r["leaves_removed"] > 0 or r["reason"].startswith("subtree")
                                for r in report):
        return tree, report
    new_tree, old = compact(tree)
    new_of_old = {int(o): i for i, o in enumerate(old)}
    return new_tree, [dict(r, node=new_of_old.get(r["node"], -1)) for r in report]


def make_leaf(tree, node):
    tree.kind[node] = LEAF


def subtree_leaves(tree, node):
    """Leaves under ``node`` in the current (partly pruned) tree."""
    out = []
    stack = [node]
    while stack:
        n = stack.pop()
        if tree.kind[n] == LEAF:
            out.append(n)
        else:
            stack.extend(tree.children(n))
    return out


def postorder(tree):
    """Internal nodes, children before parents."""
    out = []
    stack = [(0, False)]
    while stack:
        n, done = stack.pop()
        if tree.kind[n] == LEAF:
            continue
        if done:
            out.append(n)
        else:
            stack.append((n, True))
            stack.extend((c, False) for c in tree.children(n))
    return out


# ---------------------------------------------------------------- errors
def node_stats(target, tree, X_enc, y_enc, w):
    """Stats (class weights, or regression sums) of data reaching every node."""
    reg = target.regression
    y = np.asarray(y_enc, dtype=np.float64)
    n_stats = 3 if reg else target.n_classes
    return accumulate_node_stats(X_enc, y, y * y, w, tree.kernel_args(),
                                 tree.weighted_n_node_samples, n_stats, reg)


def leaf_errors(target, tree, stats):
    """Error each node would make on ``stats`` as a leaf: misclassified weight, or the
    squared error of its value."""
    if target.regression:
        v = tree.value[:, 0]
        return np.maximum(stats[:, 2] - 2 * v * stats[:, 1] + v * v * stats[:, 0], 0.0)
    labels = target.majority(target.node_outputs(tree))
    return stats.sum(axis=1) - stats[np.arange(len(labels)), labels]


def _report_row(node, feature, leaves_removed, before, after, reason):
    """One row of a pruning report (``feature``: an index, -1 for none)."""
    return {"node": int(node), "feature": int(feature),
            "leaves_removed": int(leaves_removed), "error_before": float(before),
            "error_after": float(after), "reason": reason}


class _Walk:
    """A tree being pruned, its structure read as Python lists (numpy's scalar reads
    cost more than a walk node by node), kept in step with the tree's ``kind``."""

    def __init__(self, tree):
        self.tree = tree
        self.kind = tree.kind.tolist()
        self.first = tree.first_child.tolist()
        self.n_children = tree.n_children.tolist()

    def leaves_below(self, node):
        """:func:`subtree_leaves`' count."""
        kind, first, n_children = self.kind, self.first, self.n_children
        count, stack = 0, [node]
        while stack:
            n = stack.pop()
            if kind[n] == LEAF:
                count += 1
            else:
                stack.extend(range(first[n], first[n] + n_children[n]))
        return count

    def collapse(self, nodes, report, reason):
        """Make each of ``nodes`` that is not a leaf yet one, with a report row each (as
        :func:`_record` writes them) for ``reason``."""
        tree = self.tree
        for node in nodes:
            if self.kind[node] != LEAF:
                report.append(_report_row(node, tree.feature[node],
                                          self.leaves_below(node) - 1, np.nan, np.nan,
                                          reason))
                make_leaf(tree, node)
                self.kind[node] = LEAF


def _record(tree, node, before, after, reason):
    return _report_row(node, tree.feature[node], len(subtree_leaves(tree, node)) - 1,
                       before, after, reason)


# ---------------------------------------------------------------- reduced error
def reduced_error(target, tree, val_stats, strict):
    """Bottom-up: replace a subtree by a leaf when the validation error does not grow
    (``strict=False``) or strictly falls (``strict=True``, the book's figures)."""
    tree = copy_tree(tree)
    err_leaf = leaf_errors(target, tree, val_stats)
    # Rows that stop at a node (an unseen category) are predicted by that node whether or
    # not it is pruned: count them on the subtree's side too.
    residual = val_stats.copy()
    for node in np.flatnonzero(tree.kind != LEAF):
        residual[node] -= val_stats[tree.children(node)].sum(axis=0)
    err_stop = leaf_errors(target, tree, np.maximum(residual, 0.0))
    err = err_leaf.copy()
    report = []
    for node in postorder(tree):
        sub = sum(err[c] for c in tree.children(node)) + err_stop[node]
        better = err_leaf[node] < sub - _EPS if strict else err_leaf[node] <= sub + _EPS
        if better:
            report.append(_record(tree, node, sub, err_leaf[node],
                                  "validation error " + ("falls" if strict else
                                                         "does not grow")))
            make_leaf(tree, node)
            err[node] = err_leaf[node]
        else:
            err[node] = sub
    return tree, report


# ---------------------------------------------------------------- pessimistic (C4.5)
@functools.lru_cache(maxsize=16)
def _upper_z(cf):
    """The normal quantile of confidence ``cf`` (one per fit: scipy's ppf is slow)."""
    return float(norm.ppf(1 - cf))


def added_errors(n, e, cf):
    """C4.5's pessimistic estimate: extra errors at confidence ``cf`` for ``e`` errors in
    ``n`` cases (the upper confidence limit of the binomial, as in Quinlan's code and
    Weka's J48)."""
    return added_errors_z(float(n), float(e), float(cf), _upper_z(cf))


def pessimistic(target, tree, X_enc, y_enc, w, cf, subtree_raising, in_place=False):
    """Error-based pruning of C4.5 release 8, as Weka's J48 does it.

    First the tree is collapsed where a subtree makes no fewer training errors than its
    root as a leaf. Then, bottom-up, a node becomes a leaf when the leaf's estimated errors
    (training errors plus :func:`added_errors` at confidence ``cf``) are at most those of
    its subtree and of its largest branch (+0.1); otherwise, with subtree raising, when the
    largest branch's estimate is at most the subtree's (+0.1), that branch replaces the
    node and the node's training data is re-sorted into it. ``in_place``: prune ``tree``
    itself (a fit's freshly grown tree, which nothing else holds) instead of a copy.
    """
    if not in_place:
        tree = copy_tree(tree)
    report = []
    y = np.asarray(y_enc, dtype=np.float64)
    K = target.n_classes
    t = tree.kernel_args()  # the same arrays, modified in place below
    z = _upper_z(cf)

    # Collapse, top-down: a subtree that makes no fewer training errors than its root as a
    # leaf becomes that leaf.
    train_err = _training_errors(tree)
    for node, below, leaves in zip(*(a.tolist() for a in collapse_no_better(
            tree.kind, tree.first_child, tree.n_children, train_err))):
        report.append(_report_row(node, tree.feature[node], leaves - 1, below,
                                  train_err[node],
                                  "collapse: the subtree makes no fewer training errors"))

    # Rows or columns in order, as they come: the kernel reads one column per node, and a
    # copy of a DataFrame's (column-ordered) matrix was the biggest array of the pruning.
    X = X_enc
    if X.dtype != np.float64 or not (X.flags.c_contiguous or X.flags.f_contiguous):
        X = np.ascontiguousarray(X, dtype=np.float64)
    nodes, before, after, reason, removed, feature = prune_pessimistic(
        X, y, np.asarray(w, dtype=np.float64), t, tree.weighted_n_node_samples, tree.value,
        tree.n_node_samples, tree.rho, K, float(cf), z, bool(subtree_raising))
    for node, b, a, r, n_removed, f in zip(nodes.tolist(), before.tolist(), after.tolist(),
                                          reason.tolist(), removed.tolist(),
                                          feature.tolist()):
        report.append(_report_row(node, f, n_removed, b, a, _PESSIMISTIC_REASONS[r]))
    return tree, report


_PESSIMISTIC_REASONS = {1: "estimated errors as a leaf are not higher",
                        2: "subtree raising: the largest branch replaces the node"}


def _training_errors(tree):
    """Misclassified training weight of every node as a leaf. An empty branch stores its
    parent's class counts (to predict like the parent) but holds no sample: no error."""
    err = tree.value.sum(axis=1) - tree.value.max(axis=1)
    return np.where(tree.weighted_n_node_samples > 0, err, 0.0)


# ---------------------------------------------------------------- cost complexity
def node_risk(target, tree, loss):
    """R(t) of every node as its share of the root's weight times its loss:
    "impurity" (scikit-learn: the criterion's impurity), "error" (rpart: misclassified
    weight or squared error), "entropy" (the seeds' N_t H_t, entropy in bits)."""
    w_root = tree.weighted_n_node_samples[0]
    if loss == "impurity":
        return tree.impurity * tree.weighted_n_node_samples / w_root
    if loss == "entropy":
        ent = np.array([impurity(v, ENTROPY) for v in tree.value])
        return ent * tree.weighted_n_node_samples / w_root
    if target.regression:
        return tree.impurity * tree.weighted_n_node_samples / w_root
    return _training_errors(tree) / w_root


def weakest_link_path(target, tree, loss="impurity"):
    """The nested subtrees of minimal cost complexity (Breiman et al.'s weakest link).

    ``g(t) = (R(t) - R(T_t)) / (|leaves(T_t)| - 1)``; each step prunes every internal node
    whose ``g`` equals the minimum. Returns (alphas, total leaf risk of each subtree, the
    nodes pruned at each step); the first alpha is 0 (the full tree).
    """
    alphas, risks, _, _, steps = weakest_links_of(target, tree, loss)
    return alphas, risks, steps


def weakest_links_of(target, tree, loss):
    """:func:`weakest_link_path` plus the (internal nodes, leaves) of every subtree:
    (alphas, risks, internal nodes, leaves, steps).

    Examples
    --------
    >>> from quercus import CARTClassifier
    >>> from quercus._target import Target
    >>> from quercus.datasets import load_watermelon
    >>> est = CARTClassifier().fit(*load_watermelon("2.0"))
    >>> alphas, risks, n_int, n_leaves, steps = weakest_links_of(
    ...     Target.of(est), est.tree_, "impurity")
    >>> int(n_leaves[0]) == est.tree_.n_leaves, int(n_leaves[-1])
    (True, 1)
    """
    alphas, risks, n_int, n_leaves, ptr, nodes = weakest_links(
        node_risk(target, tree, loss), tree.kind, tree.first_child, tree.n_children)
    nodes, ptr = nodes.tolist(), ptr.tolist()
    steps = [nodes[ptr[s]:ptr[s + 1]] for s in range(alphas.size)]
    return alphas, risks, n_int, n_leaves, steps


def prune_at_alpha(target, tree, alpha, loss="impurity", path=None, in_place=False):
    """The smallest subtree of the weakest-link sequence whose steps have effective alpha
    at most ``alpha`` (scikit-learn's ``ccp_alpha``), and its report. ``path``: the
    tree's :func:`weakest_link_path`, when the caller has it; ``in_place``: prune
    ``tree`` itself (a tree only the caller holds), not a copy."""
    pruned_tree = tree if in_place else copy_tree(tree)
    alphas, _, steps = path if path is not None else weakest_link_path(target, tree, loss)
    report = []
    walk = None
    for a, nodes in zip(alphas[1:], steps[1:]):
        if a > alpha + 1e-12 * max(1.0, alpha):
            break
        walk = walk or _Walk(pruned_tree)
        walk.collapse(nodes, report, f"weakest link: effective alpha {a:.6g} <= {alpha:.6g}")
    return pruned_tree, report


def collapse_thresholds(alphas):
    """The alphas at which a node whose collapse alpha rounds a hair above them still
    counts as pruned, as :func:`prune_at_alpha` compares them."""
    return alphas + 1e-12 * np.maximum(1.0, alphas)


def _errors_along_path(target, tree, loss, alphas, X_enc, y_va, w_va, codes=None):
    """Moments (count, mean, sum of squared deviations) over the held-out rows of each
    row's loss (misclassified weight, or squared error) in the subtree at each of
    ``alphas`` of the weakest-link sequence of ``tree`` (risk ``loss``; its target
    ``target``), as :func:`prune_at_alpha` prunes: a row's prediction in a subtree is that
    of the first node on its path that the subtree has made a leaf. None when some row's
    prediction is not its last node's (C4.5's rule spreads a row over branches): then
    :func:`_errors_at_alphas`. ``codes``: a classifier's held-out labels already coded as
    indices of ``target.classes`` (-1: a class it does not know)."""
    t = tree.kernel_args()
    outputs = target.node_outputs(tree)
    if (((tree.missing_mode == FRACTIONAL) & (tree.kind != LEAF)).any()
            and np.isnan(np.sum(X_enc))):  # a missing value may spread its row
        indptr, indices = path_lengths_and_nodes(X_enc, t, tree.max_depth + 1)
        full = predict_tree(X_enc, t, tree.weighted_n_node_samples, outputs)
        if not np.array_equal(outputs[indices[indptr[1:] - 1]], full):
            return None
    thresholds = collapse_thresholds(alphas)
    w_va = np.asarray(w_va, dtype=np.float64)
    if target.regression:
        codes = np.asarray(y_va, dtype=np.float64)
        labels = np.zeros(tree.node_count, dtype=np.int64)
    else:
        if codes is None:
            import pandas as pd
            codes = pd.Index(target.classes).get_indexer(np.asarray(y_va, dtype=object))
        codes = codes.astype(np.float64)
        labels = target.majority(outputs).astype(np.int64)
    # The fold's pruning path, its nodes' collapse alphas and the rows' paths, in the kernel.
    mean, m2 = held_out_moments(node_risk(target, tree, loss), t, X_enc, tree.max_depth + 1,
                                thresholds, labels, np.ascontiguousarray(outputs[:, 0]),
                                codes, w_va, bool(target.regression))
    return X_enc.shape[0], mean, m2


def _errors_at_alphas(target, tree, loss, alphas, X_enc, y_va, w_va):
    """:func:`_errors_along_path` for trees that spread rows (C4.5's rule), each alpha from
    one pass of the rows through the full tree with the subtree's
    pruned nodes marked as leaves: no pruned copy of the tree is built."""
    collapse = collapse_alphas(node_risk(target, tree, loss), tree.kind, tree.first_child,
                               tree.n_children)
    outputs = target.node_outputs(tree)
    t = tree.kernel_args()
    y_va = np.asarray(y_va)
    out = np.empty((len(alphas), X_enc.shape[0]))
    for i, a in enumerate(alphas):
        kind = tree.kind.copy()
        kind[collapse <= a + 1e-12 * max(1.0, a)] = LEAF
        pred = predict_tree(X_enc, t._replace(kind=kind), tree.weighted_n_node_samples,
                            outputs)
        if target.regression:
            out[i] = w_va * (y_va.astype(float) - pred[:, 0]) ** 2
        else:
            out[i] = w_va * (target.classes[target.majority(pred)] != y_va)
    return _moments(out)


# Below this many cells a fold's fit is mostly Python (holding the GIL): threads would only
# take turns, so the folds run one after the other. Above it the folds' kernels, which
# release the GIL, are enough of the work for two threads to pay.
FOLD_THREADS_MIN_CELLS = 1000


# Folds take their bins from the whole data's (its exact bins, or a FoldBins); False: each
# bins its rows again, which the tests compare against.
REUSE_FOLD_BINS = True

# default_splits makes every fold's rows at once up to this many (folds x rows) cells of
# masks and indices; fold by fold above (no k copies of the rows at once beside them).
SPLITS_AT_ONCE_CELLS = 1 << 16


def default_folds(cv, n_rows, y_codes, random_state):
    """The folds of an integer ``cv``, rpart's ``xval`` groups: rows drawn into ``cv``
    folds at random (seeded by ``random_state``), at most one fold per row, so that small
    data cross-validates with the defaults (rpart's ``sample(rep(1:xval, length = n))``).
    A classifier's folds are stratified (scikit-learn's ``StratifiedKFold``) when every
    class has a row for every fold; a smaller class makes them plain random folds, as
    rpart's always are. ``y_codes``: a classifier's labels of the ``n_rows`` rows as class
    indices (None: a regressor).

    Examples
    --------
    >>> import numpy as np
    >>> golf = np.array([0] * 9 + [1] * 5)        # 9 yes, 5 no: no stratified 10 folds
    >>> type(default_folds(10, 14, golf, random_state=0)).__name__
    'KFold'
    >>> type(default_folds(10, 40, np.repeat([0, 1], 20), 0)).__name__
    'StratifiedKFold'
    >>> default_folds(10, 7, None, 0).get_n_splits()   # 7 rows: 7 folds of one row
    7
    """
    from sklearn.model_selection import KFold, StratifiedKFold
    k = min(int(cv), n_rows)
    if _stratified_counts(k, y_codes) is not None:
        return StratifiedKFold(k, shuffle=True, random_state=random_state)
    return KFold(k, shuffle=True, random_state=random_state)


# Each thread's RandomState for an integer seed (see rng_of).
_GENERATORS = threading.local()


def rng_of(random_state):
    """``check_random_state(random_state)``; for an integer seed, this thread's own
    RandomState seeded with it: the same stream as a new ``RandomState(seed)``, without
    making one (which draws a seed from the system's entropy first, and took more time
    than dealing a small fit's folds). The caller draws from it and is done with it
    before it calls this again.

    Examples
    --------
    >>> a = rng_of(3).permutation(6)
    >>> b = np.random.RandomState(3).permutation(6)
    >>> a.tolist() == b.tolist(), rng_of(3).permutation(6).tolist() == b.tolist()
    (True, True)
    """
    if isinstance(random_state, numbers.Integral):
        rng = getattr(_GENERATORS, "rng", None)
        if rng is None:
            rng = _GENERATORS.rng = np.random.RandomState(0)
        rng.seed(random_state)
        return rng
    from sklearn.utils import check_random_state
    return check_random_state(random_state)


def _stratified_counts(k, y_codes):
    """Each class's count when every class has at least ``k`` rows (the folds are then
    stratified), else None."""
    if y_codes is None:
        return None
    counts = np.bincount(y_codes)
    return counts if counts.min() >= k else None


def default_splits(cv, n_rows, y_codes, random_state):
    """The (train rows, test rows) of each of :func:`default_folds`' folds, the very
    ones its ``split`` yields (both sorted), made here: the splitter's input checks
    cost more than the rest of a cross-validated fit on a few dozen rows.

    Examples
    --------
    >>> import numpy as np
    >>> golf = np.array([0] * 9 + [1] * 5)
    >>> ours = default_splits(10, 14, golf, random_state=0)
    >>> theirs = default_folds(10, 14, golf, 0).split(np.zeros(14))
    >>> all(np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    ...     for a, b in zip(ours, theirs))
    True
    """
    k = min(int(cv), n_rows)
    rng = rng_of(random_state)
    counts = _stratified_counts(k, y_codes)
    if counts is not None:
        # Classes in order of first appearance; each class's rows are dealt to the folds
        # round robin over the rows sorted by class, then the fold labels of each class
        # are shuffled (StratifiedKFold with shuffle=True). (Every class 0 .. C - 1 is
        # present: at least k times.)
        rank = class_priority(y_codes, counts.size)  # (each class's, by first appearance)
        appearance = np.argsort(rank)  # the classes, first seen first
        # Each class's rows in row order, class after class in order of appearance, and
        # where each class's run starts in that order (the rows sorted by class).
        rows = np.argsort(rank[y_codes], kind="stable")
        ends = np.cumsum(counts[appearance]).tolist()
        fold_of = np.empty(n_rows, dtype=np.int64)
        folds = np.arange(k)
        start = 0
        for end in ends:
            # (how many of the sorted positions start .. end - 1 are i modulo k, for each
            # fold i: the class's count among the sorted rows' i::k)
            shares = [(end - i + k - 1) // k - (start - i + k - 1) // k for i in range(k)]
            labels = folds.repeat(shares)
            rng.shuffle(labels)
            fold_of[rows[start:end]] = labels
            start = end
    else:
        # A shuffled order cut into k runs, the first n % k one row longer (KFold).
        order = np.arange(n_rows)
        rng.shuffle(order)
        sizes = np.full(k, n_rows // k)
        sizes[:n_rows % k] += 1
        fold_of = np.empty(n_rows, dtype=np.int64)
        fold_of[order] = np.arange(k).repeat(sizes)
    if k * n_rows > SPLITS_AT_ONCE_CELLS:
        return [(np.flatnonzero(fold_of != i), np.flatnonzero(fold_of == i))
                for i in range(k)]
    # Every fold's rows at once (calls per fold were a noticeable part of a small fit),
    # fold after fold, each fold's in row order: the test rows sorted stably by fold, and
    # the training rows as the (fold, row) pairs of a k x n mask in row-major order.
    test = np.argsort(fold_of, kind="stable")
    train = np.flatnonzero(fold_of != np.arange(k)[:, None]) % n_rows
    splits, a, b = [], 0, 0
    for size in np.bincount(fold_of, minlength=k).tolist():
        splits.append((train[a:a + n_rows - size], test[b:b + size]))
        a, b = a + n_rows - size, b + size
    return splits


def complexity_table(target, tree, X_enc, y, w, loss, cv, random_state, fit_fold,
                     bins=None, y_codes=None, alpha_floor=0.0, fold_moments=None,
                     every_fold=None, links=None, splits=None):
    """rpart's complexity table of ``tree`` (of target ``target``) from k-fold
    cross-validation.

    ``X_enc`` is every training row encoded with the tree's schema: each fold is grown and
    scored from its rows, with the whole data's categories (as rpart's folds keep the
    data's factor levels), without encoding the data again. ``fit_fold(train, bins,
    labels, floor)`` grows a fold's tree on the rows ``train``, to the cost-complexity
    ``floor`` (the smallest alpha it is scored at), and returns a record with its
    ``tree`` and ``target`` (:func:`quercus._fit.fit_encoded`'s); ``bins``, when given
    here, are every row's exact bins or a :class:`~quercus._fold_bins.FoldBins`, and a
    fold is then given its rows' bins from them (``bins.take_rows``: the same tree as
    binning its rows again; None from it: the fold bins its rows); ``labels``: a
    classifier fold's (classes, label codes), coded from the whole data's.
    ``w`` are the weights the errors are counted with. ``y_codes``: a classifier's labels
    already coded as indices of ``target.classes`` (None: coded here).

    Columns: alpha (scikit-learn's scale), cp (alpha relative to the root's risk, rpart's
    scale), n_splits, n_leaves, rel_error (training risk relative to the root as a leaf),
    xerror and xstd (cross-validated misclassification or squared error relative to the
    root's, and its standard error). Each subtree ``T_i`` is evaluated on the folds at the
    geometric mean of its alpha interval, as rpart does.

    ``alpha_floor`` > 0: ``tree`` is the weakest-link subtree at that alpha (grown and
    pruned to it: rpart's tree grown to ``cp``), whose interval starts there. The folds'
    trees are scored at alphas from the first subtree's geometric mean up, so they are
    grown to that (``fit_fold``'s ``floor``): their subtrees there and above are the same.

    ``fold_moments(train, test, floor, thresholds, labels, codes)``, when given, scores a
    fold without ``fit_fold``: its held-out (count, mean, m2) at ``thresholds`` (as
    :func:`_errors_along_path`'s; ``labels`` and ``codes`` as ``fit_fold`` and the scoring
    get them), or None, for the fold to go through ``fit_fold``.

    ``every_fold(splits, floor, thresholds, y_codes)``, when given, scores every fold at
    once: their moments in fold order (``fold_moments``' for each), or None, for the folds
    to go one by one.

    ``links``: ``tree``'s :func:`weakest_links_of` when the caller has them (None: made
    here). ``splits``: the (train, test) rows of the folds when the caller dealt them
    already (:func:`default_splits`' of ``cv`` and ``random_state``); None: dealt here.

    Returns the table's columns: a dict of arrays (a DataFrame takes it as it is).
    """
    alphas, risks, n_int, n_leaves, _ = (weakest_links_of(target, tree, loss)
                                         if links is None else links)
    risk_root = node_risk(target, tree, loss)[0]
    # Each subtree's interval [alpha_i, alpha_i+1) at its geometric mean; the last is
    # open (its mean inf, or NaN for a zero alpha, as Python's floats give it).
    eval_alpha = np.empty(alphas.size)
    np.sqrt(alphas[:-1] * alphas[1:], out=eval_alpha[:-1])
    eval_alpha[-1] = math.sqrt(float(alphas[-1]) * math.inf)
    if alpha_floor > 0.0:
        alphas = alphas.copy()  # (the caller's links stay as they are)
        alphas[0] = alpha_floor
        eval_alpha[0] = np.sqrt(alpha_floor * alphas[1]) if alphas.size > 1 else np.inf
    else:
        eval_alpha[0] = 0.0 if alphas.size > 1 else np.inf
    y_arr = np.asarray(y)
    n_classes = target.n_classes
    if target.regression:
        y_codes = None
    elif y_codes is None:
        import pandas as pd
        y_codes = pd.Index(target.classes).get_indexer(y_arr)
    if splits is None and isinstance(cv, numbers.Integral):
        splits = default_splits(cv, len(y_arr), y_codes, random_state)
    elif splits is None:
        from sklearn.model_selection import check_cv
        splitter = check_cv(cv, y_arr, classifier=not target.regression)
    # Per subtree, the held-out errors' count, mean and sum of squared deviations, merged
    # fold by fold (Chan et al.'s update): no (subtrees x rows) matrix.
    moments = (0, np.zeros(alphas.size), np.zeros(alphas.size))

    def fold_labels(train, test):
        """The fold's (classes, label codes) and its held-out rows' label codes: its
        classes are those among its rows (as encoding its labels gives), and the codes
        index them (a held-out row of a class not in the fold: -1)."""
        fold_codes = y_codes[train]
        counts = np.bincount(fold_codes, minlength=n_classes)
        if counts.all():  # (every class in the fold: the whole data's codes as they are)
            return ((target.classes, fold_codes.astype(np.int32, copy=False)),
                    y_codes[test].astype(np.int32, copy=False))
        present = np.flatnonzero(counts)
        recode = np.full(n_classes, -1, dtype=np.int32)
        recode[present] = np.arange(present.size, dtype=np.int32)
        return (target.classes[present], recode[fold_codes]), recode[y_codes[test]]

    reuse = bins is not None and REUSE_FOLD_BINS
    # With a floor, the folds need no subtree below the smallest alpha they are scored at.
    fold_floor = float(eval_alpha[0]) if alpha_floor > 0.0 else 0.0

    thresholds = collapse_thresholds(eval_alpha)

    def fold_errors(split):
        train, test = split
        codes = labels = None
        if not target.regression:
            labels, codes = fold_labels(train, test)
        if fold_moments is not None:
            errors = fold_moments(train, test, fold_floor, thresholds, labels, codes)
            if errors is not None:
                return errors
        fold = fit_fold(train, bins.take_rows(train) if reuse else None, labels,
                        fold_floor)
        X_te = X_enc[test]
        errors = _errors_along_path(fold.target, fold.tree, loss, eval_alpha, X_te,
                                    y_arr[test], w[test], codes)
        if errors is None:
            errors = _errors_at_alphas(fold.target, fold.tree, loss, eval_alpha, X_te,
                                       y_arr[test], w[test])
        return errors

    try:
        if splits is None:
            splits = list(splitter.split(np.zeros(len(y_arr)),
                                         None if target.regression else y_arr))
    except ValueError as exc:  # a splitter of the user's that does not fit the data
        raise ValueError(f"cv={cv!r} cannot split the {len(y_arr)} rows for "
                         f"cross-validated pruning: {exc}") from None
    every = None if every_fold is None else every_fold(splits, fold_floor, thresholds,
                                                       y_codes)
    if every is None:
        # The folds are fitted side by side, one thread each (their kernels release the
        # GIL), and merged in fold order: the table does not depend on the number of
        # threads. On the process's pool and the calling thread: starting threads for each
        # fit was a noticeable part of a cross-validated fit on a few hundred rows.
        threads = numba.get_num_threads()
        parallel = threads > 1 and len(splits) > 1 and X_enc.size >= FOLD_THREADS_MIN_CELLS
        every = in_order(lambda i: fold_errors(splits[i]), len(splits),
                         min(threads, len(splits)) if parallel else 1)
    moments = _merge_all(moments, every)
    if target.regression:
        yv = np.asarray(y_arr, dtype=float)
        mean = np.average(yv, weights=w)
        root_err = float(np.sum(w * (yv - mean) ** 2))
    else:
        totals = np.bincount(y_codes, weights=w)
        root_err = float(w.sum() - totals.max())
    root_err = root_err if root_err > 0 else 1.0
    n_rows, mean, m2 = moments
    xerror = mean * n_rows / root_err
    xstd = np.sqrt(m2) / root_err
    columns = {"alpha": alphas, "cp": alphas / risk_root if risk_root > 0 else alphas,
               "n_splits": n_int, "n_leaves": n_leaves,
               "rel_error": risks / risk_root if risk_root > 0 else risks,
               "xerror": xerror, "xstd": xstd}
    return columns


def _moments(errors):
    """(count, mean, sum of squared deviations) of each row of ``errors`` (the rows are
    subtrees, the columns samples)."""
    if errors.shape[1] == 0:
        return 0, np.zeros(errors.shape[0]), np.zeros(errors.shape[0])
    mean = errors.mean(axis=1)
    return errors.shape[1], mean, ((errors - mean[:, None]) ** 2).sum(axis=1)


def _merge_moments(moments, more):
    """Two sets of per-subtree moments (see :func:`_moments`) merged (Chan et al.)."""
    n_a, mean_a, m2_a = moments
    n_b, mean_b, m2_b = more
    if n_b == 0:
        return moments
    n = n_a + n_b
    delta = mean_b - mean_a
    return n, mean_a + delta * (n_b / n), m2_a + m2_b + delta * delta * (n_a * n_b / n)


# Up to this many subtrees, folds' moments are merged on Python floats: numpy's calls on
# arrays this short cost more than the arithmetic.
MERGE_SCALARS_MAX = 16


def _merge_all(moments, more):
    """``moments`` merged with each of ``more`` in turn (:func:`_merge_moments`), the same
    arithmetic in the same order, so the same bits; on Python floats when there are few
    subtrees. A fold's means and m2 may be arrays or lists.

    Examples
    --------
    >>> import numpy as np
    >>> start = (0, np.zeros(2), np.zeros(2))
    >>> folds = [(2, np.array([1.0, 0.5]), np.array([0.0, 0.5])),
    ...          (1, np.array([0.0, 1.0]), np.array([0.0, 0.0]))]
    >>> n, mean, m2 = _merge_all(start, folds)
    >>> n, mean.tolist(), m2.tolist()
    (3, [0.6666666666666667, 0.6666666666666666], [0.6666666666666666, 0.6666666666666666])
    """
    n_a, mean_a, m2_a = moments
    if mean_a.size > MERGE_SCALARS_MAX:
        for errors in more:
            moments = _merge_moments(moments, errors)
        return moments
    mean, m2 = mean_a.tolist(), m2_a.tolist()
    steps = range(len(mean))
    for n_b, mean_b, m2_b in more:
        if n_b == 0:
            continue
        n = n_a + n_b
        share, cross = n_b / n, n_a * n_b / n
        if isinstance(mean_b, np.ndarray):  # (a fold scored in one call gives lists)
            mean_b, m2_b = mean_b.tolist(), m2_b.tolist()
        for i in steps:
            delta = mean_b[i] - mean[i]
            mean[i] = mean[i] + delta * share
            m2[i] = m2[i] + m2_b[i] + delta * delta * cross
        n_a = n
    return n_a, np.array(mean), np.array(m2)


def choose_row(table, rule):
    """The chosen row of a complexity table: minimum xerror ("min"), or the smallest tree
    within one standard error of it ("1se", Breiman et al.'s rule); ties go to the smaller
    tree (rows are ordered from the full tree to the root). ``table``: the DataFrame, or
    its columns by name (arrays; pandas' column access is a noticeable part of a small
    fit)."""
    # (On Python floats: the table has a row a subtree, a few to a few dozen, and NumPy's
    # calls on arrays this short cost more than the comparisons.)
    x = np.asarray(table["xerror"]).tolist()
    best = min(x)
    last = max(i for i, v in enumerate(x) if v <= best + 1e-12)
    if rule == "min":
        return last
    limit = best + float(np.asarray(table["xstd"])[last]) + 1e-12
    return max(i for i, v in enumerate(x) if v <= limit)


def choose_alpha(table, rule):
    """The alpha of :func:`choose_row`'s row."""
    return float(np.asarray(table["alpha"])[choose_row(table, rule)])


def prune_to_row(target, tree, row, loss="impurity", path=None, in_place=False):
    """The ``row``-th subtree of the weakest-link sequence (row 0: the full tree), which
    may differ from pruning at its alpha when several steps share that alpha (0).
    ``path`` and ``in_place`` as :func:`prune_at_alpha` takes them.

    Examples
    --------
    >>> from quercus import CARTClassifier
    >>> from quercus._target import Target
    >>> from quercus.datasets import load_watermelon
    >>> est = CARTClassifier().fit(*load_watermelon("2.0"))
    >>> path = weakest_link_path(Target.of(est), est.tree_)
    >>> pruned, report = prune_to_row(Target.of(est), est.tree_, 1, path=path)
    >>> splits = lambda tree: int((tree.kind != LEAF).sum())  # (cut subtrees stay, unreached)
    >>> len(report) > 0, splits(pruned) < splits(est.tree_)
    (True, True)
    """
    pruned_tree = tree if in_place else copy_tree(tree)
    alphas, _, steps = path if path is not None else weakest_link_path(target, tree, loss)
    report = []
    walk = None
    for a, nodes in zip(alphas[1:row + 1], steps[1:row + 1]):
        walk = walk or _Walk(pruned_tree)
        walk.collapse(nodes, report, f"weakest link (effective alpha {a:.6g}), subtree "
                                     f"{row} of the sequence chosen by cross-validation")
    return pruned_tree, report
