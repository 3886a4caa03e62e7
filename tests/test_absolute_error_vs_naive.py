"""The absolute-error split search (Fenwick-tree scan) against a brute-force reference."""

import numpy as np
import pytest

from quercus import DecisionTreeRegressor
from quercus._kernels.absolute import abs_dev
from quercus._kernels.criteria import ABSOLUTE_ERROR
from quercus._kernels.splits import search_node
from quercus._kernels.schema import (CAT_MULTIWAY, CAT_ONE_VS_REST, CAT_ORDERED, FRACTIONAL,
                                     LEARNED, Binned)


def naive_abs_dev(y, w):
    """min over m of sum w |y - m|: attained at a data point (a weighted median)."""
    if len(y) == 0:
        return 0.0
    return min(float(np.sum(w * np.abs(y - m))) for m in y)


def naive_best_numeric(x, y, w, min_leaf):
    """Best child impurity over every midpoint, and its threshold (first on ties)."""
    vals = np.unique(x[~np.isnan(x)])
    best = (np.inf, None)
    known = ~np.isnan(x)
    for a, b in zip(vals[:-1], vals[1:]):
        t = a / 2 + b / 2
        left = known & (x <= t)
        right = known & (x > t)
        if left.sum() < min_leaf or right.sum() < min_leaf:
            continue
        child = (naive_abs_dev(y[left], w[left]) + naive_abs_dev(y[right], w[right])) / w[
            known].sum()
        if child < best[0] - 1e-12:
            best = (child, t)
    return best


def run_search(codes, n_bins, is_cat, values, y, w, cat_mode, missing_mode, min_leaf=1):
    n, p = codes.shape
    offsets = np.zeros(p + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(v) for v in values])
    flat = np.concatenate(values) if values else np.zeros(0)
    binned = Binned(np.asfortranarray(codes.astype(np.int32)), n_bins.astype(np.int64), flat,
                    flat, offsets)
    return search_node(binned, is_cat, np.arange(p, dtype=np.int64),
                       np.arange(n, dtype=np.int64), w, y, y * y, 3, ABSOLUTE_ERROR, cat_mode,
                       missing_mode, min_leaf, 0.0, np.full(p, -1.0))


@pytest.mark.parametrize("seed", range(20))
def test_abs_dev_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 6, rng.integers(1, 15)).astype(float)
    w = rng.uniform(0.1, 3, y.size)
    assert abs_dev(y, w) == pytest.approx(naive_abs_dev(y, w), abs=1e-9)


@pytest.mark.parametrize("seed", range(25))
@pytest.mark.parametrize("min_leaf", [1, 3])
def test_numeric_search_equals_brute_force(seed, min_leaf):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 40))
    x = rng.integers(0, 8, n).astype(float)
    y = rng.normal(size=n).round(1)
    w = rng.uniform(0.5, 2.0, n)
    vals, codes = np.unique(x, return_inverse=True)
    found, kind, child, dec, info, split_bin, thr, miss_dir, rho = run_search(
        codes[:, None], np.array([len(vals)]), np.array([False]), [vals], y, w, CAT_MULTIWAY,
        FRACTIONAL, min_leaf)
    best_child, best_t = naive_best_numeric(x, y, w, min_leaf)
    if best_t is None:
        assert not found[0]
        return
    assert found[0]
    assert child[0] == pytest.approx(best_child, abs=1e-9)
    assert thr[0] == pytest.approx(best_t)
    parent = naive_abs_dev(y, w) / w.sum()
    assert dec[0] == pytest.approx(parent - best_child, abs=1e-9)


@pytest.mark.parametrize("seed", range(15))
def test_missing_values_scale_by_rho_or_join_the_best_side(seed):
    rng = np.random.default_rng(100 + seed)
    n = 30
    x = rng.integers(0, 6, n).astype(float)
    x[rng.random(n) < 0.25] = np.nan
    y = rng.normal(size=n).round(1)
    w = np.ones(n)
    known = ~np.isnan(x)
    vals = np.unique(x[known])
    codes = np.where(known, np.searchsorted(vals, np.nan_to_num(x)), len(vals))
    # FRACTIONAL: known values only, decrease times rho.
    found, _, child, dec, _, _, thr, _, rho = run_search(
        codes[:, None], np.array([len(vals)]), np.array([False]), [vals], y, w, CAT_MULTIWAY,
        FRACTIONAL)
    best_child, best_t = naive_best_numeric(x, y, w, 1)
    r = known.mean()
    assert rho[0] == pytest.approx(r)
    parent_known = naive_abs_dev(y[known], w[known]) / w[known].sum()
    assert dec[0] == pytest.approx(r * (parent_known - best_child), abs=1e-9)
    # LEARNED: every threshold with the missing samples left or right, or alone on the right.
    found, _, child, dec, _, _, thr, miss_dir, _ = run_search(
        codes[:, None], np.array([len(vals)]), np.array([False]), [vals], y, w, CAT_MULTIWAY,
        LEARNED)
    miss = ~known
    candidates = []
    for a, b in zip(vals[:-1], vals[1:]):
        t = a / 2 + b / 2
        for d in (1, 0):
            left = (known & (x <= t)) | (miss if d == 0 else False)
            right = ~left
            candidates.append(((naive_abs_dev(y[left], w[left])
                                + naive_abs_dev(y[right], w[right])) / n, t, d))
    candidates.append(((naive_abs_dev(y[known], w[known]) + naive_abs_dev(y[miss], w[miss]))
                       / n, np.inf, 1))
    best = min(c[0] for c in candidates)
    assert child[0] == pytest.approx(best, abs=1e-9)
    winners = [(t, d) for c, t, d in candidates if c <= best + 1e-12]
    assert (thr[0], miss_dir[0]) == winners[0]


@pytest.mark.parametrize("seed", range(15))
def test_categorical_modes_equal_brute_force(seed):
    rng = np.random.default_rng(200 + seed)
    n, k = 36, 4
    c = rng.integers(0, k, n)
    y = (c * 0.7 + rng.normal(size=n)).round(1)
    w = rng.uniform(0.5, 2, n)
    groups = [c == j for j in range(k) if (c == j).any()]
    parent = naive_abs_dev(y, w) / w.sum()
    # multiway: every category its own branch
    _, _, child, dec, *_ = run_search(c[:, None], np.array([k]), np.array([True]),
                                      [np.zeros(0)], y, w, CAT_MULTIWAY, FRACTIONAL)
    multi = sum(naive_abs_dev(y[g], w[g]) for g in groups) / w.sum()
    assert child[0] == pytest.approx(multi, abs=1e-9)
    # one-vs-rest: best a == v
    _, _, child, _, _, split_bin, *_ = run_search(
        c[:, None], np.array([k]), np.array([True]), [np.zeros(0)], y, w, CAT_ONE_VS_REST,
        FRACTIONAL)
    ovr = [(naive_abs_dev(y[c == v], w[c == v]) + naive_abs_dev(y[c != v], w[c != v]))
           / w.sum() for v in range(k) if (c == v).any()]
    assert child[0] == pytest.approx(min(ovr), abs=1e-9)
    # ordered: categories by weighted median, then scanned; never worse than one-vs-rest
    # of the extreme categories, and equal to the best prefix of that order.
    _, _, child, dec, *_ = run_search(c[:, None], np.array([k]), np.array([True]),
                                      [np.zeros(0)], y, w, CAT_ORDERED, FRACTIONAL)
    assert dec[0] == pytest.approx(parent - child[0], abs=1e-9)
    assert child[0] <= parent + 1e-12


def test_regressor_leaf_values_are_weighted_medians():
    rng = np.random.default_rng(5)
    X = rng.integers(0, 3, (60, 1)).astype(float)
    y = rng.exponential(size=60)
    w = rng.integers(1, 4, 60).astype(float)
    reg = DecisionTreeRegressor(criterion="absolute_error", max_depth=1).fit(X, y, w)
    t = reg.tree_
    for leaf, side in ((1, X[:, 0] <= t.threshold[0]), (2, X[:, 0] > t.threshold[0])):
        ys, ws = y[side], w[side]
        # value minimises the weighted absolute deviation
        dev = np.sum(ws * np.abs(ys - t.value[leaf, 0]))
        assert dev == pytest.approx(naive_abs_dev(ys, ws), abs=1e-9)
