"""Property tests over random mixed data (numeric, categorical, missing values)."""

import json

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import quercus
from quercus import (C45Classifier, CARTClassifier, CARTRegressor, DecisionTreeClassifier,
                     ID3Classifier, export_dict)
from quercus._kernels.schema import CAT_BINARY, CAT_SUBSET, LEAF, MULTIWAY, NUMERIC
from quercus._persist import from_dict, to_dict

ESTIMATORS = [ID3Classifier, C45Classifier, CARTClassifier, DecisionTreeClassifier]


def frame(seed, n, p_missing):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "c": pd.Series(rng.choice(["r", "s", "t"], n), dtype=object),
        "v": rng.integers(0, 6, n).astype(float),
        "u": rng.normal(size=n).round(1),
    })
    for col in X.columns:
        mask = rng.random(n) < p_missing
        mask[0] = False  # never a column with no value at all
        X.loc[mask, col] = None if col == "c" else np.nan
    y = np.where((X["c"] == "r") ^ (X["v"] > 2), "a", "b")
    y = np.where(rng.random(n) < 0.15, "c", y)
    return X, y


def slow_walk(est, X):
    """The node each row ends at, walking the tree in Python (no kernel)."""
    t = est.tree_
    enc = est._encode(X)
    out = []
    for row in enc:
        node = 0
        while t.kind[node] != LEAF:
            v = row[t.feature[node]]
            first = t.first_child[node]
            if np.isnan(v):
                if t.missing_mode[node] == 0:
                    break  # C4.5 spreads the row: apply reports this node
                nxt = None
                for s in range(t.sur_start[node], t.sur_start[node] + t.sur_count[node]):
                    xv = row[t.sur_feature[s]]
                    if np.isnan(xv):
                        continue
                    go = (xv > t.sur_threshold[s]) if t.sur_kind[s] == NUMERIC else (
                        int(xv) != t.sur_category[s])
                    nxt = first + (1 - int(go) if t.sur_flip[s] else int(go))
                    break
                if nxt is None:
                    if t.missing_child[node] < 0:
                        break
                    nxt = first + t.missing_child[node]
                node = nxt
                continue
            k = t.kind[node]
            if k == NUMERIC:
                node = first + int(v > t.threshold[node])
            elif k == CAT_BINARY:
                node = first + int(int(v) != t.category[node])
            elif int(v) < 0:
                break
            elif k == CAT_SUBSET:
                node = first + int(t.cat_map[t.cat_map_start[node] + int(v)])
            elif k == MULTIWAY:
                if int(v) >= t.n_children[node]:
                    break
                node = first + int(v)
        out.append(node)
    return np.asarray(out)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n=st.integers(8, 60),
       p_missing=st.sampled_from([0.0, 0.1, 0.3]), cls=st.sampled_from(ESTIMATORS))
def test_apply_agrees_with_a_slow_python_walk(seed, n, p_missing, cls):
    X, y = frame(seed, n, p_missing)
    est = cls().fit(X, y)
    X_new, _ = frame(seed + 1, 20, p_missing)
    X_new.loc[X_new.index[:3], "c"] = "z"  # a category unseen at fit time
    for data in (X, X_new):
        np.testing.assert_array_equal(est.apply(data), slow_walk(est, data))
        # A tree that spreads rows (C4.5) predicts with the other kernel: a row ends in the
        # node apply names unless it was spread (its probabilities then mix several leaves).
        nodes = est.apply(data)
        kept = est.tree_.kind[nodes] == LEAF
        np.testing.assert_allclose(est.predict_proba(data)[kept],
                                   est._node_outputs()[nodes[kept]], atol=1e-12)


def test_apply_over_several_parallel_chunks_agrees_with_a_slow_python_walk():
    # 10,000 rows are three of the routing kernel's chunks, each routed a few rows at a time
    # with a lane taking the next row as soon as its own stops: at a leaf, at a category
    # unseen at fit time, or where C4.5 spreads a missing value.
    X, y = frame(3, 600, 0.2)
    X_new, _ = frame(4, 10_000, 0.2)
    unseen = np.random.default_rng(4).random(len(X_new)) < 0.05
    X_new.loc[unseen, "c"] = "z"
    for est in (C45Classifier().fit(X, y), CARTClassifier().fit(X, y),
                CARTClassifier(missing_strategy="surrogate").fit(X, y)):
        nodes = est.apply(X_new)
        np.testing.assert_array_equal(nodes, slow_walk(est, X_new))
        assert (est.tree_.kind[nodes] != LEAF).any() == isinstance(est, C45Classifier)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n=st.integers(30, 80),
       p_missing=st.sampled_from([0.0, 0.1, 0.3]),
       missing_strategy=st.sampled_from(["surrogate", "learned"]))
def test_regressor_subset_splits_route_as_a_slow_python_walk(seed, n, p_missing,
                                                             missing_strategy):
    # The regressor's ordered categorical splits send a subset of categories left.
    X, _ = frame(seed, n, p_missing)
    y = 0.1 * np.random.default_rng(seed).normal(size=n) + (X["c"] == "s") * 10.0
    est = CARTRegressor(missing_strategy=missing_strategy).fit(X, y)
    assert (est.tree_.kind == CAT_SUBSET).any()
    X_new, _ = frame(seed + 1, 20, p_missing)
    X_new.loc[X_new.index[:3], "c"] = "z"  # a category unseen at fit time
    for data in (X, X_new):
        nodes = est.apply(data)
        np.testing.assert_array_equal(nodes, slow_walk(est, data))
        np.testing.assert_allclose(est.predict(data), est.tree_.value[nodes, 0], atol=1e-12)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n=st.integers(8, 60),
       p_missing=st.sampled_from([0.0, 0.2]), cls=st.sampled_from(ESTIMATORS))
@example(seed=0, n=25, p_missing=0.2, cls=CARTClassifier)
@example(seed=0, n=25, p_missing=0.0, cls=C45Classifier)
# A branch of exactly J48's minimum weight, summed from fractional shares in another order,
# fell a rounding error short of it and turned the split down.
@example(seed=3304, n=41, p_missing=0.2, cls=C45Classifier)
def test_permuting_rows_keeps_the_predictions(seed, n, p_missing, cls):
    # Ties between candidates are broken by column, category and threshold order, never by
    # row order. The one row-order dependence is the label of a leaf whose classes tie
    # (the first-seen class), so probabilities, not labels, are compared.
    X, y = frame(seed, n, p_missing)
    # Category order (first appearance) breaks ties between categories, so fix it: with a
    # pandas Categorical the order is the dtype's, whatever the row order.
    X["c"] = pd.Categorical(X["c"], categories=["r", "s", "t"])
    perm = np.random.default_rng(seed).permutation(n)
    a = cls().fit(X, y)
    b = cls().fit(X.iloc[perm].reset_index(drop=True), y[perm])
    X_new, _ = frame(seed + 7, 25, p_missing)
    X_new["c"] = pd.Categorical(X_new["c"], categories=["r", "s", "t"])
    np.testing.assert_allclose(a.predict_proba(X_new), b.predict_proba(X_new), atol=1e-9)
    assert a.tree_.node_count == b.tree_.node_count


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n=st.integers(8, 60), cls=st.sampled_from(ESTIMATORS))
def test_model_file_round_trip_keeps_predictions(seed, n, cls):
    X, y = frame(seed, n, 0.2)
    est = cls().fit(X, y)
    again = from_dict(json.loads(json.dumps(to_dict(est), ensure_ascii=False)))
    np.testing.assert_array_equal(again.predict_proba(X), est.predict_proba(X))
    assert export_dict(again) == export_dict(est)


def test_same_random_state_gives_the_same_model_file():
    X, y = frame(5, 80, 0.1)
    kw = dict(max_features=2, splitter="random", random_state=11)
    a = json.dumps(to_dict(DecisionTreeClassifier(**kw).fit(X, y)), ensure_ascii=False)
    b = json.dumps(to_dict(DecisionTreeClassifier(**kw).fit(X, y)), ensure_ascii=False)
    assert a == b
    assert quercus.__version__ in a
