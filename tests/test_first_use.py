"""The first five minutes (issue 31): what a new user runs first works on the bundled small
data, and the rough edges they meet give a clear answer. Each test names the behaviour it
pins down."""

import pickle
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import KFold

import quercus
from quercus import (C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier,
                     export_dict, export_text)
from quercus.datasets import load_golf, load_watermelon
from quercus.export.text import display_width

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "guide.md"


def _guide():
    """The guide's text with every run of white space made one space (lines wrap)."""
    return " ".join(GUIDE.read_text(encoding="utf-8").split())

DATA_SETS = ["watermelon 2.0", "watermelon 3.0", "watermelon 2.0alpha", "golf"]


def _load(name):
    return load_golf() if name == "golf" else load_watermelon(name.split()[1])


def _regression(name):
    """A numeric target from each bundled set: its last numeric column, else the class."""
    X, y = _load(name)
    numeric = [c for c in X.columns if X[c].dtype.kind == "f"]
    if numeric:
        return X.drop(columns=numeric[-1]), X[numeric[-1]]
    return X, (y == y.iloc[0]).astype(float)


# ----------------------------------------------------------- small data, cost complexity
@pytest.mark.parametrize("name", DATA_SETS)
@pytest.mark.parametrize("cls", [CARTClassifier, CARTRegressor])
def test_cross_validated_cost_complexity_pruning_runs_on_every_bundled_data_set(cls, name):
    X, y = _regression(name) if cls is CARTRegressor else _load(name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning about small classes either
        est = cls(pruning="cost_complexity", random_state=0).fit(X, y)
    table = est.cp_table_
    assert np.isfinite(table["xerror"]).all() and np.isfinite(table["xstd"]).all()
    assert est.ccp_alpha_ in table["alpha"].tolist()
    assert est.predict(X).shape == (len(X),)


@pytest.mark.parametrize("cls", [CARTClassifier, CARTRegressor])
def test_cross_validated_pruning_is_determined_by_random_state(cls):
    X, y = _regression("golf") if cls is CARTRegressor else _load("golf")
    a, b, c = (cls(pruning="cost_complexity", random_state=s).fit(X, y) for s in (3, 3, 4))
    pd.testing.assert_frame_equal(a.cp_table_, b.cp_table_)
    assert export_dict(a) == export_dict(b)
    assert not a.cp_table_["xerror"].equals(c.cp_table_["xerror"])  # other folds


@pytest.mark.parametrize("cls", [CARTClassifier, CARTRegressor])
def test_more_folds_than_rows_means_one_row_per_fold(cls):
    X, y = _regression("watermelon 3.0") if cls is CARTRegressor else _load("watermelon 3.0")
    X, y = X.iloc[:7], y.iloc[:7]
    leave_one_out = cls(pruning="cost_complexity", cv=7, random_state=1).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        capped = cls(pruning="cost_complexity", cv=10, random_state=1).fit(X, y)
    pd.testing.assert_frame_equal(capped.cp_table_, leave_one_out.cp_table_)


def test_two_rows_are_enough_for_cross_validated_pruning():
    X = pd.DataFrame({"x": [0.0, 1.0]})
    est = CARTClassifier(pruning="cost_complexity").fit(X, ["a", "b"])
    assert est.cp_table_.shape[0] >= 1


@pytest.mark.parametrize("cv", [0, 1, -3, 2.5, "x"])
def test_a_bad_cv_is_an_error_naming_cv(cv):
    with pytest.raises(ValueError, match=r"'cv' parameter of CARTClassifier"):
        CARTClassifier(pruning="cost_complexity", cv=cv).fit(*load_golf())


def test_a_splitter_with_more_folds_than_rows_is_an_error_naming_cv():
    with pytest.raises(ValueError, match=r"cv=KFold\(.*cannot split the 14 rows"):
        CARTClassifier(pruning="cost_complexity", cv=KFold(20)).fit(*load_golf())


# ----------------------------------------------------------- unfitted estimators
@pytest.mark.parametrize("show", [export_text, export_dict, lambda est: est.explain(0)],
                         ids=["export_text", "export_dict", "explain"])
def test_showing_an_unfitted_estimator_raises_not_fitted_error(show):
    with pytest.raises(NotFittedError, match="ID3Classifier instance is not fitted yet"):
        show(ID3Classifier())


# ----------------------------------------------------------- predict_log_proba
def test_predict_log_proba_is_the_log_of_predict_proba_without_a_warning():
    X, y = load_watermelon("2.0")
    clf = ID3Classifier().fit(X, y)
    proba = clf.predict_proba(X)
    assert (proba == 0).any()  # pure leaves: log(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        log_proba = clf.predict_log_proba(X)
    assert np.isneginf(log_proba[proba == 0]).all()
    np.testing.assert_allclose(log_proba[proba > 0], np.log(proba[proba > 0]))
    assert not hasattr(CARTRegressor(), "predict_log_proba")


# ----------------------------------------------------------- root-only tree as text
def test_a_root_only_tree_prints_as_a_leaf():
    X, y = load_watermelon("2.0")
    stump = CARTClassifier(min_samples_split=100).fit(X, y)  # more than the 17 rows
    assert stump.tree_.node_count == 1
    assert export_text(stump) == "root: 否  [否: 9, 是: 8]"
    assert export_text(stump, show_distribution=False) == "root: 否"
    pure = ID3Classifier().fit(X, ["是"] * len(X))
    assert export_text(pure) == "root: 是  [是: 17]"
    reg = CARTRegressor(max_depth=1, min_samples_split=100).fit(X, np.arange(17.0))
    assert export_text(reg) == "root: 8  [n: 17, weight: 17]"


# ----------------------------------------------------------- suspicious columns
def _ages():
    ages = [str(20 + 5 * (i % 6)) for i in range(24)]
    ages[4] = ages[9] = "未知"
    return pd.DataFrame({"年龄": ages, "色泽": ["青绿", "乌黑"] * 12}), ["是", "否", "否"] * 8


def test_a_numeric_column_with_a_stray_word_warns_naming_the_column_and_the_word():
    X, y = _ages()
    with pytest.warns(quercus.DataWarning,
                      match=r"Column '年龄' looks numeric .* not numbers: '未知' \(2 rows\)"):
        ID3Classifier().fit(X, y)
    assert issubclass(quercus.DataWarning, UserWarning)


# Spellings float() reads, which the stray-word check's first look must not pass over.
_NUMBERS_FLOAT_READS = [" 12", "-3", "+.5", ".5", "7e3", "inf", "-Infinity", "nan", "NaN",
                        "1_000", "１２", "٣", "\u20031.5", "\t4\n"]


def test_the_stray_word_check_counts_every_spelling_float_reads_as_a_number():
    from quercus._prepare import _may_be_number
    for text in _NUMBERS_FLOAT_READS:
        float(text)  # (each is a number to Python)
        assert _may_be_number(text), text
    assert not any(map(_may_be_number, ["未知", "青绿", "", "  ", "x1", "e5", "_1"]))


def test_a_column_of_unusual_number_spellings_and_a_word_warns():
    numbers = [" 12", "-3", "+.5", ".5", "7e3", "inf", "-Infinity", "\u20031.5", "\t4\n"] * 3
    X = pd.DataFrame({"a": numbers + ["未知"], "b": ["x", "y"] * 14})
    with pytest.warns(quercus.DataWarning, match=r"Column 'a' looks numeric .*'未知' \(1 row\)"):
        ID3Classifier().fit(X, ["是", "否"] * 14)


def test_a_declared_categorical_column_of_numbers_and_words_does_not_warn():
    X, y = _ages()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ID3Classifier(categorical_features=["年龄", "色泽"]).fit(X, y)


def test_numbers_and_a_word_in_an_object_column_name_the_word():
    X, y = _ages()
    X["年龄"] = pd.Series([int(a) if a != "未知" else a for a in X["年龄"]], dtype=object)
    with pytest.raises(ValueError, match=r"Column '年龄' mixes value types.*'未知' \(row 4\)"):
        ID3Classifier().fit(X, y)


def test_an_id_like_column_warns_naming_it():
    X, y = load_watermelon("2.0")
    X = X.reset_index()  # 编号, the book's own example (section 4.2.2)
    X["编号"] = X["编号"].astype(str)
    with pytest.warns(quercus.DataWarning, match=r"Column '编号' has 17 distinct values in "
                                                 r"its 17 rows"):
        ID3Classifier().fit(X, y)


def test_all_distinct_numbers_and_the_bundled_data_do_not_warn():
    X, y = load_watermelon("3.0")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ID3Classifier().fit(X.reset_index(), y)  # 编号 as numbers: a continuous column
        for name in DATA_SETS:
            C45Classifier().fit(*_load(name))


# ----------------------------------------------------------- model files
def test_loading_a_pickle_says_it_is_a_pickle(tmp_path):
    path = tmp_path / "model.pkl"
    path.write_bytes(pickle.dumps(ID3Classifier().fit(*load_golf())))
    with pytest.raises(quercus.ModelFileError,
                       match=r"looks like a pickle.*JSON, written by est\.save"):
        quercus.load(path)


# ----------------------------------------------------------- explain in a terminal
def _table_lines(text):
    """The lines of the printed table itself (not the caption above or the note below)."""
    lines = text.splitlines()
    return [line for line in lines if not line.startswith(("node ", "("))]


@pytest.mark.parametrize("version", ["2.0", "3.0"])
def test_a_printed_explain_table_lines_up_with_chinese_text(version):
    X, y = load_watermelon(version)
    table = ID3Classifier().fit(X, y).explain(0)
    before = pd.get_option("display.unicode.east_asian_width"), pd.get_option("display.width")
    text = str(table)
    assert repr(table) == text
    lines = _table_lines(text)
    header = lines[0].split()
    for column in ["feature", "split", "entropy", "gain", "intrinsic_value", "gain_ratio",
                   "gini_index", "chosen"]:
        assert column in header
    assert len({display_width(line) for line in lines}) == 1, text
    assert "色泽 = {青绿, 乌黑, 浅白}" in text
    if version == "2.0":
        assert re.search(r"\b0\.108\b", text) and "0.1081" not in text  # rounded
    # The user's settings are left as they were.
    assert (pd.get_option("display.unicode.east_asian_width"),
            pd.get_option("display.width")) == before


def test_the_explain_table_is_still_a_dataframe():
    table = ID3Classifier().fit(*load_watermelon("2.0")).explain(0)
    assert isinstance(table, pd.DataFrame)
    assert table.attrs["n_samples"] == 17
    assert table.loc[table["chosen"], "feature"].tolist() == ["纹理"]
    part = table[["feature", "gain"]]
    assert type(part) is pd.DataFrame  # selections print as pandas does
    assert part.round(3).values.tolist()[0] == ["色泽", 0.108]
    assert "note" in table.to_string()  # to_string still renders every column
    pd.testing.assert_frame_equal(pd.DataFrame(table), table, check_frame_type=False)


# ----------------------------------------------------------- the guide says what the code prints
def test_the_guide_quotes_the_empty_branch_text_that_export_text_prints():
    quoted = re.search(r"empty branch shows `([^`]*)`", _guide())
    assert quoted is not None
    text = export_text(ID3Classifier().fit(*load_watermelon("2.0")))
    assert quoted.group(1) in text


def test_the_guide_quotes_the_root_only_text_that_export_text_prints():
    quoted = re.search(r"a tree that is only its root prints as `([^`]*)`", _guide())
    assert quoted is not None
    stump = CARTClassifier(max_depth=1, min_samples_split=100).fit(*load_watermelon("2.0"))
    assert export_text(stump, show_distribution=False) == quoted.group(1)
