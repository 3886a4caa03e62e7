"""Ordered two-subset splits of categorical attributes for two-class trees
(``categorical_split="ordered"``): the categories present at a node sorted by the
proportion of the second class, then scanned as a numeric attribute. For two classes and a
concave impurity (Gini, entropy) this reaches the best of all 2^(k-1) - 1 subsets (Breiman
et al., 1984, theorem 4.5), as rpart's categorical splits do; checked here against brute
force."""

import itertools

import numpy as np
import pandas as pd
import pytest

from quercus import CARTClassifier, DecisionTreeClassifier, export_text


def _impurity(y, w, criterion):
    W = w.sum()
    if W <= 0:
        return 0.0
    p = np.array([w[y == c].sum() for c in (0, 1)]) / W
    if criterion == "gini":
        return 1.0 - (p ** 2).sum()
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum())


def _decrease(y, w, left, criterion):
    out = _impurity(y, w, criterion)
    for side in (left, ~left):
        out -= w[side].sum() / w.sum() * _impurity(y[side], w[side], criterion)
    return out


def _best_subset(codes, y, w, k, criterion):
    """Best decrease over every two-subset partition of categories 0..k-1."""
    best = -np.inf
    for r in range(0, k - 1):
        for rest in itertools.combinations(range(1, k), r):
            best = max(best, _decrease(y, w, np.isin(codes, (0,) + rest), criterion))
    return best


def _categorical_frame(codes, k):
    return pd.DataFrame({"c": pd.Categorical.from_codes(codes, [f"k{i}" for i in range(k)])})


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("seed", range(8))
def test_ordered_split_is_the_best_of_all_two_class_subsets(criterion, seed):
    rng = np.random.default_rng(seed)
    k = 3 + seed % 6
    n = 80
    codes = rng.integers(0, k, size=n)
    codes[:k] = np.arange(k)  # every category present
    y = (rng.random(n) < rng.uniform(0.05, 0.95, size=k)[codes]).astype(int)
    y[:2] = [0, 1]
    w = rng.uniform(0.5, 3.0, size=n) if seed % 2 else np.ones(n)
    X = _categorical_frame(codes, k)
    clf = DecisionTreeClassifier(criterion=criterion, categorical_split="ordered",
                                 max_depth=1).fit(X, y, sample_weight=w)
    best = _best_subset(codes, y, w, k, criterion)
    assert clf.tree_.node_count == 3
    left = clf.apply(X) == clf.tree_.children(0)[0]
    assert _decrease(y, w, left, criterion) == pytest.approx(best, rel=1e-10, abs=1e-12)


def test_ordered_split_separates_two_against_two_categories_in_one_split():
    """Class 1 in categories B and D only: one ordered split is pure, while one-vs-rest
    needs two splits to reach the same leaves."""
    c = np.tile(np.array(["A", "B", "C", "D"]), 10)
    y = np.isin(c, ["B", "D"]).astype(int)
    X = pd.DataFrame({"c": pd.Categorical(c)})
    ordered = CARTClassifier(categorical_split="ordered").fit(X, y)
    ovr = CARTClassifier(categorical_split="binary").fit(X, y)
    assert ordered.get_n_leaves() == 2 and ordered.get_depth() == 1
    assert ovr.get_depth() == 2
    assert (ordered.predict(X) == y).all()
    assert "c in {A, C}" in export_text(ordered) or "c in {B, D}" in export_text(ordered)


def test_ordered_split_needs_two_classes():
    X = pd.DataFrame({"c": pd.Categorical(list("abcabc"))})
    with pytest.raises(ValueError, match="categorical_split='ordered'.*got 3 classes"):
        DecisionTreeClassifier(categorical_split="ordered").fit(X, [0, 1, 2, 0, 1, 2])


def test_ordered_split_never_does_worse_than_one_vs_rest_at_the_root():
    rng = np.random.default_rng(11)
    n, k = 400, 9
    codes = rng.integers(0, k, size=n)
    y = (rng.random(n) < rng.uniform(0.1, 0.9, size=k)[codes]).astype(int)
    X = _categorical_frame(codes, k)
    w = np.ones(n)
    gains = {}
    for mode in ("ordered", "binary"):
        clf = DecisionTreeClassifier(categorical_split=mode, max_depth=1).fit(X, y)
        gains[mode] = _decrease(y, w, clf.apply(X) == clf.tree_.children(0)[0], "gini")
    assert gains["ordered"] >= gains["binary"] - 1e-12
    assert gains["ordered"] == pytest.approx(_best_subset(codes, y, w, k, "gini"), rel=1e-10)
