"""Sample and class weights.

* An integer weight k is the same as k copies of the row, for every estimator and every
  missing-value strategy, with missing values in numeric and categorical columns: same
  splits, thresholds, surrogates, weighted class counts / values and predictions. (Only
  ``n_node_samples`` differs: it counts rows.)
* A weight of 0 is the same as dropping the row.
* ``class_weight`` multiplies the sample weights: a dict equals per-sample weights,
  "balanced" equals n_samples / (n_classes * count(class)) computed here by hand.
* Weighted fits agree with scikit-learn's trees on numeric data.
* Bad weights are clear errors.
"""

import numpy as np
import pandas as pd
import pytest
from sklearn import datasets
from sklearn.tree import DecisionTreeClassifier as SkClassifier
from sklearn.tree import DecisionTreeRegressor as SkRegressor
from sklearn.utils.class_weight import compute_sample_weight

from quercus import (C45Classifier, CARTClassifier, CARTRegressor, DecisionTreeClassifier,
                     DecisionTreeRegressor, ID3Classifier)
from quercus._kernels.schema import LEAF


def C45Unpruned(**kw):
    """The book's unpruned C4.5 (C45Classifier prunes by default, as J48)."""
    return C45Classifier(pruning=None, **kw)


CLASSIFIERS = [DecisionTreeClassifier, ID3Classifier, C45Classifier, C45Unpruned,
               CARTClassifier]
REGRESSORS = [DecisionTreeRegressor, CARTRegressor]
STRATEGIES = ["fractional", "surrogate", "learned"]

# Arrays that define the tree; everything but n_node_samples (a row count).
STRUCTURE = ["kind", "feature", "category", "first_child", "n_children", "depth",
             "missing_mode", "missing_child", "sur_start", "sur_count", "cat_map_start",
             "cat_map", "sur_feature", "sur_kind", "sur_category", "sur_flip"]
NUMBERS = ["threshold", "weighted_n_node_samples", "impurity", "value", "rho",
           "sur_threshold", "sur_agreement"]


def assert_same_tree(a, b):
    ta, tb = a.tree_, b.tree_
    assert ta.node_count == tb.node_count
    for name in STRUCTURE:
        np.testing.assert_array_equal(getattr(ta, name), getattr(tb, name), err_msg=name)
    for name in NUMBERS:
        np.testing.assert_allclose(getattr(ta, name), getattr(tb, name), rtol=1e-9,
                                   atol=1e-12, err_msg=name)


def assert_same_predictions(a, b, X):
    if hasattr(a, "predict_proba"):
        np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-9,
                                   atol=1e-12)
        np.testing.assert_array_equal(a.predict(X), b.predict(X))
    else:
        np.testing.assert_allclose(a.predict(X), b.predict(X), rtol=1e-9, atol=1e-12)


def _data(n=80, seed=0):
    """Two categorical and two numeric columns, 15% missing each (None / NaN / pd.NA);
    numeric values on a coarse grid, so ties and repeated values occur."""
    rng = np.random.default_rng(seed)
    color = rng.choice(["red", "green", "blue", "grey"], size=n).astype(object)
    shape = rng.choice(["round", "long", "flat"], size=n).astype(object)
    size = np.round(rng.normal(size=n), 1)
    mass = np.round(rng.uniform(0, 10, size=n), 0)
    score = 1.5 * (color == "red") + size + 0.3 * mass + rng.normal(0, 0.5, size=n)
    y_cls = np.where(score > np.median(score), "good", "bad").astype(object)
    y_cls[rng.random(n) < 0.15] = "meh"
    y_reg = np.round(np.abs(score) * 3, 1)  # >= 0: valid for Poisson too
    for col, marker in ((color, None), (shape, pd.NA)):
        col[rng.random(n) < 0.15] = marker
    size[rng.random(n) < 0.15] = np.nan
    mass[rng.random(n) < 0.15] = np.nan
    X = pd.DataFrame({"color": pd.Series(color, dtype=object), "size": size,
                      "shape": pd.Series(shape, dtype=object), "mass": mass})
    return X, y_cls, y_reg


def _probe():
    return pd.DataFrame({
        "color": pd.Series(["red", None, "blue", "grey", pd.NA, "green"], dtype=object),
        "size": [0.3, np.nan, -1.2, 2.0, np.nan, 0.0],
        "shape": pd.Series(["round", "long", None, "flat", pd.NA, "round"], dtype=object),
        "mass": [4.0, 7.0, np.nan, 1.0, np.nan, 9.0]})


def _first_rows(X, y):
    """Indices of the first occurrence of every category of the categorical columns and
    of every label (their weights stay positive so that the schema's category order,
    classes_ and the class tie-break order are the same after dropping rows)."""
    keep = set()
    for col in ["color", "shape", None]:
        values = pd.Series(y) if col is None else X[col]
        seen = values.astype(object).where(values.notna(), None)
        for v in pd.unique(seen.dropna()):
            keep.add(int(np.flatnonzero((seen == v).to_numpy())[0]))
    return keep


CASES = ([(E, s, None) for E in CLASSIFIERS for s in STRATEGIES]
         + [(E, s, c) for E in REGRESSORS for s in STRATEGIES
            for c in ("squared_error", "absolute_error", "poisson")])


def _case_id(case):
    E, s, c = case
    return f"{E.__name__}-{s}" + (f"-{c}" if c else "")


def _make(E, strategy, criterion, **kw):
    if criterion is not None:
        kw["criterion"] = criterion
    return E(missing_strategy=strategy, **kw)


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_integer_weights_equal_repeated_rows(case):
    E, strategy, criterion = case
    X, y_cls, y_reg = _data()
    y = y_reg if criterion else y_cls
    rng = np.random.default_rng(1)
    w = rng.integers(1, 4, size=len(X))  # 1, 2 or 3
    weighted = _make(E, strategy, criterion).fit(X, y, sample_weight=w.astype(float))
    rep = np.repeat(np.arange(len(X)), w)
    copies = _make(E, strategy, criterion).fit(X.iloc[rep].reset_index(drop=True), y[rep])
    assert weighted.tree_.node_count > 5
    assert weighted.tree_.n_node_samples[0] == len(X)
    assert copies.tree_.n_node_samples[0] == w.sum()
    assert weighted.tree_.weighted_n_node_samples[0] == pytest.approx(w.sum())
    assert_same_tree(weighted, copies)
    assert_same_predictions(weighted, copies, _probe())
    assert_same_predictions(weighted, copies, X)


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_weight_two_equals_two_copies(case):
    """The brief's literal case: some rows with weight 2, the others 1."""
    E, strategy, criterion = case
    X, y_cls, y_reg = _data(n=50, seed=3)
    y = y_reg if criterion else y_cls
    w = np.ones(len(X))
    w[::3] = 2.0
    weighted = _make(E, strategy, criterion).fit(X, y, sample_weight=w)
    rep = np.repeat(np.arange(len(X)), w.astype(int))
    copies = _make(E, strategy, criterion).fit(X.iloc[rep].reset_index(drop=True), y[rep])
    assert_same_tree(weighted, copies)
    assert_same_predictions(weighted, copies, _probe())


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_zero_weights_equal_dropping_rows(case):
    E, strategy, criterion = case
    X, y_cls, y_reg = _data(seed=2)
    y = y_reg if criterion else y_cls
    rng = np.random.default_rng(2)
    w = rng.uniform(0.5, 2.0, size=len(X))
    zero = rng.random(len(X)) < 0.3
    zero[list(_first_rows(X, y if criterion is None else np.zeros(len(y))))] = False
    w[zero] = 0.0
    assert zero.sum() >= 15
    weighted = _make(E, strategy, criterion).fit(X, y, sample_weight=w)
    kept = ~zero
    dropped = _make(E, strategy, criterion).fit(X[kept].reset_index(drop=True), y[kept],
                                                sample_weight=w[kept])
    assert weighted.tree_.n_node_samples[0] == kept.sum()
    assert_same_tree(weighted, dropped)
    np.testing.assert_array_equal(weighted.tree_.n_node_samples,
                                  dropped.tree_.n_node_samples)
    assert_same_predictions(weighted, dropped, _probe())
    assert_same_predictions(weighted, dropped, X)


def test_zero_weight_rows_keep_their_categories_and_classes():
    """Documented: a zero-weight row takes no part in growing, but its category stays
    known (a multiway node gets an empty branch for it) and its label stays in classes_."""
    X = pd.DataFrame({"c": pd.Series(list("aabbcd"), dtype=object)})
    y = np.array(["y", "y", "n", "n", "y", "m"])
    w = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 0.0])  # the only "d", the only "m"
    clf = ID3Classifier().fit(X, y, sample_weight=w)
    assert list(clf.classes_) == ["m", "n", "y"]
    assert clf.tree_.n_children[0] == 4  # a, b, c and the empty d
    d_child = clf.tree_.children(0)[3]
    assert clf.tree_.n_node_samples[d_child] == 0
    assert clf.predict_proba(X.iloc[[5]])[0, 0] == 0.0  # "m" has no weight anywhere


# ======================================================================= class_weight


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("E", CLASSIFIERS, ids=lambda c: c.__name__)
def test_class_weight_dict_equals_sample_weights(E, strategy):
    X, y, _ = _data(seed=4)
    cw = {"good": 1.0, "bad": 2.5, "meh": 4.0}
    by_dict = E(missing_strategy=strategy, class_weight=cw).fit(X, y)
    per_row = np.array([cw[v] for v in y])
    by_rows = E(missing_strategy=strategy).fit(X, y, sample_weight=per_row)
    assert_same_tree(by_dict, by_rows)
    assert_same_predictions(by_dict, by_rows, _probe())
    assert by_dict.tree_.weighted_n_node_samples[0] == pytest.approx(per_row.sum())
    # class_weight and sample_weight multiply.
    sw = np.random.default_rng(5).uniform(0.5, 2.0, size=len(y))
    both = E(missing_strategy=strategy, class_weight=cw).fit(X, y, sample_weight=sw)
    product = E(missing_strategy=strategy).fit(X, y, sample_weight=sw * per_row)
    assert_same_tree(both, product)
    assert_same_predictions(both, product, _probe())


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("E", CLASSIFIERS, ids=lambda c: c.__name__)
def test_class_weight_balanced_by_hand(E, strategy):
    X, y, _ = _data(seed=6)
    labels, counts = np.unique(y, return_counts=True)
    n, k = len(y), len(labels)
    assert len(set(counts)) > 1  # really unbalanced
    hand = {lab: n / (k * c) for lab, c in zip(labels, counts)}
    np.testing.assert_allclose([hand[v] for v in y], compute_sample_weight("balanced", y),
                               rtol=1e-12)  # scikit-learn's definition, the same numbers
    balanced = E(missing_strategy=strategy, class_weight="balanced").fit(X, y)
    manual = E(missing_strategy=strategy).fit(X, y,
                                              sample_weight=np.array([hand[v] for v in y]))
    assert_same_tree(balanced, manual)
    assert_same_predictions(balanced, manual, _probe())
    # Balanced: every class carries the same total weight n / k at the root.
    root = dict(zip(balanced.classes_, balanced.tree_.value[0]))
    for lab in labels:
        assert root[lab] == pytest.approx(n / k, rel=1e-12)


def test_class_weight_balanced_with_sample_weight_as_sklearn():
    """scikit-learn's meaning: the balanced weights come from the label counts (not the
    sample weights) and multiply sample_weight; checked against scikit-learn's own tree
    on numeric data."""
    X, y = datasets.load_breast_cancer(return_X_y=True)
    X = X.astype(np.float32).astype(np.float64)
    order = np.argsort(y, kind="stable")
    X, y = X[order], y[order]
    sw = np.random.default_rng(0).uniform(0.5, 2.0, size=len(y))
    q = CARTClassifier(class_weight="balanced", max_depth=2).fit(X, y, sample_weight=sw)
    sk = SkClassifier(class_weight="balanced", max_depth=2, random_state=0).fit(
        X, y, sample_weight=sw)
    assert q.tree_.feature[0] == sk.tree_.feature[0]
    assert q.tree_.threshold[0] == sk.tree_.threshold[0]
    np.testing.assert_allclose(q.predict_proba(X), sk.predict_proba(X), atol=1e-12)
    counts = np.bincount(y)
    hand = len(y) / (2 * counts)
    np.testing.assert_allclose(q.tree_.value[0], np.bincount(y, weights=sw * hand[y]),
                               rtol=1e-12)


# ======================================================================= against sklearn


def _pre_q(t, i=0):
    if t.kind[i] == LEAF:
        return [None]
    out = [(int(t.feature[i]), float(t.threshold[i]))]
    for c in t.children(i):
        out += _pre_q(t, c)
    return out


def _pre_sk(t, i=0):
    if t.children_left[i] == -1:
        return [None]
    return ([(int(t.feature[i]), float(t.threshold[i]))]
            + _pre_sk(t, t.children_left[i]) + _pre_sk(t, t.children_right[i]))


SK_CASES = [
    ("diabetes", "squared_error", {"max_depth": 4}),
    ("diabetes", "absolute_error", {"max_depth": 4}),
    ("diabetes", "poisson", {"max_depth": 4}),
    ("diabetes", "squared_error", {"min_weight_fraction_leaf": 0.02}),
    ("diabetes", "absolute_error", {"min_weight_fraction_leaf": 0.02}),
    ("diabetes", "poisson", {"min_weight_fraction_leaf": 0.02}),
    ("wine", "gini", {"min_weight_fraction_leaf": 0.05}),
    ("wine", "gini", {"max_depth": 4}),
    ("breast_cancer", "gini", {"min_weight_fraction_leaf": 0.05}),
]


@pytest.mark.parametrize("name,criterion,settings", SK_CASES,
                         ids=[f"{a}-{b}-{list(c)[0]}" for a, b, c in SK_CASES])
def test_weighted_fit_is_the_tie_matched_sklearn_tree(name, criterion, settings):
    """Random positive weights on numeric data (float32-rounded): the tree of the
    scikit-learn random_state that resolves exact feature ties as quercus does (see
    tests/test_sklearn_agreement.py) is identical, predictions included."""
    X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    X = X.astype(np.float32).astype(np.float64)
    if name != "diabetes":
        order = np.argsort(y, kind="stable")
        X, y = X[order], y[order]
        Q, Sk = CARTClassifier, SkClassifier
    else:
        Q, Sk = DecisionTreeRegressor, SkRegressor
    w = np.random.default_rng(0).uniform(0.2, 3.0, size=len(y))
    q = Q(criterion=criterion, max_bins=None, **settings).fit(X, y, sample_weight=w)
    target = _pre_q(q.tree_)
    for seed in range(100):
        sk = Sk(criterion=criterion, random_state=seed, **settings).fit(X, y, sample_weight=w)
        if _pre_sk(sk.tree_) == target:
            break
    else:
        pytest.fail("no sklearn random_state below 100 builds quercus's tree")
    assert q.tree_.node_count == sk.tree_.node_count > 5
    if Q is CARTClassifier:
        np.testing.assert_allclose(q.predict_proba(X), sk.predict_proba(X), atol=1e-12)
    else:
        np.testing.assert_allclose(q.predict(X), sk.predict(X), rtol=1e-12)


def test_min_weight_fraction_leaf_by_hand():
    """Every non-empty child keeps at least the fraction of the total weight; a split that
    would leave less is not taken (hand example: weights 1, 1, 1, 7 on x = 0..3)."""
    X = np.arange(4.0)[:, None]
    y = np.array([0.0, 10.0, 20.0, 30.0])
    w = np.array([1.0, 1.0, 1.0, 7.0])
    # Total 10; fraction 0.25 needs 2.5 per child: x <= 0.5 (left 1) and x <= 1.5 (left 2)
    # are out; x <= 2.5 (left 3, right 7) is the only valid split at the root.
    reg = DecisionTreeRegressor(min_weight_fraction_leaf=0.25).fit(X, y, sample_weight=w)
    assert reg.tree_.threshold[0] == 2.5
    left, right = reg.tree_.children(0)
    assert reg.tree_.kind[left] == LEAF  # 3 < 2 * 2.5: cannot split again
    assert reg.tree_.weighted_n_node_samples[left] == 3.0
    assert reg.tree_.value[left, 0] == pytest.approx(10.0)
    # Unconstrained, x <= 1.5 is best: weighted SSE 50 + 87.5 = 137.5, against 400 for
    # x <= 0.5 and 200 for x <= 2.5 (by hand).
    free = DecisionTreeRegressor(max_depth=1).fit(X, y, sample_weight=w)
    assert free.tree_.threshold[0] == 1.5
    sk = SkRegressor(min_weight_fraction_leaf=0.25).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(reg.predict(X), sk.predict(X))


# ======================================================================= bad weights

X4 = np.array([[0.0], [1.0], [2.0], [3.0]])
Y4 = np.array([0, 0, 1, 1])

BAD_WEIGHTS = [
    ("negative", [1.0, -0.5, 1.0, 1.0],
     r"sample_weight must be non-negative; got -0.5 at row 1"),
    ("NaN", [1.0, 1.0, np.nan, 1.0], r"Input sample_weight contains NaN"),
    ("inf", [1.0, 1.0, 1.0, np.inf], r"Input sample_weight contains infinity"),
    ("all zero", [0.0, 0.0, 0.0, 0.0], r"sample_weight is zero for every sample"),
    ("wrong length", [1.0, 1.0], r"sample_weight has 2 entries but X has 4 rows"),
    ("2-d", [[1.0, 1.0, 1.0, 1.0]], r"sample_weight must be a 1-d array of length 4"),
    # (scikit-learn's conversion message; it does not name sample_weight)
    ("strings", ["a", "b", "c", "d"], r"could not convert string to float: 'a'"),
]


@pytest.mark.parametrize("E", CLASSIFIERS + REGRESSORS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("what,w,match", BAD_WEIGHTS, ids=[b[0] for b in BAD_WEIGHTS])
def test_bad_weights_are_clear_errors(E, what, w, match):
    y = Y4 * 1.0 if E in REGRESSORS else Y4
    with pytest.raises(ValueError, match=match):
        E().fit(X4, y, sample_weight=w)


def test_bad_class_weight_is_a_clear_error():
    with pytest.raises(ValueError, match=r"The 'class_weight' parameter of CARTClassifier "
                                         r"must be"):
        CARTClassifier(class_weight="uniform").fit(X4, Y4)
    with pytest.raises(ValueError, match=r"The classes, \[1\], are not in class_weight"):
        CARTClassifier(class_weight={0: 1.0, 7: 2.0}).fit(X4, Y4)
