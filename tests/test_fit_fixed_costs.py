"""The shortcuts that cut a small fit's fixed Python cost give what the long way gives:
the same arrays, the same checks and messages, the same trees and tables."""

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
