"""The threshold scans kept in scalars (two-class Gini and entropy, squared error) choose the
boundary the general scan over arrays chooses, with the same left sums to the bit (the
split's scores are computed from those sums afterwards)."""

import numpy as np
import pytest

from quercus._kernels.criteria import ENTROPY, GINI, SQUARED_ERROR
from quercus._kernels.splits import (_add_row_and_score, _scan_known, lower, stats_weight)


def _array_scan(counts, n, total, left, criterion, min_leaf_n, min_leaf_w, lo_t, hi_t):
    """The general loop of ``_scan_known`` over array stats, step by step."""
    left = left.copy()
    regression = criterion == SQUARED_ERROR
    total_n = int(n.sum())
    left_n = int(n[:lo_t].sum())
    total_w = stats_weight(total, criterion)
    left_w = stats_weight(left, criterion)
    best_t, best_child, best_left = -1, np.inf, np.zeros_like(left)
    for t in range(lo_t, hi_t):
        left_n, left_w, child = _add_row_and_score(
            counts, t, n[t], left, left_n, left_w, total, total_n, total_w, regression,
            criterion, min_leaf_n, min_leaf_w)
        if lower(child, best_child):
            best_t, best_child, best_left = t, child, left.copy()
    return best_t, best_left


def _histogram(rng, nb, criterion):
    w = rng.choice([1.0, 0.5, 2.0 / 3.0, 3.0], size=nb)
    if criterion != SQUARED_ERROR:
        counts = np.zeros((nb, 2))
        counts[np.arange(nb), rng.integers(0, 2, nb)] = w
        both = rng.random(nb) < 0.3  # (bins holding both classes)
        counts[both] += rng.choice([1.0, 0.25], size=(int(both.sum()), 2))
    else:
        y = rng.normal(size=nb) * 10
        counts = np.column_stack([w, w * y, w * y * y])
    return counts, rng.integers(1, 4, nb).astype(np.int64)


@pytest.mark.parametrize("criterion", [GINI, ENTROPY, SQUARED_ERROR],
                         ids=["gini", "entropy", "squared_error"])
def test_the_scalar_scan_chooses_the_array_scan_s_boundary_and_sums(criterion):
    rng = np.random.default_rng(7)
    for trial in range(60):
        nb = int(rng.integers(2, 40))
        counts, n = _histogram(rng, nb, criterion)
        # (sums in bin order, as the histogram's totals are made)
        total = np.array([sum(counts[b, k] for b in range(nb))
                          for k in range(counts.shape[1])], dtype=float)
        lo_t = int(rng.integers(0, 3)) if trial % 3 == 0 else 0
        left = np.array([sum(counts[b, k] for b in range(lo_t))
                         for k in range(counts.shape[1])], dtype=float)
        min_leaf_n, min_leaf_w = int(rng.integers(1, 4)), float(rng.choice([0.0, 1.5]))
        hi_t = nb - 1
        want_t, want_left = _array_scan(counts, n, total, left, criterion, min_leaf_n,
                                        min_leaf_w, lo_t, hi_t)
        got_left, best_left = left.copy(), np.zeros_like(left)
        got_t = _scan_known(counts, n, total, int(n.sum()), got_left, int(n[:lo_t].sum()),
                            criterion, min_leaf_n, min_leaf_w, lo_t, hi_t, best_left)
        assert got_t == want_t
        if want_t >= 0:
            assert best_left.tobytes() == want_left.tobytes()
