"""Bad input fails early with a clear message naming what is wrong; documented input
conventions (unseen categories, label types, bool and forced-categorical columns) work."""

import re

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.utils._param_validation import InvalidParameterError

from quercus import C45Classifier, CARTClassifier, DecisionTreeClassifier, ID3Classifier
from quercus._kernels.schema import CAT_BINARY, LEAF, MULTIWAY, NUMERIC


def _frame():
    X = pd.DataFrame({
        "temp": [85.0, 80.0, 83.0, 70.0, 68.0, 65.0],
        "outlook": pd.Series(["sunny", "sunny", "overcast", "rain", "rain", "overcast"],
                             dtype=object),
    })
    y = np.array(["no", "no", "yes", "yes", "yes", "no"], dtype=object)
    return X, y


def _with(column, values):
    X, _ = _frame()
    X[column] = pd.Series(values, dtype=object if column == "outlook" else None)
    return X


def _fit(X=None, y=None, est=None, **fit_kw):
    X0, y0 = _frame()
    X = X0 if X is None else X
    y = y0 if y is None else y
    return lambda: (est or CARTClassifier()).fit(X, y, **fit_kw)


def _predict(X, method="predict", est=None):
    def run():
        X0, y0 = _frame()
        model = (est or CARTClassifier()).fit(X0, y0)
        return getattr(model, method)(X)
    return run


def _fit_params(**params):
    return _fit(est=CARTClassifier(**params))


_NUM = np.array([[1.0, 2.0], [2.0, 1.0], [3.0, 4.0], [4.0, 3.0]])
_NUM_Y = np.array([0, 0, 1, 1])

X0, Y0 = _frame()

CASES = [
    # ---- shape of X and y
    ("empty X (0 rows)", _fit(X0.iloc[:0], Y0[:0]), ValueError,
     r"Found array with 0 sample\(s\) \(shape=\(0, 2\)\).*X has no rows"),
    ("empty ndarray X", _fit(np.empty((0, 2)), np.array([])), ValueError,
     r"0 sample\(s\).*X has no rows"),
    ("zero columns", _fit(X0.iloc[:, :0]), ValueError,
     r"0 feature\(s\) \(shape=\(6, 0\)\).*X has no columns"),
    ("zero columns ndarray", _fit(np.empty((6, 0))), ValueError,
     r"0 feature\(s\).*X has no columns"),
    ("one row", _fit(X0.iloc[:1], Y0[:1]), ValueError,
     r"1 sample\(s\).*X has only 1 sample \(row\); a decision tree needs at least 2"),
    ("X/y length mismatch", _fit(y=Y0[:5]), ValueError,
     r"inconsistent numbers of samples: X has 6 rows, y has 5"),
    ("1-d X at fit", _fit(np.arange(6.0)), ValueError, r"Expected 2D array, got 1D array"),
    ("y=None", lambda: CARTClassifier().fit(X0, None), ValueError,
     r"requires y to be passed, but the target y is None"),
    ("2-d y", _fit(y=np.c_[Y0, Y0]), ValueError,
     r"y should be a 1d array, got an array of shape \(6, 2\)"),
    # ---- labels
    ("NaN in float y", _fit(y=np.array([0, 1, np.nan, 1, 0, 1])), ValueError,
     r"Input y contains a missing label \(nan\) at row 2"),
    ("NaN in object y", _fit(y=np.array(["no", "yes", np.nan, "no", "yes", "no"],
                                        dtype=object)), ValueError,
     r"Input y contains a missing label \(nan\) at row 2"),
    ("None in object y", _fit(y=np.array(["no", "yes", "no", None, "yes", "no"],
                                         dtype=object)), ValueError,
     r"Input y contains a missing label \(None\) at row 3"),
    ("inf in y", _fit(y=np.array([0, 1, 0, 1, np.inf, 1])), ValueError,
     r"Input y contains infinity \(inf\) at row 4"),
    ("continuous float y", _fit(y=np.array([0.5, 1.25, 2.0, 3.5, 0.1, 2.2])), ValueError,
     r"Unknown label type: continuous"),
    ("mixed str/int labels", _fit(y=np.array(["no", 1, "no", 1, "yes", 1], dtype=object)),
     ValueError, r"y mixes label types \(number, str\)"),
    # ---- values in X
    ("inf in numeric column", _fit(_with("temp", [85.0, np.inf, 83, 70, 68, 65])),
     ValueError, r"Input X contains inf in column 'temp' \(row 1\)"),
    ("-inf in numeric ndarray column", lambda: CARTClassifier().fit(
        np.array([[1.0, 2.0], [2.0, -np.inf], [3.0, 4.0]]), [0, 1, 0]), ValueError,
     r"Input X contains inf in column 'x1' \(row 1\)"),
    ("every numeric value missing", _fit(_with("temp", [np.nan] * 6)), ValueError,
     r"Column 'temp' has no values: every entry is missing"),
    ("every value missing", _fit(_with("outlook", [None] * 6)), ValueError,
     r"Column 'outlook' has no values: every entry is missing"),
    ("mixed str/number in object column",
     _fit(_with("outlook", ["sunny", 3, "overcast", "rain", "rain", "sunny"])),
     ValueError, r"Column 'outlook' mixes value types \(int, str\)"),
    ("dict value in a column",
     _fit(_with("outlook", ["sunny", {"k": 1}, "overcast", "rain", "rain", "sunny"])),
     TypeError, r"Column 'outlook' holds a value of type dict at row 1 \(\{'k': 1\}\)"),
    # ---- parameters
    ("unknown criterion", _fit_params(criterion="gain"), InvalidParameterError,
     r"The 'criterion' parameter of CARTClassifier must be a str among .*Got 'gain'"),
    ("unknown categorical_split", _fit_params(categorical_split="twoway"),
     InvalidParameterError, r"'categorical_split' parameter .*Got 'twoway' instead"),
    ("unknown splitter", _fit_params(splitter="greedy"), InvalidParameterError,
     r"'splitter' parameter .*Got 'greedy' instead"),
    ("max_depth=0", _fit_params(max_depth=0), InvalidParameterError,
     r"'max_depth' parameter .*range \[1, inf\) or None\. Got 0 instead"),
    ("min_samples_split=1", _fit_params(min_samples_split=1), InvalidParameterError,
     r"'min_samples_split' parameter .*range \[2, inf\).*Got 1 instead"),
    ("min_samples_split=1.5", _fit_params(min_samples_split=1.5), InvalidParameterError,
     r"'min_samples_split' parameter .*Got 1\.5 instead"),
    ("min_samples_leaf=0", _fit_params(min_samples_leaf=0), InvalidParameterError,
     r"'min_samples_leaf' parameter .*range \[1, inf\).*Got 0 instead"),
    ("negative min_impurity_decrease", _fit_params(min_impurity_decrease=-0.1),
     InvalidParameterError, r"'min_impurity_decrease' parameter .*Got -0\.1 instead"),
    ("max_features > n_features", _fit_params(max_features=3), ValueError,
     r"'max_features' parameter of CARTClassifier must be at most the number of features "
     r"\(2\)\. Got 3 instead"),
    ("max_features=0", _fit_params(max_features=0), InvalidParameterError,
     r"'max_features' parameter .*Got 0 instead"),
    ("categorical_features names an unknown column",
     _fit_params(categorical_features=["humidity"]), ValueError,
     r"categorical_features names an unknown column 'humidity'; the columns are "
     r"\['temp', 'outlook'\]"),
    ("categorical_features index out of range", _fit_params(categorical_features=[5]),
     ValueError, r"categorical_features index 5 is out of range for 2 features"),
    ("categorical_features mask of wrong length",
     _fit_params(categorical_features=[True, False, True]), ValueError,
     r"categorical_features as a boolean mask must have length 2 .*got 3"),
    ("categorical_features entry of a wrong type", _fit_params(categorical_features=[1.5]),
     ValueError, r"categorical_features entries must be column names or integer indices; "
     r"got 1\.5"),
    ("categorical_features as a bare string", _fit_params(categorical_features="temp"),
     InvalidParameterError, r"'categorical_features' parameter .*Got 'temp' instead"),
    # ---- sample_weight
    ("negative sample_weight", _fit(sample_weight=[1, -1, 1, 1, 1, 1]), ValueError,
     r"sample_weight must be non-negative; got -1\.0 at row 1"),
    ("NaN sample_weight", _fit(sample_weight=[1, 1, np.nan, 1, 1, 1]), ValueError,
     r"Input sample_weight contains NaN"),
    ("inf sample_weight", _fit(sample_weight=[1, 1, np.inf, 1, 1, 1]), ValueError,
     r"Input sample_weight contains infinity"),
    ("sample_weight of the wrong length", _fit(sample_weight=[1, 1, 1, 1, 1]), ValueError,
     r"sample_weight has 5 entries but X has 6 rows"),
    ("2-d sample_weight", _fit(sample_weight=np.ones((6, 2))), ValueError,
     r"sample_weight must be a 1-d array of length 6 .*shape \(6, 2\)"),
    ("all-zero sample_weight", _fit(sample_weight=np.zeros(6)), ValueError,
     r"sample_weight is zero for every sample"),
    ("string sample_weight", _fit(sample_weight=["a"] * 6), ValueError,
     r"sample_weight must hold numbers"),
    # ---- missing values, pruning and their parameters
    ("unknown missing_strategy", _fit_params(missing_strategy="impute"),
     InvalidParameterError, r"'missing_strategy' parameter .*Got 'impute' instead"),
    ("negative max_surrogate", _fit_params(max_surrogate=-1), InvalidParameterError,
     r"'max_surrogate' parameter .*Got -1 instead"),
    ("min_weight_fraction_leaf > 0.5", _fit_params(min_weight_fraction_leaf=0.7),
     InvalidParameterError, r"'min_weight_fraction_leaf' parameter .*Got 0.7 instead"),
    ("negative min_objects", _fit_params(min_objects=-2), InvalidParameterError,
     r"'min_objects' parameter .*Got -2 instead"),
    ("unknown pruning", _fit_params(pruning="post"), InvalidParameterError,
     r"'pruning' parameter .*Got 'post' instead"),
    ("validation_fraction = 1", _fit_params(validation_fraction=1.0), InvalidParameterError,
     r"'validation_fraction' parameter .*Got 1.0 instead"),
    ("confidence_factor > 0.5", _fit_params(confidence_factor=0.9), InvalidParameterError,
     r"'confidence_factor' parameter .*Got 0.9 instead"),
    ("negative ccp_alpha", _fit_params(ccp_alpha=-0.1), InvalidParameterError,
     r"'ccp_alpha' parameter .*Got -0.1 instead"),
    ("unknown ccp_loss", _fit_params(ccp_loss="gini"), InvalidParameterError,
     r"'ccp_loss' parameter .*Got 'gini' instead"),
    ("unknown cv_rule", _fit_params(cv_rule="2se"), InvalidParameterError,
     r"'cv_rule' parameter .*Got '2se' instead"),
    ("max_bins=1", _fit_params(max_bins=1), InvalidParameterError,
     r"'max_bins' parameter .*Got 1 instead"),
    ("max_bins above 65535", _fit_params(max_bins=70_000), InvalidParameterError,
     r"'max_bins' parameter .*Got 70000 instead"),
    ("n_jobs=0", _fit_params(n_jobs=0), InvalidParameterError,
     r"'n_jobs' parameter .*Got 0 instead"),
    ("fit larger than the memory", lambda: CARTClassifier().fit(
        np.broadcast_to(0.0, (2**33, 4)), np.broadcast_to("a", (2**33,))), MemoryError,
     r"Fitting X of shape \(8589934592, 4\) needs about 800\.0 GiB \(bin codes 32\.0 GiB, "
     r"per-sample work arrays 768\.0 GiB\), more than the [0-9.]+ GiB available"),
    ("eval_set without a validation pruning", _fit(eval_set=(X0, Y0)), ValueError,
     r"eval_set is used by pruning='pre' and 'reduced_error'; got pruning='surrogate'|"
     r"eval_set is used by pruning='pre' and 'reduced_error'; got pruning=None"),
    ("eval_set of one element", _fit(est=CARTClassifier(pruning="reduced_error"),
                                     eval_set=(X0,)), ValueError,
     r"eval_set must be a tuple \(X_val, y_val\)"),
    ("eval_set label unseen at fit", _fit(est=CARTClassifier(pruning="reduced_error"),
                                          eval_set=(X0, ["no"] * 5 + ["maybe"])), ValueError,
     r"eval_set: label 'maybe' is not one of the training classes"),
    # ---- column names
    ("duplicate column names", _fit(pd.DataFrame(np.arange(12.0).reshape(6, 2),
                                                 columns=["a", "a"])), ValueError,
     r"Column names must be unique: 'a' appears 2 times"),
    ("mixed str/int column names", _fit(pd.DataFrame(np.arange(12.0).reshape(6, 2),
                                                     columns=["a", 1])), TypeError,
     r"Feature names are only supported if all input features have string names"),
    # ---- prediction
    ("predict before fit", lambda: CARTClassifier().predict(X0), NotFittedError,
     r"This CARTClassifier instance is not fitted yet"),
    ("predict_proba before fit", lambda: ID3Classifier().predict_proba(X0), NotFittedError,
     r"This ID3Classifier instance is not fitted yet"),
    ("apply before fit", lambda: C45Classifier().apply(X0), NotFittedError,
     r"This C45Classifier instance is not fitted yet"),
    ("get_depth before fit", lambda: CARTClassifier().get_depth(), NotFittedError,
     r"This CARTClassifier instance is not fitted yet"),
    ("predict with the wrong number of columns",
     lambda: CARTClassifier().fit(_NUM, _NUM_Y).predict(_NUM[:, :1]), ValueError,
     r"X has 1 features, but CARTClassifier is expecting 2 features as input"),
    ("predict with a column missing", _predict(X0[["temp"]]), ValueError,
     r"Feature names seen at fit time, yet now missing:\n- outlook"),
    ("predict with renamed columns", _predict(X0.rename(columns={"outlook": "weather"})),
     ValueError, r"Feature names unseen at fit time:\n- weather\nFeature names seen at fit "
     r"time, yet now missing:\n- outlook"),
    ("predict with reordered columns", _predict(X0[["outlook", "temp"]]), ValueError,
     r"Feature names must be in the same order as they were in fit"),
    ("1-d X at predict", _predict(np.array([85.0, 1.0])), ValueError,
     r"Expected 2D array, got 1D array instead"),
    ("text in a numeric column at predict",
     _predict(_with("temp", ["hot", 80, 83, 70, 68, 65])), ValueError,
     r"Column 'temp' of X is numeric \(as at fit time\) but holds 'hot' at row 0"),
    ("inf in a numeric column at predict",
     _predict(_with("temp", [85.0, 80, 83, np.inf, 68, 65])), ValueError,
     r"Input X contains inf in column 'temp' \(row 3\)"),
]


@pytest.mark.parametrize("call,error,match", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_bad_input_is_a_clear_error(call, error, match):
    with pytest.raises(error, match=match) as info:
        call()
    assert type(info.value) is error


def test_the_table_is_large_and_unambiguous():
    assert len(CASES) >= 30
    assert len({c[0] for c in CASES}) == len(CASES)


def test_the_good_data_of_the_table_fits():
    """The table's cases fail because of the one thing each changes."""
    X, y = _frame()
    for est in (CARTClassifier(), ID3Classifier(), C45Classifier()):
        assert est.fit(X, y, sample_weight=np.ones(6)).predict(X).shape == (6,)
    CARTClassifier().fit(_NUM, _NUM_Y).predict(_NUM)


def test_bad_input_does_not_leave_a_fitted_model():
    est = CARTClassifier()
    with pytest.raises(ValueError, match=r"Input X contains inf in column 'temp'"):
        est.fit(_with("temp", [85.0, 80, np.inf, 70, 68, 65]), _frame()[1])
    with pytest.raises(NotFittedError, match="not fitted yet"):
        est.predict(_frame()[0])


def test_zero_weight_rows_are_dropped_like_sklearn():
    """A weight of zero is the same as removing the row (so the error for a *vector* of
    zeros is the only zero-weight error), and classes_ still comes from all of y."""
    X, y = _frame()
    w = np.array([1, 0, 1, 1, 1, 1.0])
    weighted = CARTClassifier().fit(X, y, sample_weight=w)
    dropped = CARTClassifier().fit(X.drop(index=1), np.delete(y, 1))
    np.testing.assert_array_equal(weighted.predict_proba(X), dropped.predict_proba(X))
    assert weighted.tree_.n_node_samples[0] == 5
    only_no = np.where(y == "no", 0.0, 1.0)
    model = CARTClassifier().fit(X, y, sample_weight=only_no)
    assert model.classes_.tolist() == ["no", "yes"]
    assert model.predict_proba(X)[:, 1].tolist() == [1.0] * 6


def test_zero_weight_row_does_not_set_the_class_tie_break():
    """A 50/50 leaf predicts the class seen first; a zero-weight row is not "seen"."""
    X = pd.DataFrame({"x": [0.0, 1.0, 1.0]})
    y = np.array(["a", "b", "a"])
    weighted = CARTClassifier().fit(X, y, sample_weight=[0, 1, 1])
    assert weighted.predict(X).tolist() == ["b", "b", "b"]
    assert CARTClassifier().fit(X, y).predict(X[1:]).tolist() == ["a", "a"]


# --------------------------------------------------------------------- documented behaviour
def _colors(colors, labels):
    return pd.DataFrame({"color": pd.Series(colors, dtype=object)}), np.array(labels)


def test_unseen_category_stops_at_a_multiway_node():
    X, y = _colors(["red", "red", "green", "green", "blue"], ["a", "a", "b", "b", "a"])
    clf = ID3Classifier().fit(X, y)
    assert clf.tree_.kind[0] == MULTIWAY and clf.tree_.n_children[0] == 3
    new = pd.DataFrame({"color": ["purple", "green"]})
    nodes = clf.apply(new)
    assert nodes[0] == 0  # stopped at the root, not at a leaf
    assert clf.tree_.kind[nodes[1]] == LEAF
    proba = clf.predict_proba(new)
    np.testing.assert_allclose(proba[0], [0.6, 0.4])  # the root's distribution
    np.testing.assert_allclose(proba[1], [0.0, 1.0])
    assert clf.predict(new).tolist() == ["a", "b"]
    assert clf.decision_path(new)[0].toarray().ravel().nonzero()[0].tolist() == [0]


@pytest.mark.parametrize("categories", [["red", "green", "blue"], [3, 1, 2]])
def test_a_categorical_column_encodes_as_its_values_do(categories):
    """A pandas Categorical is encoded through its codes (each category looked up once):
    the same codes as its values as objects, whatever its categories' order, with unseen
    categories (-1) and missing values (NaN) where they are."""
    from quercus import _prepare
    train = pd.DataFrame({"c": pd.Series(categories * 2, dtype=object)})
    schema, _ = _prepare.fit_schema_and_encode(train)
    rng = np.random.default_rng(0)
    seen = categories + ["purple" if isinstance(categories[0], str) else 9]
    values = pd.Series(rng.choice(np.array(seen, dtype=object), 40), dtype=object)
    values[[3, 7]] = None
    as_values = _prepare.encode(pd.DataFrame({"c": values}), schema)
    for order in (seen, seen[::-1]):
        for any_order in (False, True):  # row order, or column order for the router
            as_cat = _prepare.encode(
                pd.DataFrame({"c": pd.Categorical(values, categories=order)}), schema,
                any_order=any_order)
            np.testing.assert_array_equal(as_cat, as_values)
    assert np.isnan(as_values[[3, 7], 0]).all() and (as_values == -1).any()


def test_a_categorical_column_fits_through_its_codes():
    """At fit time a pandas Categorical's own codes are read: its categories (unused ones
    too, in their order) are the schema's, a missing value is NaN, and a column with no
    value is still the clear error naming it."""
    from quercus import _prepare
    values = ["b", None, "c", "b", np.nan, "c"]
    col = pd.Categorical(values, categories=["c", "unused", "b"])
    schema, X_enc = _prepare.fit_schema_and_encode(pd.DataFrame({"k": col}))
    assert schema.categories[0].tolist() == ["c", "unused", "b"]
    np.testing.assert_array_equal(X_enc[:, 0], [2, np.nan, 0, 2, np.nan, 0])
    as_objects = pd.DataFrame({"k": pd.Series(values, dtype=object)})
    np.testing.assert_array_equal(_prepare.encode(as_objects, schema), X_enc)
    empty = pd.DataFrame({"k": pd.Categorical([None, None], categories=["x"])})
    with pytest.raises(ValueError, match="Column 'k' has no values"):
        _prepare.fit_schema_and_encode(empty)


def test_unseen_category_takes_the_not_equal_branch_of_a_binary_node():
    # Root majority is "a"; the a != red side is pure "b": an unseen colour must end there.
    X, y = _colors(["red", "red", "red", "red", "green", "blue"],
                   ["a", "a", "a", "a", "b", "b"])
    clf = CARTClassifier().fit(X, y)
    t = clf.tree_
    assert t.kind[0] == CAT_BINARY
    assert clf.schema_.categories[0][t.category[0]] == "red"
    eq_child, ne_child = t.children(0)
    new = pd.DataFrame({"color": ["purple", "red"]})
    assert clf.apply(new).tolist() == [ne_child, eq_child]
    np.testing.assert_allclose(clf.predict_proba(new), [[0.0, 1.0], [1.0, 0.0]])
    assert clf.predict(new).tolist() == ["b", "a"]


@pytest.mark.parametrize("labels", [
    ["no", "no", "yes", "yes", "yes", "no"],
    [0, 0, 1, 1, 1, 0],
    [-1.0, -1.0, 2.0, 2.0, 2.0, -1.0],  # float labels must be integral (sklearn)
    [False, False, True, True, True, False],
], ids=["str", "int", "float", "bool"])
@pytest.mark.parametrize("cls", [ID3Classifier, C45Classifier, CARTClassifier])
def test_string_and_numeric_labels(cls, labels):
    X, _ = _frame()
    y = np.array(labels)
    clf = cls(pruning=None).fit(X, y)  # six rows: no pruning, so the labels come back
    assert clf.classes_.tolist() == sorted(set(labels))
    pred = clf.predict(X)
    assert pred.dtype == y.dtype
    assert pred.tolist() == labels
    assert clf.fit(X, pd.Series(labels)).predict(X).tolist() == labels


def test_labels_as_pandas_string_series():
    X, y = _frame()
    clf = CARTClassifier().fit(X, pd.Series(y, dtype="string"))
    assert clf.predict(X).tolist() == y.tolist()


@pytest.mark.parametrize("cls,kind", [(CARTClassifier, CAT_BINARY), (ID3Classifier, MULTIWAY)])
def test_bool_columns_are_categorical(cls, kind):
    X = pd.DataFrame({"windy": [True, True, False, False, True, False],
                      "temp": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]})
    y = np.array(["no", "no", "yes", "yes", "no", "yes"])
    clf = cls().fit(X, y)
    assert clf.schema_.is_categorical.tolist() == [True, False]
    assert clf.schema_.categories[0].tolist() == [False, True]
    assert clf.tree_.kind[0] == kind and clf.tree_.feature[0] == 0
    assert clf.predict(X).tolist() == y.tolist()


def test_bool_ndarray_column_is_categorical():
    X = np.array([[True], [False], [True], [False]])
    clf = CARTClassifier().fit(X, [1, 0, 1, 0])
    assert clf.schema_.is_categorical.tolist() == [True]
    assert clf.tree_.kind[0] == CAT_BINARY


@pytest.mark.parametrize("spec", [["size"], [0], [-2], [True, False]],
                         ids=["name", "index", "negative index", "mask"])
def test_categorical_features_turns_a_numeric_column_categorical(spec):
    X = pd.DataFrame({"size": [1, 2, 3, 1, 2, 3], "w": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]})
    y = np.array(["s", "m", "l", "s", "m", "l"])
    plain = ID3Classifier().fit(X, y)
    assert plain.schema_.is_categorical.tolist() == [False, False]
    assert plain.tree_.kind[0] == NUMERIC
    forced = ID3Classifier(categorical_features=spec).fit(X, y)
    assert forced.schema_.is_categorical.tolist() == [True, False]
    assert forced.schema_.categories[0].tolist() == [1, 2, 3]
    assert forced.tree_.kind[0] == MULTIWAY and forced.tree_.n_children[0] == 3
    assert forced.predict(X).tolist() == y.tolist()
    # A value never seen at fit time is an unseen category, not a number between bins.
    unseen = pd.DataFrame({"size": [4], "w": [0.1]})
    assert forced.apply(unseen).tolist() == [0]


def test_object_column_of_numbers_in_a_dataframe_is_categorical():
    X = pd.DataFrame({"grade": pd.Series([1, 2, 1, 2], dtype=object)})
    clf = DecisionTreeClassifier().fit(X, ["a", "b", "a", "b"])
    assert clf.schema_.is_categorical.tolist() == [True]


def test_error_messages_name_the_column_for_ndarray_input():
    X = np.array([[1.0, 2.0], [-np.inf, 1.0], [3.0, 4.0]])
    with pytest.raises(ValueError, match=re.escape("Input X contains inf in column 'x0' "
                                                   "(row 1)")):
        CARTClassifier().fit(X, [0, 1, 0])


def test_docs_list_every_case():
    from pathlib import Path
    doc = (Path(__file__).parent.parent / "docs" / "bad_input.md").read_text(encoding="utf-8")
    missing = [case for case, *_ in CASES if f"| {case} |" not in doc]
    assert not missing, f"docs/bad_input.md lacks {missing}"
    assert f"{len(CASES)} cases." in doc


@pytest.mark.parametrize("n_rows", [50, 3 * 4096 + 7])  # one block; several parallel tasks
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("value", [np.inf, -np.inf])
def test_an_infinite_number_in_a_float_matrix_at_predict_names_its_column(n_rows, order,
                                                                            value):
    """The routing kernel finds it as it reads the rows (no separate pass over X), and
    the error is the column's, as when X is encoded column by column."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    clf = CARTClassifier(max_bins=None).fit(X, (X[:, 2] > 0).astype(int))
    X_new = np.asarray(rng.normal(size=(n_rows, 3)), order=order)
    X_new[n_rows - 2, 1] = value
    for method in (clf.predict, clf.apply, clf.predict_proba):
        with pytest.raises(ValueError, match=r"Input X contains inf in column 'x1' "
                                             rf"\(row {n_rows - 2}\)"):
            method(X_new)
    # NaN is a missing value, not an error; the same rows route as before.
    X_new[n_rows - 2, 1] = np.nan
    nodes = clf.apply(X_new)
    assert nodes.shape == (n_rows,) and (clf.tree_.kind[nodes] == LEAF).all()


def test_parameters_are_validated_once_per_set_of_values(monkeypatch):
    from sklearn.base import BaseEstimator

    from quercus import CARTClassifier, CARTRegressor
    calls = []
    original = BaseEstimator._validate_params
    monkeypatch.setattr(BaseEstimator, "_validate_params",
                        lambda self: calls.append(type(self).__name__) or original(self))
    X, y = np.arange(12.0).reshape(6, 2), np.array([0, 1] * 3)
    CARTClassifier(max_depth=4, cp=0.0123).fit(X, y)
    CARTClassifier(max_depth=4, cp=0.0123).fit(X, y)  # the same values: not again
    assert calls == ["CARTClassifier"]
    CARTRegressor(max_depth=4, cp=0.0123).fit(X, y)  # another class
    CARTClassifier(max_depth=5, cp=0.0123).fit(X, y)  # another value
    CARTClassifier(max_depth=4, cp=0.0123, class_weight={0: 1, 1: 2}).fit(X, y)  # a dict
    CARTClassifier(max_depth=4, cp=0.0123, class_weight={0: 1, 1: 2}).fit(X, y)
    assert calls == ["CARTClassifier", "CARTRegressor"] + ["CARTClassifier"] * 3
    with pytest.raises(ValueError, match="'max_depth' parameter"):
        CARTClassifier(max_depth=-4).fit(X, y)  # invalid values are never remembered
    with pytest.raises(ValueError, match="'max_depth' parameter"):
        CARTClassifier(max_depth=-4).fit(X, y)
    # 2 passed, and 2.0 == 2, but a float is a fraction of the rows (at most 1).
    CARTClassifier(max_depth=4, cp=0.0123, min_samples_split=2).fit(X, y)
    with pytest.raises(ValueError, match="'min_samples_split' parameter"):
        CARTClassifier(max_depth=4, cp=0.0123, min_samples_split=2.0).fit(X, y)
