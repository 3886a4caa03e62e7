"""Slow, obviously-correct references for the tests (pure Python, a little numpy/pandas).

Nothing here is fast or clever: every formula is the textbook's (Zhou Zhihua, 《机器学习》
chapter 4), written out with plain loops, so the compiled kernels of quercus can be checked
against it.

Conventions
-----------
- A *class-count vector* is a list of non-negative (possibly non-integer) weights, one per
  class. A *partition* is a list of class-count vectors, one per branch.
- Entropy is in bits. Empty vectors (total weight 0) have impurity 0 and contribute nothing.
- Criterion codes match quercus's kernels: ENTROPY = 0, GINI = 1.
- A split is a candidate only if it sends samples to at least two branches (a categorical
  attribute that is constant at a node is not a candidate); with ``min_samples_leaf`` every
  non-empty branch must hold at least that many samples and with ``min_weight_leaf`` at least
  that much weight (a one-vs-rest split has two branches, both must be non-empty).
"""

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

ENTROPY = 0
GINI = 1

# Two scores closer than this are a tie (float sums of a tie differ in the last bits).
TIE = 1e-12


# ----------------------------------------------------------------------------- impurities
def entropy(counts):
    """Ent(D) = -sum_k p_k log2 p_k of a weighted class-count vector (bits)."""
    total = sum(counts)
    if total <= 0:
        return 0.0
    ent = 0.0
    for c in counts:
        p = c / total
        if p > 0:  # 0 log 0 = 0 (also when a tiny count underflows to p = 0)
            ent -= p * math.log2(p)
    return ent


def gini(counts):
    """Gini(D) = 1 - sum_k p_k^2 of a weighted class-count vector."""
    total = sum(counts)
    if total <= 0:
        return 0.0
    return 1.0 - sum((c / total) ** 2 for c in counts)


def impurity(counts, criterion):
    return entropy(counts) if criterion == ENTROPY else gini(counts)


# ----------------------------------------------------------------------------- partitions
def parent_counts(branches):
    """Class counts of the whole node: the sum of the branches' vectors."""
    n_classes = len(branches[0])
    return [sum(b[k] for b in branches) for k in range(n_classes)]


def weighted_child_impurity(branches, criterion):
    """sum_v |D^v| / |D| * impurity(D^v): conditional entropy, or Gini_index(D, a)."""
    total = sum(sum(b) for b in branches)
    if total <= 0:
        return 0.0
    return sum(sum(b) / total * impurity(b, criterion) for b in branches)


def information_gain(branches):
    """Gain(D, a) = Ent(D) - sum_v |D^v|/|D| Ent(D^v)   (book eq. 4.2)."""
    return entropy(parent_counts(branches)) - weighted_child_impurity(branches, ENTROPY)


def intrinsic_value(branches):
    """IV(a) = -sum_v |D^v|/|D| log2(|D^v|/|D|)   (book eq. 4.4): entropy of branch sizes."""
    return entropy([sum(b) for b in branches])


def gain_ratio(branches):
    """Gain_ratio(D, a) = Gain(D, a) / IV(a)   (book eq. 4.3)."""
    return information_gain(branches) / intrinsic_value(branches)


def gini_index(branches):
    """Gini_index(D, a) = sum_v |D^v|/|D| Gini(D^v)   (book eq. 4.6)."""
    return weighted_child_impurity(branches, GINI)


def gini_decrease(branches):
    return gini(parent_counts(branches)) - gini_index(branches)


def split_scores(branches, criterion):
    """(weighted child impurity, decrease, intrinsic value) of a partition."""
    child = weighted_child_impurity(branches, criterion)
    decrease = impurity(parent_counts(branches), criterion) - child
    return child, decrease, intrinsic_value(branches)


# ----------------------------------------------------------------------------- histograms
def histogram(codes, idx, y, w, n_classes):
    """Per-bin weighted class counts and sample counts of the samples ``idx``.

    Returns (bins ascending, counts[bin][class], n[bin]) for the bins that hold a sample.
    """
    counts = {}
    n = {}
    for s in idx:
        b = int(codes[s])
        if b not in counts:
            counts[b] = [0.0] * n_classes
            n[b] = 0
        counts[b][int(y[s])] += float(w[s])
        n[b] += 1
    bins = sorted(counts)
    return bins, [counts[b] for b in bins], [n[b] for b in bins]


# ----------------------------------------------------------------------------- one node
def first_appearance(values):
    """Distinct values in their order of first appearance."""
    seen = []
    for v in values:
        if v not in seen:
            seen.append(v)
    return seen


@dataclass
class Candidate:
    """One candidate split of one feature at one node."""

    feature: object
    kind: str                 # "numeric", "multiway" or "categorical_binary"
    threshold: float = None   # numeric: left branch is x <= threshold
    category: object = None   # categorical_binary: left branch is x == category
    branches: list = field(default_factory=list)     # class-count vector per branch
    branch_n: list = field(default_factory=list)     # number of samples per branch
    child: float = 0.0
    decrease: float = 0.0
    split_info: float = 0.0


def _class_counts(labels, weights, classes):
    counts = [0.0] * len(classes)
    for label, wt in zip(labels, weights):
        counts[classes.index(label)] += wt
    return counts


def _make(feature, kind, masks, labels, weights, classes, criterion, **where):
    branches = [_class_counts([l for l, m in zip(labels, mask) if m],
                              [x for x, m in zip(weights, mask) if m], classes)
                for mask in masks]
    branch_n = [sum(mask) for mask in masks]
    child, dec, info = split_scores(branches, criterion)
    return Candidate(feature, kind, branches=branches, branch_n=branch_n, child=child,
                     decrease=dec, split_info=info, **where)


def feature_candidates(values, labels, weights, classes, feature, categorical,
                       categorical_split, categories, criterion):
    """Every candidate split of one feature, in tie-break order.

    Numeric: every midpoint (a + b) / 2 of adjacent sorted distinct values, ascending.
    Categorical multiway: one candidate with a branch per category of ``categories``
    (categories absent from the node are empty branches).
    Categorical binary: ``x == v`` / ``x != v`` for each v of ``categories`` present here.
    """
    values = list(values)
    out = []
    if not categorical:
        distinct = sorted(set(values))
        for a, b in zip(distinct[:-1], distinct[1:]):
            t = (a + b) / 2
            masks = [[v <= t for v in values], [v > t for v in values]]
            out.append(_make(feature, "numeric", masks, labels, weights, classes, criterion,
                             threshold=t))
    elif categorical_split == "multiway":
        masks = [[v == c for v in values] for c in categories]
        out.append(_make(feature, "multiway", masks, labels, weights, classes, criterion))
    else:
        for c in categories:
            if c in values:
                masks = [[v == c for v in values], [v != c for v in values]]
                out.append(_make(feature, "categorical_binary", masks, labels, weights,
                                 classes, criterion, category=c))
    return out


def is_valid(cand, min_samples_leaf=1, min_weight_leaf=0.0):
    """At least two non-empty branches, and each non-empty branch big enough.

    For a two-branch split (threshold or one-vs-rest) this means both branches are
    non-empty and hold ``min_samples_leaf`` samples and ``min_weight_leaf`` weight.
    """
    non_empty = [i for i, n in enumerate(cand.branch_n) if n > 0]
    if len(non_empty) < 2:
        return False
    for i in non_empty:
        if cand.branch_n[i] < min_samples_leaf or sum(cand.branches[i]) < min_weight_leaf:
            return False
    return True


def best_of(cands):
    """First candidate whose decrease is within TIE of the largest."""
    if not cands:
        return None
    top = max(c.decrease for c in cands)
    for c in cands:
        if c.decrease >= top - TIE:
            return c


def node_best_splits(X, y, classes, *, sample_weight=None, criterion=ENTROPY,
                     categorical=(), categorical_split="multiway", categories=None,
                     features=None, min_samples_leaf=1, min_weight_leaf=0.0):
    """Brute-force best split of every feature at one node (the rows of ``X``).

    Parameters
    ----------
    X : DataFrame of the node's samples; y : their labels; classes : list of all classes
        (defines the order of the class-count vectors).
    categorical : names of the categorical columns.
    categories : dict column -> ordered list of its categories (default: first appearance
        in ``X``). The order is the tie-break order and the multiway branch order.
    features : columns to try (default: all, in column order).

    Returns
    -------
    dict feature -> best valid :class:`Candidate` of that feature, or None if it has none.
    """
    labels = list(y)
    weights = [1.0] * len(labels) if sample_weight is None else [float(v) for v in sample_weight]
    features = list(X.columns) if features is None else list(features)
    result = {}
    for f in features:
        cat = f in categorical
        cats = None
        if cat:
            cats = categories[f] if categories is not None else first_appearance(X[f])
        cands = feature_candidates(X[f].tolist(), labels, weights, classes, f, cat,
                                   categorical_split, cats, criterion)
        result[f] = best_of([c for c in cands if is_valid(c, min_samples_leaf, min_weight_leaf)])
    return result


def choose(best, gain_ratio_rule=False):
    """The winning candidate among the per-feature bests (dict in column order).

    Largest decrease, ties to the first column; or C4.5's rule: among candidates whose gain
    is at least the average gain, the largest gain ratio (ties to the first column).
    """
    valid = [c for c in best.values() if c is not None]
    if not valid:
        return None
    if not gain_ratio_rule:
        return best_of(valid)
    average = sum(c.decrease for c in valid) / len(valid)
    eligible = [c for c in valid if c.decrease >= average - TIE]
    top = max(c.decrease / c.split_info for c in eligible)
    for c in eligible:
        if c.decrease / c.split_info >= top - TIE:
            return c


# ----------------------------------------------------------------------------- whole tree
@dataclass
class Node:
    n_samples: int
    distribution: list            # weighted class counts (parent's, for an empty branch)
    prediction: object
    feature: object = None        # None on a leaf
    kind: str = "leaf"
    threshold: float = None
    category: object = None
    children: list = field(default_factory=list)   # [(condition, Node)] in branch order

    def preorder(self):
        yield self
        for _, child in self.children:
            yield from child.preorder()


def majority(distribution, classes, priority):
    """Class with the largest weight; a tie goes to the class seen first in training."""
    total = sum(distribution)
    shares = [v / total for v in distribution]
    top = max(shares)
    tied = [c for c, p in zip(classes, shares) if p >= top - 1e-12]
    return min(tied, key=priority.index)


def build_tree(X, y, *, criterion="entropy", categorical_split="multiway",
               categorical=None, sample_weight=None, min_samples_leaf=1):
    """The book's TreeGenerate (figure 4.2), recursively.

    criterion: "entropy" (ID3), "gain_ratio" (C4.5's heuristic) or "gini" (CART).
    categorical: column names (default: the non-numeric columns).

    1. all samples of one class -> leaf of that class;
    2. no attribute left, or no attribute can split the samples (all identical) ->
       leaf of the majority class;
    3. otherwise split on the best attribute; a multiway categorical attribute gets one
       branch per category of the whole training set and is not reused below; an empty
       branch is a leaf of the parent's majority class.
    """
    if categorical is None:
        categorical = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
    labels = list(y)
    classes = sorted(set(labels))
    priority = first_appearance(labels)
    weights = [1.0] * len(labels) if sample_weight is None else [float(v) for v in sample_weight]
    categories = {c: first_appearance(X[c]) for c in categorical}
    code = GINI if criterion == "gini" else ENTROPY

    def leaf(rows, dist):
        return Node(len(rows), dist, majority(dist, classes, priority))

    def grow(rows, available, parent_dist):
        dist = _class_counts([labels[i] for i in rows], [weights[i] for i in rows], classes)
        if not rows or sum(dist) <= 0:
            # empty branch: the parent's class (and distribution)
            return Node(len(rows), parent_dist, majority(parent_dist, classes, priority))
        if sum(1 for v in dist if v > 0) <= 1:
            return leaf(rows, dist)
        if not available:
            return leaf(rows, dist)
        sub = X.iloc[rows]
        best = node_best_splits(sub, [labels[i] for i in rows], classes,
                                sample_weight=[weights[i] for i in rows], criterion=code,
                                categorical=categorical, categorical_split=categorical_split,
                                categories=categories, features=available,
                                min_samples_leaf=min_samples_leaf)
        win = choose(best, gain_ratio_rule=(criterion == "gain_ratio"))
        if win is None:
            return leaf(rows, dist)
        node = leaf(rows, dist)
        node.feature = win.feature
        node.kind = win.kind
        col = X[win.feature].tolist()
        if win.kind == "numeric":
            node.threshold = win.threshold
            parts = [("<=", [i for i in rows if col[i] <= win.threshold]),
                     (">", [i for i in rows if col[i] > win.threshold])]
            below = available
        elif win.kind == "categorical_binary":
            node.category = win.category
            parts = [("=", [i for i in rows if col[i] == win.category]),
                     ("!=", [i for i in rows if col[i] != win.category])]
            below = available
        else:
            parts = [(f"= {c}", [i for i in rows if col[i] == c])
                     for c in categories[win.feature]]
            below = [f for f in available if f != win.feature]
        for cond, part in parts:
            node.children.append((cond, grow(part, below, dist)))
        return node

    return grow(list(range(len(labels))), list(X.columns), None)


def predict_one(tree, row):
    """Walk one sample (a mapping column -> value) down the tree."""
    node = tree
    while node.children:
        x = row[node.feature]
        if node.kind == "numeric":
            node = node.children[0 if x <= node.threshold else 1][1]
        elif node.kind == "categorical_binary":
            node = node.children[0 if x == node.category else 1][1]
        else:
            node = dict(node.children)[f"= {x}"]
    return node.prediction


def predict(tree, X):
    return np.array([predict_one(tree, row) for _, row in X.iterrows()], dtype=object)
