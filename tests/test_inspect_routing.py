"""NodeView's routing fields say what the estimator does: a row missing a node's feature,
or holding a category unseen at fit time, goes where ``missing_mode`` / ``missing_child`` /
``surrogates`` / ``category_branch`` / ``other_child`` say, as ``decision_path``, ``apply``
and ``predict_proba`` show; and the exporters read the tree through ``quercus.inspect``
only."""

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import quercus.export
from quercus import (C45Classifier, CARTClassifier, CARTRegressor, DecisionTreeClassifier,
                     ID3Classifier)
from quercus.datasets import load_watermelon
from quercus.inspect import (Surrogate, categorical_mask, feature_names, iter_nodes,
                             iter_shape, n_nodes, node_view)

UNSEEN = "未见过"

ESTIMATORS = {
    "cart_surrogates": lambda: CARTClassifier(surrogates="always"),
    "cart_subset": lambda: CARTClassifier(surrogates="always", categorical_split="ordered"),
    "c45": lambda: C45Classifier(pruning=None),
    "learned": lambda: DecisionTreeClassifier(),
    "learned_subset": lambda: DecisionTreeClassifier(categorical_split="ordered"),
    "cart_regressor": lambda: CARTRegressor(surrogates="always"),
}
DATASETS = ["2.0alpha", "3.0"]


def _fit(est_name, data):
    X, y = load_watermelon(data)
    est = ESTIMATORS[est_name]()
    if est._is_regressor:
        y = pd.factorize(y)[0] + 0.25 * (np.arange(len(y)) % 3)
    return est.fit(X, y), X


def _is_missing(x):
    return x is None or (isinstance(x, float) and math.isnan(x))


def _missing_like(X, col):
    """The missing value of ``X[col]``'s kind."""
    return np.nan if pd.api.types.is_float_dtype(X[col]) else None


def _expected_missing_branch(v, row):
    """Branch index a row missing ``v.feature`` takes by the view's fields; None: it stops
    here; "spread": C4.5's rule."""
    if v.missing_mode == "fractional":
        return "spread"
    for s in v.surrogates:
        x = row[s.feature]
        if _is_missing(x):
            continue
        passes = float(x) <= s.threshold if s.kind == "numeric" else x == s.category
        return s.branch if passes else 1 - s.branch
    return v.missing_child


def _path(est, frame):
    return [int(i) for i in est.decision_path(frame).indices]


def _next_after(path, node):
    i = path.index(node)
    return path[i + 1] if i + 1 < len(path) else None


@pytest.mark.parametrize("data", DATASETS)
@pytest.mark.parametrize("est_name", list(ESTIMATORS))
def test_missing_value_goes_where_the_view_says(est_name, data):
    est, X = _fit(est_name, data)
    checked, by_surrogate = 0, 0
    for v in iter_nodes(est):
        if not v.children:
            assert v.missing_mode is None and v.surrogates == () and v.child_weights == ()
            continue
        assert v.feature == X.columns[v.feature_index]
        assert v.missing_mode in ("fractional", "surrogate", "learned")
        assert 0.0 < v.rho <= 1.0
        if v.missing_mode != "surrogate":
            assert v.surrogates == ()
        for i in range(len(X)):
            row = X.iloc[i].to_dict()
            if _is_missing(row[v.feature]):
                continue
            row[v.feature] = _missing_like(X, v.feature)
            frame = pd.DataFrame([row], columns=X.columns).astype(X.dtypes.to_dict())
            path = _path(est, frame)
            if v.node not in path:  # an ancestor tests the same feature
                continue
            want = _expected_missing_branch(v, row)
            got = _next_after(path, v.node)
            if want == "spread" or want is None:
                # C4.5 spreads the row over the branches; without a branch it stops here:
                # either way decision_path ends at the node, and apply gives the node.
                assert got is None, (v.node, i)
                assert int(est.apply(frame)[0]) == v.node
            else:
                assert got == v.children[want], (v.node, i, v.missing)
            checked += 1
            by_surrogate += any(not _is_missing(row[s.feature]) for s in v.surrogates)
    assert checked > 0
    if est_name in ("cart_surrogates", "cart_subset", "cart_regressor"):
        assert by_surrogate > 0


@pytest.mark.parametrize("data", DATASETS)
@pytest.mark.parametrize("est_name", ["c45", "cart_surrogates", "learned"])
def test_child_weights_add_up(est_name, data):
    est, _ = _fit(est_name, data)
    internal = [v for v in iter_nodes(est) if v.children]
    assert internal
    for v in internal:
        assert len(v.child_weights) == len(v.children)
        assert v.child_weights == tuple(node_view(est, c).weighted_n_samples
                                        for c in v.children)
        assert math.isclose(sum(v.child_weights), v.weighted_n_samples, rel_tol=1e-12)


def test_fractional_shares_are_the_child_weights():
    """C4.5: a row missing the root's feature (and nothing else) is predicted as the mix of
    its predictions down each branch, shared by ``child_weights``."""
    X, y = load_watermelon("2.0alpha")
    est = C45Classifier(pruning=None).fit(X, y)
    root = node_view(est, 0)
    assert root.missing_mode == "fractional" and root.missing_child is None
    full = X.dropna().reset_index(drop=True)
    assert len(full) > 0
    total = sum(root.child_weights)
    for i in range(len(full)):
        row = full.iloc[[i]].copy()
        want = np.zeros(len(est.classes_))
        for b, w in enumerate(root.child_weights):
            if w > 0:
                row[root.feature] = root.branch_categories[b][0]
                want += w / total * est.predict_proba(row)[0]
        row[root.feature] = None
        np.testing.assert_allclose(est.predict_proba(row)[0], want, rtol=1e-12)


@pytest.mark.parametrize("est_name", ["cart_surrogates", "cart_subset", "c45", "learned_subset"])
def test_categories_go_where_the_view_says(est_name):
    """A known category follows ``category_branch`` (``other_child`` if not listed); an
    unseen one takes ``other_child``, or stops at the node where that is None."""
    est, X = _fit(est_name, "2.0alpha")
    kinds = set()
    for v in iter_nodes(est):
        if not v.children or v.kind == "numeric":
            assert v.category_branch is None and v.branch_categories is None
            assert v.other_child is None
            continue
        kinds.add(v.kind)
        # branch_categories lists category_branch by branch; None: "every other category".
        assert len(v.branch_categories) == len(v.children)
        for b, cats in enumerate(v.branch_categories):
            if cats is None:
                assert b == v.other_child
            else:
                assert cats == [c for c, bb in v.category_branch.items() if bb == b]
        if v.kind == "categorical_binary":
            assert v.category_branch == {v.category: 0} and v.other_child == 1
        else:
            assert v.other_child is None
        for i in range(len(X)):
            base = X.iloc[i].to_dict()
            if _is_missing(base[v.feature]):
                continue
            for value in list(X[v.feature].dropna().unique()) + [UNSEEN]:
                row = {**base, v.feature: value}
                frame = pd.DataFrame([row], columns=X.columns)
                path = _path(est, frame)
                if v.node not in path:
                    continue
                want = v.category_branch.get(value, v.other_child)
                got = _next_after(path, v.node)
                assert got == (None if want is None else v.children[want]), (v.node, value)
    assert kinds


def test_surrogate_fields():
    X, y = load_watermelon("3.0")
    est = CARTClassifier(surrogates="always").fit(X, y)
    sur = [s for v in iter_nodes(est) for s in v.surrogates]
    assert {s.kind for s in sur} == {"numeric", "category"}
    for s in sur:
        assert isinstance(s, Surrogate)
        assert s.feature == X.columns[s.feature_index]
        assert s.flip == (s.branch == 1) and s.branch in (0, 1)
        assert 0.0 <= s.agreement <= 1.0
        if s.kind == "numeric":
            assert s.category is None and math.isfinite(s.threshold)
        else:
            assert s.threshold is None and s.category in set(X[s.feature])
        with pytest.raises(AttributeError):  # frozen
            s.branch = 1 - s.branch


def test_shape_and_features():
    X, y = load_watermelon("3.0")
    est = CARTClassifier().fit(X, y)
    views = list(iter_nodes(est))
    assert [(v.node, v.depth, v.children) for v in views] == list(iter_shape(est))
    assert n_nodes(est) == len(views) == est.tree_.node_count
    assert feature_names(est) == list(X.columns)
    assert categorical_mask(est) == [not pd.api.types.is_float_dtype(X[c]) for c in X.columns]
    sub = list(iter_nodes(est, node=1, max_depth=1))
    assert [v.node for v in sub] == [1] + node_view(est, 1).children
    assert [v.depth for v in sub[1:]] == [sub[0].depth + 1] * (len(sub) - 1)
    assert [n for n, _, _ in iter_shape(est, 1, 1)] == [v.node for v in sub]


# ----------------------------------------------------------------------- one reader
# quercus.inspect is the one module that reads a fitted tree's arrays (``tree_``) and its
# column schema (``schema_``). An exporter may name "tree_" in a fitted check only
# (check_is_fitted(est, "tree_"), hasattr(est, "tree_")): a string, not an attribute.
# (code.py asks the estimator for est._node_outputs(), the per-node outputs predict
# itself uses, so that the generated code adds exactly predict's numbers.)
_FORBIDDEN = [
    (re.compile(r"\.\s*(tree_|schema_)\b"), "reads the fitted tree or schema directly"),
    (re.compile(r"getattr\([^)]*[\"'](tree_|schema_)[\"']"), "reads the fitted tree via getattr"),
    (re.compile(r"\._routing\b"), "reads the estimator's routing tables"),
    (re.compile(r"from\s+\.\.(_tree|_kernels)\b|import\s+quercus\.(_tree|_kernels)"),
     "imports the tree's private storage"),
]
_ALLOWED = set()  # (file name, line) pairs: none needed


def test_exporters_read_the_tree_through_inspect_only():
    folder = Path(quercus.export.__file__).parent
    files = sorted(p for p in folder.glob("*.py") if p.name != "__init__.py")
    assert {"code.py", "graphviz.py", "html.py", "plot.py", "rules.py"} <= {p.name for p in files}
    found = []
    for path in files:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for pattern, why in _FORBIDDEN:
                if pattern.search(line) and (path.name, n) not in _ALLOWED:
                    found.append(f"{path.name}:{n}: {why}: {line.strip()}")
    assert not found, "\n".join(found)
