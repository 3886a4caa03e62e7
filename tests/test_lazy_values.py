"""Exact bins without value tables: a long continuous column of the caller's float64 array
keeps only its codes (the ranks of its values), and a split's threshold is read from the
array over the node's rows. The trees, explanations and re-pruning must be those of the
value tables, and the fits that cannot read the array must keep the tables."""

import json

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus import _binning
from quercus._binning import bin_features, can_read_values, lazy_features
from quercus._kernels.splits import resolve_threshold
from quercus._kernels.thresholds import midpoint
from quercus.export import export_dict


@pytest.fixture
def few_values(monkeypatch):
    """Columns of more than 50 distinct values go lazy (the fits here are small)."""
    monkeypatch.setattr(_binning, "LAZY_MIN_VALUES", 50)


def _data(n=600, p=5, seed=0, missing=0.1, regression=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    X[:, 1] = np.round(2 * X[:, 1], 1)  # ~100 distinct values: lazy, with ties
    X[:, 2] = rng.integers(0, 6, n)  # 6 values: keeps its table
    X[rng.random(X.shape) < missing] = np.nan
    signal = np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) * np.nan_to_num(X[:, 2])
    y = signal + rng.normal(scale=0.3, size=n)
    return X, (np.abs(y) if regression else (y > 0.2).astype(int) + (y > 1.5))


def _tree_json(est):
    return json.dumps(export_dict(est), sort_keys=True)


def _fit_both(monkeypatch, make, X, y, **fit):
    """The same fit with value tables everywhere, then with lazy columns; the lazy fit's
    data must really be lazy, or the comparison would prove nothing."""
    monkeypatch.setattr(_binning, "LAZY_MIN_VALUES", 10**9)
    tables = make().fit(X, y, **fit)
    monkeypatch.setattr(_binning, "LAZY_MIN_VALUES", 50)
    lazy = make().fit(X, y, **fit)
    data = lazy._explain_data
    assert data.source is not None
    assert lazy_features(data.is_cat, data.n_bins, data.bin_offsets).size >= 2
    return tables, lazy


def test_a_lazy_column_keeps_its_codes_and_no_values(few_values):
    X, _ = _data(missing=0.0)
    full = bin_features(X, np.zeros(5, bool), [None] * 5)
    lazy = bin_features(X, np.zeros(5, bool), [None] * 5, lazy=True)
    assert np.array_equal(full.codes, lazy.codes) and np.array_equal(full.n_bins, lazy.n_bins)
    assert lazy_features(np.zeros(5, bool), lazy.n_bins, lazy.offsets).tolist() == [0, 1, 3, 4]
    # Column 2 (6 values) keeps its table, at its place in the (shorter) table.
    assert lazy.hi[lazy.offsets[2]:lazy.offsets[3]].tolist() == [0, 1, 2, 3, 4, 5]
    assert lazy.source is X and full.source is None


def test_binning_without_lazy_columns_refers_to_no_matrix():
    X, _ = _data()
    bins = bin_features(X, np.zeros(5, bool), [None] * 5, lazy=True)  # all below 4096
    assert bins.source is None and lazy_features(np.zeros(5, bool), bins.n_bins,
                                                 bins.offsets).size == 0


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("mapped", [False, True])
def test_resolve_threshold_is_the_midpoint_of_the_node_s_values_around_the_split(order,
                                                                                  mapped,
                                                                                  dtype):
    rng = np.random.default_rng(1)
    col = np.round(rng.normal(size=400), 2)
    col[rng.random(400) < 0.1] = np.nan
    X = np.asarray(np.column_stack([rng.normal(size=400), col]), order=order, dtype=dtype)
    rows = rng.permutation(400) if mapped else np.zeros(0, dtype=np.int64)
    seen = (X[rows, 1] if mapped else X[:, 1]).astype(np.float64)  # sample i's value
    b = bin_features(seen[:, None], np.array([False]), [None])
    codes, missing = b.codes[:, 0], int(b.n_bins[0])
    flat = X.reshape(-1, order="A")
    none64, none32 = np.zeros(0), np.zeros(0, dtype=np.float32)
    flat = (flat, none32) if dtype == np.float64 else (none64, flat)
    strides = (2, 1) if order == "C" else (1, 400)
    for _ in range(50):
        idx = np.sort(rng.choice(400, size=60, replace=False)).astype(np.int64)
        known = idx[codes[idx] < missing]
        split = int(rng.choice(np.unique(codes[known])[:-1]))
        left = seen[known][codes[known] <= split]
        right = seen[known][codes[known] > split]
        got = resolve_threshold(codes, idx, split, missing, flat, *strides, rows, 1)
        assert got == midpoint(left.max(), right.min())


@pytest.mark.parametrize("make", [
    lambda: quercus.CARTClassifier(max_bins=None),  # surrogates: resolved and routed by X
    lambda: quercus.CARTClassifier(max_bins=None, max_surrogate=0),  # the subtree kernel
    lambda: quercus.C45Classifier(max_bins=None),  # fractional rows, pessimistic pruning
    lambda: quercus.DecisionTreeClassifier(max_bins=None, missing_strategy="learned",
                                           class_weight="balanced"),
    lambda: quercus.CARTClassifier(max_bins=None, max_features=3, random_state=0),
    lambda: quercus.CARTClassifier(max_bins=None, pruning="cost_complexity",
                                   ccp_alpha=0.01, max_surrogate=0),
], ids=["surrogates", "subtree kernel", "c4.5", "learned", "max_features", "ccp_alpha"])
@pytest.mark.parametrize("order", ["C", "F"])
def test_classifiers_grow_the_same_tree_with_or_without_value_tables(monkeypatch, make,
                                                                     order):
    X, y = _data()
    tables, lazy = _fit_both(monkeypatch, make, np.asarray(X, order=order), y)
    assert _tree_json(tables) == _tree_json(lazy)


@pytest.mark.parametrize("criterion", ["squared_error", "absolute_error", "poisson"])
@pytest.mark.parametrize("max_surrogate", [0, 3])
def test_regressors_grow_the_same_tree_with_or_without_value_tables(monkeypatch, criterion,
                                                                    max_surrogate):
    X, y = _data(regression=True)
    make = lambda: quercus.CARTRegressor(max_bins=None, criterion=criterion,  # noqa: E731
                                         max_surrogate=max_surrogate, max_depth=8)
    tables, lazy = _fit_both(monkeypatch, make, X, y)
    assert _tree_json(tables) == _tree_json(lazy)


def test_zero_weight_rows_map_samples_to_their_rows_of_the_matrix(monkeypatch):
    X, y = _data()
    w = np.random.default_rng(3).choice([0.0, 1.0, 2.5], size=len(y))
    make = lambda: quercus.CARTClassifier(max_bins=None)  # noqa: E731
    tables, lazy = _fit_both(monkeypatch, make, X, y, sample_weight=w)
    assert lazy._explain_data.source_rows is not None
    assert _tree_json(tables) == _tree_json(lazy)


def test_explain_and_prune_read_the_lazy_columns_values_from_the_matrix(monkeypatch):
    X, y = _data()
    make = lambda: quercus.CARTClassifier(max_bins=None)  # noqa: E731
    tables, lazy = _fit_both(monkeypatch, make, X, y)
    for node in (0, 1, 2):
        pd.testing.assert_frame_equal(tables.explain(node), lazy.explain(node))
    a = quercus.prune(tables, "cost_complexity", ccp_alpha=0.01)
    b = quercus.prune(lazy, "cost_complexity", ccp_alpha=0.01)
    assert _tree_json(a) == _tree_json(b)


def _uses_lazy(est):
    data = est._explain_data
    return data.source is not None


@pytest.mark.parametrize("case", ["random splitter", "cross-validated pruning",
                                  "frame with a category", "read-only array",
                                  "column slice", "hold-out"])
def test_fits_that_cannot_read_the_matrix_keep_their_value_tables(few_values, case):
    X, y = _data()
    est = quercus.CARTClassifier(max_bins=None, random_state=0)
    if case == "random splitter":
        est.set_params(splitter="random")
    elif case == "cross-validated pruning":
        est.set_params(pruning="cost_complexity", cv=3)
    elif case == "frame with a category":  # its numbers are gathered into a copy
        X = pd.DataFrame(X, columns=list("abcde")).assign(f=pd.Categorical(y % 2))
    elif case == "read-only array":
        X.setflags(write=False)
    elif case == "column slice":
        X = np.hstack([X, X])[:, :5]
    elif case == "hold-out":
        est.set_params(pruning="reduced_error")
    assert not can_read_values(X) or case not in ("read-only array", "column slice")
    est.fit(X, y)
    assert not _uses_lazy(est)
    data = est._explain_data
    assert lazy_features(data.is_cat, data.n_bins, data.bin_offsets).size == 0


@pytest.mark.parametrize("pruning", [None, "pessimistic"])
def test_a_data_frame_s_float_block_is_read_as_the_caller_s_array(monkeypatch, pruning):
    X, y = _data()
    frame = pd.DataFrame(X, columns=list("abcde"))
    make = lambda: quercus.DecisionTreeClassifier(max_bins=None,  # noqa: E731
                                                  pruning=pruning)
    tables, lazy = _fit_both(monkeypatch, make, frame, y)
    assert np.shares_memory(lazy._explain_data.source, frame["a"].to_numpy())
    assert _tree_json(tables) == _tree_json(lazy)


@pytest.mark.parametrize("pruning", [None, "pessimistic"])
@pytest.mark.parametrize("how", ["read-only view", "DataFrame.to_numpy"])
def test_a_read_only_view_of_writable_memory_is_read_as_it_is(monkeypatch, how, pruning):
    # pandas 3 (copy-on-write) hands out DataFrame.to_numpy() as a read-only view of its
    # block: a fit on it kept value tables beside it (8 bytes a cell, 2.5 times the exact
    # fit's peak at 750k x 50) until such views were read through a writable view.
    X, y = _data()
    if how == "read-only view":
        arr = X.view()
        arr.setflags(write=False)
    else:
        arr = pd.DataFrame(X, columns=list("abcde")).to_numpy()  # read-only under
    writeable = arr.flags.writeable                               # copy-on-write
    make = lambda: quercus.DecisionTreeClassifier(max_bins=None,  # noqa: E731
                                                  pruning=pruning)
    tables, lazy = _fit_both(monkeypatch, make, arr, y)
    assert np.shares_memory(lazy._explain_data.source, arr)
    assert arr.flags.writeable == writeable  # the caller's array as it was
    assert _tree_json(tables) == _tree_json(lazy)


@pytest.mark.parametrize("pruning", [None, "pessimistic"])
def test_a_frame_of_several_blocks_is_read_from_the_copy_made_of_it(monkeypatch, pruning):
    # to_numpy copies the blocks into one array: the fit keeps that copy for the
    # thresholds rather than building value tables beside it (at the binning's peak both
    # would be held).
    X, y = _data()
    frame = pd.DataFrame({"a": X[:, 0]}).assign(**{k: X[:, j] for j, k in enumerate("bcde", 1)})
    assert frame._mgr.nblocks > 1
    make = lambda: quercus.DecisionTreeClassifier(max_bins=None,  # noqa: E731
                                                  pruning=pruning)
    tables, lazy = _fit_both(monkeypatch, make, frame, y)
    assert not np.shares_memory(lazy._explain_data.source, frame["a"].to_numpy())
    np.testing.assert_array_equal(lazy._explain_data.source, X)
    assert _tree_json(tables) == _tree_json(lazy)


def test_a_fit_on_the_caller_s_array_holds_no_table_of_its_long_columns(few_values):
    X, y = _data()
    est = quercus.CARTClassifier(max_bins=None).fit(X, y)
    data = est._explain_data
    assert data.source is X
    # Only column 2's six values (and what the missing-free short columns need) remain.
    assert len(data.bin_hi) == 6


@pytest.mark.parametrize("zero_weights", [False, True])
def test_presorted_subtrees_find_the_two_values_around_the_split(monkeypatch, zero_weights):
    # 12,000 distinct values against subtrees of at most 2,048 rows: the subtree kernel
    # presorts the columns and finds a threshold's values by a binary search.
    rng = np.random.default_rng(4)
    X = rng.normal(size=(12_000, 3))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(scale=0.5, size=12_000) > 0).astype(int)
    w = rng.choice([0.0, 1.0, 1.0, 2.0], size=12_000) if zero_weights else None
    make = lambda: quercus.CARTClassifier(max_bins=None, max_surrogate=0)  # noqa: E731
    tables, lazy = _fit_both(monkeypatch, make, X, y, sample_weight=w)
    assert _tree_json(tables) == _tree_json(lazy)


@pytest.mark.parametrize("make", [
    lambda: quercus.CARTClassifier(max_bins=None),  # surrogates: resolved and routed by X
    lambda: quercus.CARTClassifier(max_bins=None, max_surrogate=0),  # the subtree kernel
    lambda: quercus.DecisionTreeClassifier(max_bins=None, missing_strategy="learned"),
    lambda: quercus.CARTRegressor(max_bins=None, max_depth=8),
    lambda: quercus.CARTRegressor(max_bins=None, criterion="absolute_error", max_depth=8,
                                  max_surrogate=0),
], ids=["surrogates", "subtree kernel", "learned", "regressor", "absolute error"])
@pytest.mark.parametrize("order", ["C", "F"])
def test_a_float32_matrix_is_read_as_it_is_and_grows_its_float64_copy_s_tree(monkeypatch,
                                                                              make, order):
    # A float32 matrix was gathered into float64 columns with a value table each (exact
    # 300k x 50: 214 MB at the peak). Its long columns now keep only their codes, and the
    # thresholds are its values widened: those the tables held.
    X, y = _data(regression="Regressor" in type(make()).__name__)
    X32 = np.asarray(X, dtype=np.float32, order=order)
    wide = make().fit(X32.astype(np.float64), y)
    tables, lazy = _fit_both(monkeypatch, make, X32, y)
    assert lazy._explain_data.source is X32
    assert _tree_json(tables) == _tree_json(lazy) == _tree_json(wide)
    for node in (0, 1):
        pd.testing.assert_frame_equal(tables.explain(node), lazy.explain(node))


def test_a_float32_fit_with_zero_weights_reads_the_rows_of_its_samples(monkeypatch):
    X, y = _data()
    X32 = X.astype(np.float32)
    w = np.random.default_rng(3).choice([0.0, 1.0, 2.5], size=len(y))
    make = lambda: quercus.CARTClassifier(max_bins=None)  # noqa: E731
    tables, lazy = _fit_both(monkeypatch, make, X32, y, sample_weight=w)
    assert lazy._explain_data.source_rows is not None
    assert _tree_json(tables) == _tree_json(lazy)
