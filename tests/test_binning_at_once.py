"""A small table whose every numeric column gets exact bins is binned by one kernel call:
the bins are byte for byte the column-by-column path's, and the column path still bins
what the kernel cannot (more rows than ``max_bins``, a -0.0, too many rows)."""

import numpy as np
import pytest

import quercus
import quercus._binning as binning
from quercus._binning import bin_features


def column_path(monkeypatch, *args):
    monkeypatch.setattr(binning, "SMALL_EXACT_MAX_CELLS", -1)
    bins = bin_features(*args)
    monkeypatch.undo()
    return bins


def assert_same_bins(a, b):
    for name in ("codes", "n_bins", "lo", "hi", "offsets"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.shape == y.shape, name
        assert np.ascontiguousarray(x).tobytes() == np.ascontiguousarray(y).tobytes(), name
    assert a.codes.flags.f_contiguous and b.codes.flags.f_contiguous
    assert (a.lo is a.hi) == (b.lo is b.hi)
    assert (a.source is None) == (b.source is None)


def table(seed, n, dtype, order, missing):
    """Numeric columns of few and of many values, a constant, an all-missing one, and two
    categorical columns (one with missing codes)."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([
        rng.normal(size=n).round(2) + 0.0,  # (+ 0.0: no -0.0)
        rng.integers(0, 5, size=n),
        np.full(n, 2.5),
        np.full(n, np.nan),
        rng.integers(0, 3, size=n),
        rng.integers(0, 4, size=n),
        rng.exponential(size=n).round(1),  # (fewer than 255 values)
    ]).astype(dtype)
    if missing:
        X[rng.random(n) < 0.2, 0] = np.nan
        X[rng.random(n) < 0.3, 5] = np.nan
    is_cat = np.array([False, False, False, False, True, True, False])
    categories = [None, None, None, None, [0, 1, 2], [0, 1, 2, 3], None]
    return np.asarray(X, order=order), is_cat, categories


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("missing", [False, True])
@pytest.mark.parametrize("n,max_bins", [(1, 255), (17, None), (140, 200), (255, 255),
                                        (300, None), (1024, None)])
@pytest.mark.parametrize("columns", ["all", "numeric", "categorical"])
@pytest.mark.parametrize("jit", ["compile", "interpret"])
def test_small_table_binned_by_one_kernel_call_gives_the_column_path_s_bins(
        dtype, order, missing, n, max_bins, columns, jit, monkeypatch):
    X, is_cat, categories = table(n, n, dtype, order, missing)
    keep = {"all": np.arange(7), "numeric": np.flatnonzero(~is_cat),
            "categorical": np.flatnonzero(is_cat)}[columns]
    X, is_cat = np.asarray(X[:, keep], order=order), is_cat[keep]
    categories = [categories[j] for j in keep]
    seen = []
    for name in ("_code_rows", "_column_bins"):
        monkeypatch.setattr(binning, name,
                            lambda *a, _f=getattr(binning, name): seen.append(1) or _f(*a))
    with quercus.config_context(jit=jit):
        fast = bin_features(X, is_cat, categories, max_bins)
    assert not seen  # (one kernel call)
    monkeypatch.undo()
    assert_same_bins(fast, column_path(monkeypatch, X, is_cat, categories, max_bins))


@pytest.mark.parametrize("case", ["more rows than max_bins", "negative zero", "many rows"])
def test_what_the_shortcut_cannot_bin_goes_column_by_column(case, monkeypatch):
    n = 1025 if case == "many rows" else 200
    X, is_cat, categories = table(3, n, np.float64, "C", True)
    max_bins = None
    if case == "more rows than max_bins":
        max_bins = 100
    elif case == "negative zero":  # (in the last column: the columns before it binned)
        X[:5, 6] = -0.0
        X[5:9, 6] = 0.0
    seen = []
    original = binning._column_bins
    monkeypatch.setattr(binning, "_column_bins", lambda *a: seen.append(1) or original(*a))
    bins = bin_features(X, is_cat, categories, max_bins)
    assert seen
    assert_same_bins(bins, column_path(monkeypatch, X, is_cat, categories, max_bins))
