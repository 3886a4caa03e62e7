"""The subtree kernel grows exactly the tree the Python grower grows.

Small nodes have their whole subtree grown by ``grow_subtree`` in one call. It must follow
the Python grower's rules and node order to the letter: the same splits, thresholds, node
numbering, values, missing-value routing and categorical maps. Each case fits once with the
kernel off (every node in Python), once with it taking every node, and once with it taking
only the small ones (a mixed tree), and compares every array of the fitted tree.
"""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_diabetes, load_digits

import quercus._grower as grower
from quercus import (C45Classifier, CARTClassifier, CARTRegressor, DecisionTreeClassifier,
                     DecisionTreeRegressor, ID3Classifier)
from quercus._grower import GrowConfig
from quercus._kernels.selection import choose_split
from quercus.datasets import load_watermelon


def _with_limit(monkeypatch, limit, est, X, y, **fit):
    monkeypatch.setattr(grower, "SUBTREE_MAX_SAMPLES", limit)
    return est.fit(X, y, **fit).tree_


def _canonical(tree):
    """The tree's nodes in breadth-first order from the root, children ids renumbered and
    the flat cat_map / surrogate slices inlined: equal for equal trees, however the grower
    numbered the nodes."""
    order, first = [0], {}
    i = 0
    while i < len(order):
        v = order[i]
        if tree.kind[v] != 0:
            first[v] = len(order)
            order.extend(range(tree.first_child[v], tree.first_child[v] + tree.n_children[v]))
        i += 1
    out = {}
    for name, arr in tree.__dict__.items():
        if name in ("cat_map", "sur_feature", "sur_kind", "sur_threshold", "sur_category",
                    "sur_flip", "sur_agreement", "sur_start", "cat_map_start"):
            continue
        out[name] = np.asarray(arr)[order]
    out["first_child"] = np.array([first.get(v, -1) for v in order])
    starts = sorted(set(tree.cat_map_start[tree.cat_map_start >= 0].tolist()))
    ends = dict(zip(starts, starts[1:] + [len(tree.cat_map)]))
    out["cat_map"] = [tree.cat_map[tree.cat_map_start[v]:ends[tree.cat_map_start[v]]].tolist()
                      if tree.cat_map_start[v] >= 0 else None for v in order]
    out["surrogates"] = [[(int(tree.sur_feature[s]), int(tree.sur_kind[s]),
                           float(tree.sur_threshold[s]), int(tree.sur_category[s]),
                           int(tree.sur_flip[s]), float(tree.sur_agreement[s]))
                          for s in range(tree.sur_start[v], tree.sur_start[v]
                                         + tree.sur_count[v])] for v in order]
    return out


def _assert_same_tree(a, b):
    assert a.node_count == b.node_count
    ca, cb = _canonical(a), _canonical(b)
    for name, arr in ca.items():
        other = cb[name]
        if isinstance(arr, list):
            assert other == arr, name
        elif arr.dtype.kind == "f":
            # Node weights are summed in another order (numpy's pairwise sum in Python).
            np.testing.assert_allclose(other, arr, rtol=1e-12, atol=1e-12, err_msg=name)
        else:
            np.testing.assert_array_equal(other, arr, err_msg=name)


def _digits(missing=0.0):
    X, y = load_digits(return_X_y=True)
    X = X[:900].astype(float)
    if missing:
        X[np.random.default_rng(0).random(X.shape) < missing] = np.nan
    return X, y[:900]


def _mixed_categorical():
    """Numeric and categorical columns (3 to 12 levels), missing values in both."""
    rng = np.random.default_rng(1)
    n = 1500
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.integers(0, 40, n).astype(float),
                      "c": pd.Categorical(rng.choice(list("pqr"), n)),
                      "d": pd.Categorical(rng.choice([f"v{i}" for i in range(12)], n))})
    y = ((X["a"] > 0) ^ (X["c"] == "q") ^ (X["d"].isin(["v1", "v5", "v7"]))).to_numpy()
    y = np.where(rng.random(n) < 0.1, ~y, y).astype(int)
    X.loc[rng.random(n) < 0.08, "a"] = np.nan
    X.loc[rng.random(n) < 0.08, "d"] = np.nan
    return X, y


CLASSIFIERS = [
    ("cart-gini", lambda: DecisionTreeClassifier(), _digits),
    ("entropy-depth", lambda: DecisionTreeClassifier(criterion="entropy", max_depth=6,
                                                     min_samples_leaf=3), _digits),
    ("c45-unpruned", lambda: C45Classifier(pruning=None), _digits),
    ("c45-missing", lambda: C45Classifier(pruning=None), lambda: _digits(0.1)),
    ("learned-missing", lambda: DecisionTreeClassifier(), lambda: _digits(0.1)),
    ("surrogate-none", lambda: CARTClassifier(max_surrogate=0), lambda: _digits(0.1)),
    ("surrogate-missing", lambda: CARTClassifier(), lambda: _digits(0.1)),
    ("surrogate-always", lambda: CARTClassifier(surrogates="always", max_surrogate=3,
                                                max_depth=7), _digits),
    ("surrogate-one-vs-rest", lambda: CARTClassifier(), _mixed_categorical),
    ("impurity-decrease", lambda: DecisionTreeClassifier(min_impurity_decrease=0.002),
     _digits),
    ("histogram", lambda: DecisionTreeClassifier(max_bins=4), _digits),
    ("id3-multiway", lambda: ID3Classifier(), _mixed_categorical),
    ("c45-multiway", lambda: C45Classifier(pruning=None), _mixed_categorical),
    ("one-vs-rest-learned", lambda: DecisionTreeClassifier(), _mixed_categorical),
    ("one-vs-rest-surrogate", lambda: CARTClassifier(max_surrogate=0), _mixed_categorical),
    ("ordered-learned", lambda: DecisionTreeClassifier(categorical_split="ordered"),
     _mixed_categorical),
    ("ordered-surrogate", lambda: CARTClassifier(categorical_split="ordered"),
     _mixed_categorical),
    ("ordered-entropy-fractional", lambda: DecisionTreeClassifier(
        criterion="entropy", categorical_split="ordered", missing_strategy="fractional"),
     _mixed_categorical),
    ("textbook-c45", lambda: C45Classifier(pruning=None), lambda: load_watermelon("3.0")),
    ("textbook-id3", lambda: ID3Classifier(), lambda: load_watermelon("2.0")),
    # Random draws: a node's depend on its key alone, whichever grower grows it.
    ("max-features", lambda: DecisionTreeClassifier(max_features=12, random_state=0),
     _digits),
    ("random-splitter-surrogates", lambda: CARTClassifier(splitter="random", random_state=1),
     lambda: _digits(0.1)),
    ("random-both-categorical", lambda: CARTClassifier(
        splitter="random", max_features=2, random_state=2), _mixed_categorical),
    ("random-c45-fractional", lambda: C45Classifier(
        pruning=None, splitter="random", max_features=3, random_state=3), _mixed_categorical),
]


@pytest.mark.parametrize("name,make,data", CLASSIFIERS, ids=[c[0] for c in CLASSIFIERS])
def test_subtree_kernel_grows_the_python_grower_s_classification_tree(monkeypatch, name,
                                                                        make, data):
    X, y = data()
    python = _with_limit(monkeypatch, -1, make(), X, y)
    kernel = _with_limit(monkeypatch, 10**9, make(), X, y)
    mixed = _with_limit(monkeypatch, 60, make(), X, y)
    assert python.node_count > 3
    _assert_same_tree(python, kernel)
    _assert_same_tree(python, mixed)


def _regression_with_categories():
    X, y = load_diabetes(return_X_y=True)
    rng = np.random.default_rng(2)
    X = pd.DataFrame(X[:, :6], columns=list("abcdef"))
    X["g"] = pd.Categorical(rng.choice([f"k{i}" for i in range(9)], len(X)))
    X.loc[rng.random(len(X)) < 0.1, "g"] = np.nan
    X.loc[rng.random(len(X)) < 0.1, "a"] = np.nan
    return X, y + 10 * X["g"].cat.codes.to_numpy()


REGRESSORS = [
    ("squared", lambda: DecisionTreeRegressor()),
    ("poisson", lambda: DecisionTreeRegressor(criterion="poisson", min_samples_leaf=2)),
    ("ordered-surrogate-none", lambda: CARTRegressor(max_surrogate=0)),
    ("ordered-surrogate", lambda: CARTRegressor()),
    ("surrogate-always", lambda: CARTRegressor(surrogates="always", max_depth=6)),
    ("ordered-fractional", lambda: DecisionTreeRegressor(missing_strategy="fractional",
                                                         max_depth=8)),
    ("max-features", lambda: CARTRegressor(max_features=3, random_state=0)),
    ("random-splitter", lambda: DecisionTreeRegressor(splitter="random", random_state=4)),
    # Absolute error: the weighted median and the search of the node's sorted samples.
    ("absolute", lambda: DecisionTreeRegressor(criterion="absolute_error", max_depth=9)),
    ("absolute-ordered-surrogate", lambda: CARTRegressor(criterion="absolute_error",
                                                         max_depth=9)),
    ("absolute-fractional", lambda: DecisionTreeRegressor(
        criterion="absolute_error", missing_strategy="fractional", max_depth=7)),
    ("absolute-random", lambda: DecisionTreeRegressor(
        criterion="absolute_error", splitter="random", max_features=4, random_state=5)),
]


@pytest.mark.parametrize("name,make", REGRESSORS, ids=[r[0] for r in REGRESSORS])
def test_subtree_kernel_grows_the_python_grower_s_regression_tree(monkeypatch, name, make):
    X, y = _regression_with_categories()
    y = y - y.min() + 1.0  # positive, for Poisson
    w = np.random.default_rng(3).integers(1, 4, len(y)).astype(float)
    python = _with_limit(monkeypatch, -1, make(), X, y, sample_weight=w)
    kernel = _with_limit(monkeypatch, 10**9, make(), X, y, sample_weight=w)
    mixed = _with_limit(monkeypatch, 40, make(), X, y, sample_weight=w)
    assert python.node_count > 3
    _assert_same_tree(python, kernel)
    _assert_same_tree(python, mixed)


def _cfg(**kw):
    base = dict(criterion=1, gain_ratio=False, cat_mode=1, missing_mode=2, max_surrogate=0,
                random_splitter=False, max_depth=10, min_samples_split=2,
                min_samples_leaf=1, min_weight_leaf=0.0, min_impurity_decrease=0.0,
                max_features=5)
    return GrowConfig(**{**base, **kw})


def _refusals(est):
    """The splits pre-pruning refused, each at its node's place in the canonical order
    (how a grower numbers nodes does not matter), with its errors."""
    tree = est.tree_
    order, i = [0], 0
    while i < len(order):
        v = order[i]
        if tree.kind[v] != 0:
            order.extend(range(tree.first_child[v], tree.first_child[v] + tree.n_children[v]))
        i += 1
    place = {v: j for j, v in enumerate(order)}
    return sorted((place[r["node"]], r["feature"], round(r["error_before"], 9),
                   round(r["error_after"], 9)) for r in est.pruning_report_)


PRE_PRUNED = [
    ("id3-multiway", lambda: ID3Classifier(pruning="pre", random_state=0),
     _mixed_categorical),
    ("cart-surrogates", lambda: CARTClassifier(pruning="pre", random_state=0),
     lambda: _digits(0.1)),
    ("c45-fractional", lambda: C45Classifier(pruning="pre", random_state=0),
     _mixed_categorical),
    ("ordered-not-strict", lambda: DecisionTreeClassifier(
        pruning="pre", strict_improvement=False, categorical_split="ordered",
        random_state=1),
     _mixed_categorical),
    ("one-vs-rest-learned", lambda: DecisionTreeClassifier(
        pruning="pre", random_state=2), _mixed_categorical),
    ("random-draws", lambda: DecisionTreeClassifier(pruning="pre", max_features=20,
                                                    random_state=4), _digits),
    ("regression", lambda: DecisionTreeRegressor(pruning="pre", random_state=0),
     _regression_with_categories),
    ("regression-surrogates", lambda: CARTRegressor(pruning="pre", random_state=0),
     _regression_with_categories),
    ("absolute-fractional", lambda: DecisionTreeRegressor(
        pruning="pre", criterion="absolute_error", missing_strategy="fractional",
        random_state=2),
     _regression_with_categories),
]


@pytest.mark.parametrize("name,make,data", PRE_PRUNED, ids=[c[0] for c in PRE_PRUNED])
def test_pre_pruning_refuses_the_same_splits_in_either_grower(monkeypatch, name, make,
                                                              data):
    # Each node's validation rows are routed by its split and the split kept only when
    # it lowers their error: in the kernel as in the Python grower, whatever grows it.
    # (random_state: the same rows held out for validation in every fit.)
    X, y = data()
    fits = []
    for limit in (-1, 10**9, 60):
        monkeypatch.setattr(grower, "SUBTREE_MAX_SAMPLES", limit)
        fits.append(make().fit(X, y))
    python, kernel, mixed = fits
    assert python.tree_.node_count > 3
    assert _refusals(python)  # the test refused splits
    for other in (kernel, mixed):
        _assert_same_tree(python.tree_, other.tree_)
        assert _refusals(other) == _refusals(python)


def test_surrogate_trees_keep_their_surrogates_on_small_nodes():
    X, y = _digits(0.1)
    tree = CARTClassifier().fit(X, y).tree_
    small_internal = (tree.kind != 0) & (tree.n_node_samples < 50)
    assert small_internal.any()
    assert (tree.sur_count[small_internal] > 0).any()


def _reference_choose(found, decrease, split_info, gain_ratio, eps=1e-12):
    """The selection rule written out with numpy (ties within ``eps``, relative)."""
    valid = np.flatnonzero(found)
    if valid.size == 0:
        return -1
    dec = decrease[valid]
    tol = lambda x: eps * max(1.0, abs(float(x)))  # noqa: E731
    if not gain_ratio:
        return int(valid[np.flatnonzero(dec >= dec.max() - tol(dec.max()))[0]])
    eligible = valid[dec >= dec.mean() - tol(dec.mean())]
    ratio = decrease[eligible] / split_info[eligible]
    return int(eligible[np.flatnonzero(ratio >= ratio.max() - tol(ratio.max()))[0]])


def test_choose_split_follows_the_selection_rule():
    rng = np.random.default_rng(4)
    for trial in range(500):
        n = int(rng.integers(1, 9))
        found = rng.random(n) < 0.7
        # Few distinct values, so that ties (and ties with the mean) are common.
        dec = rng.integers(0, 4, n) / 4.0
        info = rng.integers(1, 5, n) / 2.0
        for gain_ratio in (False, True):
            assert choose_split(found, dec, info, gain_ratio) == _reference_choose(
                found, dec, info, gain_ratio), (found, dec, info, gain_ratio)


def test_python_and_kernel_minimum_weight_bounds_agree_to_the_bit():
    # The Python grower (its size rules read in Python) and the compiled settle step
    # decide "may this node split" alike only if they lower the minimum weights by exactly
    # the same rounding allowance: weights at and a few ulps around each bound.
    from quercus._kernels.node import settle_node
    cfg = _cfg(min_weight_leaf=0.0)
    stats = np.array([1.0, 1.0])
    idx, y = np.arange(2), np.array([0.0, 1.0])
    for bound in (1e-300, 0.5, 2.0, 2.5, 4.0, 25.0, 1e6, 3.0e15):
        cfg.min_weight_leaf = bound / 2
        for weight in (bound, np.nextafter(bound, 0.0), bound * (1 - 1e-12),
                       bound * (1 - 1e-8), np.nextafter(bound, np.inf)):
            wi = np.array([weight, 0.0])
            python = grower.may_split(cfg, 0, 2, weight)
            kernel = settle_node(stats, 0.5, idx, wi, y, False, 0, cfg.max_depth,
                                 cfg.min_samples_split, cfg.min_samples_leaf,
                                 cfg.min_weight_leaf, 0.0, 0.0, 0)[2]
            assert python == kernel, (bound, weight)
        assert grower.may_split(cfg, 0, 2, bound)
        assert bound < 0.5 or not grower.may_split(cfg, 0, 2, bound * (1 - 1e-6))


def test_subtrees_are_capped_in_rows_and_the_cap_keeps_the_tree(monkeypatch):
    # Big data hands the kernel nodes of up to an eighth of the rows, but no more than
    # SUBTREE_MAX_ROWS (their presorted orders take 2 bytes a row and attribute).
    assert grower.subtree_limit(10**7) == grower.SUBTREE_MAX_ROWS
    # (A regressor's subtrees grow to a row a leaf: their tables weigh more, so fewer rows.)
    assert grower.subtree_limit(10**7, regression=True) == 8_192 < grower.SUBTREE_MAX_ROWS
    assert grower.subtree_limit(40_000) == 5_000
    assert grower.subtree_limit(100) == grower.SUBTREE_MAX_SAMPLES
    rng = np.random.default_rng(8)
    X = rng.normal(size=(30_000, 4))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(scale=0.5, size=30_000) > 0).astype(int)
    est = CARTClassifier(max_bins=None, max_surrogate=0)
    wide = est.fit(X, y).tree_
    monkeypatch.setattr(grower, "SUBTREE_MAX_ROWS", 2_048)
    _assert_same_tree(wide, est.fit(X, y).tree_)


@pytest.mark.parametrize("make", [
    lambda: CARTClassifier(max_bins=None, max_surrogate=0),
    lambda: C45Classifier(max_bins=None, pruning=None),  # multiway on the categories
    lambda: CARTRegressor(max_bins=None, max_surrogate=0),
], ids=["cart", "c45-multiway", "regressor"])
def test_presorted_orders_split_in_place_grow_the_python_grower_s_tree(monkeypatch, make):
    # 6,000 distinct values against subtrees of at most 512 rows: the kernel presorts the
    # numeric columns and splits their orders in place, into two children or, on the
    # categorical column, into four.
    monkeypatch.setattr(grower, "SUBTREE_MAX_ROWS", 512)
    rng = np.random.default_rng(11)
    n = 6_000
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n),
                      "c": pd.Categorical(rng.choice(list("pqrs"), n)),
                      "d": rng.normal(size=n)})
    y = (X["a"] + X["b"] * X["d"] + (X["c"] == "q") + rng.normal(scale=0.5, size=n) > 0.5)
    y = y.astype(float) if "Regressor" in type(make()).__name__ else y.astype(int)
    python = _with_limit(monkeypatch, -1, make(), X, y)
    kernel = _with_limit(monkeypatch, 0, make(), X, y)
    # (The kernel presorts a column of more than 4 x rows + 256 values.)
    assert 4 * grower.subtree_limit(n) + 256 < n
    assert kernel.node_count > 200 and (kernel.n_children > 2).any() == ("C45" in
                                                                        type(make()).__name__)
    _assert_same_tree(python, kernel)


WHOLE = [c for c in CLASSIFIERS if c[0] in ("c45-missing", "ordered-learned", "id3-multiway",
                                             "one-vs-rest-learned", "surrogate-missing")]


@pytest.mark.parametrize("name,make,data", WHOLE, ids=[c[0] for c in WHOLE])
def test_a_tree_grown_wholly_by_the_kernel_is_its_nodes_spliced_below_a_root(
        monkeypatch, name, make, data):
    """A fit small enough for one kernel call takes the tree straight from the kernel's
    nodes: array for array (values, types, cat_map) what splicing them below a lone root
    of the builder gives."""
    from quercus._tree import _FIELDS, _FLAT, TreeBuilder
    X, y = data()
    tables = []
    real = grower._subtree
    monkeypatch.setattr(grower, "_subtree",
                        lambda *a: tables.append(real(*a)) or tables[-1])
    monkeypatch.setattr(grower, "SUBTREE_MAX_SAMPLES", 10**9)
    direct = make().set_params(pruning=None).fit(X, y).tree_
    assert len(tables) == 1
    nodes, count, cat_map, surs, _ = tables[0]
    builder = TreeBuilder(nodes.value.shape[1])
    builder.add(1, 0)
    grower._splice(builder, 0, type(nodes)(*(a.copy() for a in nodes)), count, cat_map,
                   surs)
    spliced = builder.freeze()
    assert direct.node_count == spliced.node_count > 3
    for field in {**_FIELDS, **_FLAT}:
        a, b = getattr(direct, field), getattr(spliced, field)
        assert a.dtype == b.dtype and a.flags.c_contiguous, field
        np.testing.assert_array_equal(a, b, err_msg=field)


@pytest.mark.parametrize("kernel_rows", [65_536, 300_000], ids=["at-the-limit", "above"])
def test_presorted_positions_fit_two_bytes_and_bigger_nodes_sort_per_node(monkeypatch,
                                                                         kernel_rows):
    # A presorted order holds a subtree's positions in uint16. A node of exactly 65,536
    # rows (positions up to 65,535) is presorted; a bigger one (here the whole 300k-row
    # tree in one call) sorts at every node instead. Both grow the Python grower's tree.
    from quercus._kernels.subtree import PRESORT_MAX_ROWS
    assert PRESORT_MAX_ROWS == 65_536
    rng = np.random.default_rng(5)
    n = 300_000
    a = rng.permutation(n).astype(float)
    b = rng.normal(size=n)
    X = np.column_stack([a, b])
    # The root splits off the 65,536 mixed rows of a < 65,536 (the last of them in class 1,
    # so that the best threshold is just above it).
    y = ((a < 65_536) & ((b > 0) | (a == 65_535))).astype(int)
    est = CARTClassifier(max_bins=None, max_surrogate=0, max_depth=4)
    python = _with_limit(monkeypatch, -1, est, X, y)
    sizes = []
    real = grower._subtree
    monkeypatch.setattr(grower, "_subtree", lambda *args: sizes.append(args[3][1].size)
                        or real(*args))
    monkeypatch.setattr(grower, "SUBTREE_MAX_ROWS", kernel_rows)
    kernel = _with_limit(monkeypatch, kernel_rows, est, X, y)
    assert max(sizes) == kernel_rows
    # (Both columns have more values than 4 x 65,536 + 256: the kernel presorts them.)
    assert n + 1 > 4 * 65_536 + 256
    assert kernel.node_count >= 7  # the kernel split its node, and a child again
    _assert_same_tree(python, kernel)


@pytest.mark.parametrize("make", [
    lambda: CARTClassifier(ccp_alpha=0.004, max_surrogate=0),
    lambda: CARTRegressor(ccp_alpha=30.0, max_surrogate=0),
], ids=["classifier", "regressor"])
def test_both_growers_leave_a_leaf_where_a_split_collapses_at_the_floor(monkeypatch, make):
    # A split that no subtree from the cost-complexity floor up keeps is not made, by the
    # Python grower's big nodes as by the subtree kernel: the grown (unpruned) trees are
    # the same, and smaller than without the floor.
    import quercus._fit as fit
    X, y = load_digits(return_X_y=True)
    if make().__class__ is CARTRegressor:
        X, y = load_diabetes(return_X_y=True)
    grown = {}

    def recording(*args, **kw):
        out = grower.grow(*args, **kw)
        grown["tree"] = out[0]
        return out

    monkeypatch.setattr(fit, "grow", recording)
    trees = {}
    for limit in (-1, 10**9):
        _with_limit(monkeypatch, limit, make(), X, y)
        trees[limit] = grown["tree"]
    _assert_same_tree(trees[-1], trees[10**9])
    monkeypatch.setattr(grower, "SUBTREE_MAX_SAMPLES", -1)
    make().set_params(ccp_alpha=0.0).fit(X, y)
    assert grown["tree"].node_count > trees[-1].node_count


@pytest.mark.parametrize("make", [
    lambda: CARTClassifier(max_depth=7),
    lambda: C45Classifier(),
    lambda: CARTRegressor(max_depth=6),
    lambda: CARTClassifier(pruning="pre", strict_improvement=False, random_state=0),
], ids=["cart", "c45", "regressor", "pre-pruned"])
def test_the_python_grower_s_steps_grow_the_same_tree_whatever_their_width(monkeypatch,
                                                                         make):
    # Each step of the Python grower searches several nodes' features together: however
    # many, every node gets its own candidates, so the tree is the depth-first one.
    # (Big enough that the nodes of a step keep histograms of their own.)
    from sklearn.datasets import make_classification, make_regression
    if make().__class__ is CARTRegressor:
        X, y = make_regression(6000, 8, n_informative=4, noise=5.0, random_state=0)
    else:
        X, y = make_classification(6000, 8, n_informative=5, n_classes=3, random_state=0)
    X = np.round(X, 1)
    X[np.random.default_rng(0).random(X.shape) < 0.05] = np.nan
    trees = {}
    for width in (1, 3, 4):
        monkeypatch.setattr(grower, "FRONTIER_WIDTH", width)
        trees[width] = _with_limit(monkeypatch, -1, make(), X, y)
    for width in (3, 4):
        _assert_same_tree(trees[1], trees[width])


ROOMY = [c for c in CLASSIFIERS if c[0] in ("surrogate-missing", "ordered-surrogate",
                                             "id3-multiway")]


@pytest.mark.parametrize("name,make,data", ROOMY, ids=[c[0] for c in ROOMY])
def test_the_kernel_s_tree_does_not_depend_on_the_room_it_starts_with(monkeypatch, name, make,
                                                                      data):
    # The kernel makes room in its node record between runs of nodes (for the most children
    # a split makes: a multiway split's in id3-multiway): a tree that outgrows a record of
    # one slot again and again is the tree grown with room to spare. (Its surrogates and
    # category maps, grown alike, are checked against the Python grower's above.)
    X, y = data()
    roomy = _with_limit(monkeypatch, 10**9, make(), X, y)
    real, capacities = grower.grow_subtree, []

    def one_slot(*args):
        *before, capacity, draws, absolute, validation = args
        capacities.append(capacity)
        return real(*before, 1, draws, absolute, validation)

    monkeypatch.setattr(grower, "grow_subtree", one_slot)
    cramped = _with_limit(monkeypatch, 10**9, make(), X, y)
    assert capacities and min(capacities) >= 64 and cramped.node_count > 64
    if name != "id3-multiway":
        assert len(cramped.sur_feature) > 0
    else:
        assert (cramped.n_children > 2).any()
    _assert_same_tree(roomy, cramped)


@pytest.mark.parametrize("make,multiway", [(lambda: CARTClassifier(), False),
                                           (lambda: ID3Classifier(), True)],
                         ids=["cart-binary", "id3-multiway"])
def test_the_kernel_makes_room_for_a_multiway_split_only_in_a_multiway_tree(monkeypatch, make,
                                                                         multiway):
    # A node record makes room, before its nodes are split, for the most children a split
    # can make: a multiway split's one per category. A binary tree's splits make two, so
    # an attribute of many categories must not make every subtree's record that wide.
    rng = np.random.default_rng(0)
    n, n_cats = 400, 600
    X = pd.DataFrame({"many": pd.Categorical(rng.integers(0, n_cats, n).astype(str)),
                      "few": pd.Categorical(rng.integers(0, 3, n).astype(str))})
    y = X["few"].map({"0": "a", "1": "b", "2": "c"}).to_numpy()  # (a small tree)
    real, capacities = grower.grow_subtree, []

    def spy(*args):
        out = real(*args)
        capacities.append(out[0].kind.shape[0])
        return out

    monkeypatch.setattr(grower, "grow_subtree", spy)
    make().fit(X, y)
    widest = int(pd.Categorical(X["many"]).categories.size)
    assert capacities
    if multiway:
        assert max(capacities) >= widest
    else:
        assert max(capacities) < widest // 2
