"""Regression criteria, missing values, surrogates and routing against ``naive.py``.

Every expectation is computed by the brute-force references of ``naive.py`` (definitions
from the samples, every candidate split enumerated), never by quercus. Inputs are random but
reproducible (numpy generators with fixed seeds).

- squared error and half Poisson deviance: impurity, split scores, histograms;
- search_node for regression: numeric thresholds and ordered categorical splits, checked
  against *every* two-subset partition (Breiman's theorem for squared error);
- missing values: FRACTIONAL / SURROGATE (rho times the known-only decrease, C4.5's split
  information with the missing weight as an extra branch), LEARNED (missing left, right or
  alone, by brute force);
- whole trees: DecisionTreeRegressor against a brute-force CART regression builder, and
  ID3Classifier / C45Classifier on data with missing values against a fractional builder;
- best_surrogate against every surrogate split; route / scatter against a plain loop.
"""

import importlib.util
import math
import pathlib

import numpy as np
import pandas as pd
import pytest

from quercus import C45Classifier, DecisionTreeRegressor, ID3Classifier
from quercus._kernels.criteria import (ENTROPY, GINI, POISSON, SQUARED_ERROR, impurity,
                                       split_scores)
from quercus._kernels.histograms import feature_histogram
from quercus._kernels.partition import route, scatter
from quercus._kernels.schema import (CAT_BINARY, CAT_MULTIWAY, CAT_ONE_VS_REST, CAT_ORDERED,
                                     CAT_SUBSET, FRACTIONAL, LEARNED, MULTIWAY, NUMERIC,
                                     SURROGATE, Binned)
from quercus._kernels.splits import search_node
from quercus._kernels.surrogates import best_surrogate

# pytest runs with --import-mode=importlib, so tests/ is not on sys.path: load naive.py by path.
_spec = importlib.util.spec_from_file_location(
    "quercus_tests_naive", pathlib.Path(__file__).with_name("naive.py"))
naive = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(naive)

CLOSE = dict(rel=1e-9, abs=1e-10)
CAT_MODE_NAMES = {CAT_MULTIWAY: "multiway", CAT_ONE_VS_REST: "one_vs_rest"}
MODE_NAMES = {FRACTIONAL: "FRACTIONAL", SURROGATE: "SURROGATE", LEARNED: "LEARNED"}


def second_stat(y, criterion):
    """y2 of the kernels: y*y (squared error), y*log(y) with 0 at y = 0 (Poisson)."""
    y = np.asarray(y, dtype=np.float64)
    if criterion == POISSON:
        return np.array([v * math.log(v) if v > 0 else 0.0 for v in y])
    return y * y


def random_targets(rng, m, criterion):
    kind = rng.integers(3)
    if criterion == POISSON:
        return rng.poisson(rng.uniform(0.2, 4.0), size=m).astype(float)
    if kind == 0:
        return rng.integers(0, 4, size=m).astype(float)      # ties
    if kind == 1:
        return np.round(rng.normal(2.0, 3.0, size=m), 2)
    return rng.normal(0.0, 1.0, size=m) * 10.0 ** rng.integers(-2, 3)


def random_weights(rng, m, zeros=False):
    if rng.random() < 0.4:
        w = np.ones(m)
    else:
        w = np.round(rng.uniform(0.05, 3.0, size=m), 4)
    if zeros:
        w = w * (rng.random(m) < 0.85)
    return w


# ============================================================================ sanity of naive
def test_naive_regression_reference_values():
    # y = 1 2 3 4 with unit weights: mean 2.5, variance 1.25
    assert naive.squared_error([1, 2, 3, 4], [1, 1, 1, 1]) == pytest.approx(1.25, abs=1e-15)
    # weight 3 on y = 0 and 1 on y = 4: mean 1, variance (3 * 1 + 9) / 4 = 3
    assert naive.squared_error([0, 4], [3, 1]) == pytest.approx(3.0, abs=1e-15)
    # Poisson: y = 0, 2 -> mean 1, half deviance ((0 - 0 + 1) + (2 log 2 - 2 + 1)) / 2
    assert naive.half_poisson_deviance([0, 2], [1, 1]) == pytest.approx(
        (1 + 2 * math.log(2) - 1) / 2, abs=1e-15)
    assert naive.half_poisson_deviance([3, 3], [1, 2]) == 0.0
    # variance reduction of {1, 2} | {3, 4}: 1.25 - 0.25
    parts = [[(1, 1.0), (2, 1.0)], [(3, 1.0), (4, 1.0)]]
    assert naive.partition_scores(parts, naive.SQUARED_ERROR) == pytest.approx((0.25, 1.0, 1.0))
    # C4.5 on Quinlan's golf data with one missing outlook (his book, section 3.1):
    # 13 known values: sunny 2 yes / 3 no, overcast 3 / 0, rain 3 / 2
    # gain = 13/14 * (Ent(8, 5) - 0.747) = 0.199, split info = 1.809 bits
    values = ["s"] * 5 + ["o"] * 3 + ["r"] * 5 + [None]
    ys = ["y", "y", "n", "n", "n", "y", "y", "y", "y", "y", "y", "n", "n", "y"]
    best = naive.best_feature_split(values, ys, [1.0] * 14, criterion=naive.ENTROPY,
                                    categorical=True, categories=["s", "o", "r"])
    assert best.decrease == pytest.approx(0.199, abs=5e-4)
    assert best.split_info == pytest.approx(1.809, abs=5e-4)
    assert best.rho == pytest.approx(13 / 14)


# ============================================================================ (a) criteria
@pytest.mark.parametrize("criterion", [SQUARED_ERROR, POISSON])
def test_regression_impurity_matches_naive(criterion):
    rng = np.random.default_rng(10 + criterion)
    for _ in range(400):
        m = int(rng.integers(1, 25))
        ys = random_targets(rng, m, criterion)
        ws = random_weights(rng, m, zeros=True)
        stats = np.array([ws.sum(), ws @ ys, ws @ second_stat(ys, criterion)])
        want = (naive.squared_error if criterion == SQUARED_ERROR
                else naive.half_poisson_deviance)(ys.tolist(), ws.tolist())
        scale = max(1.0, float(np.max(np.abs(ys))) ** 2)
        assert impurity(stats, criterion) == pytest.approx(want, rel=1e-9, abs=1e-12 * scale)


def test_regression_impurity_of_nothing_is_zero():
    for crit in (SQUARED_ERROR, POISSON):
        assert impurity(np.zeros(3), crit) == 0.0
    assert impurity(np.array([2.0, 0.0, 0.0]), POISSON) == 0.0  # all zero counts: mean 0


@pytest.mark.parametrize("criterion", [SQUARED_ERROR, POISSON])
def test_regression_split_scores_match_naive(criterion):
    rng = np.random.default_rng(20 + criterion)
    for _ in range(300):
        n_branches = int(rng.integers(1, 5))
        parts, rows = [], []
        for _ in range(n_branches):
            m = int(rng.integers(0, 8))  # empty branches allowed
            ys = random_targets(rng, m, criterion)
            ws = random_weights(rng, m)
            parts.append(list(zip(ys.tolist(), ws.tolist())))
            rows.append([ws.sum(), ws @ ys, ws @ second_stat(ys, criterion)])
        child, dec, info = split_scores(np.array(rows, dtype=np.float64), criterion)
        if not any(parts):
            assert (child, dec, info) == (0.0, 0.0, 0.0)
            continue
        want = naive.partition_scores(parts, criterion)
        scale = max(1.0, max(abs(y) for p in parts for y, _ in p) ** 2)
        assert (child, dec, info) == pytest.approx(want, rel=1e-9, abs=1e-11 * scale)


@pytest.mark.parametrize("criterion", [SQUARED_ERROR, POISSON])
def test_regression_histogram_matches_naive(criterion):
    rng = np.random.default_rng(30 + criterion)
    for trial in range(150):
        n_samples = int(rng.integers(1, 50))
        m = int(rng.integers(1, n_samples + 1))
        dense = trial % 2 == 0
        n_bins = int(rng.integers(1, 4 * m + 257) if dense else
                     rng.integers(4 * m + 257, 4 * m + 1500))
        used = rng.choice(n_bins, size=min(n_bins, int(rng.integers(1, 8))), replace=False)
        codes = rng.choice(used, size=n_samples).astype(np.int32)
        idx = rng.choice(n_samples, size=m, replace=False).astype(np.int64)
        ys = random_targets(rng, n_samples, criterion)
        y2 = second_stat(ys, criterion)
        wi = random_weights(rng, m, zeros=True)
        bins, counts, n = feature_histogram(codes, idx, wi, ys, y2, n_bins, 3, criterion)
        want_bins, want_stats, want_n = naive.regression_histogram(codes, idx, wi.tolist(),
                                                                   ys.tolist(), y2.tolist())
        assert bins.tolist() == want_bins and n.tolist() == want_n
        np.testing.assert_allclose(counts, np.array(want_stats).reshape(-1, 3),
                                   rtol=1e-12, atol=1e-9)


# ============================================================================ search helpers
def random_frame(rng, n, n_cat, n_num, p_missing=0.0, max_categories=5):
    cols = {}
    for j in range(n_cat):
        k = int(rng.integers(1, max_categories + 1))
        vals = rng.choice(list("pqrst")[:k], size=n).astype(object)
        vals[rng.random(n) < p_missing] = None
        cols[f"c{j}"] = pd.Series(vals, dtype=object)
    for j in range(n_num):
        kind = rng.integers(3)
        if kind == 0:
            vals = rng.integers(0, 5, size=n).astype(float)
        elif kind == 1:
            vals = np.round(rng.uniform(0, 1, size=n), 1)
        else:
            vals = np.round(rng.normal(size=n), 3)
        vals[rng.random(n) < p_missing] = np.nan
        cols[f"n{j}"] = vals
    return pd.DataFrame(cols)


def kernel_search(df, y, w, idx, features, criterion, cat_mode, missing_mode, msl=1, mlw=0.0):
    """search_node on inputs built by naive.encode; y: labels (classification) or targets."""
    categorical = [c for c in df.columns if c.startswith("c")]
    codes, n_bins, is_cat, values, offsets, cats = naive.encode(df, categorical)
    if criterion in (ENTROPY, GINI):
        classes = sorted(set(y.tolist()))
        yf = np.array([classes.index(v) for v in y], dtype=np.float64)
        y2, n_stats = yf, len(classes)
    else:
        yf = np.asarray(y, dtype=np.float64)
        y2, n_stats = second_stat(yf, criterion), 3
    out = search_node(Binned(codes, n_bins, values, values, offsets), is_cat,
                      np.array(features, np.int64),
                      idx, w[idx], yf, y2, n_stats, criterion, cat_mode, missing_mode, msl,
                      mlw, np.full(len(features), -1.0))
    keys = ("found", "kind", "child", "dec", "info", "split_bin", "thr", "miss_dir", "rho")
    return dict(zip(keys, out)), (values, offsets, cats)


def naive_best(df, y, w, idx, f, criterion, cat_mode, missing_mode, cats, msl=1, mlw=0.0):
    col = df.columns[f]
    cat = col.startswith("c")
    return naive.best_feature_split(
        [df[col].iloc[i] for i in idx], [y[i] for i in idx], [float(w[i]) for i in idx],
        criterion=criterion, categorical=cat, cat_mode=cat_mode if cat else None,
        categories=cats.get(col), missing_mode=missing_mode, min_samples_leaf=msl,
        min_weight_leaf=mlw)


def subset_of_kernel(df, y, w, idx, f, n_left, miss_dir, criterion, missing_mode, cats):
    """The naive Split that the kernel's ordered answer stands for: the first ``n_left``
    categories by mean target (ties in category order) on the left, scored by naive."""
    col = df.columns[f]
    values = [df[col].iloc[i] for i in idx]
    ys, ws = [y[i] for i in idx], [float(w[i]) for i in idx]
    present = [c for c in cats[col] if c in values]
    if n_left == len(present):  # every known category left (any order): no means needed
        left = tuple(present)
    else:
        means = naive.category_means(values, ys, ws, present)
        order = sorted(present, key=lambda c: (means[c], present.index(c)))
        left = tuple(order[:n_left])
    split = naive.Split("subset", lambda v: 0 if v in left else 1, 2,
                        missing_to=None if miss_dir < 0 else int(miss_dir), left=left)
    return naive.score_split(split, values, ys, ws, criterion, missing_mode)


def check_feature(got, i, want, *, f, df, idx, values, offsets, cats, where, check_info=True):
    """Compare the kernel's answer for feature ``f`` (position ``i``) with a naive Split."""
    assert bool(got["found"][i]) == (want is not None), where
    if want is None:
        return
    assert got["dec"][i] == pytest.approx(want.decrease, **CLOSE), where
    if check_info:
        assert got["info"][i] == pytest.approx(want.split_info, **CLOSE), where
    assert got["rho"][i] == pytest.approx(want.rho, rel=1e-12), where
    col = df.columns[f]
    miss = -1 if want.missing_to is None else want.missing_to
    if want.kind == "numeric":
        assert got["kind"][i] == NUMERIC, where
        assert got["thr"][i] == pytest.approx(want.threshold, rel=1e-12, abs=1e-12), where
        col_values = values[offsets[f]:offsets[f + 1]].tolist()
        node_known = [v for v in df[col].iloc[idx] if not naive.is_missing(v)]
        last_left = max(v for v in node_known if v <= want.threshold)
        assert got["split_bin"][i] == col_values.index(last_left), where
        assert got["miss_dir"][i] == miss, where
        assert got["child"][i] == pytest.approx(want.child, **CLOSE), where
    elif want.kind == "one_vs_rest":
        assert got["kind"][i] == CAT_BINARY, where
        assert got["split_bin"][i] == cats[col].index(want.category), where
        assert got["miss_dir"][i] == miss, where
        assert got["child"][i] == pytest.approx(want.child, **CLOSE), where
    elif want.kind == "multiway":
        assert got["kind"][i] == MULTIWAY, where
        assert got["miss_dir"][i] == miss, where  # the branch index is the category code
        assert got["child"][i] == pytest.approx(want.child, **CLOSE), where


# ============================================================================ (b) regression
@pytest.mark.parametrize("criterion", [SQUARED_ERROR, POISSON])
def test_search_node_regression_matches_brute_force(criterion):
    # msl = 1, mlw = 0: the ordered scan must reach the best of *all* two-subset partitions
    # (Breiman's theorem); with leaf constraints, the best valid cut of the sorted order.
    rng = np.random.default_rng(40 + criterion)
    for trial in range(70):
        n = int(rng.integers(2, 26))
        df = random_frame(rng, n, int(rng.integers(0, 3)), int(rng.integers(0 if trial % 2 else 1,
                                                                            3)))
        if df.shape[1] == 0:
            continue
        y = random_targets(rng, n, criterion)
        w = random_weights(rng, n)
        idx = np.sort(rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False))
        constrained = trial % 3 == 0
        msl = int(rng.choice([2, 3])) if constrained else 1
        mlw = float(rng.choice([0.0, 0.5])) if constrained else 0.0
        features = list(range(df.shape[1]))
        got, (values, offsets, cats) = kernel_search(df, y, w, idx.astype(np.int64), features,
                                                     criterion, CAT_ORDERED, FRACTIONAL,
                                                     msl, mlw)
        for i, f in enumerate(features):
            col = df.columns[f]
            mode = "sorted" if constrained else "subsets"
            want = naive_best(df, y, w, idx, f, criterion, mode, FRACTIONAL, cats, msl, mlw)
            where = f"{col}, rows {idx.tolist()}, y {y[idx].tolist()}, w {w[idx].tolist()}"
            check_feature(got, i, want, f=f, df=df, idx=idx, values=values, offsets=offsets,
                          cats=cats, where=where)
            if want is not None and want.kind == "subset":
                assert got["kind"][i] == CAT_SUBSET, where
                mine = subset_of_kernel(df, y, w, idx, f, int(got["split_bin"][i]), -1,
                                        criterion, FRACTIONAL, cats)
                assert mine.decrease == pytest.approx(got["dec"][i], **CLOSE), where
                assert got["child"][i] == pytest.approx(want.child, **CLOSE), where


def test_ordered_categories_reach_the_best_of_all_subsets_breiman():
    # Breiman et al. (CART, theorem 4.5 / 9.6): for squared error, sorting the categories by
    # mean target and cutting the sorted list finds the best of all 2^(k-1) - 1 two-subset
    # partitions. k <= 5 present categories, weighted samples; every subset is tried by naive.
    rng = np.random.default_rng(50)
    checked = 0
    for _ in range(150):
        k = int(rng.integers(2, 6))
        n = int(rng.integers(k, 30))
        cats = list("abcde")[:k]
        vals = np.array(cats + list(rng.choice(cats, size=n - k)), dtype=object)
        rng.shuffle(vals)
        df = pd.DataFrame({"c0": pd.Series(vals, dtype=object)})
        y = random_targets(rng, n, SQUARED_ERROR)
        w = random_weights(rng, n)
        idx = np.arange(n, dtype=np.int64)
        got, (_, _, enc) = kernel_search(df, y, w, idx, [0], SQUARED_ERROR, CAT_ORDERED,
                                         FRACTIONAL)
        everything = naive_best(df, y, w, idx, 0, SQUARED_ERROR, "subsets", FRACTIONAL, enc)
        sorted_cut = naive_best(df, y, w, idx, 0, SQUARED_ERROR, "sorted", FRACTIONAL, enc)
        where = f"cats {vals.tolist()}, y {y.tolist()}, w {w.tolist()}"
        assert sorted_cut.decrease == pytest.approx(everything.decrease, **CLOSE), where
        assert got["found"][0] and got["kind"][0] == CAT_SUBSET, where
        assert got["dec"][0] == pytest.approx(everything.decrease, **CLOSE), where
        assert 1 <= got["split_bin"][0] <= k - 1, where
        mine = subset_of_kernel(df, y, w, idx, 0, int(got["split_bin"][0]), -1,
                                SQUARED_ERROR, FRACTIONAL, enc)
        assert mine.decrease == pytest.approx(everything.decrease, **CLOSE), where
        checked += k >= 4
    assert checked > 50


# ============================================================================ (c) missing
@pytest.mark.parametrize("mode", [FRACTIONAL, SURROGATE])
@pytest.mark.parametrize("criterion", [ENTROPY, GINI, SQUARED_ERROR])
def test_fractional_and_surrogate_decrease_is_rho_times_known_decrease(mode, criterion):
    rng = np.random.default_rng(60 + 3 * mode + criterion)
    regression = criterion == SQUARED_ERROR
    cat_modes = [CAT_ORDERED] if regression else [CAT_MULTIWAY, CAT_ONE_VS_REST]
    for trial in range(50):
        n = int(rng.integers(2, 26))
        df = random_frame(rng, n, int(rng.integers(0, 3)), int(rng.integers(1, 3)),
                          p_missing=float(rng.choice([0.1, 0.3, 0.6])))
        if regression:
            y = random_targets(rng, n, criterion)
        else:
            y = np.array(["yes", "no", "maybe"], dtype=object)[rng.integers(0, 3, size=n)]
        w = random_weights(rng, n)
        idx = np.sort(rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False))
        msl = int(rng.choice([1, 1, 2]))
        cat_mode = cat_modes[trial % len(cat_modes)]
        name = "sorted" if cat_mode == CAT_ORDERED else CAT_MODE_NAMES[cat_mode]
        features = list(range(df.shape[1]))
        got, (values, offsets, cats) = kernel_search(df, y, w, idx, features, criterion,
                                                     cat_mode, mode, msl)
        for i, f in enumerate(features):
            col = df.columns[f]
            where = (f"{MODE_NAMES[mode]} {col}: {df[col].iloc[idx].tolist()}, "
                     f"y {y[idx].tolist()}, w {w[idx].tolist()}")
            want = naive_best(df, y, w, idx, f, criterion, name, mode, cats, msl)
            check_feature(got, i, want, f=f, df=df, idx=idx, values=values, offsets=offsets,
                          cats=cats, where=where, check_info=mode == FRACTIONAL)
            # the identity itself: rho * (best decrease on the known values alone)
            known = np.array([s for s in idx if not naive.is_missing(df[col].iloc[s])],
                             dtype=np.int64)
            rho = w[known].sum() / w[idx].sum() if known.size else 0.0
            assert got["rho"][i] == pytest.approx(rho, rel=1e-12), where
            alone = naive_best(df, y, w, known, f, criterion, name, mode, cats, msl)
            assert bool(got["found"][i]) == (alone is not None), where
            if alone is not None:
                assert got["dec"][i] == pytest.approx(rho * alone.decrease, **CLOSE), where
                assert got["child"][i] == pytest.approx(alone.child, **CLOSE), where
                if mode == FRACTIONAL:
                    # Quinlan: IV over the known branches plus the missing weight
                    branch_w = [sum(wt for _, wt in part) for part in alone.parts]
                    miss_w = w[idx].sum() - w[known].sum()
                    assert got["info"][i] == pytest.approx(
                        naive.entropy(branch_w + ([miss_w] if miss_w > 0 else [])), **CLOSE)
                if got["kind"][i] == CAT_SUBSET:
                    mine = subset_of_kernel(df, y, w, idx, f, int(got["split_bin"][i]), -1,
                                            criterion, mode, cats)
                    assert mine.decrease == pytest.approx(got["dec"][i], **CLOSE), where


def test_fractional_split_info_worked_example():
    # Quinlan's golf data, outlook with one value missing (C4.5, section 3.1): gain 0.199,
    # split information 1.809 (numbers from the book, not from naive).
    outlook = ["s", "s", "s", "s", "s", "o", "o", "o", "r", "r", "r", "r", "r", None]
    play = ["y", "y", "n", "n", "n", "y", "y", "y", "y", "y", "y", "n", "n", "y"]
    df = pd.DataFrame({"c0": pd.Series(outlook, dtype=object)})
    got, _ = kernel_search(df, np.array(play, dtype=object), np.ones(14),
                           np.arange(14, dtype=np.int64), [0], ENTROPY, CAT_MULTIWAY,
                           FRACTIONAL)
    assert got["found"][0] and got["kind"][0] == MULTIWAY
    assert got["dec"][0] == pytest.approx(0.199, abs=5e-4)
    assert got["info"][0] == pytest.approx(1.809, abs=5e-4)
    assert got["rho"][0] == pytest.approx(13 / 14, rel=1e-12)


@pytest.mark.parametrize("criterion", [ENTROPY, GINI, SQUARED_ERROR, POISSON])
def test_learned_missing_goes_to_the_best_side_brute_force(criterion):
    # LEARNED: every cut with the missing values right, then left, and the cut "every known
    # value left, missing right" (threshold inf); multiway: the best category branch;
    # ordered categorical: every two-subset partition (k <= 5) with the missing ones on
    # either side, or alone.
    rng = np.random.default_rng(70 + criterion)
    regression = criterion in (SQUARED_ERROR, POISSON)
    cat_modes = [CAT_ORDERED] if regression else [CAT_MULTIWAY, CAT_ONE_VS_REST]
    for trial in range(60):
        n = int(rng.integers(2, 26))
        df = random_frame(rng, n, int(rng.integers(0, 3)), int(rng.integers(1, 3)),
                          p_missing=float(rng.choice([0.0, 0.15, 0.4])))
        if regression:
            y = random_targets(rng, n, criterion)
        else:
            y = np.array(["yes", "no", "maybe"], dtype=object)[rng.integers(0, 3, size=n)]
        w = random_weights(rng, n)
        idx = np.sort(rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False))
        cat_mode = cat_modes[trial % len(cat_modes)]
        name = "subsets" if cat_mode == CAT_ORDERED else CAT_MODE_NAMES[cat_mode]
        features = list(range(df.shape[1]))
        got, (values, offsets, cats) = kernel_search(df, y, w, idx, features, criterion,
                                                     cat_mode, LEARNED)
        for i, f in enumerate(features):
            col = df.columns[f]
            where = f"LEARNED {col}: {df[col].iloc[idx].tolist()}, y {y[idx].tolist()}, " \
                    f"w {w[idx].tolist()}"
            want = naive_best(df, y, w, idx, f, criterion, name, LEARNED, cats)
            check_feature(got, i, want, f=f, df=df, idx=idx, values=values, offsets=offsets,
                          cats=cats, where=where)
            if want is not None and want.kind == "subset":
                assert got["kind"][i] == CAT_SUBSET, where
                assert got["child"][i] == pytest.approx(want.child, **CLOSE), where
                mine = subset_of_kernel(df, y, w, idx, f, int(got["split_bin"][i]),
                                        int(got["miss_dir"][i]), criterion, LEARNED, cats)
                assert mine.decrease == pytest.approx(got["dec"][i], **CLOSE), where


def test_learned_missing_alone_has_infinite_threshold_and_ties_keep_missing_right():
    # x = 1 2 NaN NaN, y = 0 0 5 5: "every known value left, missing right" is perfect:
    # threshold inf, miss_dir 1, decrease = the node's whole variance.
    df = pd.DataFrame({"n0": [1.0, 2.0, np.nan, np.nan]})
    y = np.array([0.0, 0.0, 5.0, 5.0])
    got, _ = kernel_search(df, y, np.ones(4), np.arange(4, dtype=np.int64), [0],
                           SQUARED_ERROR, CAT_ORDERED, LEARNED)
    assert got["found"][0] and got["thr"][0] == np.inf and got["miss_dir"][0] == 1
    assert got["split_bin"][0] == 1  # the last known bin goes left
    assert got["dec"][0] == pytest.approx(naive.squared_error(y.tolist(), [1.0] * 4))
    # x = 1 2 NaN, y = 0 1 0.5: "x <= 1.5" with the missing value left ({0, 0.5} | {1}) or
    # right ({0} | {1, 0.5}) scores the same; the tie keeps it right (scikit-learn's order).
    df = pd.DataFrame({"n0": [1.0, 2.0, np.nan]})
    y = np.array([0.0, 1.0, 0.5])
    want = naive.best_feature_split(df["n0"].tolist(), y.tolist(), [1.0] * 3,
                                    criterion=naive.SQUARED_ERROR, missing_mode=naive.LEARNED)
    assert (want.threshold, want.missing_to) == (1.5, 1)
    got, _ = kernel_search(df, y, np.ones(3), np.arange(3, dtype=np.int64), [0],
                           SQUARED_ERROR, CAT_ORDERED, LEARNED)
    assert (got["thr"][0], got["miss_dir"][0]) == (1.5, 1)
    assert got["dec"][0] == pytest.approx(want.decrease, **CLOSE)


def test_learned_single_known_value_splits_off_the_missing_ones():
    # One known value (or category) at the node plus missing values: under LEARNED the only
    # candidate is "known values left, missing right". A numeric feature finds it; so must a
    # one-vs-rest ("x == q" | missing) or ordered ({q} | missing) categorical feature.
    y = np.array([1.0, 2.0, 1.5, 9.0, 8.0])
    ys = ["a", "a", "a", "b", "b"]
    num = pd.DataFrame({"n0": [3.0, 3.0, 3.0, np.nan, np.nan]})
    cat = pd.DataFrame({"c0": pd.Series(["q", "q", "q", None, None], dtype=object)})
    idx = np.arange(5, dtype=np.int64)
    for df, crit, mode, target in ((num, SQUARED_ERROR, CAT_ORDERED, y),
                                   (cat, SQUARED_ERROR, CAT_ORDERED, y),
                                   (cat, GINI, CAT_ONE_VS_REST, np.array(ys, dtype=object))):
        col = df.columns[0]
        want = naive.best_feature_split(
            df[col].tolist(), target.tolist(), [1.0] * 5, criterion=crit,
            categorical=col == "c0", missing_mode=naive.LEARNED,
            cat_mode="subsets" if mode == CAT_ORDERED else "one_vs_rest")
        assert want is not None and want.missing_to == 1
        got, _ = kernel_search(df, target, np.ones(5), idx, [0], crit, mode, LEARNED)
        where = f"{col}, cat_mode {mode}"
        assert got["found"][0], f"{where}: the split 'known | missing' was not found"
        assert got["dec"][0] == pytest.approx(want.decrease, **CLOSE), where
        assert got["miss_dir"][0] == 1, where


def test_learned_ordered_categorical_missing_alone():
    # Categories a and b have nearly the same mean; the missing values are far away. The
    # best LEARNED partition of this ordered categorical feature is "every known category
    # left, missing right" (as for a numeric feature, where it is threshold = inf): the
    # feature must be found, with that decrease.
    df = pd.DataFrame({"c0": pd.Series(["a", "a", "b", "b", None, None], dtype=object)})
    y = np.array([0.0, 1.0, 0.0, 1.0, 10.0, 10.0])
    want = naive.best_feature_split(df["c0"].tolist(), y.tolist(), [1.0] * 6,
                                    criterion=naive.SQUARED_ERROR, categorical=True,
                                    cat_mode="subsets", missing_mode=naive.LEARNED)
    assert want.missing_to == 1 and set(want.left) == {"a", "b"}
    got, _ = kernel_search(df, y, np.ones(6), np.arange(6, dtype=np.int64), [0],
                           SQUARED_ERROR, CAT_ORDERED, LEARNED)
    assert got["found"][0], "the best LEARNED split of c0 (missing alone) was not returned"
    assert got["dec"][0] == pytest.approx(want.decrease, **CLOSE)
    assert got["miss_dir"][0] == 1 and got["split_bin"][0] == 2


# ============================================================================ (e) surrogates
def test_best_surrogate_matches_brute_force():
    rng = np.random.default_rng(80)
    for trial in range(300):
        n = int(rng.integers(2, 30))
        categorical = trial % 2 == 1
        df = random_frame(rng, n, 1 if categorical else 0, 0 if categorical else 1,
                          p_missing=float(rng.choice([0.0, 0.2, 0.5])))
        col = df.columns[0]
        codes, n_bins, is_cat, values, offsets, cats = naive.encode(df, [col] if categorical
                                                                    else [])
        idx = rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False).astype(np.int64)
        wi = random_weights(rng, idx.size)
        direction = np.zeros(n)
        direction[idx] = rng.integers(0, 2, size=idx.size)
        agree, majority, kind, b, thr, flip = best_surrogate(
            codes[:, 0], idx, wi, direction, int(n_bins[0]), categorical, values, values)
        node_values = [df[col].iloc[i] for i in idx]
        if categorical:  # naive works on codes, as the kernel reports categories
            node_values = [None if naive.is_missing(v) else cats[col].index(v)
                           for v in node_values]
        dirs = [int(direction[i]) for i in idx]
        cands = naive.surrogate_candidates(node_values, dirs, wi.tolist(), categorical)
        total = wi.sum()
        right = sum(wt for d, wt in zip(dirs, wi) if d == 1)
        where = f"values {node_values}, directions {dirs}, w {wi.tolist()}"
        assert majority == pytest.approx(max(right, total - right) / total, rel=1e-12), where
        if not cands:
            assert b == -1 and agree == 0.0, where
            continue
        top = max(a for _, _, a in cands)
        first = next(c for c in cands if c[2] >= top - 1e-12 / total)
        assert agree == pytest.approx(top, rel=1e-12, abs=1e-15), where
        assert flip == first[1], where
        if categorical:
            assert kind == CAT_BINARY and b == first[0], where
        else:
            assert kind == NUMERIC and thr == pytest.approx(first[0], rel=1e-12, abs=1e-12), where
            col_values = values[offsets[0]:offsets[1]].tolist()
            assert col_values[b] == max(v for v in node_values
                                        if not naive.is_missing(v) and v <= first[0]), where
        # the returned split, replayed by naive, has the returned agreement
        if categorical:
            goes_right = (lambda v: v != b) if not flip else (lambda v: v == b)
        else:
            goes_right = (lambda v: v > thr) if not flip else (lambda v: v <= thr)
        assert naive.surrogate_agreement(node_values, dirs, wi.tolist(), goes_right) == \
            pytest.approx(agree, rel=1e-12), where


# ============================================================================ route / scatter
def test_route_and_scatter_match_naive():
    rng = np.random.default_rng(90)
    for trial in range(200):
        n = int(rng.integers(1, 30))
        n_real = int(rng.integers(1, 6))
        codes = rng.integers(0, n_real + 1, size=n).astype(np.int32)  # n_real = missing
        idx = rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False).astype(np.int64)
        wi = random_weights(rng, idx.size)
        kind = [NUMERIC, CAT_BINARY, CAT_SUBSET, MULTIWAY][trial % 4]
        split_bin = int(rng.integers(0, n_real))
        cat_map = rng.integers(0, 2, size=n_real).astype(np.int64)
        branch = route(codes, idx, kind, split_bin, cat_map, n_real)
        for s, b in zip(idx, branch):
            c = int(codes[s])
            want = (-1 if c == n_real else
                    (0 if c <= split_bin else 1) if kind == NUMERIC else
                    (0 if c == split_bin else 1) if kind == CAT_BINARY else
                    int(cat_map[c]) if kind == CAT_SUBSET else c)
            assert b == want
        n_children = n_real if kind == MULTIWAY else 2
        known_w = np.array([wi[branch == c].sum() for c in range(n_children)])
        shares = known_w / known_w.sum() if known_w.sum() > 0 else known_w
        y = rng.integers(0, 3, size=n).astype(np.float64)
        for crit, n_stats in ((GINI, 3), (SQUARED_ERROR, 3)):
            out_idx, out_w, offsets, stats, child_n = scatter(idx, wi, branch, n_children,
                                                              shares, y, y * y, n_stats, crit,
                                                              False)
            # With unit weights the caller has the ones: the same samples, no weight list.
            u_idx, u_w, u_offsets, _, _ = scatter(idx, wi, branch, n_children, shares, y,
                                                  y * y, n_stats, crit, True)
            assert u_w.size == 0 and u_idx.tolist() == out_idx.tolist()
            assert u_offsets.tolist() == offsets.tolist()
            want = naive.scatter(idx.tolist(), wi.tolist(), branch.tolist(), n_children,
                                 shares.tolist())
            for c in range(n_children):
                s, e = offsets[c], offsets[c + 1]
                assert out_idx[s:e].tolist() == [i for i, _ in want[c]]
                np.testing.assert_allclose(out_w[s:e], [wt for _, wt in want[c]], rtol=1e-15)
                assert child_n[c] == len(want[c])
                if crit == GINI:
                    cls = [sum(wt for i, wt in want[c] if y[i] == k) for k in range(3)]
                    np.testing.assert_allclose(stats[c], cls, rtol=1e-12, atol=1e-12)
                else:
                    reg = [sum(wt for _, wt in want[c]), sum(wt * y[i] for i, wt in want[c]),
                           sum(wt * y[i] ** 2 for i, wt in want[c])]
                    np.testing.assert_allclose(stats[c], reg, rtol=1e-12, atol=1e-12)


# ============================================================================ (d) whole trees
def test_regressor_equals_naive_cart_builder():
    rng = np.random.default_rng(100)
    for trial in range(30):
        n = int(rng.integers(4, 30))
        n_cat = int(rng.integers(0, 3))
        df = random_frame(rng, n + 10, n_cat, int(rng.integers(0 if n_cat else 1, 3)),
                          max_categories=4)
        y_all = random_targets(rng, n + 10, SQUARED_ERROR)
        X, X_new, y = df.iloc[:n].reset_index(drop=True), df.iloc[n:], y_all[:n]
        categorical = [c for c in df.columns if c.startswith("c")]
        for c in categorical:
            X_new = X_new[X_new[c].isin(set(X[c]))]
        w = None if trial % 3 == 0 else np.round(rng.uniform(0.2, 2.5, size=n), 3)
        msl = 1 if trial % 4 else 2
        est = DecisionTreeRegressor(min_samples_leaf=msl).fit(X, y, sample_weight=w)
        ref = naive.build_regression_tree(X, y, sample_weight=w, categorical=categorical,
                                          min_samples_leaf=msl)
        context = f"\n{X.assign(y=y).to_string()}\nweights={None if w is None else w.tolist()}"
        np.testing.assert_allclose(est.predict(X), naive.predict_regression(ref, X),
                                   rtol=1e-9, atol=1e-9, err_msg=context)
        if len(X_new):
            np.testing.assert_allclose(est.predict(X_new), naive.predict_regression(ref, X_new),
                                       rtol=1e-9, atol=1e-9, err_msg=context)


def _fractional_frame(rng, n, p_missing):
    df = random_frame(rng, n, int(rng.integers(1, 3)), int(rng.integers(0, 3)),
                      p_missing=p_missing, max_categories=3)
    for c in df.columns:  # the estimator rejects a column with no value at all
        if df[c].isna().all():
            df.loc[0, c] = "p" if c.startswith("c") else 0.5
    return df


@pytest.mark.parametrize("name", ["ID3", "C45"])
def test_fractional_classifier_with_missing_values_equals_naive(name):
    make, gain_ratio = {"ID3": (ID3Classifier, False), "C45": (C45Classifier, True)}[name]
    rng = np.random.default_rng({"ID3": 110, "C45": 111}[name])
    for trial in range(35):
        n = int(rng.integers(4, 30))
        df = _fractional_frame(rng, n + 10, float(rng.choice([0.1, 0.25, 0.4])))
        labels = np.array(["yes", "no", "maybe"], dtype=object)
        y_all = labels[rng.integers(0, int(rng.integers(2, 4)), size=n + 10)]
        X, X_new, y = df.iloc[:n].reset_index(drop=True), df.iloc[n:], y_all[:n]
        if len(set(y)) < 2:
            continue
        categorical = [c for c in df.columns if c.startswith("c")]
        for c in categorical:
            X_new = X_new[X_new[c].isin(set(X[c].dropna())) | X_new[c].isna()]
        w = None if trial % 3 == 0 else np.round(rng.uniform(0.2, 2.5, size=n), 3)
        est = make(pruning=None).fit(X, y, sample_weight=w)  # the unpruned tree
        ref, classes = naive.build_fractional_tree(X, y, sample_weight=w,
                                                   categorical=categorical,
                                                   gain_ratio_rule=gain_ratio)
        assert list(est.classes_) == classes
        context = f"\n{X.assign(y=y).to_string()}\nweights={None if w is None else w.tolist()}"
        assert est.tree_.node_count == sum(1 for _ in _preorder(ref)), context
        for data in (X, X_new):
            if not len(data):
                continue
            want = np.array([naive.predict_fractional_proba(ref, row)
                             for _, row in data.iterrows()])
            np.testing.assert_allclose(est.predict_proba(data), want, rtol=1e-9, atol=1e-12,
                                       err_msg=context)


def _preorder(node):
    yield node
    for child in node.children:
        yield from _preorder(child)
