"""Slow, obviously-correct references for the tests (pure Python, a little numpy/pandas).

Nothing here is fast or clever: every formula is the textbook's (Zhou Zhihua, 《机器学习》
chapter 4), written out with plain loops, so the compiled kernels of quercus can be checked
against it.

Conventions
-----------
- A *class-count vector* is a list of non-negative (possibly non-integer) weights, one per
  class. A *partition* is a list of class-count vectors, one per branch.
- Entropy is in bits. Empty vectors (total weight 0) have impurity 0 and contribute nothing.
- Criterion codes match quercus's kernels: ENTROPY = 0, GINI = 1, SQUARED_ERROR = 2,
  POISSON = 3; missing-value modes FRACTIONAL = 0, SURROGATE = 1, LEARNED = 2.
- Regression impurities and everything below "one feature, with missing values" work on the
  samples themselves (targets or labels, and weights), from the definitions, never from
  running sums. A missing value is None or NaN.
- A split is a candidate only if it sends samples to at least two branches (a categorical
  attribute that is constant at a node is not a candidate, unless LEARNED can send the
  node's missing values to the other branch); with ``min_samples_leaf`` every
  non-empty branch must hold at least that many samples and with ``min_weight_leaf`` at least
  that much weight (a one-vs-rest split has two branches, both must be non-empty).
"""

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

ENTROPY = 0
GINI = 1
HELLINGER = 5

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
    """A node's impurity: entropy, else Gini (what a Hellinger tree reports)."""
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


def hellinger_distance(branches):
    """Hellinger distance between the two classes' distributions over the branches
    (Cieslak and Chawla, 2008): sqrt(sum_v (sqrt(|D^v_0|/|D_0|) - sqrt(|D^v_1|/|D_1|))^2),
    0 when a class is absent."""
    t0, t1 = sum(b[0] for b in branches), sum(b[1] for b in branches)
    if t0 <= 0 or t1 <= 0:
        return 0.0
    return math.sqrt(sum((math.sqrt(b[0] / t0) - math.sqrt(b[1] / t1)) ** 2
                         for b in branches))


def split_scores(branches, criterion):
    """(weighted child impurity, decrease, intrinsic value) of a partition; Hellinger's
    decrease is its distance, its child impurity the parent's Gini minus it."""
    if criterion == HELLINGER:
        h = hellinger_distance(branches)
        return gini(parent_counts(branches)) - h, h, intrinsic_value(branches)
    child = weighted_child_impurity(branches, criterion)
    decrease = impurity(parent_counts(branches), criterion) - child
    return child, decrease, intrinsic_value(branches)


# ----------------------------------------------------------------------------- histograms
def histogram(codes, idx, wi, y, n_classes):
    """Per-bin weighted class counts and sample counts of the samples ``idx``.

    ``wi[i]`` is the weight of the entry ``idx[i]`` at this node (not a per-sample array).
    Returns (bins ascending, counts[bin][class], n[bin]) for the bins that hold a sample.
    """
    counts = {}
    n = {}
    for s, wt in zip(idx, wi):
        b = int(codes[s])
        if b not in counts:
            counts[b] = [0.0] * n_classes
            n[b] = 0
        counts[b][int(y[s])] += float(wt)
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

    criterion: "entropy" (ID3), "gain_ratio" (C4.5's heuristic), "gini" (CART) or
    "hellinger" (two classes).
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
    code = {"gini": GINI, "hellinger": HELLINGER}.get(criterion, ENTROPY)

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


# ============================================================================= kernel inputs
def is_missing(v):
    """None or NaN: a missing value."""
    return v is None or (isinstance(v, float) and math.isnan(v))


def encode(df, categorical, extra_categories=0):
    """Kernel inputs built here, independently of quercus._prepare.

    Categorical: codes in order of first appearance of the known values, plus
    ``extra_categories`` categories that never occur. Numeric: one bin per distinct known
    value, ascending. A missing value (None or NaN) gets the reserved code ``n_bins[j]``.

    Returns (codes, n_bins, is_cat, bin_values, bin_offsets, categories).
    """
    n, p = df.shape
    codes = np.empty((n, p), dtype=np.int32, order="F")
    n_bins = np.zeros(p, dtype=np.int64)
    is_cat = np.zeros(p, dtype=np.bool_)
    values = []
    categories = {}
    for j, col in enumerate(df.columns):
        vals = df[col].tolist()
        known = [v for v in vals if not is_missing(v)]
        if col in categorical:
            cats = first_appearance(known) + [f"unseen{i}" for i in range(extra_categories)]
            categories[col] = cats
            n_bins[j] = len(cats)
            is_cat[j] = True
            codes[:, j] = [len(cats) if is_missing(v) else cats.index(v) for v in vals]
            values.append(np.zeros(0))
        else:
            uniq = sorted(set(known))
            n_bins[j] = len(uniq)
            codes[:, j] = [len(uniq) if is_missing(v) else uniq.index(v) for v in vals]
            values.append(np.array(uniq, dtype=np.float64))
    offsets = np.zeros(p + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(v) for v in values])
    flat = np.concatenate(values) if values else np.zeros(0)
    return codes, n_bins, is_cat, flat, offsets, categories


# ============================================================================= regression
# Regression criteria, from the samples themselves (lists of targets y and weights w), not
# from running sums: the kernels use sums, these use the definitions.
SQUARED_ERROR = 2
POISSON = 3

# Missing-value modes, as in quercus's kernels.
FRACTIONAL = 0
SURROGATE = 1
LEARNED = 2


def weighted_mean(ys, ws):
    return sum(w * y for y, w in zip(ys, ws)) / sum(ws)


def squared_error(ys, ws):
    """sum_i w_i (y_i - mean)^2 / sum_i w_i: the weighted variance (two-pass)."""
    total = sum(ws)
    if total <= 0:
        return 0.0
    mean = weighted_mean(ys, ws)
    return sum(w * (y - mean) ** 2 for y, w in zip(ys, ws)) / total


def half_poisson_deviance(ys, ws):
    """sum_i w_i (y_i log(y_i / mean) - y_i + mean) / sum_i w_i, with 0 log 0 = 0.

    The mean half Poisson deviance of predicting the weighted mean; 0 when the mean is 0.
    """
    total = sum(ws)
    if total <= 0:
        return 0.0
    mean = weighted_mean(ys, ws)
    if mean <= 0:
        return 0.0
    dev = 0.0
    for y, w in zip(ys, ws):
        dev += w * ((y * math.log(y / mean) if y > 0 else 0.0) - y + mean)
    return dev / total


def sample_impurity(ys, ws, criterion):
    """Impurity of a set of samples: ys are class labels (ENTROPY, GINI) or targets."""
    if criterion == SQUARED_ERROR:
        return squared_error(ys, ws)
    if criterion == POISSON:
        return half_poisson_deviance(ys, ws)
    labels = sorted(set(ys))
    counts = [sum(w for y, w in zip(ys, ws) if y == c) for c in labels]
    return impurity(counts, criterion)


def partition_scores(parts, criterion):
    """(weighted child impurity, decrease, intrinsic value) of a partition of samples.

    ``parts`` holds one list of (y, w) pairs per branch; empty branches add nothing.
    """
    everything = [s for part in parts for s in part]
    total = sum(w for _, w in everything)
    if total <= 0:
        return 0.0, 0.0, 0.0
    child = 0.0
    for part in parts:
        wb = sum(w for _, w in part)
        if wb > 0:
            child += wb / total * sample_impurity([y for y, _ in part], [w for _, w in part],
                                                  criterion)
    parent = sample_impurity([y for y, _ in everything], [w for _, w in everything], criterion)
    info = entropy([sum(w for _, w in part) for part in parts])
    return child, parent - child, info


# ============================================================================= one feature,
# with missing values and every split kind
@dataclass
class Split:
    """One candidate split of one feature.

    ``branch_of`` maps a known value to its branch; ``missing_to`` is the branch that the
    missing values join (LEARNED), or None (FRACTIONAL / SURROGATE: scored on known values,
    or nothing missing). Kinds: "numeric" (left: x <= threshold; threshold = inf for the
    "every known value left, missing right" candidate), "multiway" (one branch per category
    of ``categories``), "one_vs_rest" (left: x == category), "subset" (left: x in left).
    """

    kind: str
    branch_of: object
    n_branches: int
    missing_to: object = None
    feature: object = None
    threshold: float = None
    category: object = None
    left: tuple = None
    # scores (filled by score_split)
    parts: list = None        # (y, w) pairs per branch, missing included if routed
    child: float = 0.0
    decrease: float = 0.0
    split_info: float = 0.0
    rho: float = 1.0


def _midpoints(known):
    distinct = sorted(set(known))
    return [(a + b) / 2 for a, b in zip(distinct[:-1], distinct[1:])]


def _with_missing_variants(split_args, learned):
    """LEARNED tries missing right first, then missing left (a tie keeps them right)."""
    if not learned:
        return [Split(**split_args)]
    return [Split(**split_args, missing_to=1), Split(**split_args, missing_to=0)]


def category_means(values, ys, ws, present):
    """Weighted mean target of each present category (known values only)."""
    means = {}
    for c in present:
        sel = [(y, w) for v, y, w in zip(values, ys, ws) if not is_missing(v) and v == c]
        means[c] = weighted_mean([y for y, _ in sel], [w for _, w in sel])
    return means


def candidate_splits(values, ys, ws, *, categorical, cat_mode, categories, learned):
    """Every candidate split of one feature at a node, in tie-break order.

    cat_mode: "multiway", "one_vs_rest", "subsets" (every two-subset partition of the
    present categories: 2^(k-1) - 1 of them) or "sorted" (Breiman's shortcut: categories
    sorted by mean target, ties in category order, then cut like a numeric feature).
    ``learned``: LEARNED mode with missing values at this node.
    """
    known = [v for v in values if not is_missing(v)]
    out = []
    if not categorical:
        for t in _midpoints(known):
            out += _with_missing_variants(
                dict(kind="numeric", branch_of=lambda v, t=t: 0 if v <= t else 1,
                     n_branches=2, threshold=t), learned)
        if learned:
            out.append(Split("numeric", lambda v: 0, 2, missing_to=1, threshold=math.inf))
        return out
    present = [c for c in categories if c in known]
    if cat_mode == "multiway":
        args = dict(kind="multiway", branch_of=lambda v: categories.index(v),
                    n_branches=len(categories))
        if not learned:
            return [Split(**args)]
        return [Split(**args, missing_to=categories.index(c)) for c in present]
    if cat_mode == "one_vs_rest":
        for c in present:
            out += _with_missing_variants(
                dict(kind="one_vs_rest", branch_of=lambda v, c=c: 0 if v == c else 1,
                     n_branches=2, category=c), learned)
        if learned:  # every known category against the missing ones, tried last
            out.append(Split("subset", lambda v: 0, 2, missing_to=1, left=tuple(present)))
        return out
    if cat_mode == "subsets":
        lefts = []
        k = len(present)
        for mask in range(1, 2 ** max(k - 1, 0)):  # the last category always on the right
            lefts.append(tuple(c for i, c in enumerate(present) if mask >> i & 1))
    else:  # "sorted"
        means = category_means(values, ys, ws, present)
        order = sorted(present, key=lambda c: (means[c], present.index(c)))
        lefts = [tuple(order[:j]) for j in range(1, len(order))]
    for left in lefts:
        out += _with_missing_variants(
            dict(kind="subset", branch_of=lambda v, left=left: 0 if v in left else 1,
                 n_branches=2, left=left), learned)
    if learned and present:
        out.append(Split("subset", lambda v: 0, 2, missing_to=1, left=tuple(present)))
    return out


def score_split(split, values, ys, ws, criterion, missing_mode):
    """Fill in the split's branches and scores.

    FRACTIONAL / SURROGATE: scores of the known values, the decrease multiplied by
    rho = known weight / total weight; FRACTIONAL's split information counts the missing
    weight as one more branch (Quinlan). LEARNED: the missing values are in their branch.
    """
    parts = [[] for _ in range(split.n_branches)]
    missing = []
    for v, y, w in zip(values, ys, ws):
        if is_missing(v):
            missing.append((y, w))
        else:
            parts[split.branch_of(v)].append((y, w))
    known_w = sum(w for part in parts for _, w in part)
    miss_w = sum(w for _, w in missing)
    split.rho = known_w / (known_w + miss_w) if known_w + miss_w > 0 else 0.0
    if split.missing_to is not None:
        parts[split.missing_to] += missing
    split.parts = parts
    split.child, split.decrease, split.split_info = partition_scores(parts, criterion)
    if missing and split.missing_to is None:
        split.decrease *= split.rho
        split.split_info = entropy([sum(w for _, w in part) for part in parts] + [miss_w])
    return split


def split_is_valid(split, criterion, min_samples_leaf=1, min_weight_leaf=0.0):
    """At least two non-empty branches (both, for a two-way split), each non-empty branch
    with ``min_samples_leaf`` samples and ``min_weight_leaf`` weight; a Poisson branch needs
    a positive sum of targets (a positive mean)."""
    sizes = [len(p) for p in split.parts]
    non_empty = [p for p in split.parts if p]
    if len(non_empty) < 2 or (split.n_branches == 2 and min(sizes) == 0):
        return False
    for part in non_empty:
        if len(part) < min_samples_leaf or sum(w for _, w in part) < min_weight_leaf:
            return False
        if criterion == POISSON and sum(w * y for y, w in part) <= 0:
            return False
    return True


def best_feature_split(values, ys, ws, *, criterion, categorical=False, cat_mode="multiway",
                       categories=None, missing_mode=FRACTIONAL, min_samples_leaf=1,
                       min_weight_leaf=0.0):
    """Brute-force best valid split of one feature at a node (None if there is none).

    ``values`` may hold missing values (None / NaN). Ties go to the first candidate of
    :func:`candidate_splits` within TIE of the largest decrease.
    """
    values = list(values)
    has_missing = any(is_missing(v) for v in values)
    if categorical and categories is None:
        categories = first_appearance([v for v in values if not is_missing(v)])
    cands = candidate_splits(values, ys, ws, categorical=categorical, cat_mode=cat_mode,
                             categories=categories,
                             learned=missing_mode == LEARNED and has_missing)
    valid = []
    for c in cands:
        score_split(c, values, ys, ws, criterion, missing_mode)
        if split_is_valid(c, criterion, min_samples_leaf, min_weight_leaf):
            valid.append(c)
    return best_of(valid)


# ============================================================================= surrogates
def surrogate_agreement(values, directions, ws, goes_right):
    """Weight share of the samples the surrogate sends where the primary split sends them.

    ``directions``: 0 (left) / 1 (right) of the primary split; a sample missing the
    surrogate's attribute counts as a disagreement.
    """
    agree = 0.0
    for v, d, w in zip(values, directions, ws):
        if not is_missing(v) and int(goes_right(v)) == d:
            agree += w
    return agree / sum(ws)


def surrogate_candidates(values, directions, ws, categorical):
    """Every surrogate split of one attribute with its agreement, in tie-break order.

    Numeric: each midpoint t ascending, "x > t goes right" then its flip; categorical: each
    present category v (ascending code), "x != v goes right" then its flip.
    Returns [(threshold or category, flip, agreement)].
    """
    known = [v for v in values if not is_missing(v)]
    out = []
    if categorical:
        for c in sorted(set(known)):
            if len(set(known)) < 2:
                break
            fwd = surrogate_agreement(values, directions, ws, lambda v, c=c: v != c)
            rev = surrogate_agreement(values, directions, ws, lambda v, c=c: v == c)
            out += [(c, 0, fwd), (c, 1, rev)]
        return out
    for t in _midpoints(known):
        fwd = surrogate_agreement(values, directions, ws, lambda v, t=t: v > t)
        rev = surrogate_agreement(values, directions, ws, lambda v, t=t: v <= t)
        out += [(t, 0, fwd), (t, 1, rev)]
    return out


# ============================================================================= trees
@dataclass
class RegNode:
    value: float
    feature: object = None
    kind: str = "leaf"
    threshold: float = None
    left: tuple = None           # subset split: categories present here going left
    right: tuple = None          # ... and going right
    heavier: int = 0             # branch of a category absent from this node
    children: list = field(default_factory=list)


def build_regression_tree(X, y, *, sample_weight=None, categorical=(), min_samples_leaf=1):
    """A CART regression tree (squared error) grown by brute force, recursively.

    Every feature can be reused. Numeric features: midpoint thresholds; categorical: the
    best of *all* two-subset partitions of the categories present at the node, the side of
    smaller mean target on the left; a category absent from the node follows the heavier
    side (by weight; a tie goes right). A node is a leaf when it has fewer than 2 samples,
    all its targets are equal, or no valid split exists. Leaf value: the weighted mean.
    """
    ys = [float(v) for v in y]
    ws = [1.0] * len(ys) if sample_weight is None else [float(v) for v in sample_weight]
    cols = {c: X[c].tolist() for c in X.columns}

    def grow(rows):
        ny, nw = [ys[i] for i in rows], [ws[i] for i in rows]
        node = RegNode(weighted_mean(ny, nw))
        if len(rows) < 2 or len(set(ny)) == 1:
            return node
        best = {}
        for f in X.columns:
            best[f] = best_feature_split(
                [cols[f][i] for i in rows], ny, nw, criterion=SQUARED_ERROR,
                categorical=f in categorical, cat_mode="subsets",
                min_samples_leaf=min_samples_leaf)
            if best[f] is not None:
                best[f].feature = f
        win = best_of([s for s in best.values() if s is not None])
        if win is None:
            return node
        node.feature, node.kind = win.feature, win.kind
        col = cols[win.feature]
        if win.kind == "numeric":
            node.threshold = win.threshold
            go = [0 if col[i] <= win.threshold else 1 for i in rows]
        else:
            left = set(win.left)
            sides = [[i for i in rows if col[i] in left], [i for i in rows if col[i] not in left]]
            means = [weighted_mean([ys[i] for i in s], [ws[i] for i in s]) for s in sides]
            if means[1] < means[0]:
                left = {col[i] for i in sides[1]}
                sides.reverse()
            node.left, node.right = tuple(left), tuple({col[i] for i in sides[1]})
            weights = [sum(ws[i] for i in s) for s in sides]
            node.heavier = 0 if weights[0] > weights[1] else 1  # a tie goes right
            go = [0 if col[i] in left else 1 for i in rows]
        node.children = [grow([i for i, g in zip(rows, go) if g == b]) for b in (0, 1)]
        return node

    return grow(list(range(len(ys))))


def predict_regression(tree, X):
    out = []
    for _, row in X.iterrows():
        node = tree
        while node.children:
            x = row[node.feature]
            if node.kind == "numeric":
                b = 0 if x <= node.threshold else 1
            elif x in node.left or x in node.right:
                b = 0 if x in node.left else 1
            else:
                b = node.heavier
            node = node.children[b]
        out.append(node.value)
    return np.array(out)


@dataclass
class FracNode:
    distribution: list           # weighted class counts (the parent's for an empty branch)
    feature: object = None
    kind: str = "leaf"
    threshold: float = None
    categories: list = None      # multiway: the category of each branch
    shares: list = None          # known-weight share of each branch
    children: list = field(default_factory=list)


def build_fractional_tree(X, y, *, sample_weight=None, categorical=(), gain_ratio_rule=False,
                          min_samples_leaf=1):
    """ID3 / C4.5 with C4.5's rule for missing values (the book's section 4.4.2).

    Criterion: information gain of the known values times rho (the known weight share),
    or C4.5's gain ratio with the missing weight as one more branch of IV. A sample that
    misses the split attribute goes down every branch with its weight times the branch's
    share of the known weight. Categorical attributes split multiway (one branch per
    category of the training set, not reused below); numeric ones at a midpoint. Ties go
    to the first column. A node is a leaf when its weight holds one class, it has fewer
    than 2 entries, or no attribute has a valid split.
    """
    labels = list(y)
    classes = sorted(set(labels))
    ws = [1.0] * len(labels) if sample_weight is None else [float(v) for v in sample_weight]
    cols = {c: X[c].tolist() for c in X.columns}
    categories = {c: first_appearance([v for v in cols[c] if not is_missing(v)])
                  for c in categorical}

    def dist_of(entries):
        return _class_counts([labels[i] for i, _ in entries], [w for _, w in entries], classes)

    def grow(entries, available):
        dist = dist_of(entries)
        node = FracNode(dist)
        if sum(1 for v in dist if v > 0) <= 1 or len(entries) < 2:
            return node
        best = {}
        for f in available:
            best[f] = best_feature_split(
                [cols[f][i] for i, _ in entries], [labels[i] for i, _ in entries],
                [w for _, w in entries], criterion=ENTROPY, categorical=f in categorical,
                cat_mode="multiway", categories=categories.get(f), missing_mode=FRACTIONAL,
                min_samples_leaf=min_samples_leaf)
            if best[f] is not None:
                best[f].feature = f
        win = choose(best, gain_ratio_rule)
        if win is None:
            return node
        f = win.feature
        node.feature, node.kind, node.threshold = f, win.kind, win.threshold
        known = [(i, w) for i, w in entries if not is_missing(cols[f][i])]
        missing = [(i, w) for i, w in entries if is_missing(cols[f][i])]
        branch = {i: win.branch_of(cols[f][i]) for i, _ in known}
        known_w = [sum(w for i, w in known if branch[i] == b) for b in range(win.n_branches)]
        node.shares = [kw / sum(known_w) for kw in known_w]
        if win.kind == "multiway":
            node.categories = categories[f]
        below = [g for g in available if g != f] if win.kind == "multiway" else available
        for b in range(win.n_branches):
            child = [(i, w) for i, w in known if branch[i] == b]
            if node.shares[b] > 0:
                child += [(i, w * node.shares[b]) for i, w in missing]
            if child:
                node.children.append(grow(child, below))
            else:
                node.children.append(FracNode(dist))  # empty branch: the parent's counts
        return node

    return grow([(i, w) for i, w in enumerate(ws)], list(X.columns)), classes


def predict_fractional_proba(tree, row):
    """Class distribution of one sample: the leaf's, or with a missing split attribute the
    average over the branches weighted by their share of the known training weight."""
    if not tree.children:
        total = sum(tree.distribution)
        return np.array([v / total for v in tree.distribution])
    x = row[tree.feature]
    if is_missing(x):
        return sum(share * predict_fractional_proba(child, row)
                   for share, child in zip(tree.shares, tree.children) if share > 0)
    if tree.kind == "numeric":
        b = 0 if x <= tree.threshold else 1
    else:
        b = tree.categories.index(x)
    return predict_fractional_proba(tree.children[b], row)


# ============================================================================= histograms
# with regression stats, and the fractional copies of C4.5's missing-value rule
def regression_histogram(codes, idx, wi, ys, y2s):
    """Per-bin regression stats [sum w, sum w*y, sum w*y2] and sample counts of ``idx``."""
    stats = {}
    n = {}
    for s, wt in zip(idx, wi):
        b = int(codes[s])
        if b not in stats:
            stats[b] = [0.0, 0.0, 0.0]
            n[b] = 0
        stats[b][0] += wt
        stats[b][1] += wt * ys[s]
        stats[b][2] += wt * y2s[s]
        n[b] += 1
    bins = sorted(stats)
    return bins, [stats[b] for b in bins], [n[b] for b in bins]


def scatter(idx, wi, branch, n_children, shares):
    """Children's (sample, weight) lists: a sample with branch b >= 0 goes to child b; one
    with branch -1 (missing) to every child c of positive share, with weight wi * share."""
    out = [[] for _ in range(n_children)]
    for s, w, b in zip(idx, wi, branch):
        if b >= 0:
            out[b].append((s, w))
        else:
            for c in range(n_children):
                if shares[c] > 0:
                    out[c].append((s, w * shares[c]))
    return out
