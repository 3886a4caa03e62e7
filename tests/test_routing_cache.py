"""What a prediction reads besides X (the route table, the nodes' outputs and classes) is
made once per fitted tree and never outlives it."""

import copy
import pickle

import numpy as np
import pytest

import quercus
from quercus import C45Classifier, CARTClassifier, CARTRegressor
from quercus import _estimators
from quercus.datasets import load_golf


def _data(seed, n=300, n_classes=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int) + (
        X[:, 1] > 1.0) * (n_classes - 2)
    return X, y


@pytest.fixture
def route_table_calls(monkeypatch):
    calls = []
    real = _estimators.route_table

    def spy(t):
        calls.append(t[0].shape[0])
        return real(t)

    monkeypatch.setattr(_estimators, "route_table", spy)
    return calls


def test_the_routing_tables_are_made_once_per_tree(route_table_calls):
    X, y = _data(0)
    clf = CARTClassifier().fit(X, y)
    first = clf.predict(X)
    for _ in range(3):
        np.testing.assert_array_equal(clf.predict(X), first)
    clf.predict_proba(X[:5])
    clf.apply(X[:7])
    assert route_table_calls == [clf.tree_.node_count]
    clf.fit(X[:200], y[:200])
    clf.predict(X)
    assert len(route_table_calls) == 2


@pytest.mark.parametrize("make", [CARTClassifier, C45Classifier, CARTRegressor])
def test_a_refit_predicts_with_its_own_tree(make):
    X_a, y_a = _data(1)
    X_b, y_b = _data(2, n_classes=3)
    if make is CARTRegressor:
        y_a, y_b = X_a[:, 0] * 2.0, X_b[:, 1] - 3.0
    est = make().fit(X_a, y_a)
    est.predict(X_a)  # fills the cache for the first tree
    est.fit(X_b, y_b)
    fresh = make().fit(X_b, y_b)
    np.testing.assert_array_equal(est.predict(X_a), fresh.predict(X_a))
    if make is not CARTRegressor:
        np.testing.assert_array_equal(est.predict_proba(X_a), fresh.predict_proba(X_a))


def test_a_pruned_copy_predicts_with_its_own_tree():
    X, y = _data(3, n=400)
    full = CARTClassifier(random_state=0).fit(X, y)
    before = full.predict_proba(X)  # fills the cache for the full tree
    alpha = float(full.cost_complexity_pruning_path(X, y).ccp_alphas[-2])
    pruned = quercus.prune(full, "cost_complexity", ccp_alpha=alpha)
    assert pruned.tree_.node_count < full.tree_.node_count
    expected = CARTClassifier(random_state=0, ccp_alpha=alpha).fit(X, y)
    np.testing.assert_array_equal(pruned.predict_proba(X), expected.predict_proba(X))
    np.testing.assert_array_equal(pruned.apply(X), expected.apply(X))
    np.testing.assert_array_equal(full.predict_proba(X), before)


def test_the_cache_is_not_part_of_a_copied_or_pickled_model():
    X, y = load_golf()
    clf = C45Classifier().fit(X, y)
    expected = clf.predict(X)
    assert "_derived" in clf.tree_.__dict__
    for other in (copy.deepcopy(clf), pickle.loads(pickle.dumps(clf))):
        assert "_derived" not in other.tree_.__dict__
        np.testing.assert_array_equal(other.predict(X), expected)


def test_predicting_leaves_the_estimator_s_attributes_as_they_were():
    X, y = _data(4)
    clf = CARTClassifier().fit(X, y)
    before = dict(clf.__dict__)
    clf.predict(X)
    clf.predict_proba(X)
    assert clf.__dict__.keys() == before.keys()
    assert all(clf.__dict__[k] is v for k, v in before.items())


def test_a_tree_given_to_another_estimator_predicts_with_that_estimator_s_class_order():
    X = np.array([[0.0], [0.0], [1.0], [1.0]])
    # The leaf x <= 0.5 holds one row of each class: a tie, won by the class seen first.
    a = CARTClassifier().fit(np.array([[0.0], [0.0], [1.0]]), ["p", "q", "q"])
    b = CARTClassifier().fit(np.array([[0.0], [0.0], [1.0]]), ["q", "p", "q"])
    assert a.predict(X[:1])[0] == "p" and b.predict(X[:1])[0] == "q"
    b.tree_ = a.tree_  # the same tree object, now cached with a's tie order
    assert b.predict(X[:1])[0] == "q"
