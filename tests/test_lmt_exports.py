"""Every exporter on a LogisticModelTree (issue 35): the tree through quercus.inspect,
each leaf's logistic model shown, and export_code's Python equal to predict_proba."""

import json
import pathlib
import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris

import quercus
from quercus import LogisticModelTree
from quercus.datasets import load_golf
from quercus.inspect import (categorical_mask, feature_names, imputed_values, iter_nodes,
                             iter_shape, model_columns, n_nodes, node_view)

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from test_lmt import load_arff  # noqa: E402


def _iris():
    X, y = load_iris(return_X_y=True, as_frame=True)
    return LogisticModelTree(n_iterations=5, prune=False).fit(X, y), X


def _iris_default():
    X, y = load_iris(return_X_y=True, as_frame=True)
    return LogisticModelTree().fit(X, y), X


def _golf():
    X, y = load_golf()
    return LogisticModelTree(min_samples_split=2, prune=False).fit(X, y), X


def _golf_default():
    X, y = load_golf()
    return LogisticModelTree().fit(X, y), X


def _breast_cancer(binary_splits=False):
    X, y, _ = load_arff("breast-cancer")  # categorical, with missing values
    m = LogisticModelTree(n_iterations=5, prune=False, binary_splits=binary_splits)
    return m.fit(X, y), X


MODELS = {"iris": _iris, "iris_default": _iris_default, "golf": _golf,
          "golf_default": _golf_default}


def _leaves(m):
    return [v for v in iter_nodes(m) if not v.children]


# ------------------------------------------------------------------ inspect
@pytest.mark.parametrize("name", sorted(MODELS))
def test_inspect_reads_the_lmt(name):
    m, X = MODELS[name]()
    views = list(iter_nodes(m))
    assert n_nodes(m) == m.node_count_ == len(views)
    assert [(v.node, v.depth, v.children) for v in views] == list(iter_shape(m))
    assert feature_names(m) == list(X.columns)
    assert len(categorical_mask(m)) == X.shape[1]
    leaves = _leaves(m)
    assert len(leaves) == m.n_leaves_
    assert sorted(v.model_name for v in leaves) == sorted(m.leaf_models())
    for v in views:
        assert v.n_samples == sum(v.distribution.values())
        if v.children:
            assert v.model is None and v.missing_mode == "imputed"
            assert len(v.conditions) == len(v.children) == len(v.child_weights)
            assert sum(v.child_weights) == v.weighted_n_samples
            assert v.missing.startswith("imputed: ")
        else:
            assert v.model.startswith(v.model_name + ": ")
            frame = m.leaf_models()[v.model_name]
            for c, coef in v.model_coef.items():
                assert np.array_equal(frame.loc[c].to_numpy(), coef)
    assert node_view(m, 0).n_samples == len(X)


def test_golf_views_say_how_lmt_routes():
    m, _ = _golf()
    root = node_view(m, 0)
    assert root.kind == "multiway" and root.feature == "outlook"
    assert root.conditions == ["= sunny", "= overcast", "= rain"]
    assert root.missing_child == root.other_child == 0  # imputed: the mode, sunny
    assert imputed_values(m)["outlook"] == "sunny"
    assert model_columns(m)[0] == ("outlook=sunny", "outlook", "sunny")
    leaf = _leaves(m)[0]
    assert leaf.model_name == "LM_1" and "logit P(yes)" in leaf.model


def test_an_unfitted_lmt_is_refused_by_every_exporter():
    from sklearn.exceptions import NotFittedError
    for f in (quercus.export_text, quercus.export_dict, quercus.export_graphviz,
              quercus.export_rules, quercus.export_code, quercus.export_html):
        with pytest.raises(NotFittedError):
            f(LogisticModelTree())


# ------------------------------------------------------------------ text exporters
@pytest.mark.parametrize("name", sorted(MODELS))
def test_text_dict_graphviz_rules_html_show_every_model(name):
    m, X = MODELS[name]()
    leaves = _leaves(m)
    text = quercus.export_text(m)
    rules = quercus.export_rules(m)
    dot = quercus.export_graphviz(m)
    page = quercus.export_html(m, sample=X.iloc[0])
    tree = quercus.export_dict(m)
    json.dumps(tree, ensure_ascii=False)  # plain data (int class labels become str keys)
    dict_models = []
    stack = [tree]
    while stack:
        d = stack.pop()
        stack.extend(b["node"] for b in d.get("children", []))
        if "model" in d:
            dict_models.append(d["model_name"])
            assert d["coefficients"][list(d["coefficients"])[0]]["(Intercept)"] is not None
    assert sorted(dict_models) == sorted(v.model_name for v in leaves)
    for v in leaves:
        first = v.model.split("\n")[0]
        assert f": {v.model_name}" in text and v.model in text
        assert f"THEN {v.model_name}" in rules and v.model in rules
        assert f'n{v.node} [label="{v.model_name}\\nn={v.n_samples}' in dot
        assert first in dot  # the tooltip
        assert json.dumps(v.model, ensure_ascii=False)[1:-1].replace("<", "\\u003c") in page
    frame = quercus.export_rules(m, as_frame=True)
    assert list(frame["model_name"]) == [v.model_name for v in leaves]


def test_html_draws_the_sample_path():
    m, X = _golf()
    page = quercus.export_html(m, sample=X.iloc[0])
    data = json.loads(page.split('id="quercus-data">')[1].split("</script>")[0])
    leaf = int(m.apply(X.iloc[:1])[0])
    assert data["path"][0] == 0 and data["path"][-1] == leaf
    assert data["nodes"][leaf]["pred"].startswith("LM_") and "model" in data["nodes"][leaf]


# ------------------------------------------------------------------ code
CODE_CASES = {"iris": _iris, "iris_default": _iris_default, "golf": _golf,
              "golf_default": _golf_default, "breast_cancer": _breast_cancer,
              "breast_cancer_binary": lambda: _breast_cancer(True)}


@pytest.mark.parametrize("name", sorted(CODE_CASES))
def test_generated_python_equals_predict_proba(name):
    m, X = CODE_CASES[name]()
    ns = {}
    exec(quercus.export_code(m), ns)
    rows = [r for _, r in X.iterrows()]
    # Missing values and unseen categories: imputed as LMT does.
    extra = {}
    for j, c in enumerate(X.columns):
        row = X.iloc[0].to_dict()
        row[c] = None
        extra[f"missing {c}"] = row
        if categorical_mask(m)[j]:
            row = X.iloc[1].to_dict()
            row[c] = "never seen"
            extra[f"unseen {c}"] = row
    frame = pd.DataFrame(list(extra.values()), columns=X.columns)
    for c in X.columns:
        if isinstance(X[c].dtype, pd.CategoricalDtype):
            frame[c] = frame[c].astype(object)
        elif not categorical_mask(m)[list(X.columns).index(c)]:
            frame[c] = frame[c].astype(float)
    got = np.array([ns["predict_proba"](r) for r in rows + list(extra.values())])
    want = np.vstack([m.predict_proba(X), m.predict_proba(frame)])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    pred = np.array([ns["predict"](r) for r in rows + list(extra.values())], dtype=object)
    want_pred = np.concatenate([m.predict(X), m.predict(frame)]).astype(object)
    # A tie within rounding (the scores summed in another order) goes to the first class
    # in the generated code; numpy's argmax may see the last bit either way.
    top2 = np.sort(want, axis=1)[:, -2:]
    clear = top2[:, 1] - top2[:, 0] > 1e-9
    assert clear.sum() > 0.9 * len(clear)
    assert (pred[clear] == want_pred[clear]).all()
    assert (pred[~clear] == np.asarray(m.classes_, dtype=object)[np.argmax(want[~clear]
                                                                           > 0.5 - 1e-9,
                                                                           axis=1)]).all()
    assert ns["CLASSES"] == [c.item() if hasattr(c, "item") else c for c in m.classes_]


def test_sql_is_refused_naming_lmt():
    m, _ = _golf()
    with pytest.raises(NotImplementedError, match="LogisticModelTree.*exp"):
        quercus.export_code(m, "sql")


# ------------------------------------------------------------------ plot
@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize("type_", [0, 2, 3, 5])
def test_plot_shows_models_without_overlap(name, type_):
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from test_plot import _assert_no_overlap
    m, _ = MODELS[name]()
    try:
        result = quercus.plot_tree(m, type=type_, show_missing=True)
        result.ax.figure.canvas.draw()
        _assert_no_overlap(result)
        texts = [t.get_text() for t, _ in result.texts]
        for v in _leaves(m):
            assert v.model_name in texts and f"n={v.n_samples}" in texts
            assert all(line in texts for line in v.model.split("\n"))
        bare = quercus.plot_tree(m, show_models=False)
        assert not any(k == "model" for k, _, _ in bare.labels)
    finally:
        plt.close("all")
