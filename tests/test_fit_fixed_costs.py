"""The shortcuts that cut a small fit's fixed Python cost give what the long way gives:
the same arrays, the same checks and messages, the same trees and tables."""

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.utils.validation import column_or_1d

from quercus import CARTClassifier, CARTRegressor, _prepare, export_text

STRING_DTYPES = ["str", "string", "string[python]", "string[pyarrow]"]


def _no_column_or_1d(*args, **kwargs):
    raise AssertionError("column_or_1d called")


@pytest.mark.parametrize("dtype", STRING_DTYPES)
@pytest.mark.parametrize("values", [["b", "a", "b"], ["b", None, "a"], ["是", "否", "否"]])
def test_string_series_target_is_check_arrays_vector(monkeypatch, dtype, values):
    y = pd.Series(values, dtype=dtype)
    expected = column_or_1d(y, warn=True)
    monkeypatch.setattr(_prepare, "column_or_1d", _no_column_or_1d)
    got, first_missing = _prepare._target_vector(y, len(values))
    assert type(got) is np.ndarray and got.dtype == expected.dtype
    assert [type(v) for v in got] == [type(v) for v in expected]
    assert [repr(v) for v in got] == [repr(v) for v in expected]
    assert first_missing == (values.index(None) if None in values else None)


@pytest.mark.parametrize("dtype", STRING_DTYPES)
def test_string_series_target_keeps_its_errors(dtype):
    X = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    y = pd.Series(["a", "b", None, "a"], dtype=dtype)
    long_way = column_or_1d(y, warn=True)
    for est in (CARTClassifier(), CARTRegressor()):
        with pytest.raises(ValueError) as fast:
            est.fit(X, y)
        with pytest.raises(ValueError) as slow:
            est.fit(X, long_way)
        assert str(fast.value) == str(slow.value)
        assert "missing" in str(fast.value)
    with pytest.raises(ValueError, match="X and y have inconsistent numbers of samples"):
        CARTClassifier().fit(X, y[:3])
    with pytest.raises(ValueError, match="y of a regressor must be numeric"):
        CARTRegressor().fit(X, y.fillna("c"))


@pytest.mark.parametrize("dtype", STRING_DTYPES)
def test_string_series_target_fits_as_its_values(dtype):
    X = pd.DataFrame({"x": np.arange(40.0), "c": list("pqrs") * 10})
    y = pd.Series(["yes", "no", "no", "maybe"] * 10, dtype=dtype)
    a = CARTClassifier(pruning="cost_complexity", random_state=0).fit(X, y)
    b = CARTClassifier(pruning="cost_complexity", random_state=0).fit(
        X, np.asarray(y, dtype=object))
    assert a.classes_.tolist() == b.classes_.tolist()
    assert a.classes_.dtype == b.classes_.dtype
    assert export_text(a) == export_text(b)
    pd.testing.assert_frame_equal(a.cp_table_, b.cp_table_)


def _binned(y, y2, w):
    from quercus._binning import bin_features
    from quercus._grower import BinnedData
    X = np.arange(6.0).reshape(3, 2)
    bins = bin_features(X, np.zeros(2, dtype=bool), [None, None], 255)
    return BinnedData.from_bins(bins, np.zeros(2, dtype=bool), y, y2, w, 2, 2)


def test_binned_data_takes_writable_float64_targets_as_they_are():
    y, y2, w = np.array([0.0, 1.0, 1.0]), np.array([0.0, 1.0, 1.0]), np.ones(3)
    data = _binned(y, y2, w)
    assert data.y is y and data.y2 is y2 and data.w is w


class _Sub(np.ndarray):
    pass


def _read_only(a):
    a = np.array(a, dtype=np.float64)
    a.setflags(write=False)
    return a


@pytest.mark.parametrize("make", [
    _read_only,                                          # a pandas Series' values
    lambda a: np.array(a, dtype=np.int32),               # codes
    lambda a: np.repeat(np.array(a, dtype=np.float64), 2)[::2],  # not contiguous
    lambda a: np.array(a, dtype=np.float64).view(_Sub),  # a subclass
    list,
])
def test_binned_data_makes_other_targets_writable_float64_as_np_require(make):
    values = [0.0, 1.0, 1.0]
    given = make(values)
    data = _binned(given, given, given)
    expected = np.require(given, np.float64, ["C", "W"])
    for got in (data.y, data.y2, data.w):
        assert (got is given) == (expected is given)
        assert got.dtype == np.float64 and got.flags.c_contiguous and got.flags.writeable
        assert type(got) is type(expected)
        assert np.array_equal(got, values)


def _frames():
    n = 12
    rng = np.random.default_rng(0)
    num = rng.normal(size=n)
    with_inf = num.copy()
    with_inf[3] = np.inf
    return {
        "float64": pd.DataFrame({"a": num, "b": num * 2}),
        "float_int_bool": pd.DataFrame({"a": num, "i": np.arange(n), "b": num > 0}),
        "float32": pd.DataFrame({"a": num.astype(np.float32)}),
        "strings": pd.DataFrame({"s": pd.Series(list("abcabcabcabc"), dtype="str"),
                                 "t": pd.Series(list("xyxyxyxyxyxy"), dtype="string"),
                                 "a": num}),
        "category": pd.DataFrame({"c": pd.Categorical(list("pqpqpqpqpqpq")), "a": num}),
        "nullable": pd.DataFrame({"i": pd.array(list(range(n - 1)) + [None], dtype="Int64"),
                                  "f": pd.array([0.5] * (n - 1) + [None], dtype="Float64"),
                                  "b": pd.array([True, False] * 6, dtype="boolean")}),
        "object_words": pd.DataFrame({"o": pd.Series(list("ababababcbab"), dtype=object),
                                      "a": num}),
        "object_numbers": pd.DataFrame({"o": pd.Series(list(range(n)), dtype=object)}),
        "object_mixed": pd.DataFrame({"a": num,
                                      "o": pd.Series([1, "x"] * 6, dtype=object)}),
        "datetime": pd.DataFrame({"a": num, "d": pd.date_range("2020", periods=n)}),
        "inf": pd.DataFrame({"a": with_inf, "b": num}),
        "all_missing": pd.DataFrame({"a": num, "b": np.full(n, np.nan)}),
        "all_missing_words": pd.DataFrame({"a": num,
                                           "s": pd.Series([None] * n, dtype="str")}),
    }


def _outcome(f):
    """What ``f()`` gives or raises, and the warnings it gives."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = "ok", f()
        except (ValueError, TypeError) as exc:
            out = type(exc).__name__, str(exc)
    return (*out, [(w.category, str(w.message)) for w in caught])


def _same(a, b):
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, _prepare.Schema):
        return _same(_prepare.Schema.to_dict(a), _prepare.Schema.to_dict(b))
    if hasattr(a, "codes") and hasattr(a, "n_bins"):  # Bins
        return all(_same(getattr(a, k), getattr(b, k))
                   for k in ("codes", "n_bins", "lo", "hi", "offsets"))
    if isinstance(a, np.ndarray):
        return (a.dtype == b.dtype and a.shape == b.shape
                and np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
    return a == b


@pytest.mark.parametrize("categorical_features", [None, ["a"], "mask"])
@pytest.mark.parametrize("name", list(_frames()))
def test_schema_from_dtypes_is_the_schema_from_columns(monkeypatch, name,
                                                       categorical_features):
    X = _frames()[name]
    if categorical_features == "mask":
        categorical_features = np.arange(X.shape[1]) == X.shape[1] - 1
    elif categorical_features is not None and "a" not in X.columns:
        categorical_features = [X.columns[0]]
    steps = [lambda: _prepare._schema_columns(X, categorical_features)[2],
             lambda: _prepare.fit_schema_and_encode(X, categorical_features),
             lambda: _prepare.fit_schema_and_bin(X, categorical_features, 255),
             lambda: _prepare.fit_schema_and_bin(X, categorical_features, None, lazy=True)]
    fast = [_outcome(step) for step in steps]
    monkeypatch.setattr(_prepare, "_frame_mask", lambda *args: None)  # the columns' way
    slow = [_outcome(step) for step in steps]
    for (kind_a, a, warned_a), (kind_b, b, warned_b) in zip(fast, slow):
        assert kind_a == kind_b and _same(a, b), (kind_a, a, kind_b, b)
        assert warned_a == warned_b


def _count_columns_made(monkeypatch):
    """A list that gets a 1 for each column of a DataFrame read from now on."""
    made = []
    column = _prepare._column

    def counted(X, j):
        made.append(1)
        return column(X, j)

    monkeypatch.setattr(_prepare, "_column", counted)
    return made


@pytest.mark.parametrize("categorical_features", [None, [False, False]])
def test_a_float_frame_is_fitted_without_splitting_it_into_columns(monkeypatch,
                                                                   categorical_features):
    X = _frames()["float64"]
    y = (X["a"] > 0).astype(int)
    monkeypatch.setattr(_prepare, "_frame_mask", lambda *args: None)  # the columns' way
    expected = [CARTClassifier(pruning="cost_complexity", random_state=0).fit(X, y),
                CARTClassifier(categorical_features=categorical_features).fit(X, y)]
    monkeypatch.undo()
    made = _count_columns_made(monkeypatch)
    got = [CARTClassifier(pruning="cost_complexity", random_state=0).fit(X, y),
           CARTClassifier(categorical_features=categorical_features).fit(X, y)]
    # (the first column, whose dtype says the frame may be all float64, of each fit that
    # detects the columns' kinds)
    assert len(made) == (2 if categorical_features is None else 1)
    for a, b in zip(got, expected):
        assert export_text(a) == export_text(b)
    pd.testing.assert_frame_equal(got[0].cp_table_, expected[0].cp_table_)


@pytest.mark.parametrize("name", ["strings", "category", "float_int_bool", "object_words"])
def test_a_frame_read_by_columns_is_split_into_them_once(monkeypatch, name):
    X = _frames()[name]
    made = _count_columns_made(monkeypatch)
    _prepare.fit_schema_and_encode(X, None)
    assert len(made) == X.shape[1]
    made.clear()
    _prepare.fit_schema_and_bin(X, None, 255)
    assert len(made) == X.shape[1]


@pytest.mark.parametrize("name", list(_frames()))
def test_a_frame_s_columns_read_as_arrays_encode_as_its_series(monkeypatch, name):
    X = _frames()[name]
    steps = [lambda: _prepare.fit_schema_and_encode(X, None),
             lambda: _prepare.fit_schema_and_bin(X, None, 255),
             lambda: _prepare.fit_schema_and_encode(X, [X.columns[-1]]),
             lambda: _prepare.encode(X, _prepare.fit_schema_and_encode(X, None)[0])]
    arrays = [_outcome(step) for step in steps]
    assert not any(isinstance(col, pd.Series) for col in _prepare.frame_columns(X))
    monkeypatch.setattr(_prepare, "_column", lambda X, j: X.iloc[:, j])  # Series
    series = [_outcome(step) for step in steps]
    for (kind_a, a, warned_a), (kind_b, b, warned_b) in zip(arrays, series):
        assert kind_a == kind_b and _same(a, b), (kind_a, a, kind_b, b)
        assert warned_a == warned_b


class _NoColumnAccessor:
    """A DataFrame as a pandas without ``DataFrame._get_column_array`` shows it."""

    def __init__(self, X):
        self.shape, self.iloc = X.shape, X.iloc


@pytest.mark.parametrize("name", ["float_int_bool", "strings", "category", "nullable",
                                  "object_words", "datetime"])
def test_a_pandas_without_the_column_accessor_gives_the_same_columns(name):
    X = _frames()[name]
    for j in range(X.shape[1]):
        ours, theirs = _prepare._column(X, j), _prepare._column(_NoColumnAccessor(X), j)
        assert type(ours) is type(theirs) and ours.dtype == theirs.dtype
        assert pd.Series(ours).equals(pd.Series(theirs))


def _categorical_by_pandas_checks(dtype):
    if isinstance(dtype, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(dtype):
        return True
    if pd.api.types.is_numeric_dtype(dtype):
        return False
    if pd.api.types.is_string_dtype(dtype) and not dtype == object:
        return True
    return None


@pytest.mark.parametrize("dtype", [
    bool, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint64, np.float16,
    np.float32, np.float64, np.complex128, object, "U3", "S3", "datetime64[ns]",
    "timedelta64[ns]", "V8", "Int64", "UInt8", "Float64", "boolean", "category", "str",
    "string", "string[python]", "datetime64[ns, UTC]", "period[D]", "interval[int64]",
    "Sparse[float64]", "int64[pyarrow]", "bool[pyarrow]", "string[pyarrow]"])
def test_categorical_by_dtype_answers_as_pandas_checks(dtype):
    if dtype in ("U3", "S3", "V8"):
        dtype = np.dtype(dtype)
    else:
        dtype = pd.Series([], dtype=dtype).dtype
    assert _prepare._categorical_by_dtype(dtype) == _categorical_by_pandas_checks(dtype)


@pytest.mark.parametrize("columns", [["a", "b", "a"], [0, 1, 1], ["x", 2, "x"]])
def test_duplicate_column_names_are_still_refused(columns):
    X = pd.DataFrame(np.zeros((3, 3)), columns=columns)
    dup = pd.Index(columns)[pd.Index(columns).duplicated()][0]
    with pytest.raises(ValueError, match=re.escape(f"Column names must be unique: {dup!r} "
                                                   f"appears 2 times")):
        _prepare.as_2d(X)


def _memory_inputs():
    num = np.zeros((50, 4))
    return [num, num.astype(np.float32), num.astype(np.int64), pd.DataFrame(num),
            pd.DataFrame({"a": num[:, 0], "s": ["x"] * 50})]


@pytest.mark.parametrize("max_bins", [255, None])
@pytest.mark.parametrize("lazy", [False, True])
@pytest.mark.parametrize("from_columns", [False, True])
def test_the_memory_bound_read_before_the_dtypes_is_never_below_the_estimate(
        max_bins, lazy, from_columns):
    from quercus import _memory
    for X in _memory_inputs():
        bound = _memory._fit_bytes(X.shape, max_bins, lazy, from_columns, False, False)
        assert sum(bound.values()) >= sum(
            _memory.fit_bytes(X, max_bins, lazy, from_columns).values())


def test_fit_memory_is_checked_from_the_dtypes_only_near_the_limit(monkeypatch):
    from quercus import _memory
    X = np.zeros((50, 4))
    need = sum(_memory.fit_bytes(X, None).values())
    bound = sum(_memory._fit_bytes(X.shape, None, False, False, False, False).values())
    assert need < bound
    monkeypatch.setattr(_memory, "available_bytes", lambda: need)
    _memory.check_fit_memory(X, None)  # fits: X is read as it is
    monkeypatch.setattr(_memory, "available_bytes", lambda: need - 1)
    with pytest.raises(MemoryError, match=r"Fitting X of shape \(50, 4\) needs about"):
        _memory.check_fit_memory(X, None)

    def no_dtypes(X):
        raise AssertionError("dtypes read")

    monkeypatch.setattr(_memory, "is_float_matrix", no_dtypes)
    monkeypatch.setattr(_memory, "available_bytes", lambda: bound)
    _memory.check_fit_memory(X, None)
    monkeypatch.setattr(_memory, "available_bytes", lambda: None)
    _memory.check_fit_memory(X, None)


@pytest.mark.parametrize("at_once", [True, False])
@pytest.mark.parametrize("seed", [0, 7])
@pytest.mark.parametrize("n,k,classes", [
    (17, 10, None), (14, 10, [9, 5]), (150, 10, [50, 50, 50]), (7, 10, None),
    (300, 10, [10, 240, 50]), (2, 2, None), (61, 5, [30, 6, 25])])
def test_fold_rows_made_at_once_are_scikit_learn_s_splits(monkeypatch, at_once, seed, n, k,
                                                          classes):
    from quercus import _pruning
    if not at_once:
        monkeypatch.setattr(_pruning, "SPLITS_AT_ONCE_CELLS", 0)
    codes = None
    if classes is not None:
        codes = np.repeat(np.arange(len(classes)), classes)
        np.random.default_rng(seed).shuffle(codes)
    ours = _pruning.default_splits(k, n, codes, seed)
    theirs = list(_pruning.default_folds(k, n, codes, seed).split(np.zeros(n), codes))
    assert len(ours) == len(theirs) == min(k, n)
    for (a_train, a_test), (b_train, b_test) in zip(ours, theirs):
        for a, b in ((a_train, b_train), (a_test, b_test)):
            assert a.dtype == b.dtype and a.ndim == 1
            np.testing.assert_array_equal(a, b)


def _estimators_to_copy():
    from sklearn.model_selection import KFold

    from quercus import C45Classifier
    return [
        CARTClassifier(pruning="cost_complexity"),
        CARTClassifier(class_weight={"a": 1.0, "b": 2.0}, categorical_features=["x"],
                       random_state=np.random.RandomState(3), max_depth=np.int64(4),
                       cv=KFold(3)),
        CARTRegressor(pruning="cost_complexity", random_state=5, n_jobs=2),
        C45Classifier(class_weight="balanced"),
    ]


@pytest.mark.parametrize("i", range(4))
def test_params_copy_is_clone_with_the_changes(i):
    from sklearn.base import clone

    from quercus._fit import _params_copy
    est = _estimators_to_copy()[i]
    est.tree_ = "fitted"  # a fitted attribute: not copied
    changes = dict(pruning=None, ccp_alpha=0.0, n_jobs=1)
    ours = _params_copy(est, **changes)
    theirs = clone(est).set_params(**changes)
    assert type(ours) is type(theirs) and not hasattr(ours, "tree_")
    assert list(vars(ours)) == list(vars(theirs))
    mine, given = ours.get_params(deep=False), est.get_params(deep=False)
    for name, value in theirs.get_params(deep=False).items():
        assert type(mine[name]) is type(value)
        if isinstance(value, np.random.RandomState):
            assert mine[name] is not given[name]
            assert repr(mine[name].get_state()) == repr(given[name].get_state())
        elif hasattr(value, "get_n_splits"):
            assert mine[name] is not given[name] and repr(mine[name]) == repr(value)
        else:
            assert mine[name] == value
            if name not in changes and type(value) in (dict, list):
                assert mine[name] is not given[name]  # a copy, as clone's


def test_params_copy_leaves_what_else_clone_handles_to_clone(monkeypatch):
    from sklearn.base import clone

    from quercus._fit import _params_copy
    est = CARTClassifier()
    est._sklearn_output_config = {"transform": "pandas"}
    assert _params_copy(est, pruning=None)._sklearn_output_config == {"transform": "pandas"}
    calls = []

    class Own(CARTClassifier):
        def __sklearn_clone__(self):
            calls.append(1)
            return clone(CARTClassifier(**self.get_params()))

    assert type(_params_copy(Own(), pruning=None)) is CARTClassifier and calls == [1]


def test_params_copy_rejects_what_set_params_rejects():
    from quercus._fit import _params_copy
    with pytest.raises(ValueError, match="Invalid parameter 'prunning'"):
        _params_copy(CARTClassifier(), prunning=None)


def test_a_series_target_is_read_once_for_the_folds(monkeypatch):
    X = pd.DataFrame({"x": np.arange(30.0)})
    y = pd.Series(["a", "b", "c"] * 10, dtype="str")
    read = []
    original = pd.Series.__array__
    monkeypatch.setattr(pd.Series, "__array__",
                        lambda self, *a, **k: read.append(1) or original(self, *a, **k))
    CARTClassifier(pruning="cost_complexity", random_state=0).fit(X, y)
    assert len(read) == 1


@pytest.mark.parametrize("y_kind", ["str", "int"])
def test_fold_labels_are_the_fold_s_classes_and_codes(monkeypatch, y_kind):
    """Each fold's (classes, codes) and held-out codes, with every class in the fold or
    not, are those of recoding the whole data's codes to the classes among its rows."""
    from quercus import _fit
    rng = np.random.default_rng(1)
    y = np.array(["a"] * 30 + ["b"] * 25 + ["lone"])  # "lone": in all folds but one
    rng.shuffle(y)
    if y_kind == "int":
        y = np.unique(y, return_inverse=True)[1] * 10
    X = pd.DataFrame({"x": rng.normal(size=y.size), "z": rng.normal(size=y.size)})
    seen = []
    original = _fit._fold_scorer

    def spy(*args, **kwargs):
        moments = original(*args, **kwargs)

        def recorded(train, test, floor, thresholds, labels, codes):
            seen.append((train, test, labels, codes))
            return moments(train, test, floor, thresholds, labels, codes)
        return recorded

    monkeypatch.setattr(_fit, "_fold_scorer", spy)
    from quercus._target import Target
    n_classes = []  # of the targets whose binned data the fit and its folds make
    binned_data = Target.binned_data
    monkeypatch.setattr(Target, "binned_data",
                        lambda self, *a: n_classes.append(self.n_classes)
                        or binned_data(self, *a))
    est = CARTClassifier(pruning="cost_complexity", random_state=0).fit(X, y)
    y_codes = pd.Index(est.classes_).get_indexer(y)
    assert len(seen) == 10
    assert n_classes == [3] + [len(labels[0]) for _, _, labels, _ in seen]
    n_all = 0
    for train, test, (classes, fold_codes), held_out in seen:
        present = np.flatnonzero(np.bincount(y_codes[train], minlength=len(est.classes_)))
        recode = np.full(len(est.classes_), -1, dtype=np.int32)
        recode[present] = np.arange(present.size, dtype=np.int32)
        n_all += present.size == len(est.classes_)
        assert classes.dtype == est.classes_.dtype
        assert classes.tolist() == est.classes_[present].tolist()
        for got, expected in ((fold_codes, recode[y_codes[train]]),
                              (held_out, recode[y_codes[test]])):
            assert got.dtype == np.int32
            np.testing.assert_array_equal(got, expected)
    assert n_all == 9


def _fold_binning_frames():
    rng = np.random.default_rng(4)
    n = 40
    num = rng.normal(size=n)
    num[[3, 9]] = np.nan
    return {
        "numeric": pd.DataFrame({"a": num, "b": rng.integers(0, 5, n).astype(float)}),
        "mixed": pd.DataFrame({"a": num, "c": rng.choice(list("pqr"), n)}),
        "categorical": pd.DataFrame({"c": rng.choice(list("pqrs"), n),
                                     "d": rng.choice(["x", None], n)}),
    }


@pytest.mark.parametrize("max_bins", [39, 40, 41, 255])
@pytest.mark.parametrize("name", list(_fold_binning_frames()))
def test_folds_of_no_more_rows_than_bins_take_the_fit_s_exact_bins(monkeypatch, name,
                                                                   max_bins):
    """With no more rows than bins every bin is exact: the folds take the fit's own
    bins, the very arrays a FoldBins of the rows gives; with more rows, a FoldBins."""
    # (the two-call path: a small table's tree and folds grown by one call are
    # test_small_cv.py's)
    monkeypatch.setattr("quercus._small_cv.ENABLED", False)
    from quercus import _fit
    from quercus._fold_bins import FoldBins
    X = _fold_binning_frames()[name]
    y = np.arange(len(X)) % 3
    params = CARTClassifier(pruning="cost_complexity", max_bins=max_bins)
    schema, X_enc = _prepare.fit_schema_and_encode(X, None)
    fold_bins, bins = _fit._fold_binning(params, schema, X_enc)
    binner = FoldBins.of(X_enc, schema.is_categorical, schema.categories, max_bins)
    if len(X) > max_bins:
        assert fold_bins is not None
        return
    assert (fold_bins, bins) == (None, None)
    seen = []
    original = _fit._fold_scorer
    monkeypatch.setattr(_fit, "_fold_scorer", lambda *a: seen.append(a[-1]) or original(*a))
    CARTClassifier(pruning="cost_complexity", max_bins=max_bins, random_state=0).fit(X, y)
    used = seen[0]
    expected = binner.take_rows(np.arange(len(X)))
    assert used.exact and expected.exact
    for field in ("codes", "n_bins", "lo", "hi", "offsets"):
        a, b = getattr(used, field), getattr(expected, field)
        assert a.dtype == b.dtype and a.flags.f_contiguous == b.flags.f_contiguous
        np.testing.assert_array_equal(a, b)


def test_encode_target_without_priority_codes_the_same():
    y = np.array(["b", "a", "c", "a", "b"], dtype=object)
    with_priority = _prepare.encode_target(y, 5)
    without = _prepare.encode_target(y, 5, priority=False)
    assert without[2] is None and with_priority[2].tolist() == [1, 0, 2]
    for a, b in zip(with_priority[:2], without[:2]):
        assert a.dtype == b.dtype and a.tolist() == b.tolist()


def test_a_fit_ranks_its_classes_once(monkeypatch):
    calls = []
    original = _prepare.class_priority
    monkeypatch.setattr(_prepare, "class_priority",
                        lambda *a: calls.append(1) or original(*a))
    X = pd.DataFrame({"x": np.arange(12.0)})
    y = ["yes", "no", "no"] * 4
    est = CARTClassifier().fit(X, y)
    assert len(calls) == 1
    assert est._class_priority.tolist() == [1, 0]  # "yes" seen first


@pytest.mark.parametrize("missing", [False, True])
@pytest.mark.parametrize("max_surrogate", [0, 5])
def test_fold_params_drop_surrogates_only_without_missing_values(monkeypatch, missing,
                                                                 max_surrogate):
    # (the two-call path: a small table's tree and folds grown by one call are
    # test_small_cv.py's)
    monkeypatch.setattr("quercus._small_cv.ENABLED", False)
    from sklearn.base import clone

    from quercus import _fit
    X = pd.DataFrame({"x": np.arange(30.0), "z": np.arange(30.0) % 7})
    if missing:
        X.loc[4, "z"] = np.nan
    y = np.arange(30) % 2
    seen = []
    original = _fit._fold_scorer
    monkeypatch.setattr(_fit, "_fold_scorer", lambda *a: seen.append(a[0]) or original(*a))
    est = CARTClassifier(pruning="cost_complexity", max_surrogate=max_surrogate,
                         random_state=0)
    est.fit(X, y)
    expected = clone(est).set_params(pruning=None, ccp_alpha=0.0, n_jobs=seen[0].n_jobs)
    if max_surrogate and not missing:
        expected.set_params(max_surrogate=0)
    assert seen[0].get_params() == expected.get_params()



def test_a_kernel_fold_with_a_row_of_weight_zero_goes_the_python_way():
    """A fold's rows of weight zero are dropped by fit_encoded, which the kernel folds do
    not do: the kernel scorer hands such a fold back (None), whatever the other rows."""
    from quercus import _fit
    from quercus._binning import bin_features
    from quercus._target import Target
    X = pd.DataFrame({"x": np.arange(20.0), "z": np.arange(20.0) % 3})
    schema, X_enc = _prepare.fit_schema_and_encode(X, None)
    bins = bin_features(X_enc, schema.is_categorical, schema.categories, 255)
    target = Target(False, "gini", np.array(["a", "b"], dtype=object))
    params = CARTClassifier(max_surrogate=0)
    codes = (np.arange(20) % 2).astype(np.int32)
    for zero_rows in ([], [4], [4, 11]):
        w = np.ones(20)
        w[zero_rows] = 0.0
        moments = _fit._fold_scorer(params, schema, target, X_enc, None, w, w, bins)
        for train in (np.arange(2, 20), np.arange(0, 18), np.arange(5, 20)):
            test = np.setdiff1d(np.arange(20), train)
            has_zero = bool((w[train] == 0).any())
            if not has_zero:
                continue  # (scored: needs the table's thresholds)
            labels = (target.classes, codes[train])
            assert moments(train, test, 0.0, None, labels, codes[test]) is None


def test_every_fold_of_positive_weights_is_scored_by_the_kernels(monkeypatch):
    # (the two-call path: a small table's tree and folds grown by one call are
    # test_small_cv.py's)
    monkeypatch.setattr("quercus._small_cv.ENABLED", False)
    from quercus import _fit
    rng = np.random.default_rng(2)
    X = pd.DataFrame({"x": rng.normal(size=60), "z": rng.normal(size=60)})
    y = np.where(X["x"] + 0.5 * rng.normal(size=60) > 0, "a", "b")
    w = rng.uniform(0.5, 2.0, 60)
    outcomes = []
    original = _fit._fold_scorer

    def spy(*args):
        moments = original(*args)
        if moments is None:  # (the Python path's folds, below)
            return None
        return lambda *a: outcomes.append(moments(*a)) or outcomes[-1]

    monkeypatch.setattr(_fit, "_fold_scorer", spy)
    kernel = CARTClassifier(pruning="cost_complexity", random_state=0).fit(
        X, y, sample_weight=w).cp_table_
    assert len(outcomes) == 10 and all(out is not None for out in outcomes)
    monkeypatch.setattr(_fit, "KERNEL_FOLDS", False)
    python = CARTClassifier(pruning="cost_complexity", random_state=0).fit(
        X, y, sample_weight=w).cp_table_
    pd.testing.assert_frame_equal(kernel, python, check_exact=True)


@pytest.mark.parametrize("task", ["two classes", "three classes", "regression"])
def test_folds_grown_in_one_call_give_the_python_folds_table(monkeypatch, subtree_roots,
                                                            task):
    # (the two-call path: a small table's tree and folds grown by one call are
    # test_small_cv.py's)
    monkeypatch.setattr("quercus._small_cv.ENABLED", False)
    from quercus import _fit
    rng = np.random.default_rng(3)
    n = 90
    X = pd.DataFrame({"x": rng.normal(size=n), "z": rng.normal(size=n),
                      "c": pd.Categorical(rng.choice(list("pqr"), n))})
    signal = X["x"] + 0.5 * rng.normal(size=n)
    if task == "regression":
        y, est = signal.to_numpy() * 10, CARTRegressor
    else:
        cuts = [0.0] if task == "two classes" else [-0.5, 0.5]
        y, est = np.array(list("abc"))[np.digitize(signal, cuts)], CARTClassifier
    w = rng.uniform(0.5, 2.0, n)
    fitted = est(pruning="cost_complexity", random_state=0).fit(X, y, sample_weight=w)
    assert sum(subtree_roots) == 10  # (every fold a root of the chunks' calls)
    monkeypatch.setattr(_fit, "KERNEL_FOLDS", False)
    python = est(pruning="cost_complexity", random_state=0).fit(X, y, sample_weight=w)
    pd.testing.assert_frame_equal(fitted.cp_table_, python.cp_table_, check_exact=True)
    assert export_text(fitted) == export_text(python)


@pytest.mark.parametrize("order", ["C", "F"])
def test_a_fold_s_bins_are_taken_a_column_at_a_time_above_the_whole_take_bound(monkeypatch,
                                                                          order):
    # numpy's take of a whole matrix copies the codes and the result in C order, on every
    # fold's thread at once: big folds take a column at a time, to the same codes.
    from quercus import _binning
    rng = np.random.default_rng(0)
    X = np.asarray(rng.integers(0, 300, (500, 7)).astype(float), order=order)
    bins = _binning.bin_features(X, np.zeros(7, dtype=bool), [None] * 7, None)
    rows = np.sort(rng.choice(500, 380, replace=False))
    whole = bins.take_rows(rows)
    monkeypatch.setattr(_binning, "TAKE_WHOLE_MAX_CELLS", 0)
    by_column = bins.take_rows(rows)
    assert by_column.codes.flags.f_contiguous
    np.testing.assert_array_equal(by_column.codes, np.asarray(bins.codes)[rows])
    np.testing.assert_array_equal(by_column.codes, whole.codes)
    assert by_column.codes.dtype == bins.codes.dtype


@pytest.mark.parametrize("n_subtrees", [1, 4, 16, 17, 40])
def test_folds_merged_on_floats_give_the_array_merge_bits(n_subtrees):
    # _merge_all's scalar loop must be _merge_moments' arithmetic in its order: the cp
    # table (and the 1-SE row it picks) may not move by a bit.
    from quercus._pruning import _merge_all, _merge_moments
    rng = np.random.default_rng(n_subtrees)
    for _ in range(30):
        folds = [(int(rng.integers(0, 40)),
                  rng.random(n_subtrees) * rng.choice([1e-9, 1.0, 1e9]),
                  rng.random(n_subtrees) * rng.choice([1e-9, 1.0, 1e9]))
                 for _ in range(int(rng.integers(1, 12)))]
        start = (0, np.zeros(n_subtrees), np.zeros(n_subtrees))
        expected = start
        for fold in folds:
            expected = _merge_moments(expected, fold)
        n, mean, m2 = _merge_all(start, folds)
        assert n == expected[0]
        assert mean.tobytes() == expected[1].tobytes()
        assert m2.tobytes() == expected[2].tobytes()


@pytest.mark.parametrize("task", ["class", "regression"])
def test_pruning_in_place_along_the_table_s_path_is_pruning_a_copy(task):
    from quercus._kernels.schema import LEAF
    from quercus._pruning import prune_at_alpha, prune_to_row, weakest_links_of
    from quercus._target import Target
    from quercus._tree import TreeArrays
    X, y = _cv_data(task)
    est = (CARTClassifier() if task == "class" else CARTRegressor()).fit(X, y)
    target, grown = Target.of(est), est.tree_
    fields = TreeArrays.__dataclass_fields__
    for loss in ("impurity", "error"):
        links = weakest_links_of(target, grown, loss)
        path = (links[0], links[1], links[4])
        assert len(path[0]) > 2
        for row in range(len(path[0])):
            copy = TreeArrays(**{k: getattr(grown, k).copy() for k in fields})
            expected, report = prune_to_row(target, grown, row, loss)
            got, got_report = prune_to_row(target, copy, row, loss, path=path,
                                           in_place=True)
            assert got is copy and got_report == report
            for k in fields:
                np.testing.assert_array_equal(getattr(got, k), getattr(expected, k))
        alpha = float(path[0][len(path[0]) // 2])
        copy = TreeArrays(**{k: getattr(grown, k).copy() for k in fields})
        expected, report = prune_at_alpha(target, grown, alpha, loss)
        got, got_report = prune_at_alpha(target, copy, alpha, loss, path=path, in_place=True)
        assert got is copy and got_report == report
        np.testing.assert_array_equal(got.kind, expected.kind)
        assert (grown.kind != LEAF).sum() > (got.kind != LEAF).sum()


def _cv_data(task):
    """Noisy data whose full tree has a long weakest-link path."""
    rng = np.random.default_rng(5)
    n = 120
    X = np.column_stack([rng.normal(size=n), rng.normal(size=n)])
    signal = X[:, 0] + rng.normal(size=n)
    return X, (signal * 10 if task == "regression" else (signal > 0).astype(int))


@pytest.mark.parametrize("missing", [0, 3])
@pytest.mark.parametrize("regression", [False, True])
def test_presorted_histogram_totals_are_the_known_bins_totals(missing, regression):
    # The totals summed as the bins close must be _totals' sums of the known bins, bit
    # for bit: the scan's right branch is total - left.
    from quercus._kernels.criteria import GINI, SQUARED_ERROR
    from quercus._kernels.histograms import sorted_histogram_into
    from quercus._kernels.splits import _totals
    rng = np.random.default_rng(7 + missing)
    n, n_bins = 60, 9
    codes = rng.integers(0, n_bins, n).astype(np.uint8)
    codes[rng.choice(n, missing, replace=False)] = n_bins  # (the missing code)
    idx = rng.permutation(n).astype(np.int64)[:45]
    wi = rng.uniform(0.1, 3.0, idx.size)
    y = rng.normal(size=n) * 1e3 if regression else rng.integers(0, 3, n).astype(float)
    criterion, n_stats = (SQUARED_ERROR, 3) if regression else (GINI, 3)
    order = np.argsort(codes[idx], kind="stable").astype(np.uint16)
    bins, counts = np.empty(idx.size, np.int64), np.empty((idx.size, n_stats))
    counts_n = np.empty(idx.size, np.int64)
    total = np.full(n_stats, np.nan)
    nb = sorted_histogram_into(codes, order, idx, wi, y, y * y, criterion, bins, counts,
                               counts_n, None, total, n_bins)
    nk = nb - 1 if bins[nb - 1] == n_bins else nb
    assert (nk < nb) == (np.isin(idx, np.flatnonzero(codes == n_bins)).any())
    expected = np.empty(n_stats)
    _totals(counts[:nk], counts_n[:nk], expected)
    assert total.tobytes() == expected.tobytes()


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("with_keep", [False, True])
@pytest.mark.parametrize("task", ["regression", "two classes"])
def test_open_bin_sums_in_scalars_are_the_row_by_row_histogram(task, with_keep, compiled):
    # sorted_histogram_into keeps an open bin's regression sums, or its two classes'
    # weights, in scalars; they must be the row-by-row sums bit for bit, ties and the
    # missing bin included, and skip the rows ``keep`` drops. sorted_histogram (a bigger
    # node's) makes its histogram with it.
    import numba
    from quercus._kernels.criteria import GINI, SQUARED_ERROR
    from quercus._kernels.histograms import sorted_histogram, sorted_histogram_into
    rng = np.random.default_rng(11)
    n, n_bins = 80, 6  # (few bins: many rows share one)
    codes = rng.integers(0, n_bins + 1, n).astype(np.uint8)  # (n_bins: the missing code)
    idx = rng.permutation(n).astype(np.int64)[:70]
    wi = rng.uniform(0.1, 3.0, idx.size)
    if task == "regression":
        y, criterion, n_stats = rng.normal(size=n) * 1e3, SQUARED_ERROR, 3
    else:
        y, criterion, n_stats = rng.integers(0, 2, n).astype(float), GINI, 2
    order = np.argsort(codes[idx], kind="stable").astype(np.uint16)
    keep = (rng.integers(-1, 2, idx.size) if with_keep else np.zeros(idx.size)).astype(
        np.int64)
    kept = order[keep[order] >= 0]
    # The reference: each row added to its bin's row in memory, in the order's sequence.
    exp_bins, exp_n = np.unique(codes[idx[kept]], return_counts=True)
    exp_counts = np.zeros((exp_bins.size, n_stats))
    for pos in kept:
        j = int(np.searchsorted(exp_bins, codes[idx[pos]]))
        row = idx[pos]
        if task == "regression":
            exp_counts[j, 0] += wi[pos]
            exp_counts[j, 1] += wi[pos] * y[row]
            exp_counts[j, 2] += wi[pos] * (y[row] * y[row])
        else:
            exp_counts[j, int(y[row])] += wi[pos]

    def run(codes, order, idx, wi, y, y2, bins, counts, n_out, keep, total):
        return sorted_histogram_into(codes, order, idx, wi, y, y2, criterion, bins,
                                     counts, n_out, keep, total, n_bins)
    if compiled:
        run = numba.njit(run)
    bins, counts = np.empty(idx.size, np.int64), np.full((idx.size, n_stats), np.nan)
    n_out, total = np.empty(idx.size, np.int64), np.full(n_stats, np.nan)
    nb = run(codes, order, idx, wi, y, y * y, bins, counts, n_out,
             keep if with_keep else None, total)
    assert nb == exp_bins.size and exp_bins[-1] == n_bins  # (the missing bin present)
    np.testing.assert_array_equal(bins[:nb], exp_bins)
    np.testing.assert_array_equal(n_out[:nb], exp_n)
    assert counts[:nb].tobytes() == exp_counts.tobytes()
    known = np.zeros(n_stats)
    for j in range(nb - 1):  # (the known bins' totals, in bin order)
        known += exp_counts[j]
    assert total.tobytes() == known.tobytes()
    big = sorted_histogram if not compiled else numba.njit(
        lambda *a: sorted_histogram(*a))
    got_bins, got_counts, got_n = big(codes, kept, idx, wi, y, y * y, n_stats, criterion)
    np.testing.assert_array_equal(got_bins, exp_bins)
    np.testing.assert_array_equal(got_n, exp_n)
    assert got_counts.tobytes() == exp_counts.tobytes()


@pytest.mark.parametrize("compiled", [False, True])
def test_scratch_histograms_are_cleared_and_match_fresh_ones(compiled):
    # The subtree kernel's split search writes every small dense histogram into one
    # scratch, node after node: each must be the histogram of fresh arrays, whatever a
    # bigger one left in the scratch before it (its rows are cleared, not assumed zero).
    import numba
    from quercus._kernels.criteria import GINI
    from quercus._kernels.histograms import (compact_histogram, compact_histogram_into,
                                             dense_histogram_into)
    rng = np.random.default_rng(5)
    n, n_stats = 60, 3
    y = rng.integers(0, n_stats, n).astype(float)
    wi_all = rng.uniform(0.1, 2.0, n)
    dense = dense_histogram_into if not compiled else numba.njit(
        lambda *a: dense_histogram_into(*a))
    into = compact_histogram_into if not compiled else numba.njit(
        lambda *a: compact_histogram_into(*a))
    rows = 12
    bins = np.full(rows, -7, np.int64)
    counts = np.full((rows, n_stats), np.nan)
    n_out = np.full(rows, -7, np.int64)
    for n_bins in (11, 4, 7, 2):  # (the bigger ones first: leftovers in the rows after)
        codes = rng.integers(0, n_bins, n).astype(np.uint8)
        idx = rng.permutation(n)[:40].astype(np.int64)
        wi = wi_all[:idx.size]
        exp = np.zeros((n_bins, n_stats))
        exp_n = np.zeros(n_bins, np.int64)
        for i, s in enumerate(idx):  # (sample order, as every histogram sums)
            exp[codes[s], int(y[s])] += wi[i]
            exp_n[codes[s]] += 1
        present = np.flatnonzero(exp_n)
        nb = dense(codes, idx, wi, y, y, n_bins, GINI, bins, counts, n_out)
        assert nb == present.size
        np.testing.assert_array_equal(bins[:nb], present)
        np.testing.assert_array_equal(n_out[:nb], exp_n[present])
        assert counts[:nb].tobytes() == exp[present].tobytes()
        # A node's dense histogram (build_histograms') copied into the same scratch.
        exp_bins, exp_counts, exp_nn = compact_histogram(exp, exp_n)
        nb = into(exp, exp_n, bins, counts, n_out)
        assert nb == exp_bins.size
        np.testing.assert_array_equal(bins[:nb], exp_bins)
        np.testing.assert_array_equal(n_out[:nb], exp_nn)
        assert counts[:nb].tobytes() == exp_counts.tobytes()


@pytest.mark.parametrize("y", [
    np.array(["是", "否", "否", "是", "maybe"]),               # fixed-width strings
    np.array(["b ", "b", "a", "b ", "a"]),                    # (trailing blanks kept)
    np.array([3, -1, 3, 7, -1], dtype=np.int8),
    np.array([10**12, 5, 5, 10**12, 0], dtype=np.uint64),
    np.array([True, False, False, True, True]),
], ids=["str", "blanks", "int8", "uint64", "bool"])
def test_short_labels_are_coded_by_sorting_as_by_hashing(monkeypatch, y):
    sorted_ = _prepare.encode_target(y, len(y))
    monkeypatch.setattr(_prepare, "SORT_LABELS_MAX_ROWS", -1)  # every column hashed
    hashed = _prepare.encode_target(y, len(y))
    for a, b in zip(sorted_, hashed):
        assert a.dtype == b.dtype and a.tolist() == b.tolist()


def _few_labels():
    rng = np.random.default_rng(7)
    words = np.array(["是", "否", "b ", "b", "A", "a", "z", "中"])
    out = []
    for n in (1, 2, 5, 17, 64):
        codes = rng.integers(0, 6, size=n)
        out += [words[codes], (codes - 3).astype(np.int8), codes.astype(np.uint64) * 10**12,
                codes % 2 == 1]
    return out


@pytest.mark.parametrize("y", _few_labels())
def test_few_labels_are_coded_on_python_values_as_by_numpy(monkeypatch, y):
    """Up to FEW_LABELS_MAX_ROWS labels are coded and ranked on Python values: the same
    classes (dtype included), codes and first-appearance ranks as NumPy's way."""
    few = _prepare.encode_target(y, len(y))
    monkeypatch.setattr(_prepare, "FEW_LABELS_MAX_ROWS", -1)
    numpy_way = _prepare.encode_target(y, len(y))
    for a, b in zip(few, numpy_way):
        assert a.dtype == b.dtype and a.tolist() == b.tolist()
    for extra in (0, 2):  # (classes absent from the rows rank last, in class order)
        n_classes = len(few[0]) + extra
        monkeypatch.setattr(_prepare, "FEW_LABELS_MAX_ROWS", 64)
        ours = _prepare.class_priority(few[1], n_classes)
        monkeypatch.setattr(_prepare, "FEW_LABELS_MAX_ROWS", -1)
        theirs = _prepare.class_priority(few[1], n_classes)
        assert ours.dtype == theirs.dtype and ours.tolist() == theirs.tolist()


def test_frame_dtypes_are_the_columns_dtypes_in_order():
    X = pd.DataFrame({"a": [1.5, 2.0], "b": [1, 2], "c": pd.Categorical(["x", "y"]),
                      "d": ["u", "v"], "e": np.array([1, 2], dtype=np.float32),
                      "f": [0.5, np.nan]})
    X = X[["f", "c", "a", "e", "d", "b"]]  # (columns out of their blocks' order)
    assert list(_prepare.frame_dtypes(X)) == list(X.dtypes)
    assert not _prepare.is_float_matrix(X)
    assert _prepare.is_float_matrix(X[["f", "a"]])
    assert _prepare._float32_view(X[["e"]]) is not None


@pytest.mark.parametrize("dtype", [object, "str"])
def test_feature_names_are_an_array_of_their_own(dtype):
    X = pd.DataFrame({"a": [0.0, 1.0, 2.0, 3.0], "b": [1.0, 0.0, 1.0, 0.0]})
    X.columns = pd.Index(["a", "b"], dtype=dtype)
    est = CARTClassifier().fit(X, [0, 1, 0, 1])
    names = est.feature_names_in_
    assert names.dtype == object and names.tolist() == ["a", "b"]
    assert names.flags.writeable and not np.shares_memory(names, X.columns.to_numpy())


def test_folds_of_a_seed_are_its_own_whatever_was_dealt_before_and_on_any_thread():
    """The folds' generator of an integer seed is reused, seeded afresh each time: the
    folds of a seed are scikit-learn's for that seed after other seeds' folds were dealt,
    on the same thread or on several at once."""
    from concurrent.futures import ThreadPoolExecutor

    from quercus import _pruning
    codes = np.repeat([0, 1, 2], [20, 25, 15])
    np.random.default_rng(1).shuffle(codes)

    def theirs(seed, y):
        return list(_pruning.default_folds(10, 60, y, seed).split(np.zeros(60), y))

    want = {(seed, strat): theirs(seed, codes if strat else None)
            for seed in (0, 5, 2**32 - 1) for strat in (False, True)}
    jobs = list(want) * 20
    np.random.default_rng(2).shuffle(jobs)

    def ours(job):
        seed, strat = job
        return _pruning.default_splits(10, 60, codes if strat else None, seed)

    for many in (False, True):
        if many:
            with ThreadPoolExecutor(4) as pool:
                got = list(pool.map(ours, jobs))
        else:
            got = [ours(job) for job in jobs]
        for job, folds in zip(jobs, got):
            for (a_train, a_test), (b_train, b_test) in zip(folds, want[tuple(job)]):
                np.testing.assert_array_equal(a_train, b_train)
                np.testing.assert_array_equal(a_test, b_test)
