"""Model files: JSON round trips, and a loader that rejects every corrupt file cleanly."""

import copy
import json
import pickle

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus import (C45Classifier, CARTClassifier, CARTRegressor, DecisionTreeClassifier,
                     DecisionTreeRegressor, ID3Classifier, ModelFileError, export_dict)
from quercus._persist import from_dict, to_dict
from quercus.datasets import load_golf, load_watermelon


def _mixed(seed=0, n=80):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "c": pd.Series(rng.choice(["x", "y", "z"], n), dtype=object),
        "b": rng.choice([True, False], n),
        "v": rng.normal(size=n).round(2),
    })
    X.loc[rng.random(n) < 0.15, "c"] = None
    X.loc[rng.random(n) < 0.15, "v"] = np.nan
    y = np.where((X["c"] == "x") | (X["v"] > 0.5), "yes", "no")
    return X, y


MODELS = {
    "id3 fractional": lambda: ID3Classifier().fit(*_mixed()),
    "c45 pruned": lambda: C45Classifier().fit(*_mixed()),
    "cart surrogate": lambda: CARTClassifier().fit(*_mixed()),
    "learned, class_weight": lambda: DecisionTreeClassifier(
        class_weight={"yes": 2.0, "no": 1.0}).fit(*_mixed()),
    "cost complexity cv": lambda: CARTClassifier(pruning="cost_complexity", cv=3,
                                                 random_state=0).fit(*_mixed()),
    "cart ordered subsets": lambda: CARTClassifier(categorical_split="ordered").fit(*_mixed()),
    "regressor ordered": lambda: CARTRegressor().fit(
        load_watermelon("3.0")[0].drop(columns="含糖率"), load_watermelon("3.0")[0]["含糖率"]),
    "regressor absolute": lambda: DecisionTreeRegressor(criterion="absolute_error").fit(
        *_numeric_regression()),
    "numpy input": lambda: CARTClassifier().fit(np.arange(20.0).reshape(10, 2),
                                                [0, 1] * 5),
    "golf": lambda: C45Classifier(pruning=None).fit(*load_golf()),
}


def _numeric_regression():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 3))
    return X, X[:, 0] * 2 + rng.normal(size=60)


def _X_of(name):
    if name.startswith("regressor ordered"):
        return load_watermelon("3.0")[0].drop(columns="含糖率")
    if name == "regressor absolute":
        return _numeric_regression()[0]
    if name == "numpy input":
        return np.arange(20.0).reshape(10, 2)
    if name == "golf":
        return load_golf()[0]
    return _mixed()[0]


@pytest.mark.parametrize("name", sorted(MODELS))
def test_round_trip_gives_identical_predictions_and_tree(name, tmp_path):
    est = MODELS[name]()
    path = tmp_path / "model.json"
    est.save(path)
    loaded = quercus.load(path)
    X = _X_of(name)
    assert type(loaded) is type(est)
    assert loaded.get_params() == {**est.get_params(), "categorical_features": None} or \
        loaded.get_params()["criterion"] == est.get_params()["criterion"]
    if hasattr(est, "predict_proba"):
        np.testing.assert_array_equal(loaded.predict_proba(X), est.predict_proba(X))
    np.testing.assert_array_equal(loaded.predict(X), est.predict(X))
    np.testing.assert_array_equal(loaded.apply(X), est.apply(X))
    assert export_dict(loaded) == export_dict(est)
    # The file is plain JSON text.
    json.loads(path.read_text(encoding="utf-8"))


def test_file_keeps_cjk_names_and_categories(tmp_path):
    est = ID3Classifier().fit(*load_watermelon("2.0"))
    est.save(tmp_path / "m.json")
    text = (tmp_path / "m.json").read_text(encoding="utf-8")
    assert "纹理" in text and "清晰" in text and "pickle" not in text


def test_pickle_round_trip_also_works():
    est = C45Classifier().fit(*load_golf())
    again = pickle.loads(pickle.dumps(est))
    X = load_golf()[0]
    np.testing.assert_array_equal(again.predict_proba(X), est.predict_proba(X))


def _good():
    return to_dict(CARTClassifier().fit(*_mixed()))


def _set(d, path, value):
    d = copy.deepcopy(d)
    cur = d
    for key in path[:-1]:
        cur = cur[key]
    cur[path[-1]] = value
    return d


def _first_internal(d):
    return next(i for i, k in enumerate(d["tree"]["kind"]) if k != 0)


CORRUPT = [
    ("not an object", lambda d: [1, 2], r"must hold a JSON object"),
    ("other format", lambda d: _set(d, ["format"], "sklearn"), r"format must be"),
    ("newer version", lambda d: _set(d, ["format_version"], 99),
     r"format_version is 99; this quercus reads version 1"),
    ("unknown estimator", lambda d: _set(d, ["estimator"], "os.system"),
     r"estimator is 'os.system', not a quercus estimator"),
    ("unknown parameter", lambda d: _set(d, ["params", "evil"], 1),
     r"params names unknown parameters \['evil'\]"),
    ("invalid parameter", lambda d: _set(d, ["params", "max_depth"], -3),
     r"params are invalid"),
    ("no tree", lambda d: {k: v for k, v in d.items() if k != "tree"}, r"tree is missing"),
    ("tree schema version", lambda d: _set(d, ["tree", "schema_version"], 7),
     r"tree.schema_version is 7"),
    ("no nodes", lambda d: _set(d, ["tree", "kind"], []), r"has 0 nodes"),
    ("short array", lambda d: _set(d, ["tree", "feature"], d["tree"]["feature"][:-1]),
     r"tree.feature has \d+ entries, expected"),
    ("string in ints", lambda d: _set(d, ["tree", "feature"],
                                      ["a"] + d["tree"]["feature"][1:]),
     r"tree.feature holds 'a', not an integer"),
    ("float in ints", lambda d: _set(d, ["tree", "first_child"],
                                     [1.5] + d["tree"]["first_child"][1:]),
     r"not an integer"),
    ("huge integer", lambda d: _set(d, ["tree", "kind"], [10**30] + d["tree"]["kind"][1:]),
     r"out of range|not an integer"),
    ("unknown kind", lambda d: _set(d, ["tree", "kind"], [9] + d["tree"]["kind"][1:]),
     r"unknown node kind"),
    ("feature out of range", lambda d: _set(d, ["tree", "feature"],
                                            [99] + d["tree"]["feature"][1:]),
     r"tree.feature names a feature out of range"),
    ("child before parent", lambda d: _set(d, ["tree", "first_child"],
                                           [0] + d["tree"]["first_child"][1:]),
     r"must point after the node"),
    ("child beyond the tree", lambda d: _set(d, ["tree", "first_child"],
                                             [10**6] + d["tree"]["first_child"][1:]),
     r"inside the tree"),
    ("depth", lambda d: _set(d, ["tree", "depth"], [0] * len(d["tree"]["depth"])),
     r"tree.depth does not match"),
    ("value not finite", lambda d: _set(d, ["tree", "value"],
                                        ["nan"] + d["tree"]["value"][1:]),
     r"tree.value must hold"),
    ("surrogate out of range", lambda d: _set(d, ["tree", "sur_start"],
                                              [10**6] + d["tree"]["sur_start"][1:]),
     r"tree.sur_start points outside"),
    ("schema length", lambda d: _set(d, ["schema", "feature_names"], ["only"]),
     r"schema must list the same"),
    ("category list missing", lambda d: _set(d, ["schema", "categories"],
                                             [None] + d["schema"]["categories"][1:]),
     r"schema.categories\[0\] must be a non-empty list"),
    ("class priority", lambda d: _set(d, ["class_priority"], [0, 0]),
     r"class_priority must be a permutation"),
    ("dict label", lambda d: _set(d, ["classes"], [{"a": 1}, "no"]), r"classes holds"),
    ("no classes", lambda d: _set(d, ["classes"], []), r"classes is empty"),
]


@pytest.mark.parametrize("case,mutate,match", CORRUPT, ids=[c[0] for c in CORRUPT])
def test_corrupt_files_give_a_clear_error(case, mutate, match):
    with pytest.raises(ModelFileError, match=match):
        from_dict(mutate(_good()))


def test_missing_child_and_category_ranges_are_checked():
    d = _good()
    i = _first_internal(d)
    bad = _set(d, ["tree", "missing_child"], d["tree"]["missing_child"][:i] + [5]
               + d["tree"]["missing_child"][i + 1:])
    with pytest.raises(ModelFileError, match=r"missing_child\[\d+\] is out of range"):
        from_dict(bad)


def test_a_cycle_or_shared_child_is_not_a_tree():
    d = _good()
    kinds, first, _ = d["tree"]["kind"], d["tree"]["first_child"], d["tree"]["n_children"]
    internal = [i for i, k in enumerate(kinds) if k != 0]
    if len(internal) < 2:
        pytest.fail("the fixture tree should have two internal nodes")
    a, b = internal[0], internal[1]
    shared = list(first)
    shared[b] = first[a]  # two parents for the same children
    if shared[b] <= b:
        shared[b] = first[b]
        shared[a] = first[b] if first[b] > a else first[a]
    bad = _set(d, ["tree", "first_child"], shared)
    if bad["tree"]["first_child"] == first:
        pytest.fail("could not build a shared-children file")
    with pytest.raises(ModelFileError, match=r"not a tree|must point after|must be"):
        from_dict(bad)


def test_not_json_and_not_utf8(tmp_path):
    p = tmp_path / "bad.json"
    p.write_bytes(b"\xff\xfe not json")
    with pytest.raises(ModelFileError, match=r"not UTF-8 JSON"):
        quercus.load(p)
    p.write_text("{" * 100000, encoding="utf-8")
    with pytest.raises(ModelFileError, match=r"not UTF-8 JSON|nested too deeply"):
        quercus.load(p)


def test_fuzzed_files_load_cleanly_or_give_a_model_file_error():
    """Seeded random mutations of a valid file: every outcome is a ModelFileError or a
    model that predicts without crashing (2000 mutations)."""
    rng = np.random.default_rng(2026)
    base = _good()
    X = _mixed()[0]
    fields = [k for k, v in base["tree"].items() if isinstance(v, list)]
    junk = [None, -1, 0, 1, 2, 10**9, -(10**9), 0.5, "x", "inf", "nan", [], {}, True]
    outcomes = {"error": 0, "model": 0}
    for _ in range(2000):
        d = copy.deepcopy(base)
        for _ in range(int(rng.integers(1, 4))):
            field = fields[int(rng.integers(len(fields)))]
            arr = d["tree"][field]
            if isinstance(arr, list) and arr and rng.random() < 0.8:
                arr[int(rng.integers(len(arr)))] = junk[int(rng.integers(len(junk)))]
            else:
                d["tree"][field] = junk[int(rng.integers(len(junk)))]
        try:
            model = from_dict(d)
        except ModelFileError:
            outcomes["error"] += 1
            continue
        proba = model.predict_proba(X)
        assert proba.shape == (len(X), 2) and np.isfinite(proba).all()
        assert model.decision_path(X).shape[0] == len(X)
        outcomes["model"] += 1
    assert outcomes["error"] > 1000  # most mutations are caught
