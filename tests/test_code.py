"""export_code: the generated Python and SQL give predict's results.

Every bundled data set, with ID3, C4.5, CART (surrogates), learned missing-value directions
and regressors (surrogate, learned, fractional), on the training rows, rows with one or
all attributes missing, and rows with categories unseen at fit time.

Golden files: regenerate with ``python tests/test_code.py --regen`` and review the diff.
"""

import math
import re
import sqlite3
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus import (C45Classifier, CARTClassifier, CARTRegressor, DecisionTreeClassifier,
                     DecisionTreeRegressor, ID3Classifier, export_code)
from quercus.datasets import load_golf, load_watermelon

GOLDEN = Path(__file__).parent / "golden"

DATASETS = {
    "watermelon_2_0": lambda: load_watermelon("2.0"),
    "watermelon_3_0": lambda: load_watermelon("3.0"),
    "watermelon_2_0alpha": lambda: load_watermelon("2.0alpha"),
    "golf": load_golf,
}


def _regression_target(X, y):
    """A numeric target with some spread, for the regressors on every data set."""
    codes = pd.factorize(y)[0].astype(float)
    return codes + 0.1 * (np.arange(len(y)) % 4)


ESTIMATORS = {
    "id3": lambda: ID3Classifier(),
    "c45": lambda: C45Classifier(),
    "c45_unpruned": lambda: C45Classifier(pruning=None),
    "cart": lambda: CARTClassifier(),
    "cart_surrogates_always": lambda: CARTClassifier(surrogates="always"),
    "cart_subset": lambda: CARTClassifier(categorical_split="ordered"),
    "learned": lambda: DecisionTreeClassifier(),
    "cart_regressor": lambda: CARTRegressor(),
    "regressor_learned": lambda: DecisionTreeRegressor(),
    "regressor_fractional": lambda: DecisionTreeRegressor(missing_strategy="fractional"),
}


def _fit(est_name, data_name):
    X, y = DATASETS[data_name]()
    est = ESTIMATORS[est_name]()
    if est._is_regressor:
        y = _regression_target(X, y)
    return est.fit(X, y), X


def _probe_rows(X):
    """The training rows, each with one attribute missing in turn, all missing, and each
    categorical attribute set to a category never seen at fit time."""
    rows = [X.iloc[i].to_dict() for i in range(len(X))]
    out = list(rows)
    for i, r in enumerate(rows):
        for j, col in enumerate(X.columns):
            if (i + j) % 3 == 0:  # a third of the (row, column) pairs keeps this quick
                out.append({**r, col: None if j % 2 else float("nan")})
    out.append({c: None for c in X.columns})
    for col in X.columns:
        if not pd.api.types.is_float_dtype(X[col]):
            out += [{**r, col: "未见过的'值\""} for r in rows[:6]]
            out.append({**{c: None for c in X.columns}, col: "unseen"})
    return out


def _frame(rows, X):
    df = pd.DataFrame(rows, columns=X.columns)
    for col in X.columns:
        if not pd.api.types.is_float_dtype(X[col]):
            df[col] = df[col].astype(object)
            df[col] = df[col].where(df[col].notna(), None)
        else:
            df[col] = df[col].astype(float)
    return df


CASES = [(e, d) for e in ESTIMATORS for d in DATASETS]


def _python_module(code):
    ns = {}
    exec(compile(code, "<export_code>", "exec"), ns)  # noqa: S102 - the code under test
    return ns


def _assert_same_labels(got, want):
    assert len(got) == len(want)
    bad = [i for i, (g, w) in enumerate(zip(got, want)) if g != w]
    assert not bad, f"{len(bad)} rows differ, first {bad[0]}: {got[bad[0]]!r} != {want[bad[0]]!r}"


@pytest.mark.parametrize("est_name,data_name", CASES)
def test_python_code_matches_predict(est_name, data_name):
    est, X = _fit(est_name, data_name)
    rows = _probe_rows(X)
    df = _frame(rows, X)
    ns = _python_module(export_code(est))
    if est._is_regressor:
        got = np.array([ns["predict"](r) for r in rows])
        np.testing.assert_allclose(got, est.predict(df), rtol=1e-12, atol=0)
        return
    want = est.predict(df).tolist()
    _assert_same_labels([ns["predict"](r) for r in rows], want)
    got = np.array([ns["predict_proba"](r) for r in rows])
    np.testing.assert_allclose(got, est.predict_proba(df), rtol=1e-12, atol=1e-15)
    assert ns["CLASSES"] == est.classes_.tolist()


@pytest.mark.parametrize("est_name", ["id3", "cart", "learned"])
def test_python_code_reads_dataframe_rows(est_name):
    est, X = _fit(est_name, "watermelon_2_0alpha")
    ns = _python_module(export_code(est, function_name="classify"))
    got = [ns["classify"](row) for _, row in X.iterrows()]
    _assert_same_labels(got, est.predict(X).tolist())
    # pandas.NA is a missing value too.
    row = X.iloc[0].to_dict()
    row[X.columns[0]] = pd.NA
    assert ns["classify"](row) == est.predict(pd.DataFrame([row]).astype(object))[0]


def _sqlite_predict(est, X, rows, method="predict"):
    con = sqlite3.connect(":memory:")
    cols = ", ".join('"' + c.replace('"', '""') + '"' for c in X.columns)
    con.execute(f"CREATE TABLE t (id INTEGER PRIMARY KEY, {cols})")

    def cell(v):
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return None
        return v.item() if isinstance(v, np.generic) else v

    con.executemany(f"INSERT INTO t VALUES (?, {', '.join('?' * len(X.columns))})",
                    [(i, *(cell(r[c]) for c in X.columns)) for i, r in enumerate(rows)])
    expr = export_code(est, "sql", method=method)
    return con.execute(f"SELECT {expr} FROM t ORDER BY id").fetchall()


@pytest.mark.parametrize("est_name,data_name", CASES)
def test_sql_matches_predict(est_name, data_name):
    est, X = _fit(est_name, data_name)
    rows = _probe_rows(X)
    df = _frame(rows, X)
    got = [r[0] for r in _sqlite_predict(est, X, rows)]
    if est._is_regressor:
        np.testing.assert_allclose(got, est.predict(df), rtol=1e-12, atol=0)
        return
    _assert_same_labels(got, est.predict(df).tolist())
    proba = np.array(_sqlite_predict(est, X, rows, "predict_proba"), dtype=float)
    np.testing.assert_allclose(proba, est.predict_proba(df), rtol=1e-12, atol=1e-15)


def test_sql_golf_booleans_and_names_are_quoted():
    est = CARTClassifier().fit(*load_golf())
    sql = export_code(est, "sql")
    assert '"windy" = TRUE' in sql or '"windy" = FALSE' in sql or '"outlook"' in sql


# --------------------------------------------------------------------- escaping
def _awkward():
    """Feature names and categories with quotes, backslashes, angle brackets, newlines."""
    names = ['a"b', "c'd", "e\\f", "g\nh <i>"]
    rng = np.random.default_rng(0)
    n = 60
    X = pd.DataFrame({
        names[0]: rng.choice(["x'1", 'y"2', "z\\3"], n).astype(object),
        names[1]: rng.normal(size=n),
        names[2]: rng.choice(["p\nq", "r", "</script>"], n).astype(object),
        names[3]: rng.normal(size=n),
    })
    y = np.where((X[names[1]] > 0) ^ (X[names[0]] == "x'1") ^ (X[names[2]] == "r"),
                 "yes'", 'no"')
    return X, y


@pytest.mark.parametrize("make", [CARTClassifier, ID3Classifier, DecisionTreeClassifier])
def test_code_escapes_names_and_categories(make):
    X, y = _awkward()
    est = make(max_depth=4).fit(X, y)
    rows = _probe_rows(X)
    df = _frame(rows, X)
    ns = _python_module(export_code(est))
    _assert_same_labels([ns["predict"](r) for r in rows], est.predict(df).tolist())
    _assert_same_labels([r[0] for r in _sqlite_predict(est, X, rows)], est.predict(df).tolist())


# --------------------------------------------------------------------- deep and large trees
def test_deep_tree_is_cut_into_functions():
    # Alternating classes, each sample twice as heavy as the one before: every split
    # peels off the heaviest sample, a chain of one level per sample.
    X = pd.DataFrame({"x": np.arange(200.0)})
    y = np.arange(200) % 2
    est = DecisionTreeClassifier().fit(X, y, sample_weight=2.0 ** np.arange(200))
    assert est.get_depth() > 100  # beyond Python's 100 levels of indentation
    code = export_code(est)
    ns = _python_module(code)
    rows = [X.iloc[i].to_dict() for i in range(200)] + [{"x": None}, {"x": 1e9}]
    _assert_same_labels([ns["predict"](r) for r in rows],
                        est.predict(pd.DataFrame(rows, dtype=float)).tolist())
    sql = [r[0] for r in _sqlite_predict(est, X, rows)]
    _assert_same_labels(sql, est.predict(pd.DataFrame(rows, dtype=float)).tolist())


# --------------------------------------------------------------------- golden files
GOLDEN_CASES = {
    "id3_watermelon_2_0": lambda: ID3Classifier().fit(*load_watermelon("2.0")),
    "cart_watermelon_2_0alpha": lambda: CARTClassifier(surrogates="always").fit(
        *load_watermelon("2.0alpha")),
    "c45_golf": lambda: C45Classifier().fit(*load_golf()),
    "learned_watermelon_3_0": lambda: DecisionTreeClassifier(max_depth=3).fit(
        *load_watermelon("3.0")),
    "cart_regressor_watermelon_3_0": lambda: CARTRegressor(max_depth=2).fit(
        load_watermelon("3.0")[0].drop(columns="含糖率"), load_watermelon("3.0")[0]["含糖率"]),
}


def _render(name):
    est = GOLDEN_CASES[name]()
    return {f"{name}.py.txt": export_code(est), f"{name}.sql": export_code(est, "sql") + "\n"}


_FLOAT = re.compile(r"\d+\.\d+(?:e[-+]?\d+)?")


def _rounded(text):
    """Float literals to 12 significant digits: the last bits of a node's mean or share
    depend on the machine's numpy summation, not on quercus."""
    return _FLOAT.sub(lambda m: f"{float(m.group()):.12g}", text)


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_code_matches_golden(name):
    for fname, text in _render(name).items():
        assert _rounded(text) == _rounded((GOLDEN / fname).read_text(encoding="utf-8")), fname


# --------------------------------------------------------------------- bad input
def test_bad_language_is_named():
    est = ID3Classifier().fit(*load_watermelon("2.0"))
    with pytest.raises(ValueError, match="'language' parameter of export_code.*'java'"):
        export_code(est, language="java")


def test_bad_function_name_is_named():
    est = ID3Classifier().fit(*load_watermelon("2.0"))
    with pytest.raises(ValueError, match="'function_name'.*'class'"):
        export_code(est, function_name="class")
    with pytest.raises(ValueError, match="'function_name'.*'1x'"):
        export_code(est, function_name="1x")


def test_bad_method_is_named():
    est = ID3Classifier().fit(*load_watermelon("2.0"))
    with pytest.raises(ValueError, match="'method' parameter.*'proba'"):
        export_code(est, "sql", method="proba")
    X, _ = load_watermelon("3.0")
    reg = CARTRegressor(max_depth=1).fit(X[["密度"]], X["含糖率"])
    with pytest.raises(ValueError, match="regressor has no class probabilities"):
        export_code(reg, "sql", method="predict_proba")


def test_unfitted_and_foreign_estimators_are_refused():
    from sklearn.exceptions import NotFittedError
    from sklearn.tree import DecisionTreeClassifier as SkTree
    with pytest.raises(NotFittedError):
        export_code(ID3Classifier())
    with pytest.raises(TypeError, match="quercus tree estimator; got DecisionTreeClassifier"):
        export_code(SkTree())


def test_importable_from_both_places():
    assert quercus.export_code is quercus.export.export_code


if __name__ == "__main__" and "--regen" in sys.argv:
    GOLDEN.mkdir(exist_ok=True)
    for case in GOLDEN_CASES:
        for fname, text in _render(case).items():
            (GOLDEN / fname).write_text(text, encoding="utf-8")
