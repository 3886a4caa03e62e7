"""The threshold scans kept in scalars (two-class Gini and entropy, squared error) choose the
boundary the general scan over arrays chooses, with the same left sums to the bit (the
split's scores are computed from those sums afterwards)."""

import numpy as np
import pytest

from quercus._kernels.criteria import ENTROPY, GINI, SQUARED_ERROR
from quercus._kernels.splits import (W_BEST, W_LEFT, W_TOTAL, WORK_ROWS, _add_row_and_score,
                                     _scan_known, lower, stats_weight)


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
        work = np.zeros((WORK_ROWS, counts.shape[1]))
        work[W_TOTAL], work[W_LEFT] = total, left
        got_t = _scan_known(counts, n, work, int(n.sum()), int(n[:lo_t].sum()), criterion,
                            min_leaf_n, min_leaf_w, lo_t, hi_t)
        best_left = work[W_BEST]
        assert got_t == want_t
        if want_t >= 0:
            assert best_left.tobytes() == want_left.tobytes()


def _class_histogram(rng, nb, n_classes):
    """A histogram of ``n_classes`` class weights a bin (most bins one class)."""
    if n_classes == 2:
        return _histogram(rng, nb, GINI)
    counts = np.zeros((nb, n_classes))
    counts[np.arange(nb), rng.integers(0, n_classes, nb)] = rng.choice([1.0, 0.5, 3.0], nb)
    counts[rng.random(nb) < 0.3] += 0.25
    return counts, rng.integers(1, 4, nb).astype(np.int64)


@pytest.mark.parametrize("criterion, n_classes", [(SQUARED_ERROR, 0), (GINI, 2), (GINI, 3),
                                                  (ENTROPY, 2), (ENTROPY, 3)],
                         ids=["squared_error", "gini", "gini-3", "entropy", "entropy-3"])
@pytest.mark.parametrize("missing", [False, True], ids=["complete", "missing bin"])
@pytest.mark.parametrize("table", [True, False], ids=["value table", "lazy"])
def test_the_in_place_presorted_search_scores_as_score_histogram(criterion, n_classes,
                                                                 missing, table):
    """The subtree kernel's search of a presorted numeric feature, read in the scratch in
    place (squared error, Gini, entropy), returns what the general
    :func:`score_histogram` returns on the slices it would take, to the bit: found,
    boundary, threshold, scores and rho."""
    from quercus import config_context
    from quercus._kernels.schema import CAT_ONE_VS_REST, SURROGATE, Binned
    from quercus._kernels.splits import _presorted_numeric, score_histogram
    n_stats = 3 if criterion == SQUARED_ERROR else n_classes

    def histogram(nb):
        if criterion == SQUARED_ERROR:
            return _histogram(rng, nb, SQUARED_ERROR)
        return _class_histogram(rng, nb, n_classes)

    rng = np.random.default_rng(11)
    n_found = 0
    for trial in range(40):
        nbf = int(rng.integers(2, 30))
        nb = int(rng.integers(1, nbf + 1))
        bins = np.sort(rng.choice(nbf, nb, replace=False)).astype(np.int64)
        counts, n = histogram(nb)
        if trial % 4 == 0:  # (equal sums: ties between boundaries)
            counts[:] = counts[0]
        if missing:
            bins = np.append(bins, nbf)
            counts = np.vstack([counts, histogram(1)[0]])
            n = np.append(n, 2)
        nk = nb
        known_n = int(n[:nk].sum())
        work = np.zeros((WORK_ROWS, n_stats))
        for b in range(nk):  # (the known bins' totals, in bin order, as the pass makes them)
            work[W_TOTAL] += counts[b]
        # The attribute's value table from entry 3 of every attribute's (none: lazy).
        lo = np.sort(rng.normal(size=nbf)) if table else np.zeros(0)
        hi = lo + 0.01 if table else np.zeros(0)
        v0, v1 = 3, 3 + lo.size
        all_lo = np.concatenate([np.full(3, -9.0), lo, [9.0]])
        all_hi = np.concatenate([np.full(3, -8.0), hi, [9.5]])
        offsets = np.array([0, v0, v1, v1 + 1])
        binned = Binned(np.zeros((1, 3), dtype=np.uint8), np.array([2, nbf, 1]), all_lo,
                        all_hi, offsets)
        min_leaf_n, min_leaf_w = int(rng.integers(1, 4)), float(rng.choice([0.0, 1.5]))
        # The scratch's rows past the histogram hold an earlier node's.
        h_bins = np.concatenate([bins, [0, nbf]])
        h_counts = np.vstack([counts, rng.normal(size=(2, n_stats))])
        h_n = np.concatenate([n, [5, 1]])
        with config_context(jit="interpret"):
            want = score_histogram(bins, counts, n, binned, None, 1, n_stats, criterion,
                                   CAT_ONE_VS_REST, SURROGATE, min_leaf_n, min_leaf_w, -1.0,
                                   0.0, work.copy(), known_n)
            got = _presorted_numeric(h_bins, h_counts, h_n, bins.size, nbf, all_lo, all_hi,
                                     v0, v1, known_n, criterion, SURROGATE, min_leaf_n,
                                     min_leaf_w, work.copy())
        assert len(got) == len(want)
        for a, b in zip(got, want):
            assert np.asarray(a).tobytes() == np.asarray(b).tobytes() or (
                np.isnan(a) and np.isnan(b)), (trial, got, want)
        n_found += bool(want[0])
    assert n_found >= 10  # (the scans found splits, not only nothing)
