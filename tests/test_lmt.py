"""quercus.LogisticModelTree: LogitBoost against a brute-force reference, Weka's fold
assignment, determinism, multiclass, categorical and missing values, model files, the
exported text, scikit-learn's checks, and Weka's LMT on fixed data.

The Weka numbers are fixtures in tests/data/lmt/, made by tests/data/lmt/make_fixtures.py
(Weka 3.6.14, Debian's weka package, through benchmarks/LMTFolds.java) from the ARFF files
beside them, so Weka is not needed here.
"""

import doctest
import json
import pathlib
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.io import arff
from sklearn.utils.estimator_checks import parametrize_with_checks

import quercus
from quercus import LogisticModelTree, ModelFileError
from quercus.linear import _lmt, _lmt_boost, _lmt_split
from quercus.linear._lmt_boost import (Z_MAX, iterate, simple_regressions, softmax,
                                       weka_folds)

DATA = pathlib.Path(__file__).resolve().parent / "data" / "lmt"


def load_arff(name):
    raw, meta = arff.loadarff(DATA / f"{name}.arff")
    names = meta.names()
    cols = {}
    for c in names:
        kind, levels = meta[c]
        if kind == "nominal":
            v = pd.Series([s.decode() for s in raw[c]]).replace("?", np.nan)
            cols[c] = pd.Categorical(v, categories=list(levels))
        else:
            cols[c] = raw[c].astype(float)
    X = pd.DataFrame(cols)
    y = X.pop(names[-1])
    return X, np.asarray(y.astype(str)), list(meta[names[-1]][1])


def weka(name):
    return json.loads((DATA / f"{name}.weka.json").read_text())


# ----------------------------------------------------------------- brute-force references
def naive_simple_regression(N, z, w, usable):
    """Weighted least squares of z on each usable column alone, the smallest weighted
    squared error wins (the first on a tie)."""
    best = (np.inf, -1, 0.0, float(np.sum(w * z) / np.sum(w)))
    for a in range(N.shape[1]):
        if not usable[a]:
            continue
        x = N[:, a]
        sw = w.sum()
        xm, zm = (w * x).sum() / sw, (w * z).sum() / sw
        sxx = (w * (x - xm) ** 2).sum()
        if sxx <= 0:
            continue
        b = (w * (x - xm) * (z - zm)).sum() / sxx
        c = zm - b * xm
        sse = (w * (z - c - b * x) ** 2).sum()
        if sse < best[0]:
            best = (sse, a, b, c)
    return best[1:]


def naive_logitboost_step(N, Y, F):
    """One iteration of Friedman, Hastie and Tibshirani's J-class LogitBoost (their
    algorithm 6) with Weka's response clipping, row by row."""
    n, J = Y.shape
    P = np.array([np.exp(F[i] - F[i].max()) / np.exp(F[i] - F[i].max()).sum()
                  for i in range(n)])
    usable = N.max(axis=0) > N.min(axis=0)
    fs = np.zeros((n, J))
    chosen = []
    for j in range(J):
        z, w = np.zeros(n), np.zeros(n)
        for i in range(n):
            p = P[i, j]
            if Y[i, j] == 1:
                z[i] = min(1.0 / p, Z_MAX)
            else:
                z[i] = max(-1.0 / (1.0 - p), -Z_MAX)
            w[i] = (Y[i, j] - p) / z[i]
        a, b, c = naive_simple_regression(N, z, w, usable)
        chosen.append(a)
        fs[:, j] = c + b * N[:, a]
    newF = F + (J - 1) / J * (fs - fs.mean(axis=1, keepdims=True))
    return newF, chosen


# ----------------------------------------------------------------- LogitBoost
@pytest.mark.parametrize("seed", range(5))
def test_simple_regression_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    n, q, J = 40, 6, 3
    N = rng.normal(size=(n, q)) * rng.uniform(0.1, 100, size=q) + rng.uniform(-50, 50, q)
    N[:, 2] = 7.0  # constant: never chosen
    Z = rng.normal(size=(n, J))
    W = rng.uniform(0.01, 1.0, size=(n, J))
    usable = N.max(axis=0) > N.min(axis=0)
    a, b, c, found = simple_regressions(N, Z, W, usable)
    assert found.all()
    for j in range(J):
        ra, rb, rc = naive_simple_regression(N, Z[:, j], W[:, j], usable)
        assert a[j] == ra != 2
        assert b[j] == pytest.approx(rb, rel=1e-9)
        assert c[j] == pytest.approx(rc, rel=1e-9, abs=1e-9)


def test_simple_regression_weight_on_few_rows():
    # Weights spanning 30 orders of magnitude: the slope is the heavy rows' own.
    N = np.array([[0.0], [1.0], [2.0], [3.0]])
    Z = np.array([[1.0], [3.0], [9.0], [9.0]])
    W = np.array([[1.0], [1.0], [1e-30], [1e-30]])
    a, b, c, found = simple_regressions(N, Z, W, np.array([True]))
    assert found[0] and b[0] == pytest.approx(2.0) and c[0] == pytest.approx(1.0)


@pytest.mark.parametrize("J", [2, 3, 5])
def test_logitboost_steps_match_brute_force(J):
    rng = np.random.default_rng(J)
    n, q = 60, 5
    N = rng.normal(size=(n, q))
    y = rng.integers(0, J, size=n)
    Y = np.eye(J)[y]
    F = np.zeros((n, J))
    F_ref = F.copy()
    usable = np.ones(q, dtype=bool)
    for _ in range(8):  # later steps start from probabilities near 0 and 1: clipping
        step = iterate(N, Y, F, usable)
        F_ref, chosen = naive_logitboost_step(N, Y, F_ref)
        assert step[0].tolist() == chosen
        np.testing.assert_allclose(F, F_ref, rtol=1e-9, atol=1e-9)


def test_coefficients_reproduce_the_committee():
    rng = np.random.default_rng(1)
    N = rng.normal(size=(50, 4))
    Y = np.eye(3)[rng.integers(0, 3, 50)]
    reg = _lmt_boost.boost(N, Y, np.zeros((50, 3)), 12, np.ones(4, bool))
    F = np.zeros((50, 3))
    for i in range(reg.n_iter):
        F += _lmt_boost.update(N, reg.attribute[i], reg.slope[i], reg.intercept[i])
    coef = _lmt_boost.coefficients(reg, 4)
    G = np.column_stack([np.ones(50), N]) @ coef.T
    np.testing.assert_allclose(softmax(G), softmax(F), rtol=1e-10, atol=1e-12)


# ----------------------------------------------------------------- folds and CV
def test_weka_folds_stratify_and_partition():
    y = np.array([0, 1, 2] * 9 + [0, 0, 1])
    folds = weka_folds(y, 5)
    tests = np.concatenate([t for _, t in folds])
    assert sorted(tests.tolist()) == list(range(len(y)))
    for train, test in folds:
        assert set(train).isdisjoint(test) and len(train) + len(test) == len(y)
        counts = np.bincount(y[test], minlength=3)
        assert np.all(np.abs(counts - np.bincount(y, minlength=3) / 5) <= 1)
    # Weka's layout: rows grouped by class by swaps, dealt into strata, contiguous tests
    assert [t.tolist() for _, t in weka_folds(np.array([0, 1, 0, 1, 0, 1]), 3)] == \
        [[0, 3], [2, 1], [4, 5]]


def test_cv_choice_is_deterministic_with_random_state():
    X, y, _ = load_arff("glass6")
    fits = [LogisticModelTree(random_state=s).fit(X, y) for s in (7, 7, None, None, 8)]
    d = [f.to_dict() for f in fits]
    for a in d:
        a.pop("quercus_version")
    assert d[0] == d[1]
    assert d[2] == d[3]
    # shuffled folds are other folds: some choice (iterations, alpha) changes
    assert (fits[0].n_iterations_, fits[0].alpha_) != (fits[2].n_iterations_,
                                                       fits[2].alpha_) or \
        (fits[4].n_iterations_, fits[4].alpha_) != (fits[2].n_iterations_, fits[2].alpha_)


# ----------------------------------------------------------------- Weka's LMT
def test_iris_equals_weka():
    X, y, _ = load_arff("iris")
    fx = weka("iris")
    clf = LogisticModelTree().fit(X, y)
    assert (clf.n_leaves_, clf.node_count_) == (fx["leaves"], fx["size"])
    np.testing.assert_allclose(clf.predict_proba(X), fx["proba"], rtol=1e-6, atol=1e-9)
    # the printed model, line by line (Weka ends lines with " + " and rounds to 2 digits)
    ours = clf.export_text().split("LM_1:\n", 1)[1].splitlines()
    for k, c in enumerate(clf.classes_):  # Weka names the classes by their index
        ours = [f"Class {k} :" if s == f"Class {c} :" else s for s in ours]
    theirs = [s.rstrip() for s in fx["model"].split("LM_1:\n", 1)[1].splitlines()]
    assert [s for s in ours if s] == [s for s in theirs if s]


def test_glass_tree_equals_weka():
    X, y, declared = load_arff("glass6")
    fx = weka("glass6")
    clf = LogisticModelTree().fit(X, y)
    assert (clf.n_leaves_, clf.node_count_) == (fx["leaves"], fx["size"])
    theirs = fx["model"].split("\n\nNumber of Leaves")[0].split("------------------\n")[1]
    theirs = [s.strip() for s in theirs.strip().splitlines()]
    ours = [s.replace("'K'", "K") for s in clf.export_text().split("\n\nNumber")[0]
            .splitlines()]
    assert len(ours) == len(theirs)
    # Same splits, thresholds and leaf sizes everywhere; the LogitBoost iterations too,
    # but at one 10-row leaf where Weka's last iteration rests on rounding (see docs).
    same = [a == b for a, b in zip(ours, theirs)]
    assert sum(same) >= len(ours) - 1
    for a, b in zip(ours, theirs):
        assert re.sub(r"LM_\d+:\d+/\d+", "", a) == re.sub(r"LM_\d+:\d+/\d+", "", b)
    # Weka's columns are the declared classes; quercus's classes_ are sorted
    p = clf.predict_proba(X)
    q = np.asarray(fx["proba"])[:, [declared.index(c) for c in clf.classes_]]
    assert (p.argmax(axis=1) == q.argmax(axis=1)).mean() >= 0.99
    assert np.median(np.abs(p - q).max(axis=1)) < 1e-6


def test_categorical_and_missing_equal_weka():
    X, y, _ = load_arff("breast-cancer")
    assert X.isna().any().any()
    fx = weka("breast-cancer")
    clf = LogisticModelTree().fit(X, y)
    assert (clf.n_leaves_, clf.node_count_) == (fx["leaves"], fx["size"])
    np.testing.assert_allclose(clf.predict_proba(X), fx["proba"], rtol=1e-6, atol=1e-9)
    assert int((clf.predict(X) == y).sum()) == fx["correct"]


# ----------------------------------------------------------------- C4.5 splits
def test_split_is_c45s():
    """The root split agrees with quercus's own C4.5 (gain ratio, MDL correction)."""
    X, y, _ = load_arff("glass6")
    S = X.to_numpy(float)
    codes = pd.factorize(y, sort=True)[0]
    s = _lmt_split.best_split(S, codes, 6, np.zeros(9, np.int64),
                              [np.unique(S[:, j]) for j in range(9)])
    c45 = quercus.C45Classifier(max_depth=1, pruning=None, max_bins=None).fit(X, y)
    assert X.columns[s.feature] == X.columns[c45.tree_.feature[0]] == "Ba"
    assert s.threshold == 0.27  # moved down to a value of the data, as Weka prints it
    assert c45.tree_.threshold[0] == pytest.approx(0.335)  # the midpoint


def test_multiway_split_on_a_categorical_attribute():
    rng = np.random.default_rng(0)
    n = 300
    color = rng.choice(["red", "green", "blue"], n)
    x = rng.normal(size=n)
    # the class depends on x with a slope whose sign the color decides
    sign = np.where(color == "red", 1.0, np.where(color == "green", -1.0, 0.0))
    y = np.where(sign * x + 0.3 * rng.normal(size=n) > 0, "a", "b")
    X = pd.DataFrame({"color": color, "x": x})
    clf = LogisticModelTree().fit(X, y)
    text = clf.export_text()
    assert text.startswith("color = ") and clf.n_leaves_ == 3
    # a single logistic model cannot fit opposite slopes
    flat = LogisticModelTree(min_samples_split=10_000).fit(X, y)
    assert flat.n_leaves_ == 1 and flat.score(X, y) < clf.score(X, y) - 0.1


# ----------------------------------------------------------------- multiclass, missing
def test_multiclass_probabilities():
    X, y, _ = load_arff("glass6")
    clf = LogisticModelTree().fit(X, y)
    p = clf.predict_proba(X)
    assert p.shape == (len(y), 6) and clf.classes_.tolist() == sorted(set(y))
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert (clf.predict(X) == clf.classes_[p.argmax(axis=1)]).all()
    assert clf.score(X, y) > 0.9


def test_missing_values_are_imputed_with_training_means_and_modes():
    X, y, _ = load_arff("breast-cancer")
    clf = LogisticModelTree(n_iterations=10, prune=False).fit(X, y)
    row = X.iloc[[5]].copy()
    filled = row.copy()
    blank = row.copy()
    blank["deg-malig"] = np.nan  # categorical: its most frequent level
    mode = X["deg-malig"].value_counts(sort=False).idxmax()
    filled["deg-malig"] = mode
    np.testing.assert_allclose(clf.predict_proba(blank), clf.predict_proba(filled))
    Xn = pd.DataFrame({"a": [1.0, 2.0, np.nan, 4.0, 5.0, 6.0, 1.0, 8.0, 3.0, 2.0],
                       "b": list("xyxyxyxyxy")})
    yn = np.array([0, 0, 0, 1, 1, 1, 0, 1, 1, 0])
    m = LogisticModelTree(n_iterations=5).fit(Xn, yn)
    mean = np.nanmean(Xn["a"])
    np.testing.assert_allclose(m.predict_proba(pd.DataFrame({"a": [np.nan], "b": ["x"]})),
                               m.predict_proba(pd.DataFrame({"a": [mean], "b": ["x"]})))
    # a level unseen in training is treated as missing: the mode
    np.testing.assert_allclose(m.predict_proba(pd.DataFrame({"a": [3.0], "b": ["z"]})),
                               m.predict_proba(pd.DataFrame({"a": [3.0], "b": ["x"]})))


def test_nominal_to_binary_columns():
    X, y, _ = load_arff("breast-cancer")
    clf = LogisticModelTree(n_iterations=3).fit(X, y)
    cols = clf.model_columns_
    # a two-level attribute is one column (its second declared level), others one per
    # level
    assert X["node-caps"].cat.categories.tolist() == ["yes", "no"]
    assert "node-caps=no" in cols and "node-caps=yes" not in cols
    assert [c for c in cols if c.startswith("deg-malig")] == ["deg-malig=1", "deg-malig=2",
                                                              "deg-malig=3"]


def test_binary_splits_split_on_indicators():
    X, y, _ = load_arff("breast-cancer")
    clf = LogisticModelTree(binary_splits=True, prune=False).fit(X, y)
    assert re.match(r"^[\w-]+=[\w-]+ <= 0", clf.export_text())


# ----------------------------------------------------------------- text, files
def test_export_text_shows_every_leaf_model():
    X, y, _ = load_arff("glass6")
    clf = LogisticModelTree().fit(X, y)
    text = clf.export_text()
    tree_part, models = text.split("\n\nNumber of Leaves")
    leaf_lines = [s for s in tree_part.splitlines() if ": LM_" in s]
    assert len(leaf_lines) == clf.n_leaves_ == 11
    for k in range(1, clf.n_leaves_ + 1):
        assert f"\nLM_{k}:\nClass build wind float :\n" in models
    m = clf.leaf_models()
    assert list(m) == [f"LM_{k}" for k in range(1, 12)]
    assert m["LM_1"].loc["headlamps", "(Intercept)"] == pytest.approx(
        float(re.search(r"LM_1:\n(?:.*\n)*?Class headlamps :\n(-?[\d.]+)", models).group(1)),
        abs=0.006)


def test_json_round_trip(tmp_path):
    X, y, _ = load_arff("breast-cancer")
    clf = LogisticModelTree(random_state=1).fit(X, y)
    path = tmp_path / "lmt.json"
    clf.save(path)
    back = quercus.load(path)
    assert isinstance(back, LogisticModelTree) and back.get_params() == clf.get_params()
    np.testing.assert_array_equal(back.predict_proba(X), clf.predict_proba(X))
    assert back.export_text() == clf.export_text()
    raw = path.read_bytes()
    assert b"pickle" not in raw and raw.startswith(b"{")
    d = json.loads(raw)
    d["tree"]["coef"] = d["tree"]["coef"][:-1]
    with pytest.raises(ModelFileError, match="tree.coef"):
        LogisticModelTree.from_dict(d)
    d = json.loads(raw)
    d["tree"]["feature"][0] = 99 if d["tree"]["kind"][0] else d["tree"]["feature"][0]
    d["tree"]["kind"][0] = 2
    with pytest.raises(ModelFileError, match=r"tree\.(feature|n_children)"):
        LogisticModelTree.from_dict(d)


def test_json_round_trip_of_a_tree(tmp_path):
    X, y, _ = load_arff("glass6")
    clf = LogisticModelTree().fit(X, y)
    clf.save(tmp_path / "glass.json")
    back = quercus.load(tmp_path / "glass.json")
    np.testing.assert_array_equal(back.predict_proba(X), clf.predict_proba(X))
    np.testing.assert_array_equal(back.apply(X), clf.apply(X))


# ----------------------------------------------------------------- errors
def test_errors_name_the_parameter_and_the_value():
    X, y, _ = load_arff("iris")
    with pytest.raises(ValueError, match="min_samples_split"):
        LogisticModelTree(min_samples_split=0).fit(X, y)
    with pytest.raises(ValueError, match="weight_trim_beta"):
        LogisticModelTree(weight_trim_beta=1.0).fit(X, y)
    with pytest.raises(ValueError, match="single class .'Iris-setosa'."):
        LogisticModelTree().fit(X.iloc[:50], y[:50])
    clf = LogisticModelTree(n_iterations=2).fit(X.to_numpy(), y)
    with pytest.raises(ValueError, match="X has 3 features"):
        clf.predict(X.iloc[:, :3].to_numpy())


def test_options_change_the_fit():
    X, y, _ = load_arff("glass6")
    base = LogisticModelTree().fit(X, y)
    per_node = LogisticModelTree(fast_regression=False).fit(X, y)
    aic = LogisticModelTree(use_aic=True).fit(X, y)
    fixed = LogisticModelTree(n_iterations=3).fit(X, y)
    assert per_node.n_iterations_ == 0 and base.n_iterations_ == 27
    assert fixed.n_iterations_ == 3 and int(fixed._own_iter.max()) <= 3
    assert aic.n_iterations_ != base.n_iterations_
    unpruned = LogisticModelTree(prune=False).fit(X, y)
    assert unpruned.node_count_ >= base.node_count_ and np.isnan(unpruned.alpha_)


# ----------------------------------------------------------------- scikit-learn
@parametrize_with_checks([LogisticModelTree(max_iterations=30)])
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(estimator)


@pytest.mark.parametrize("module", [_lmt, _lmt_boost, _lmt_split])
def test_doctests(module):
    res = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.failed == 0 and res.attempted > 0
