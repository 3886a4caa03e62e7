"""Histogram binning shares its numeric columns out to the fit's threads: the bins, and so
the tree, are the same byte for byte whatever the number of threads; exact binning, codes
that may widen and small inputs stay on one thread."""

import threading

import numba
import numpy as np
import pandas as pd
import pytest

import quercus._binning as binning
from quercus import CARTClassifier
from quercus._binning import bin_features
from quercus._fit import numba_threads
from quercus._kernels.schema import ALL_FIELDS

needs_two = pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2,
                               reason="numba runs on one thread here")

N = 30_000  # with 6 columns, above binning.THREADS_MIN_CELLS


def bins_with(threads, *args, **kwargs):
    with numba_threads(threads):
        return bin_features(*args, **kwargs)


def assert_same_bins(a, b):
    for name in ("codes", "n_bins", "lo", "hi", "offsets"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.shape == y.shape, name
        assert np.ascontiguousarray(x).tobytes() == np.ascontiguousarray(y).tobytes(), name
    assert a.codes.flags.f_contiguous and b.codes.flags.f_contiguous
    assert a.exact == b.exact
    assert (a.source is None) == (b.source is None)


def numeric_matrix(dtype, n=N, seed=0):
    """Columns of every kind binning meets: continuous (quantile edges), few distinct
    values, a heavy value, missing values, a constant, and one column of 300 values (more
    than 255 bins in exact mode)."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([
        rng.normal(size=n),
        rng.integers(0, 7, size=n),
        np.where(rng.random(n) < 0.4, 0.0, rng.exponential(size=n)),
        rng.normal(size=n),
        np.full(n, 3.0),
        rng.integers(0, 300, size=n),
    ]).astype(dtype)
    X[rng.random(n) < 0.1, 0] = np.nan
    X[rng.random(n) < 0.5, 3] = np.nan
    return X


def column_threads(monkeypatch):
    """The threads that bin a column, recorded by the next binning."""
    seen = set()
    original = binning._column_bins

    def spy(*args):
        seen.add(threading.get_ident())
        return original(*args)

    monkeypatch.setattr(binning, "_column_bins", spy)
    return seen


@needs_two
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("max_bins", [255, 32, 2])
@pytest.mark.parametrize("order", ["C", "F"])
def test_histogram_bins_do_not_depend_on_threads(dtype, max_bins, order, monkeypatch):
    X = np.asarray(numeric_matrix(dtype), order=order)
    if dtype == np.float32:
        X = X.astype(np.float64, order=order)  # as the fit gathers a float32 matrix
    cats = [None] * X.shape[1]
    is_cat = np.zeros(X.shape[1], dtype=bool)
    one = bins_with(1, X, is_cat, cats, max_bins)
    seen = column_threads(monkeypatch)
    two = bins_with(2, X, is_cat, cats, max_bins)
    assert len(seen) == 2
    assert_same_bins(one, two)
    assert not one.exact


@needs_two
def test_threaded_codes_are_the_ranks_and_quantiles():
    # Against numpy, not only against one thread: a column of 7 values keeps a bin each, a
    # continuous one gets 255 quantile bins holding x <= edge, a missing value the last code.
    X = numeric_matrix(np.float64)
    b = bins_with(2, X, np.zeros(6, dtype=bool), [None] * 6, 255)
    assert b.codes.dtype == np.uint8
    uniq, rank = np.unique(X[:, 1], return_inverse=True)
    assert b.n_bins[1] == 7 and (b.codes[:, 1] == rank).all()
    known = ~np.isnan(X[:, 0])
    assert b.n_bins[0] == 255 and (b.codes[~known, 0] == 255).all()
    lo, hi = b.lo[b.offsets[0]:b.offsets[1]], b.hi[b.offsets[0]:b.offsets[1]]
    codes = b.codes[known, 0]
    for k in (0, 100, 254):
        assert X[known, 0][codes == k].min() == lo[k] and X[known, 0][codes == k].max() == hi[k]
    assert (np.diff(hi) > 0).all() and (hi[:-1] < lo[1:]).all()


@needs_two
@pytest.mark.parametrize("max_bins", [None, 255])
def test_lazy_bins_do_not_depend_on_threads(max_bins):
    X = numeric_matrix(np.float64)
    X[:, 1] = np.random.default_rng(1).normal(size=N)  # many values: no table when lazy
    cats, is_cat = [None] * 6, np.zeros(6, dtype=bool)
    one = bins_with(1, X, is_cat, cats, max_bins, lazy=True)
    two = bins_with(2, X, is_cat, cats, max_bins, lazy=True)
    assert_same_bins(one, two)
    if max_bins is None:  # (quantile bins keep their tables)
        assert one.source is X and two.source is X


@needs_two
@pytest.mark.parametrize("max_bins", [None, 255])
def test_categorical_column_bins_do_not_depend_on_threads(max_bins):
    X = numeric_matrix(np.float64)
    rng = np.random.default_rng(2)
    X[:, 2] = rng.integers(0, 4, size=N)  # category codes
    X[rng.random(N) < 0.05, 2] = np.nan
    is_cat = np.array([False, False, True, False, False, False])
    cats = [None, None, np.array(list("abcd")), None, None, None]
    one = bins_with(1, X, is_cat, cats, max_bins)
    two = bins_with(2, X, is_cat, cats, max_bins)
    assert_same_bins(one, two)
    assert one.n_bins[2] == 4


@needs_two
def test_sampled_edges_do_not_depend_on_threads(monkeypatch):
    # Columns longer than the edge sample: their edges come from a sample, the others'
    # from every value.
    n = binning._EDGE_SAMPLE + 20_000
    rng = np.random.default_rng(3)
    X = np.column_stack([rng.normal(size=n), rng.integers(0, 9, size=n),
                         rng.exponential(size=n)])
    X[rng.random(n) < 0.2, 2] = np.nan
    cats, is_cat = [None] * 3, np.zeros(3, dtype=bool)
    one = bins_with(1, X, is_cat, cats, 255)
    seen = column_threads(monkeypatch)
    two = bins_with(2, X, is_cat, cats, 255)
    assert len(seen) == 2
    assert_same_bins(one, two)
    assert not one.exact


@pytest.mark.parametrize("max_bins", [None, 1000])
def test_bins_that_may_widen_the_codes_stay_on_one_thread(max_bins, monkeypatch):
    # Exact bins (up to a value a row) and more than 255 histogram bins over uint8 codes:
    # a column may widen the code matrix part way, so the columns go in order.
    seen = column_threads(monkeypatch)
    X = numeric_matrix(np.float64)
    b = bins_with(2, X, np.zeros(6, dtype=bool), [None] * 6, max_bins)
    assert b.codes.dtype == np.uint16 and seen == {threading.get_ident()}


def test_small_input_stays_on_one_thread(monkeypatch):
    seen = column_threads(monkeypatch)
    X = numeric_matrix(np.float64, n=5_000)
    bins_with(numba.config.NUMBA_NUM_THREADS, X, np.zeros(6, dtype=bool), [None] * 6, 255)
    assert seen == {threading.get_ident()}


def test_one_thread_bins_in_the_calling_thread(monkeypatch):
    seen = column_threads(monkeypatch)
    X = numeric_matrix(np.float64)
    bins_with(1, X, np.zeros(6, dtype=bool), [None] * 6, 255)
    assert seen == {threading.get_ident()}


def fitted_arrays(X, y, threads, **params):
    tree = CARTClassifier(n_jobs=threads, **params).fit(X, y).tree_
    return {f.name: getattr(tree, f.name) for f in ALL_FIELDS}


@needs_two
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_tree_does_not_depend_on_threads(dtype):
    X = numeric_matrix(dtype)
    y = ((np.nan_to_num(X[:, 0]) + X[:, 1] / 3 + X[:, 5] / 100) > 1.5).astype(int)
    one = fitted_arrays(X, y, 1, max_depth=8)
    two = fitted_arrays(X, y, 2, max_depth=8)
    for name, arr in one.items():
        assert arr.dtype == two[name].dtype and arr.tobytes() == two[name].tobytes(), name


@needs_two
def test_tree_from_a_frame_does_not_depend_on_threads():
    X = numeric_matrix(np.float64)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(6)])
    frame["c"] = pd.Categorical(np.random.default_rng(4).choice(list("pqr"), size=N))
    y = ((np.nan_to_num(X[:, 0]) + (frame["c"] == "q")) > 0.7).astype(int)
    one = fitted_arrays(frame, y, 1, max_depth=6)
    two = fitted_arrays(frame, y, 2, max_depth=6)
    for name, arr in one.items():
        assert arr.tobytes() == two[name].tobytes(), name
