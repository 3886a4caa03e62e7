"""The compiled kernels and the fitted trees against the slow references of ``naive.py``.

Inputs are random but reproducible (numpy generators with fixed seeds, and hypothesis):
weighted samples with non-integer weights, numeric features with tied values, categorical
features, both criteria, multiway and one-vs-rest categorical splits, min_samples_leaf > 1,
and both paths of the histogram (dense, and sorted when n_bins > 4 * m + 256).

Kernel conventions: ``y`` is float64 (class codes as floats), ``y2`` is passed as ``y`` for
classification, ``n_stats`` is the number of classes, and ``wi`` is the weight of each entry
of ``idx`` at the node. Regression and missing values: test_regression_and_missing_vs_naive.py.
"""

import importlib.util
import pathlib

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quercus import C45Classifier, CARTClassifier, ID3Classifier, export_dict
from quercus._kernels.criteria import ENTROPY, GINI, impurity, split_scores
from quercus._kernels.histograms import feature_histogram, sorted_positions
from quercus._kernels.schema import (CAT_BINARY, CAT_MULTIWAY, CAT_ONE_VS_REST, FRACTIONAL,
                                     MULTIWAY, NUMERIC, Binned)
from quercus._kernels.splits import search_node

# pytest runs with --import-mode=importlib, so tests/ is not on sys.path: load naive.py by path.
_spec = importlib.util.spec_from_file_location(
    "quercus_tests_naive", pathlib.Path(__file__).with_name("naive.py"))
naive = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(naive)

CLOSE = dict(rel=1e-9, abs=1e-12)
KIND_CODE = {"numeric": NUMERIC, "multiway": MULTIWAY, "categorical_binary": CAT_BINARY}


# ============================================================================ sanity of naive
def test_naive_reference_values():
    # A reference that is itself wrong proves nothing: pin it to numbers known by heart.
    assert naive.entropy([1, 1]) == pytest.approx(1.0, abs=1e-15)
    assert naive.entropy([2, 2, 2, 2]) == pytest.approx(2.0, abs=1e-15)
    assert naive.entropy([5, 0]) == 0.0
    assert naive.gini([1, 1]) == pytest.approx(0.5, abs=1e-15)
    assert naive.gini([1, 1, 1]) == pytest.approx(2 / 3, abs=1e-15)
    # golf, outlook: sunny 2 yes / 3 no, overcast 4 / 0, rain 3 / 2 (Quinlan)
    outlook = [[2, 3], [4, 0], [3, 2]]
    assert naive.information_gain(outlook) == pytest.approx(0.2467498, abs=1e-7)
    assert naive.intrinsic_value(outlook) == pytest.approx(1.5774062, abs=1e-7)
    assert naive.gini_index(outlook) == pytest.approx(24 / 70, abs=1e-15)
    # x = 3 1 2 2, y = a b b a: "<= 1.5" and "<= 2.5" each isolate one pure sample, same
    # gain 0.311; the tie goes to the smallest threshold
    X = pd.DataFrame({"x": [3.0, 1.0, 2.0, 2.0]})
    best = naive.node_best_splits(X, ["a", "b", "b", "a"], ["a", "b"])["x"]
    assert best.threshold == 1.5 and best.branch_n == [1, 3]
    assert best.decrease == pytest.approx(1 - 0.75 * naive.entropy([2, 1]), abs=1e-15)


# ============================================================================ impurity
# Subnormal weights are left to test_entropy_with_an_underflowing_share_is_finite below.
weight_strategy = st.one_of(st.just(0.0), st.floats(min_value=0.0, max_value=1e3,
                                                    allow_subnormal=False))
counts_strategy = st.lists(weight_strategy, min_size=1, max_size=6)


@settings(max_examples=300, deadline=None)
@given(counts=counts_strategy)
def test_impurity_matches_naive(counts):
    c = np.array(counts, dtype=np.float64)
    assert impurity(c, ENTROPY) == pytest.approx(naive.entropy(counts), **CLOSE)
    assert impurity(c, GINI) == pytest.approx(naive.gini(counts), **CLOSE)


def test_impurity_integer_and_weighted_counts_rng():
    rng = np.random.default_rng(0)
    for _ in range(300):
        k = int(rng.integers(1, 6))
        if rng.random() < 0.5:
            c = rng.integers(0, 20, size=k).astype(float)
        else:
            c = rng.uniform(0, 5, size=k) * (rng.random(k) < 0.8)
        for crit in (ENTROPY, GINI):
            assert impurity(c, crit) == pytest.approx(naive.impurity(c.tolist(), crit), **CLOSE)


# ============================================================================ split_scores
@settings(max_examples=300, deadline=None)
@given(n_branches=st.integers(1, 5), n_classes=st.integers(1, 4), data=st.data())
def test_split_scores_matches_naive(n_branches, n_classes, data):
    rows = [data.draw(st.lists(weight_strategy, min_size=n_classes, max_size=n_classes))
            for _ in range(n_branches)]
    stats = np.array(rows, dtype=np.float64)
    for crit in (ENTROPY, GINI):
        child, dec, info = split_scores(stats, crit)
        if stats.sum() <= 0:
            assert (child, dec, info) == (0.0, 0.0, 0.0)
            continue
        n_child, n_dec, n_info = naive.split_scores(rows, crit)
        assert child == pytest.approx(n_child, rel=1e-9, abs=1e-9)
        assert dec == pytest.approx(n_dec, rel=1e-9, abs=1e-9)
        assert info == pytest.approx(n_info, rel=1e-9, abs=1e-9)


def test_split_scores_named_quantities_rng():
    # the kernel's triple is the book's Gain / IV / Gini_index under the right criterion
    rng = np.random.default_rng(1)
    for _ in range(200):
        b, k = int(rng.integers(2, 5)), int(rng.integers(2, 4))
        stats = rng.uniform(0.1, 3.0, size=(b, k)) * (rng.random((b, k)) < 0.7)
        stats[0, 0] += 1.0  # never all zero
        rows = stats.tolist()
        ent_child, gain, iv = split_scores(stats, ENTROPY)
        gini_child, gini_dec, _ = split_scores(stats, GINI)
        assert gain == pytest.approx(naive.information_gain(rows), **CLOSE)
        assert iv == pytest.approx(naive.intrinsic_value(rows), **CLOSE)
        assert gini_child == pytest.approx(naive.gini_index(rows), **CLOSE)
        assert gini_dec == pytest.approx(naive.gini_decrease(rows), **CLOSE)
        if naive.intrinsic_value(rows) > 0:
            assert gain / iv == pytest.approx(naive.gain_ratio(rows), **CLOSE)


def test_entropy_with_an_underflowing_share_is_finite():
    # A positive class weight whose share c / total underflows to 0.0 (a subnormal weight
    # next to an ordinary one) contributes 0 log 0 = 0: Ent([2, 5e-324]) = 0 and the split
    # information of branches weighing 2 and 5e-324 is 0. The criterion must stay finite.
    counts = np.array([2.0, 5e-324])
    assert naive.entropy(counts.tolist()) == 0.0
    assert impurity(counts, ENTROPY) == pytest.approx(0.0, abs=1e-12)
    stats = np.array([[2.0, 0.0], [0.0, 5e-324]])
    child, dec, info = split_scores(stats, ENTROPY)
    assert (child, dec, info) == pytest.approx(naive.split_scores(stats.tolist(), ENTROPY),
                                               abs=1e-12)


def test_split_scores_empty_branches_add_nothing():
    rows = [[3.0, 1.0], [0.0, 0.0], [0.5, 2.5], [0.0, 0.0]]
    dense = [[3.0, 1.0], [0.5, 2.5]]
    for crit in (ENTROPY, GINI):
        got = split_scores(np.array(rows), crit)
        want = naive.split_scores(dense, crit)
        assert got == pytest.approx(want, **CLOSE)


# ============================================================================ histograms
def _check_histogram(codes, idx, y, w, n_bins, n_classes):
    """``w`` is per sample; the kernel and the reference get the per-entry ``w[idx]``."""
    wi = w[idx]
    yf = y.astype(np.float64)
    n_bins_want, n_counts_want, n_want = naive.histogram(codes, idx, wi, y, n_classes)
    for crit in (ENTROPY, GINI):  # both classify by class
        bins, counts, n = feature_histogram(codes, idx, wi, yf, yf, n_bins, n_classes, crit)
        assert bins.tolist() == n_bins_want
        assert n.tolist() == n_want
        assert counts.shape == (len(n_bins_want), n_classes)
        np.testing.assert_allclose(counts, np.array(n_counts_want).reshape(counts.shape),
                                   rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("path", ["dense", "sort"])
def test_feature_histogram_matches_naive(path):
    rng = np.random.default_rng(2 if path == "dense" else 3)
    for _ in range(200):
        n_samples = int(rng.integers(1, 60))
        m = int(rng.integers(1, n_samples + 1))
        if path == "dense":
            n_bins = int(rng.integers(1, 4 * m + 257))
        else:
            n_bins = int(rng.integers(4 * m + 257, 4 * m + 2000))
        assert (n_bins <= 4 * m + 256) == (path == "dense")
        n_classes = int(rng.integers(1, 5))
        # few distinct codes in use, so bins repeat (ties), spread over the whole range
        used = rng.choice(n_bins, size=min(n_bins, int(rng.integers(1, 8))), replace=False)
        codes = rng.choice(used, size=n_samples).astype(np.int32)
        idx = rng.choice(n_samples, size=m, replace=False).astype(np.int64)
        y = rng.integers(0, n_classes, size=n_samples).astype(np.int32)
        w = np.round(rng.uniform(0.0, 3.0, size=n_samples), 3) * (rng.random(n_samples) < 0.9)
        _check_histogram(codes, idx, y, w, n_bins, n_classes)


def test_feature_histogram_sort_path_keeps_extreme_bins():
    # bins 0 and n_bins - 1 both present, on the sort path
    codes = np.array([999, 0, 500, 0, 999], dtype=np.int32)
    idx = np.array([4, 3, 2, 1, 0], dtype=np.int64)
    y = np.array([0, 1, 1, 0, 1], dtype=np.int32)
    w = np.array([0.5, 1.25, 2.0, 0.75, 3.0])
    assert 1000 > 4 * 5 + 256
    _check_histogram(codes, idx, y, w, 1000, 2)
    yf = y.astype(np.float64)
    bins, counts, n = feature_histogram(codes, idx, w[idx], yf, yf, 1000, 2, GINI)
    assert bins.tolist() == [0, 500, 999]
    # bin 0: rows 1 (class 1, 1.25) and 3 (class 0, 0.75); bin 500: row 2 (class 1, 2.0);
    # bin 999: rows 0 (class 0, 0.5) and 4 (class 1, 3.0)
    np.testing.assert_allclose(counts, [[0.75, 1.25], [0.0, 2.0], [0.5, 3.0]])
    assert n.tolist() == [2, 1, 2]


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int32])
def test_sorted_positions_is_a_stable_sort_by_code(dtype):
    # Around the insertion-sort cutoff (32) and with codes of one to four bytes (radix passes).
    rng = np.random.default_rng(7)
    for m in (0, 1, 2, 31, 32, 33, 257, 3000):
        for top in (0, 1, 255, 256, 65535, 70000, 2**31 - 1):
            if top > np.iinfo(dtype).max:
                continue
            codes = rng.integers(0, top + 1, size=m + 40).astype(dtype)
            codes[: (m + 40) // 3] = codes[0]  # many ties: their order must be kept
            idx = rng.permutation(m + 40)[:m].astype(np.int64)
            got = sorted_positions(codes, idx)
            assert got.dtype == np.int32
            np.testing.assert_array_equal(got, np.argsort(codes[idx], kind="stable"),
                                          err_msg=f"m={m}, top={top}")


# ============================================================================ search_node
encode = naive.encode  # kernel inputs built independently of quercus._prepare


def random_frame(rng, n, n_cat, n_num, n_classes):
    cols = {}
    for j in range(n_cat):
        k = int(rng.integers(1, 5))
        cols[f"c{j}"] = pd.Series(rng.choice(list("pqrs")[:k], size=n), dtype=object)
    for j in range(n_num):
        kind = rng.integers(3)
        if kind == 0:    # small integers: many ties
            cols[f"n{j}"] = rng.integers(0, 5, size=n).astype(float)
        elif kind == 1:  # rounded decimals, some ties
            cols[f"n{j}"] = np.round(rng.uniform(0, 1, size=n), 1)
        else:            # mostly distinct
            cols[f"n{j}"] = np.round(rng.normal(size=n), 3)
    df = pd.DataFrame(cols)
    labels = np.array(["yes", "no", "maybe"][:n_classes], dtype=object)
    y = labels[rng.integers(0, n_classes, size=n)]
    return df, y


def _check_search(df, y, categorical, w, idx, features, criterion, multiway, msl, mlw,
                  extra_categories=0):
    codes, n_bins, is_cat, values, offsets, cats = encode(df, categorical, extra_categories)
    classes = sorted(set(y.tolist()))
    y_codes = np.array([classes.index(v) for v in y], dtype=np.float64)
    feats = np.array(features, dtype=np.int64)
    found, kind, child, dec, info, split_bin, thr, miss_dir, rho = search_node(
        Binned(codes, n_bins, values, values, offsets), is_cat, feats, idx, w[idx], y_codes,
        y_codes,
        len(classes), criterion, CAT_MULTIWAY if multiway else CAT_ONE_VS_REST, FRACTIONAL,
        msl, mlw, np.full(len(feats), -1.0))
    node = df.iloc[idx]
    best = naive.node_best_splits(
        node, y[idx].tolist(), classes, sample_weight=w[idx].tolist(), criterion=criterion,
        categorical=categorical, categorical_split="multiway" if multiway else "binary",
        categories=cats, features=[df.columns[f] for f in features],
        min_samples_leaf=msl, min_weight_leaf=mlw)
    for i, f in enumerate(features):
        name = df.columns[f]
        want = best[name]
        where = f"feature {name!r}, node rows {idx.tolist()}, criterion {criterion}"
        assert bool(found[i]) == (want is not None), where
        assert rho[i] == 1.0 and miss_dir[i] == -1, where  # nothing is missing here
        if want is None:
            continue
        assert kind[i] == KIND_CODE[want.kind], where
        assert dec[i] == pytest.approx(want.decrease, rel=1e-9, abs=1e-10), where
        assert child[i] == pytest.approx(want.child, rel=1e-9, abs=1e-10), where
        assert info[i] == pytest.approx(want.split_info, rel=1e-9, abs=1e-10), where
        if want.kind == "numeric":
            assert thr[i] == pytest.approx(want.threshold, rel=1e-12, abs=1e-12), where
            # split_bin: the bin of the largest value at the node that goes left
            col_values = values[offsets[f]:offsets[f + 1]].tolist()
            last_left = max(v for v in node[name] if v <= want.threshold)
            assert split_bin[i] == col_values.index(last_left), where
        elif want.kind == "categorical_binary":
            assert split_bin[i] == cats[name].index(want.category), where


@pytest.mark.parametrize("criterion", [ENTROPY, GINI])
@pytest.mark.parametrize("multiway", [True, False])
def test_search_node_matches_naive(criterion, multiway):
    rng = np.random.default_rng(100 + 2 * criterion + multiway)
    for _ in range(60):
        n = int(rng.integers(2, 30))
        df, y = random_frame(rng, n, int(rng.integers(0, 3)), int(rng.integers(1, 3)),
                             int(rng.integers(2, 4)))
        categorical = [c for c in df.columns if c.startswith("c")]
        m = int(rng.integers(1, n + 1))
        idx = np.sort(rng.choice(n, size=m, replace=False)).astype(np.int64)
        if rng.random() < 0.5:
            w = np.ones(n)
        else:
            w = np.round(rng.uniform(0.05, 3.0, size=n), 4)
        p = df.shape[1]
        features = sorted(rng.choice(p, size=int(rng.integers(1, p + 1)), replace=False))
        msl = int(rng.choice([1, 1, 2, 3]))
        mlw = float(rng.choice([0.0, 0.0, 0.5]))
        _check_search(df, y, categorical, w, idx, features, criterion, multiway, msl, mlw)


def test_search_node_without_categorical_features_takes_none_for_is_cat():
    # is_cat=None (no categorical feature) compiles the search without its categorical
    # scorers; the results equal those of an all-False mask.
    rng = np.random.default_rng(11)
    for _ in range(20):
        n = int(rng.integers(2, 40))
        df, y = random_frame(rng, n, 0, int(rng.integers(1, 4)), int(rng.integers(2, 4)))
        codes, n_bins, is_cat, values, offsets, _ = encode(df, [], 0)
        assert not is_cat.any()
        y_codes = np.unique(y, return_inverse=True)[1].astype(np.float64)
        idx = np.sort(rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False))
        w = np.round(rng.uniform(0.05, 3.0, size=n), 4)
        feats = np.arange(df.shape[1], dtype=np.int64)
        outs = [search_node(Binned(codes, n_bins, values, values, offsets), mask, feats,
                            idx.astype(np.int64), w[idx], y_codes, y_codes,
                            int(y_codes.max()) + 1, GINI, CAT_ONE_VS_REST, FRACTIONAL, 1, 0.0,
                            np.full(len(feats), -1.0))
                for mask in (is_cat, None)]
        for a, b in zip(*outs):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("criterion", [ENTROPY, GINI])
@pytest.mark.parametrize("multiway", [True, False])
def test_search_node_sort_path_matches_naive(criterion, multiway):
    # 320 distinct numeric values and 403 declared categories: at a node of m <= 15 samples
    # n_bins > 4 * m + 256, so feature_histogram takes its sort path.
    rng = np.random.default_rng(200 + 2 * criterion + multiway)
    n = 320
    for _ in range(15):
        df = pd.DataFrame({
            "wide": rng.permutation(n) / 7.0,
            "cat": pd.Series(rng.choice(list("abc"), size=n), dtype=object),
            "tied": rng.integers(0, 4, size=n).astype(float),
        })
        y = np.array(["no", "yes"], dtype=object)[rng.integers(0, 2, size=n)]
        m = int(rng.integers(2, 16))
        idx = rng.choice(n, size=m, replace=False).astype(np.int64)
        w = np.round(rng.uniform(0.1, 2.0, size=n), 3)
        msl = int(rng.choice([1, 2]))
        _check_search(df, y, ["cat"], w, idx, [0, 1, 2], criterion, multiway, msl, 0.0,
                      extra_categories=400)


def test_search_node_numeric_tie_goes_to_smallest_threshold():
    # x = 1 2 3 4, y = a b b a: "<= 1.5" and "<= 3.5" both isolate one a; tie -> 1.5
    df = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    y = np.array(["a", "b", "b", "a"], dtype=object)
    w = np.ones(4)
    idx = np.arange(4, dtype=np.int64)
    for crit in (ENTROPY, GINI):
        codes, n_bins, is_cat, values, offsets, _ = encode(df, [])
        yf = np.array([0.0, 1.0, 1.0, 0.0])
        out = search_node(Binned(codes, n_bins, values, values, offsets), is_cat,
                          np.array([0]), idx, w[idx], yf, yf, 2, crit, CAT_MULTIWAY,
                          FRACTIONAL, 1, 0.0, np.full(1, -1.0))
        assert out[6][0] == 1.5
        _check_search(df, y, [], w, idx, [0], crit, True, 1, 0.0)


# ============================================================================ whole trees
def _tree_rows(tree_dict):
    """Pre-order (feature, kind, n_samples, class, threshold, category) of export_dict."""
    out = []
    stack = [tree_dict]
    while stack:
        d = stack.pop()
        out.append((d.get("feature"), d["kind"], d["n_samples"], d["class"],
                    d.get("threshold"), d.get("category")))
        stack.extend(reversed([c["node"] for c in d.get("children", [])]))
    return out


def _naive_rows(tree):
    return [(n.feature, n.kind, n.n_samples, n.prediction, n.threshold, n.category)
            for n in tree.preorder()]


def _compare_trees(est, df, y, criterion, categorical_split, w, msl, X_new):
    est.set_params(min_samples_leaf=msl)
    est.fit(df, y, sample_weight=w)
    ref = naive.build_tree(df, y, criterion=criterion, categorical_split=categorical_split,
                           sample_weight=w, min_samples_leaf=msl)
    ours, theirs = _tree_rows(export_dict(est)), _naive_rows(ref)
    context = f"\n{df.assign(y=y).to_string()}\nweights={None if w is None else w.tolist()}"
    assert est.tree_.node_count == len(theirs), context
    assert {r[0] for r in ours if r[0]} == {r[0] for r in theirs if r[0]}, context
    for a, b in zip(ours, theirs):
        assert a[:4] == b[:4], context
        if b[4] is not None:
            assert a[4] == pytest.approx(b[4], abs=1e-12), context
        assert a[5] == b[5], context
    assert est.predict(df).tolist() == naive.predict(ref, df).tolist(), context
    assert est.predict(X_new).tolist() == naive.predict(ref, X_new).tolist(), context


@pytest.mark.parametrize("name", ["ID3", "CART", "C45"])
def test_fitted_trees_equal_naive_builder(name):
    make, criterion, split = {
        "ID3": (ID3Classifier, "entropy", "multiway"),
        "CART": (CARTClassifier, "gini", "binary"),
        "C45": (C45Classifier, "gain_ratio", "multiway"),
    }[name]
    rng = np.random.default_rng({"ID3": 7, "CART": 8, "C45": 9}[name])
    for trial in range(40):
        n = int(rng.integers(4, 36))
        n_cat = int(rng.integers(0, 4))
        n_num = int(rng.integers(0 if n_cat else 1, 3))
        df, y = random_frame(rng, n + 12, n_cat, n_num, int(rng.integers(2, 4)))
        # fresh rows from the same columns (no unseen category) to predict on
        df, X_new, y = df.iloc[:n].reset_index(drop=True), df.iloc[n:], y[:n]
        for c in df.columns:
            if c.startswith("c"):
                X_new = X_new[X_new[c].isin(set(df[c]))]
        w = None if trial % 3 else np.round(rng.uniform(0.2, 2.5, size=n), 3)
        msl = 1 if trial % 4 else 2
        _compare_trees(make(pruning=None), df, y, criterion, split, w, msl, X_new)


def test_fitted_tree_with_a_subnormal_weight_equals_naive():
    # sample 3 weighs 5e-324: the root holds a: 3, b: 5e-324, entropy ~0 but not 0 weight
    df = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    y = np.array(["a", "a", "b", "a"], dtype=object)
    w = np.array([1.0, 1.0, 5e-324, 1.0])
    for est, crit, split in ((ID3Classifier(), "entropy", "multiway"),
                             (C45Classifier(pruning=None), "gain_ratio", "multiway")):
        _compare_trees(est, df, y, crit, split, w, 1, df)


@pytest.mark.parametrize("name", ["ID3", "CART"])
def test_fitted_tree_with_tiny_weights_equals_naive(name):
    # Scaling every weight by 1e-13 changes nothing in the book's formulas (only shares
    # matter): same tree, and each leaf's class is its majority class. Leaf x = 3 holds one
    # sample of class b (weight 1e-13): its class is b, for predict() and export_dict().
    df = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    y = np.array(["a", "a", "b", "a"], dtype=object)
    est, crit, split = {"ID3": (ID3Classifier(), "entropy", "multiway"),
                        "CART": (CARTClassifier(), "gini", "binary")}[name]
    _compare_trees(est, df, y, crit, split, np.full(4, 1e-13), 1, df)


def test_fitted_tree_on_ties_and_identical_rows_equals_naive():
    # duplicated rows with different labels: "all samples identical" -> majority leaf,
    # with ties in the class counts resolved to the first label seen ("b")
    df = pd.DataFrame({"c": pd.Series(list("xxyyxxyy"), dtype=object),
                       "n": [1.0, 1.0, 2.0, 2.0, 1.0, 1.0, 3.0, 3.0]})
    y = np.array(list("babaabab"), dtype=object)
    for est, crit, split in ((ID3Classifier(), "entropy", "multiway"),
                             (CARTClassifier(), "gini", "binary"),
                             (C45Classifier(pruning=None), "gain_ratio", "multiway")):
        _compare_trees(est, df, y, crit, split, None, 1, df)
        assert est.predict(df.iloc[:1]).tolist() == ["b"]  # x, 1.0: 2 a / 2 b -> b
