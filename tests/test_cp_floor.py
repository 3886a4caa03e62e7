"""The cost-complexity floor: a tree that will be pruned at alpha (``ccp_alpha``, or the
cross-validated table's smallest alpha, ``cp`` times the root's risk) is not grown below
the nodes whose risk is under alpha, and is pruned to the very same tree."""

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression
from sklearn.utils._param_validation import InvalidParameterError

import quercus._fit as fit_module
import quercus._grower as grower
from quercus import CARTClassifier, CARTRegressor, C45Classifier, export_text
from quercus.datasets import load_golf

FIELDS = ("kind", "feature", "threshold", "first_child", "n_children", "n_node_samples",
          "weighted_n_node_samples", "impurity", "value")


def _data(regression, missing, n=600, seed=0):
    if regression:
        X, y = make_regression(n, 8, n_informative=5, noise=5.0, random_state=seed)
    else:
        X, y = make_classification(n, 8, n_informative=5, n_classes=3, random_state=seed)
    if missing:
        X = X.copy()
        X[np.random.default_rng(seed).random(X.shape) < 0.1] = np.nan
    return X, y


def _fit_counting(est, X, y):
    """Fit, and the number of nodes the grower made (before any pruning)."""
    grown = []
    real_grow = fit_module.grow

    def grow(*args, **kwargs):
        tree, log = real_grow(*args, **kwargs)
        grown.append(tree.node_count)
        return tree, log

    fit_module.grow = grow
    try:
        est.fit(X, y)
    finally:
        fit_module.grow = real_grow
    return est, grown[0]


CASES = [
    ("gini impurity", False, dict(criterion="gini", ccp_loss="impurity")),
    ("gini error", False, dict(criterion="gini", ccp_loss="error")),
    ("entropy, loss entropy", False, dict(criterion="entropy", ccp_loss="entropy")),
    ("squared error", True, dict()),
    ("squared error, loss error", True, dict(ccp_loss="error")),
    ("absolute error", True, dict(criterion="absolute_error")),
]


@pytest.mark.parametrize("node_by_node", [False, True], ids=["subtree kernel", "per node"])
@pytest.mark.parametrize("missing", [False, True], ids=["complete", "missing"])
@pytest.mark.parametrize("name,regression,kw", CASES, ids=[c[0] for c in CASES])
def test_a_tree_grown_to_ccp_alpha_prunes_to_the_full_trees_subtree(
        monkeypatch, name, regression, kw, missing, node_by_node):
    if node_by_node:
        monkeypatch.setattr(grower, "SUBTREE_MAX_SAMPLES", -1)
    X, y = _data(regression, missing)
    cls = CARTRegressor if regression else CARTClassifier
    full_tree = cls(**kw).fit(X, y)
    # An alpha that keeps a tree of a few dozen leaves out of hundreds.
    alpha = float(np.quantile(full_tree.cost_complexity_pruning_path(X, y).ccp_alphas, 0.97))
    est, n_floor = _fit_counting(cls(ccp_alpha=alpha, **kw), X, y)
    monkeypatch.setattr(fit_module, "growth_floor", lambda *a: 0.0)
    ref, n_full = _fit_counting(cls(ccp_alpha=alpha, **kw), X, y)
    assert n_floor < n_full  # the floor stopped growth early ...
    assert est.get_n_leaves() > 1
    for field in FIELDS:        # ... and the pruned trees are the same
        np.testing.assert_array_equal(getattr(est.tree_, field), getattr(ref.tree_, field),
                                      err_msg=field)
    assert export_text(est) == export_text(ref)


def test_other_pruning_before_ccp_alpha_grows_the_whole_tree():
    # C4.5's pessimistic pruning looks at the whole tree first: no floor.
    X, y = _data(False, False)
    _, n_pess = _fit_counting(C45Classifier(ccp_alpha=0.01), X, y)
    _, n_none = _fit_counting(C45Classifier(ccp_alpha=0.0), X, y)
    assert n_pess == n_none


def test_cross_validated_table_starts_at_cp():
    X, y = _data(True, False, n=400)
    est = CARTRegressor(pruning="cost_complexity", cp=0.02, random_state=0).fit(X, y)
    table = est.cp_table_
    assert table["cp"].iloc[0] == pytest.approx(0.02, rel=1e-12)
    assert (table["cp"].iloc[1:] > 0.02).all()
    whole = CARTRegressor(pruning="cost_complexity", cp=0.0, random_state=0).fit(X, y)
    assert whole.cp_table_["cp"].iloc[0] == 0.0
    assert len(whole.cp_table_) > len(table)


def test_cp_on_small_data_cross_validates_with_the_defaults():
    X, y = load_golf()
    est = CARTClassifier(pruning="cost_complexity").fit(X, y)
    assert est.cp_table_["cp"].iloc[0] == pytest.approx(0.01)


@pytest.mark.parametrize("bad", [-0.1, "0.01", None])
def test_a_bad_cp_is_an_error_naming_cp(bad):
    X, y = load_golf()
    with pytest.raises(InvalidParameterError, match="'cp' parameter"):
        CARTClassifier(pruning="cost_complexity", cp=bad).fit(X, y)


def _risk_floor_nodes(tree, floor_w):
    """How many nodes a grower that stops only at nodes of risk below ``floor_w`` (in
    weight) keeps of the fully grown ``tree`` (Gini impurity risk)."""
    risk = tree.impurity * tree.weighted_n_node_samples
    kept, stack = 0, [0]
    while stack:
        node = stack.pop()
        kept += 1
        if tree.n_children[node] > 0 and risk[node] >= floor_w:
            first = tree.first_child[node]
            stack.extend(range(first, first + tree.n_children[node]))
    return kept


def test_the_subtree_kernel_also_stops_at_splits_that_cannot_survive_the_floor(monkeypatch):
    # A node whose chosen split is collapsed at every alpha from the floor up, whatever its
    # children do, is made a leaf: fewer nodes than the risk rule alone keeps, same tree.
    X, y = _data(False, False)
    kw = dict(criterion="gini", ccp_loss="impurity")
    full = CARTClassifier(**kw).fit(X, y)
    alpha = float(np.quantile(full.cost_complexity_pruning_path(X, y).ccp_alphas, 0.97))
    est, n_floor = _fit_counting(CARTClassifier(ccp_alpha=alpha, **kw), X, y)
    by_risk = _risk_floor_nodes(full.tree_, alpha * len(y))
    assert est.get_n_leaves() > 1
    assert n_floor < by_risk


@pytest.mark.parametrize("kernel_folds", [True, False])
def test_cross_validation_folds_grow_only_to_the_smallest_alpha_they_are_scored_at(
        monkeypatch, kernel_folds):
    # Each subtree of the table is scored on the folds at the geometric mean of its alpha
    # interval, so a fold needs nothing below the first one: sqrt(alpha_0 * alpha_1).
    # (The folds grown and scored in one kernel call, or through fit_fold.)
    X, y = _data(False, False, n=400)
    floors = []
    real_grow = fit_module.grow
    real_scorer = fit_module._fold_scorer

    def grow(data, cfg, *args, **kwargs):
        floors.append(cfg.risk_floor)
        return real_grow(data, cfg, *args, **kwargs)

    def scorer(*args, **kwargs):
        moments = real_scorer(*args, **kwargs)
        return None if moments is None else (
            lambda train, test, floor, *rest: floors.append(floor)
            or moments(train, test, floor, *rest))

    monkeypatch.setattr(fit_module, "KERNEL_FOLDS", kernel_folds)
    monkeypatch.setattr(fit_module, "grow", grow)
    monkeypatch.setattr(fit_module, "_fold_scorer", scorer)
    est = CARTClassifier(pruning="cost_complexity", random_state=0).fit(X, y)
    alpha = est.cp_table_["alpha"].to_numpy()
    assert alpha.size > 1
    fold_floors = floors[1:]  # (the first call is the whole fit's own)
    assert len(fold_floors) == 10
    assert fold_floors == [pytest.approx(np.sqrt(alpha[0] * alpha[1]), rel=1e-12)] * 10
    assert fold_floors[0] > alpha[0]


@pytest.mark.parametrize("regression", [False, True], ids=["classifier", "regressor"])
def test_the_table_reads_the_weakest_links_of_the_tree_pruned_at_the_floor(
        monkeypatch, regression):
    # The links made before pruning at the floor serve the table only when that pruning
    # cut nothing; after a cut they are the pruned tree's own.
    from quercus import _pruning

    seen = []
    real = fit_module.cross_validated_table

    def capture(params, schema, target, tree, *args):
        # (links: the eighth argument after the tree; the tree copied before the table's
        # pruning)
        seen.append((target, _pruning.copy_tree(tree), args[7], params.ccp_loss))
        return real(params, schema, target, tree, *args)

    monkeypatch.setattr(fit_module, "cross_validated_table", capture)
    cls = CARTRegressor if regression else CARTClassifier
    cuts = []
    sets = [_data(regression, seed % 2 == 1, n=300, seed=seed) for seed in range(4)]
    if not regression:
        sets.append(load_golf())  # (grown to its floor, nothing below it to cut)
    for X, y in sets:
        est = cls(pruning="cost_complexity", random_state=0).fit(X, y)
        cuts.append(any("<=" in r["reason"] for r in est.pruning_report_))
    assert any(cuts) and not all(cuts)  # (both ways taken)
    for target, tree, links, loss in seen:
        fresh = _pruning.weakest_links_of(target, tree, loss)
        for given, made in zip(links, fresh):
            if isinstance(made, list):
                assert given == made
            else:
                np.testing.assert_array_equal(given, made)
