"""The routing kernel's two outputs: the node each row ends in, and that node's output
written as the row ends (what ``predict_proba`` returns), for every kind of split, missing
values, unseen categories, float32 rows, either memory order, one block of rows and
several."""

import numpy as np
import pandas as pd
import pytest

from quercus import C45Classifier, CARTClassifier, CARTRegressor, DecisionTreeClassifier
from quercus._kernels import predict
from quercus._kernels.schema import CAT_BINARY, CAT_SUBSET, LEAF, MULTIWAY, NUMERIC


def _frame(seed, n, missing):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({f"x{j}": rng.normal(size=n) for j in range(3)})
    X["c"] = pd.Categorical(rng.choice(list("abcdef"), size=n))
    X["d"] = rng.choice(["u", "v", "w"], size=n)
    y = ((X.x0 + X.x1 * X.x2 > 0) ^ X.c.isin(["a", "b"])).astype(int) + (X.x2 > 1.0)
    for col in X.columns:
        X.loc[rng.random(n) < missing, col] = np.nan
    return X, y.to_numpy()


ESTIMATORS = {
    "binary_surrogates": lambda: CARTClassifier(surrogates="always"),
    "multiway": lambda: CARTClassifier(categorical_split="multiway"),
    "subset_learned": lambda: DecisionTreeClassifier(categorical_split="ordered"),
    "fractional": lambda: C45Classifier(pruning=None),
    "regressor_subset": lambda: CARTRegressor(surrogates="always"),
}


@pytest.mark.parametrize("name", ESTIMATORS)
@pytest.mark.parametrize("rows", [300, 3 * predict.CHUNK + 5])
def test_node_outputs_written_by_the_kernel_are_those_of_the_nodes_reached(name, rows):
    X, y = _frame(0, 2000, 0.05)
    est = ESTIMATORS[name]()
    if name == "subset_learned":
        y = (y > 0).astype(int)  # ordered categories: two classes
    est.fit(X, y + 0.5 * X.x0.fillna(0).to_numpy() if name.startswith("regressor") else y)
    X_new, _ = _frame(1, rows, 0.1)
    X_new["d"] = X_new.d.where(np.arange(rows) % 17 != 0, "unseen")
    X_enc = est._encode(X_new, any_order=True)
    t = est.tree_.kernel_args()
    rt = predict.route_table(t)
    outputs = est._routing()[1]
    for X_in in (np.ascontiguousarray(X_enc), np.asfortranarray(X_enc)):
        nodes = predict.apply_tree(X_in, t, rt)
        values, has_inf = predict.apply_tree(X_in, t, rt, check_inf=True, node_out=outputs)
        assert not has_inf
        assert values.shape == (rows, outputs.shape[1]) and values.dtype == np.float64
        assert np.array_equal(values, outputs[nodes])
        assert np.array_equal(predict.apply_tree(X_in, t, rt, check_inf=True)[0], nodes)
    # The routes themselves: each row's node, from its own path (decision_path's kernel).
    paths = est.decision_path(X_new)
    assert np.array_equal(nodes, paths.indices[paths.indptr[1:] - 1])


def test_every_kind_of_split_is_in_the_routes_above():
    kinds = set()
    X, y = _frame(0, 2000, 0.05)
    for name, make in ESTIMATORS.items():
        if name == "subset_learned":
            y_fit = (y > 0).astype(int)
        elif name.startswith("regressor"):
            y_fit = y + 0.5 * X.x0.fillna(0).to_numpy()
        else:
            y_fit = y
        kinds |= set(make().fit(X, y_fit).tree_.kind.tolist())
    assert kinds == {LEAF, NUMERIC, MULTIWAY, CAT_BINARY, CAT_SUBSET}


@pytest.mark.parametrize("rows", [200, 3 * predict.CHUNK])
def test_an_infinite_value_is_found_with_the_node_outputs(rows):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(rows, 4))
    est = CARTClassifier().fit(X, X[:, 0] + X[:, 3] > 0)
    t = est.tree_.kernel_args()
    rt = predict.route_table(t)
    outputs = est._routing()[1]
    X[rows - 1, 3] = -np.inf
    assert predict.apply_tree(X, t, rt, check_inf=True, node_out=outputs)[1]
    assert predict.apply_tree(np.asfortranarray(X), t, rt, check_inf=True)[1]


def test_float32_values_next_to_the_thresholds_route_as_their_float64_copies():
    """A float32 value is compared with the float64 threshold, widened exactly: values
    at, just below and just above each threshold's float32 neighbours go where their
    float64 copies go."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(5000, 3)).astype(np.float32)
    est = CARTRegressor().fit(X, X[:, 0] * 2 + X[:, 1])
    tree = est.tree_
    inner = np.flatnonzero(tree.kind == NUMERIC)
    thr = tree.threshold[inner]
    near = thr.astype(np.float32)
    candidates = np.concatenate([np.nextafter(near, np.float32(-np.inf)), near,
                                 np.nextafter(near, np.float32(np.inf))])
    feats = np.tile(tree.feature[inner], 3)
    X_new = rng.normal(size=(candidates.shape[0], 3)).astype(np.float32)
    X_new[np.arange(candidates.shape[0]), feats] = candidates
    wide = X_new.astype(np.float64)
    assert np.array_equal(est.apply(X_new), est.apply(wide))
    assert np.array_equal(est.predict(X_new), est.predict(wide))
    big = np.repeat(X_new, predict.CHUNK // len(X_new) + 2, axis=0)
    assert np.array_equal(est.apply(big), est.apply(big.astype(np.float64)))


def test_the_route_tables_take_16_and_12_bytes_a_node():
    X = np.random.default_rng(4).normal(size=(500, 3))
    est = CARTClassifier().fit(X, X[:, 0] > 0)
    wide, narrow = predict.route_table(est.tree_.kernel_args())
    n = est.tree_.node_count
    assert wide.shape == (n, 2) and wide.dtype == np.int64
    assert narrow.shape == (n, 3) and narrow.dtype == np.int32
    # A tree with a categorical split routes float64 rows only (see _prepare.encode).
    X, y = _frame(0, 500, 0.0)
    tree = CARTClassifier().fit(X, y).tree_
    assert set(tree.kind.tolist()) - {LEAF, NUMERIC}
    assert predict.route_table(tree.kernel_args()).narrow is None


def test_float32_thresholds_are_the_largest_float32_at_or_below():
    """The float32 table's thresholds, for thresholds beyond float32's range, at its
    edges, subnormal and between two float32s; float32 values next to them (infinities
    included) go the way of their float64 copies."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(500, 2))
    est = CARTRegressor(max_depth=5).fit(X, X[:, 0])
    t = est.tree_.kernel_args()
    inner = np.flatnonzero(t.kind == NUMERIC)
    big = float(np.finfo(np.float32).max)
    tricky = [1e300, -1e300, big, -big, 0.1, -0.1, 1e-45, -1e-45, 0.0, 2.0 ** -149 / 3]
    assert len(inner) >= len(tricky)
    threshold = t.threshold.copy()
    threshold[inner[:len(tricky)]] = tricky
    t = t._replace(threshold=threshold)
    rt = predict.route_table(t)
    low = rt.narrow.view(np.float32)[inner, 0]
    exact = threshold[inner]
    assert (low.astype(np.float64) <= exact).all()
    with np.errstate(over="ignore"):
        above = np.nextafter(low, np.float32(np.inf)).astype(np.float64)
    assert (above > exact).all()  # no float32 between the stored value and the threshold
    # Rows whose every value sits at, or next to, one of those thresholds.
    with np.errstate(over="ignore"):
        near = np.concatenate([low, np.nextafter(low, np.float32(np.inf)),
                               np.nextafter(low, np.float32(-np.inf)),
                               np.float32([np.inf, -np.inf, 0.0, -0.0])])
    X32 = rng.choice(near, size=(3 * predict.CHUNK, 2)).astype(np.float32)
    for rows in (X32[:500], X32):
        assert np.array_equal(predict.apply_tree(rows, t, rt),
                              predict.apply_tree(rows.astype(np.float64), t, rt))
