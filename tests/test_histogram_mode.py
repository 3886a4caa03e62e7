"""Binning (exact and quantile), histogram mode, histogram subtraction and threads.

Histogram mode must keep what exact mode promises: thresholds are midpoints of two observed
values, the fit's routing (by bin code) and prediction's (by threshold) agree on every
training sample, and the tree does not depend on the number of threads.
"""

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification, make_regression

import quercus
from quercus import (C45Classifier, CARTClassifier, CARTRegressor, DecisionTreeClassifier,
                     ID3Classifier, export_dict)
from quercus import _prepare
from quercus._binning import SortedColumn, bin_features
from quercus._kernels.criteria import GINI, SQUARED_ERROR
from quercus._kernels.histograms import (build_histograms, feature_histogram,
                                         subtract_histograms)
from quercus._kernels.schema import ALL_FIELDS, LEAF, NUMERIC


def _numeric(col, max_bins):
    return bin_features(np.asarray(col, dtype=float).reshape(-1, 1), np.array([False]),
                        [None], max_bins)


# ----------------------------------------------------------------------------- binning
def test_few_distinct_values_get_one_bin_each():
    col = np.array([3.0, 1.0, 2.0, 3.0, np.nan, 1.0])
    b = _numeric(col, max_bins=255)
    assert b.n_bins.tolist() == [3]
    assert b.lo.tolist() == b.hi.tolist() == [1.0, 2.0, 3.0]
    assert b.codes[:, 0].tolist() == [2, 0, 1, 2, 3, 0]  # missing: the reserved code 3
    assert b.codes.dtype == np.uint8


def test_quantile_bins_hold_about_equal_counts_and_never_split_a_value():
    rng = np.random.default_rng(0)
    col = rng.normal(size=20_000).round(3)  # ties: about 4,000 distinct values
    b = _numeric(col, max_bins=64)
    assert b.n_bins[0] == 64
    codes = b.codes[:, 0].astype(int)
    counts = np.bincount(codes, minlength=64)
    assert counts.min() > 0.5 * 20_000 / 64 and counts.max() < 1.5 * 20_000 / 64
    for v in np.unique(col)[::97]:  # every copy of a value shares one bin
        assert len(set(codes[col == v])) == 1
    # lo / hi are the smallest and largest value of each bin, and bins are ordered.
    for k in (0, 17, 63):
        assert b.lo[k] == col[codes == k].min() and b.hi[k] == col[codes == k].max()
    assert (b.hi[:-1] < b.lo[1:]).all()


def test_a_heavy_value_fills_a_bin_of_its_own():
    col = np.r_[np.zeros(5_000), np.arange(1.0, 5_001.0)]
    b = _numeric(col, max_bins=10)
    zero_bin = b.codes[0, 0]
    assert (b.codes[:5_000, 0] == zero_bin).all()
    assert not (b.codes[5_000:, 0] == zero_bin).any()
    assert b.lo[zero_bin] == b.hi[zero_bin] == 0.0


def test_heavy_values_leave_the_other_bins_to_the_rest_of_the_values():
    # Ten values hold 99% of the rows: each gets one bin, and the 1,000 light values of the
    # tail share the other 40 (quantile targets alone would give the tail one bin).
    col = np.r_[np.repeat(np.arange(10.0), 10_000), np.arange(100.0, 1_100.0)]
    b = _numeric(col, max_bins=50)
    assert b.n_bins[0] == 50
    codes = b.codes[:, 0].astype(int)
    assert len(set(codes[:100_000])) == 10
    tail = np.bincount(codes[100_000:])
    assert np.count_nonzero(tail) == 40 and tail[tail > 0].max() <= 2 * 1_000 / 40


def test_edges_from_a_sample_still_bin_every_row_by_its_range():
    # More rows than the edge sample: edges come from a subsample, lo/hi from every row.
    rng = np.random.default_rng(1)
    col = rng.random(300_000)
    b = _numeric(col, max_bins=255)
    codes = b.codes[:, 0].astype(int)
    order = np.argsort(col)
    assert (np.diff(codes[order]) >= 0).all()  # codes follow the values
    assert b.lo.min() == col.min() and b.hi.max() == col.max()


@pytest.mark.parametrize("first_exact", [False, True])
def test_more_than_255_bins_from_a_sample_get_codes_that_hold_them(first_exact):
    # Edges from a sample, 300 bins: the codes must widen beyond uint8 (they wrapped
    # around), whether or not a column coded before them was narrow.
    rng = np.random.default_rng(2)
    n = 230_000
    col = rng.normal(size=n)
    X = np.column_stack([np.arange(n) % 7, col]) if first_exact else col[:, None]
    b = bin_features(X, np.zeros(X.shape[1], dtype=bool), [None] * X.shape[1], 300)
    j = X.shape[1] - 1
    codes = b.codes[:, j].astype(int)
    assert b.n_bins[j] == 300 and codes.max() == 299 and len(np.unique(codes)) == 300
    order = np.argsort(col, kind="stable")
    assert (np.diff(codes[order]) >= 0).all()  # codes follow the values
    if first_exact:
        assert np.array_equal(b.codes[:, 0], np.arange(n) % 7)


@pytest.mark.parametrize("levels,dtype", [(200, np.uint8), (1_000, np.uint16)])
def test_codes_take_the_narrowest_type(levels, dtype):
    cats = np.arange(levels, dtype=object)
    X = np.arange(2 * levels, dtype=float).reshape(-1, 1) % levels
    assert bin_features(X, np.array([True]), [cats], 255).codes.dtype == dtype


def test_exact_mode_with_many_values_uses_wide_codes():
    col = np.arange(70_000, dtype=float)
    assert _numeric(col, None).codes.dtype == np.int32
    assert _numeric(col, 255).codes.dtype == np.uint8


@pytest.mark.parametrize("order", ["C", "F"])
def test_codes_keep_the_columns_coded_before_a_later_column_widens_them(order):
    # Codes start as uint8 and widen at the column with 300 values, then at the one with
    # 70,000: the columns coded before each widening must come through unchanged.
    rng = np.random.default_rng(0)
    n = 70_000
    cols = [rng.integers(0, 5, n), rng.integers(0, 300, n), np.arange(n)[rng.permutation(n)],
            rng.integers(0, 3, n)]
    X = np.array(np.column_stack(cols), dtype=float, order=order)
    X[rng.random(n) < 0.05, 0] = np.nan
    b = bin_features(X, np.zeros(4, dtype=bool), [None] * 4, None)
    assert b.codes.dtype == np.int32
    for j in range(4):
        known = ~np.isnan(X[:, j])
        uniq, inv = np.unique(X[known, j], return_inverse=True)
        assert b.n_bins[j] == uniq.size
        assert np.array_equal(b.codes[known, j], inv)
        assert np.all(b.codes[~known, j] == uniq.size)


def test_a_sorted_column_gives_numpy_unique_of_the_known_values_with_missing_last():
    rng = np.random.default_rng(1)
    scratch = np.empty(60)  # longer than any column: only its start is used
    for _ in range(200):
        n = int(rng.integers(0, 40))
        col = np.round(rng.normal(size=n) * rng.integers(1, 5))
        col[rng.random(n) < 0.25] = np.nan
        col[rng.random(n) < 0.1] = -0.0  # equal to 0.0, as np.unique has it
        known = ~np.isnan(col)
        uniq, inv, counts = np.unique(col[known], return_inverse=True, return_counts=True)
        ranked = SortedColumn(col, scratch)
        assert ranked.n_distinct == uniq.size
        got_uniq, got_counts = ranked.distinct(counts=True)
        assert np.array_equal(got_uniq, uniq) and np.array_equal(got_counts, counts)
        assert ranked.distinct()[1].size == 0
        for dtype in (np.uint8, np.uint16, np.int32):
            codes = np.full(n, 99, dtype=dtype)
            ranked.write_codes(codes, np.zeros(0, dtype=np.int64), uniq.size)
            assert np.array_equal(codes[known], inv) and np.all(codes[~known] == uniq.size)
        lut = rng.integers(0, 50, size=uniq.size)
        codes = np.full(n, 99, dtype=np.int32)
        ranked.write_codes(codes, lut, 77)
        assert np.array_equal(codes[known], lut[inv]) and np.all(codes[~known] == 77)
    # A strided column (of a C-ordered matrix) is ranked as a contiguous one.
    X = rng.normal(size=(50, 3))
    a, b = np.empty(50, dtype=np.int32), np.empty(50, dtype=np.int32)
    SortedColumn(X[:, 1], scratch).write_codes(a, np.zeros(0, dtype=np.int64), 50)
    SortedColumn(X[:, 1].copy(), scratch).write_codes(b, np.zeros(0, dtype=np.int64), 50)
    assert np.array_equal(a, b) and np.array_equal(np.sort(a), np.arange(50))
    # A contiguous column without missing values is read where it is: the scratch stays
    # untouched (its pages never become memory).
    scratch[:] = -7.0
    col = rng.normal(size=50)
    ranked = SortedColumn(col, scratch)
    assert np.shares_memory(ranked.values, col) and np.all(scratch == -7.0)
    assert col.flags.writeable  # (the kernels get a read-only view; the array is as it was)


def test_a_value_the_no_copy_checks_meet_only_in_their_last_block_is_still_refused():
    # The float64 fast path checks the matrix in blocks of rows: infinity and an all-NaN
    # column must be found in the last block too.
    n = (1 << 18) // 3 + 7  # just over one block of 3 columns
    X = np.zeros((n, 3))
    X[-1, 2] = np.inf
    with pytest.raises(ValueError, match=r"inf in column 'x2' \(row %d\)" % (n - 1)):
        CARTClassifier().fit(X, np.arange(n) % 2)
    X[-1, 2] = 0.0
    X[:, 1] = np.nan
    assert _prepare._checked_float_matrix(X) is None  # the column-by-column path decides
    X[-1, 1] = 1.0
    assert _prepare._checked_float_matrix(X) is X


def _mixed_frame(n, levels, seed=0):
    """Numeric columns (float with missing values, integers, many distinct values) and
    categorical ones (a Categorical with missing values and an unused category, strings
    with None, booleans, one of ``levels`` categories)."""
    rng = np.random.default_rng(seed)
    f = rng.normal(size=n)
    f[rng.random(n) < 0.1] = np.nan
    strings = rng.choice(np.array(["u", "v", "w", None], dtype=object), n)
    cat = pd.Categorical(rng.choice(["p", "q", None], n), categories=["q", "unused", "p"])
    return pd.DataFrame({"f": f, "i": rng.integers(0, 7, n), "wide": rng.random(n),
                         "cat": cat, "s": strings, "b": rng.random(n) < 0.3,
                         "many": rng.integers(0, levels, n).astype(str)})


@pytest.mark.parametrize("columns_at_once", [None, 1, 2])
@pytest.mark.parametrize("levels,max_bins", [(20, 255), (20, None), (300, 255), (300, 16)])
def test_binning_straight_from_the_columns_equals_binning_the_encoded_matrix(
        monkeypatch, levels, max_bins, columns_at_once):
    """A fit that reads only the bins bins a DataFrame from its columns: the schema and
    every field of the bins (code type included) are those of encoding it to float64 and
    binning that, with quantile or exact numeric bins and narrow or wide codes, however
    many numeric columns are gathered and binned at once (None: all of them here)."""
    from quercus import _prepare
    if columns_at_once:
        monkeypatch.setattr(_prepare, "_BIN_CHUNK_CELLS", 900 * columns_at_once)
    for X in (_mixed_frame(900, levels), _mixed_frame(900, levels)[["f", "wide"]],
              _mixed_frame(900, levels)[["cat", "s"]],
              _mixed_frame(900, levels)[["f", "wide"]].to_numpy(),
              _mixed_frame(900, levels)[["f", "i", "wide"]].to_numpy(np.float32)):
        schema, X_enc = _prepare.fit_schema_and_encode(X)
        expected = bin_features(X_enc, schema.is_categorical, schema.categories, max_bins)
        schema2, got = _prepare.fit_schema_and_bin(X, None, max_bins)
        assert schema2.to_dict() == schema.to_dict()
        assert got.codes.dtype == expected.codes.dtype and got.codes.flags.f_contiguous
        for field in ("codes", "n_bins", "lo", "hi", "offsets"):
            np.testing.assert_array_equal(getattr(got, field), getattr(expected, field))
        assert got.exact == expected.exact


def test_binning_from_the_columns_gathers_a_few_numeric_columns_at_a_time(monkeypatch):
    """A float32 matrix (or a frame's numeric columns) is never copied to float64 whole:
    each binning call gets at most ``_BIN_CHUNK_CELLS`` cells, and every column once."""
    from quercus import _prepare
    monkeypatch.setattr(_prepare, "_BIN_CHUNK_CELLS", 2 * 900)
    seen = []

    def spy(X_num, *args, **kwargs):
        seen.append(X_num.shape)
        return bin_features(X_num, *args, **kwargs)

    monkeypatch.setattr(_prepare, "bin_features", spy)
    X = _mixed_frame(900, 20)[["f", "i", "wide", "cat", "s"]]
    X = X.assign(g=X["f"] * 2, h=X["wide"] + 1)  # 5 numeric columns, 2 categorical
    _prepare.fit_schema_and_bin(X, None, None)
    assert seen == [(900, 2), (900, 2), (900, 1)]
    seen.clear()
    _prepare.fit_schema_and_bin(X[["f", "wide", "g"]].to_numpy(np.float32), None, 255)
    assert seen == [(900, 2), (900, 1)]


def test_a_fit_binned_from_the_columns_is_the_fit_from_the_encoded_matrix(monkeypatch):
    """The same tree, whichever way the DataFrame reached the bins."""
    from quercus import _estimators
    X = _mixed_frame(600, 40, seed=3)
    y = np.where(X["wide"] + (X["cat"] == "p") > 0.9, "yes", "no")
    direct = CARTClassifier(random_state=0).fit(X, y)
    monkeypatch.setattr(_estimators._BaseTree, "_reads_only_bins", lambda self, e: False)
    encoded = CARTClassifier(random_state=0).fit(X, y)
    assert export_dict(direct) == export_dict(encoded)
    assert (direct.predict(X) == encoded.predict(X)).all()


# ------------------------------------------------------------------- histogram kernels
def test_build_histograms_equals_one_feature_at_a_time():
    rng = np.random.default_rng(2)
    n, p = 3_000, 4
    codes = np.asfortranarray(rng.integers(0, 20, (n, p)).astype(np.uint8))
    n_bins = np.full(p, 19)  # code 19: missing
    y = rng.integers(0, 3, n).astype(float)
    w = rng.random(n)
    idx = np.sort(rng.choice(n, 1_000, replace=False)).astype(np.int64)
    offsets = np.r_[0, np.cumsum(n_bins + 1)].astype(np.int64)
    hist, hist_n = build_histograms(codes, np.arange(p), offsets, idx, w[idx], y, y, 3, GINI)
    for f in range(p):
        bins, counts, cnt = feature_histogram(codes[:, f], idx, w[idx], y, y, 20, 3, GINI)
        dense = hist[offsets[f]:offsets[f + 1]]
        np.testing.assert_allclose(dense[bins], counts, rtol=1e-12)
        assert (hist_n[offsets[f]:offsets[f + 1]][bins] == cnt).all()
        assert hist_n[offsets[f]:offsets[f + 1]].sum() == idx.size


def test_subtraction_gives_the_other_childs_histograms():
    rng = np.random.default_rng(3)
    n, p = 2_000, 3
    codes = np.asfortranarray(rng.integers(0, 50, (n, p)).astype(np.uint8))
    y = rng.normal(size=n)
    y2 = y * y
    w = np.ones(n)
    offsets = np.r_[0, np.cumsum(np.full(p, 51))].astype(np.int64)
    feats = np.arange(p)
    idx = np.arange(n, dtype=np.int64)
    left = idx[codes[:, 0] < 20]
    right = idx[codes[:, 0] >= 20]
    parent = build_histograms(codes, feats, offsets, idx, w, y, y2, 3, SQUARED_ERROR)
    h_left = build_histograms(codes, feats, offsets, left, w[left], y, y2, 3, SQUARED_ERROR)
    h_right = build_histograms(codes, feats, offsets, right, w[right], y, y2, 3,
                               SQUARED_ERROR)
    got, got_n = subtract_histograms(*parent, *h_left)
    assert (got_n == h_right[1]).all()
    np.testing.assert_allclose(got, h_right[0], rtol=1e-9, atol=1e-9)
    assert (got[got_n == 0] == 0).all()  # no rounding residue in an empty bin


# -------------------------------------------------------------------- histogram mode fits
def _data(n=6_000, p=8, seed=0):
    X, y = make_classification(n_samples=n, n_features=p, n_informative=5, random_state=seed)
    return X, y


def test_thresholds_are_midpoints_of_two_observed_training_values():
    # The largest value of the bin below and the smallest of the bin above (over all
    # rows, as the bins are): between the node's values that go left and those that go
    # right.
    X, y = _data()
    clf = CARTClassifier(max_bins=16, max_depth=6).fit(X, y)
    t = clf.tree_
    path = clf.decision_path(X).tocsc()
    for node in np.flatnonzero(t.kind == NUMERIC):
        thr = t.threshold[node]
        observed = X[:, t.feature[node]]
        here = observed[path[:, node].nonzero()[0]]
        below, above = here[here <= thr].max(), here[here > thr].min()
        a = observed[(observed >= below) & (observed <= thr)]
        b = observed[(observed > thr) & (observed <= above)]
        assert (a[:, None] / 2 + b[None, :] / 2 == thr).any(), node


def test_training_samples_land_where_the_fit_put_them():
    # n_node_samples come from the fit's bin-code routing; apply routes by threshold.
    X, y = _data()
    for est in (CARTClassifier(max_bins=8), C45Classifier(max_bins=8, pruning=None)):
        est.fit(X, y)
        leaves = est.apply(X)
        t = est.tree_
        counts = np.bincount(leaves, minlength=t.node_count)
        is_leaf = t.kind == LEAF
        assert (counts[is_leaf] == t.n_node_samples[is_leaf]).all()


def test_max_bins_above_the_distinct_values_is_exact_mode():
    X, y = _data(n=2_000)
    X = X.round(1)  # at most ~100 distinct values per column
    a = CARTClassifier(max_bins=255).fit(X, y)
    b = CARTClassifier(max_bins=None).fit(X, y)
    assert export_dict(a) == export_dict(b)


def test_histogram_mode_accuracy_is_close_to_exact_mode():
    X, y = _data(n=20_000, p=20, seed=4)
    Xtr, Xte, ytr, yte = X[:15_000], X[15_000:], y[:15_000], y[15_000:]
    exact = CARTClassifier(max_bins=None, max_surrogate=0).fit(Xtr, ytr).score(Xte, yte)
    hist = CARTClassifier(max_surrogate=0).fit(Xtr, ytr).score(Xte, yte)
    assert abs(exact - hist) < 0.02, (exact, hist)


def _no_subtraction(monkeypatch):
    import quercus._grower as grower
    monkeypatch.setattr(grower, "HIST_MIN_SAMPLES", 10**12)


@pytest.mark.parametrize("make", [
    lambda: CARTClassifier(max_surrogate=0),
    lambda: CARTClassifier(missing_strategy="surrogate"),
    lambda: ID3Classifier(max_bins=32),
    lambda: DecisionTreeClassifier(criterion="entropy", min_samples_leaf=5),
])
def test_subtracted_histograms_grow_the_same_tree(make, monkeypatch):
    X, y = _data(n=5_000)
    X[np.random.default_rng(0).random(X.shape) < 0.05] = np.nan
    with_sub = export_dict(make().fit(X, y))
    _no_subtraction(monkeypatch)
    assert export_dict(make().fit(X, y)) == with_sub


def test_subtracted_histograms_grow_the_same_regression_tree(monkeypatch):
    X, y = make_regression(n_samples=4_000, n_features=6, noise=5.0, random_state=0)
    X = X.round(1)  # dense histograms in exact mode too
    a = CARTRegressor(max_depth=8, max_bins=None).fit(X, y)
    _no_subtraction(monkeypatch)
    b = CARTRegressor(max_depth=8, max_bins=None).fit(X, y)
    ta, tb = a.tree_, b.tree_
    assert (ta.feature == tb.feature).all() and (ta.threshold == tb.threshold).all()
    np.testing.assert_allclose(ta.value, tb.value, rtol=1e-12)


# ----------------------------------------------------------------------------- threads
def _mixed(n=6_000):
    rng = np.random.default_rng(5)
    X = pd.DataFrame(rng.normal(size=(n, 40)), columns=[f"x{j}" for j in range(40)])
    X["c"] = pd.Series(rng.choice(list("abcdefg"), n), dtype=object)
    X.loc[rng.random(n) < 0.1, "x3"] = np.nan
    y = np.where(X["x0"] + (X["c"] == "b") + rng.normal(size=n) > 0.5, "yes", "no")
    return X, y


@pytest.mark.parametrize("make", [
    lambda **kw: CARTClassifier(**kw),
    lambda **kw: C45Classifier(**kw),
    lambda **kw: ID3Classifier(max_bins=None, **kw),
    lambda **kw: DecisionTreeClassifier(splitter="random", random_state=3, **kw),
])
def test_same_tree_on_one_and_two_threads(make):
    X, y = _mixed()
    one = make(n_jobs=1).fit(X, y)
    two = make(n_jobs=2).fit(X, y)
    dump = lambda est: json.dumps(export_dict(est), sort_keys=True)  # noqa: E731
    assert dump(one) == dump(two)
    assert (one.predict_proba(X) == two.predict_proba(X)).all()


def test_same_regression_tree_on_one_and_two_threads():
    X, y = _mixed()
    target = X["x1"].to_numpy() * 3 + (X["c"] == "a")
    for criterion in ("squared_error", "absolute_error"):
        one = CARTRegressor(criterion=criterion, n_jobs=1, max_depth=6).fit(X, target)
        two = CARTRegressor(criterion=criterion, n_jobs=-1, max_depth=6).fit(X, target)
        assert export_dict(one) == export_dict(two)



@pytest.mark.parametrize("make", [
    lambda **kw: CARTClassifier(**kw),
    lambda **kw: CARTClassifier(max_bins=None, **kw),
    lambda **kw: CARTRegressor(max_depth=12, **kw),
], ids=["histogram", "exact", "regressor"])
def test_node_numbering_does_not_depend_on_threads(make):
    # 40,000 rows: the top is grown node by node and the nodes below an eighth of the rows
    # are set aside for the subtree kernel; which ones must not depend on the threads, or
    # the same tree comes out numbered otherwise (apply, the arrays, the model file).
    rng = np.random.default_rng(9)
    X = rng.normal(size=(40_000, 6))
    X[rng.random(40_000) < 0.05, 1] = np.nan
    y = X[:, 0] + np.nan_to_num(X[:, 1]) * X[:, 2] + rng.normal(scale=0.3, size=40_000)
    y = y if "Regressor" in type(make()).__name__ else (y > 0).astype(int)
    one = make(n_jobs=1).fit(X, y)
    two = make(n_jobs=2).fit(X, y)
    assert one.tree_.node_count > 200
    for f in ALL_FIELDS:
        a, b = getattr(one.tree_, f.name), getattr(two.tree_, f.name)
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), f.name
    assert (one.apply(X) == two.apply(X)).all()


@pytest.mark.parametrize("threads", [1, 2, 3, 8])
def test_over_features_merges_chunks_in_feature_order(threads):
    from quercus._threads import over_features
    seen = []

    def run(pos):
        seen.append(pos.tolist())
        return pos * 10, np.stack([pos, -pos], axis=1).astype(np.float64)

    tens, pairs = over_features(run, 7, threads)
    assert tens.tolist() == [0, 10, 20, 30, 40, 50, 60]
    assert pairs[:, 1].tolist() == [0.0, -1.0, -2.0, -3.0, -4.0, -5.0, -6.0]
    # every feature searched exactly once, in min(threads, 7) chunks
    assert sorted(sum(seen, [])) == list(range(7)) and len(seen) == min(threads, 7)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_in_order_yields_results_in_item_order_and_runs_on_the_calling_thread(threads):
    import threading
    import time
    from quercus._threads import in_order
    who = {}

    def run(i):
        time.sleep(0.02 if i % 3 == 0 else 0.001)  # uneven items finish out of order
        who[i] = threading.get_ident()
        return i * i

    assert list(in_order(run, 9, threads)) == [i * i for i in range(9)]
    assert sorted(who) == list(range(9))  # each item run once
    assert threading.get_ident() in who.values()
    if threads > 1:
        assert len(set(who.values())) > 1


def test_in_order_raises_a_failed_item_in_its_turn_and_stays_usable():
    from quercus._threads import in_order

    def run(i):
        if i == 3:
            raise ValueError("item 3")
        return i

    got = []
    with pytest.raises(ValueError, match="item 3"):
        for r in in_order(run, 8, 2):
            got.append(r)
    assert got == [0, 1, 2]
    assert list(in_order(lambda i: -i, 4, 2)) == [0, -1, -2, -3]


def test_over_features_works_in_a_forked_child():
    # The pool is process-wide; a forked child must not inherit its (absent) threads.
    import multiprocessing
    from quercus._threads import over_features
    over_features(lambda pos: (pos,), 4, 2)  # the parent's pool exists now
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(1) as pool:
        got = pool.apply_async(_forked_over_features).get(timeout=60)
    assert got == [0, 1, 2, 3]


def _forked_over_features():
    from quercus._threads import over_features
    return over_features(lambda pos: (pos,), 4, 2)[0].tolist()


def test_n_jobs_restores_numba_threads():
    import numba
    before = numba.get_num_threads()
    CARTClassifier(n_jobs=1).fit(*_data(n=200))
    assert numba.get_num_threads() == before


def test_histogram_mode_model_file_round_trip(tmp_path):
    X, y = _data()
    clf = CARTClassifier(max_bins=32, n_jobs=1).fit(X, y)
    clf.save(tmp_path / "m.json")
    back = quercus.load(tmp_path / "m.json")
    assert back.get_params()["max_bins"] == 32
    assert (back.predict_proba(X) == clf.predict_proba(X)).all()


def test_column_ordered_input_predicts_as_row_ordered_input_without_a_full_copy():
    # Above 4,096 rows a column-ordered float64 matrix (a DataFrame's usual layout) is
    # routed block by block, each block copied to row order by its own task.
    X, y = make_classification(n_samples=9000, n_features=12, random_state=4)
    X[np.random.default_rng(4).random(X.shape) < 0.05] = np.nan
    for est in (C45Classifier(pruning=None), CARTClassifier()):
        est.fit(X[:6000], y[:6000])
        rows_first = np.ascontiguousarray(X)
        columns_first = np.asfortranarray(X)
        frame = pd.DataFrame(X)
        expected = est.predict_proba(rows_first)
        np.testing.assert_array_equal(est.predict_proba(columns_first), expected)
        np.testing.assert_array_equal(est.predict_proba(frame), expected)
        np.testing.assert_array_equal(est.apply(columns_first), est.apply(rows_first))
        assert quercus._prepare.encode(columns_first, est.schema_, any_order=True) \
            is columns_first


def test_cross_validated_pruning_table_does_not_depend_on_threads():
    # Folds are fitted side by side on the fit's threads and merged in fold order.
    X, y = make_classification(n_samples=3000, n_features=10, flip_y=0.1, random_state=6)
    tables, trees = [], []
    for n_jobs in (1, 2):
        est = CARTClassifier(pruning="cost_complexity", cv=5, random_state=0,
                             n_jobs=n_jobs).fit(X, y)
        tables.append(est.cp_table_)
        trees.append(json.dumps(export_dict(est), sort_keys=True))
    pd.testing.assert_frame_equal(tables[0], tables[1], check_exact=True)
    assert trees[0] == trees[1]
    assert len(tables[0]) > 3


def test_predict_by_node_label_matches_the_majority_of_predict_proba():
    # Where no row can be spread over branches, predict takes each node's class once
    # (apply, routed eight rows at a time) instead of the argmax of every row's proba.
    X, y = make_classification(n_samples=7000, n_features=9, n_classes=3,
                               n_informative=5, random_state=8)
    X[np.random.default_rng(8).random(X.shape) < 0.05] = np.nan
    for est in (CARTClassifier(), DecisionTreeClassifier(max_depth=7),
                CARTClassifier(max_surrogate=0, max_bins=None), C45Classifier()):
        est.fit(X[:5000], y[:5000])
        for rows in (X, X[:13], np.asfortranarray(X)):
            proba = est.predict_proba(rows)
            np.testing.assert_array_equal(est.predict(rows),
                                          est.classes_[est._majority(proba)])
