"""The streamed split search (``stream_numeric``: a numeric feature scored a slice of bins
at a time) gives the whole histogram's split, for every criterion and missing mode it
serves (its totals are summed in sample order: its scores may differ in the last bits, and
not at all with classes and weights of 1), and the grower's trees do not change when it is
used."""

import numpy as np
import pytest

from quercus import C45Classifier, CARTClassifier, CARTRegressor, export_dict
from quercus import _grower
from quercus._kernels.criteria import ENTROPY, GINI, POISSON, SQUARED_ERROR
from quercus._kernels.schema import (CAT_ONE_VS_REST, FRACTIONAL, LEARNED, SURROGATE,
                                     Binned)
from quercus._kernels.splits import search_node


def _problem(seed, n, n_features, criterion, missing):
    """Rank codes of mostly distinct values (some ties), a missing bin when asked, and the
    node's rows: a random subset in increasing order, with non-integer weights."""
    rng = np.random.default_rng(seed)
    values = np.round(rng.normal(size=(n, n_features)), 2)
    if missing:
        values[rng.random(values.shape) < 0.1] = np.nan
    codes = np.empty(values.shape, dtype=np.int32, order="F")
    n_bins = np.empty(n_features, dtype=np.int64)
    tables = []
    for f in range(n_features):
        known = np.unique(values[~np.isnan(values[:, f]), f])
        n_bins[f] = known.size
        col = np.searchsorted(known, values[:, f])
        col[np.isnan(values[:, f])] = known.size
        codes[:, f] = col
        tables.append(known)
    offsets = np.concatenate([[0], np.cumsum(n_bins)]).astype(np.int64)
    bin_values = np.concatenate(tables)
    idx = np.sort(rng.choice(n, size=int(n * 0.8), replace=False)).astype(np.int64)
    w = rng.uniform(0.5, 2.0, size=idx.size)
    if criterion in (ENTROPY, GINI):
        y = rng.integers(0, 3, size=n).astype(np.float64)
        y2, n_stats = y, 3
    else:
        y = rng.gamma(2.0, 3.0, size=n)
        y2 = y * y if criterion == SQUARED_ERROR else y * np.log(y)
        n_stats = 3
    return codes, n_bins, bin_values, offsets, idx, w, y, y2, n_stats


NAMES = ["found", "kind", "child", "decrease", "split_info", "split_bin", "threshold",
         "miss_dir", "rho"]


def assert_same_split(whole, streamed, exact_scores=False):
    """The same choice and threshold in every feature; the scores to rounding (exactly
    with ``exact_scores``)."""
    for name, a, b in zip(NAMES, whole, streamed):
        if name in ("child", "decrease", "split_info", "rho") and not exact_scores:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13, err_msg=name)
        else:
            np.testing.assert_array_equal(a, b, err_msg=name)


def _search(problem, criterion, missing_mode, msl, mlw, min_objects, stream_bins):
    codes, n_bins, bin_values, offsets, idx, w, y, y2, n_stats = problem
    features = np.arange(codes.shape[1], dtype=np.int64)
    return search_node(Binned(codes, n_bins, bin_values, bin_values, offsets), None, features,
                       idx, w,
                       y, y2, n_stats, criterion, CAT_ONE_VS_REST, missing_mode, msl, mlw,
                       np.full(features.size, -1.0), min_objects, stream_bins)


CASES = [  # criterion, missing mode, missing values, min_samples_leaf, min weight, min_objects
    (GINI, LEARNED, False, 1, 0.0, 0.0),
    (ENTROPY, FRACTIONAL, True, 1, 0.0, 2.0),     # C4.5: rho, minimum cases, split info
    (GINI, SURROGATE, True, 5, 3.0, 0.0),
    (SQUARED_ERROR, LEARNED, False, 3, 0.0, 0.0),
    (SQUARED_ERROR, SURROGATE, True, 1, 0.0, 0.0),
    (ENTROPY, FRACTIONAL, False, 40, 0.0, 0.0),   # few or no valid boundaries
]


@pytest.mark.parametrize("criterion, mode, missing, msl, mlw, min_objects", CASES)
@pytest.mark.parametrize("stream_bins", [7, 64, 250])
def test_streamed_search_finds_the_whole_histograms_split(criterion, mode, missing, msl, mlw,
                                                          min_objects, stream_bins):
    problem = _problem(stream_bins + msl, 600, 4, criterion, missing)
    assert problem[1].max() + 1 > stream_bins  # every feature streams at 7 and 64, some at 250
    whole = _search(problem, criterion, mode, msl, mlw, min_objects, None)
    streamed = _search(problem, criterion, mode, msl, mlw, min_objects, stream_bins)
    assert_same_split(whole, streamed)
    assert whole[0].any()


@pytest.mark.parametrize("criterion", [GINI, ENTROPY])
def test_streamed_search_of_classes_with_unit_weights_is_exact(criterion):
    # Class counts of weight 1 are whole numbers: every order of summing gives the same.
    problem = list(_problem(5, 600, 4, criterion, True))
    problem[5] = np.ones(problem[4].size)
    whole = _search(problem, criterion, FRACTIONAL, 1, 0.0, 0.0, None)
    streamed = _search(problem, criterion, FRACTIONAL, 1, 0.0, 0.0, 16)
    assert_same_split(whole, streamed, exact_scores=True)


def test_streamed_search_leaves_the_missing_values_learned_placement_to_the_histogram():
    # LEARNED with missing values places them: the streamed scan hands the feature back.
    problem = _problem(3, 500, 3, GINI, True)
    whole = _search(problem, GINI, LEARNED, 1, 0.0, 0.0, None)
    streamed = _search(problem, GINI, LEARNED, 1, 0.0, 0.0, 16)
    for a, b in zip(whole, streamed):
        np.testing.assert_array_equal(a, b)
    assert (whole[7] >= 0).any()  # some missing values were placed


def test_streamed_search_is_not_used_for_poisson_or_a_random_threshold():
    problem = _problem(4, 400, 3, POISSON, False)
    for uniforms in (-1.0, 0.5):
        codes, n_bins, bin_values, offsets, idx, w, y, y2, n_stats = problem
        feats = np.arange(3, dtype=np.int64)
        args = (Binned(codes, n_bins, bin_values, bin_values, offsets), None, feats, idx, w,
                y, y2,
                n_stats, POISSON if uniforms < 0 else SQUARED_ERROR, CAT_ONE_VS_REST,
                LEARNED, 1, 0.0, np.full(3, uniforms), 0.0)
        whole, streamed = search_node(*args, None), search_node(*args, 8)
        for a, b in zip(whole, streamed):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("make", [
    lambda: CARTClassifier(max_surrogate=0, max_bins=None, random_state=0),
    lambda: CARTClassifier(max_bins=None, random_state=0),            # surrogates: Python grower
    lambda: C45Classifier(max_bins=None),
    lambda: CARTRegressor(max_surrogate=0, max_bins=None, random_state=0),
])
def test_trees_grown_with_the_streamed_search_are_the_same(monkeypatch, make):
    rng = np.random.default_rng(7)
    X = np.round(rng.normal(size=(3000, 5)), 3)
    X[rng.random(X.shape) < 0.05] = np.nan
    est = make()
    noise = rng.normal(size=3000)
    y = (np.nan_to_num(X[:, 1]) * 3 + noise if est._is_regressor
         else (np.nan_to_num(X[:, 0]) + noise > 0).astype(int))
    # Small subtrees only, so that the big nodes go through the Python grower's search.
    monkeypatch.setattr(_grower, "SUBTREE_MAX_ROWS", 64)
    whole = export_dict(make().fit(X, y))
    calls = []
    real = _grower.stream_width
    monkeypatch.setattr(_grower, "stream_width", lambda n_stats, n: calls.append(1) or 50)
    streamed = export_dict(make().fit(X, y))
    assert calls, "the grower did not reach the streamed search"
    assert streamed == whole
    assert real(2, 10**7) * 8 * 3 <= _grower.STREAM_BYTES


@pytest.mark.parametrize("n_stats", [2, 3, 10])
def test_a_thread_s_histogram_scratch_is_4_bytes_a_row_within_its_bounds(n_stats):
    row = 8 * (n_stats + 1)  # bytes of a histogram's bin
    for n in (10, 50_000, 75_000, 300_000, 10**7):
        budget = _grower.stream_width(n_stats, n) * row
        assert budget <= max(_grower.STREAM_MIN_BYTES, 4 * n)
        assert budget <= _grower.STREAM_BYTES
        # (within a bin's bytes of the bound: the width is whole bins)
        assert budget > min(_grower.STREAM_BYTES, max(_grower.STREAM_MIN_BYTES, 4 * n)) - row


@pytest.mark.parametrize("stream_bins", [7, 64])
def test_streamed_search_skips_slices_without_samples(stream_bins):
    # The node holds only the lowest and the highest codes of feature 0: most of its slices
    # hold no sample and are skipped; the split must still be the whole histogram's.
    codes, n_bins, bin_values, offsets, _, w_all, y, y2, n_stats = _problem(11, 600, 3, GINI,
                                                                            False)
    col = codes[:, 0]
    idx = np.flatnonzero((col < 40) | (col >= n_bins[0] - 40)).astype(np.int64)
    w = np.linspace(0.5, 2.0, idx.size)
    problem = (codes, n_bins, bin_values, offsets, idx, w, y, y2, n_stats)
    whole = _search(problem, GINI, LEARNED, 1, 0.0, 0.0, None)
    streamed = _search(problem, GINI, LEARNED, 1, 0.0, 0.0, stream_bins)
    assert_same_split(whole, streamed)
    assert whole[0][0]


def test_slice_positions_group_the_samples_by_slice_in_their_order():
    from quercus._kernels.histograms import slice_positions
    codes_f = np.array([9, 0, 5, 12, 1, 9, 3], dtype=np.int32)
    idx = np.array([0, 1, 2, 3, 5, 6], dtype=np.int64)  # codes 9, 0, 5, 12, 9, 3
    pos, starts = slice_positions(codes_f, idx, 2, 4)
    # Slices of 4 codes: {0, 3} at positions 1, 5; {5} at 2; {9, 9} at 0, 4; {12} at 3.
    assert pos.tolist() == [1, 5, 2, 0, 4, 3]
    assert starts.tolist() == [0, 2, 3, 5, 6]
