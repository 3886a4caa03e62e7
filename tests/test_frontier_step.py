"""The Python grower's step: its histograms add up over parts of the rows.

A step of ``_grower.grow`` builds the histograms of its children from their rows in one
call. Built on parts of those rows and summed, they must be the same: that is what lets a
fit add up the histograms of the partitions of its data.
"""

import numpy as np
import pytest

import quercus._grower as grower
from quercus._binning import bin_features
from quercus._grower import BinnedData, GrowConfig


def _data(regression):
    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(3000, 6)), 2)
    X[rng.random(X.shape) < 0.1] = np.nan
    X[:, 5] = rng.integers(0, 4, size=3000)  # a categorical column
    is_cat = np.array([False] * 5 + [True])
    bins = bin_features(X, is_cat, [None] * 5 + [np.array(list("abcd"))], 64)
    w = rng.integers(1, 4, size=3000).astype(float)
    if regression:
        y = rng.normal(size=3000)
        return BinnedData.from_bins(bins, is_cat, y, y * y, w, 3, 1)
    y = rng.integers(0, 3, size=3000).astype(float)
    return BinnedData.from_bins(bins, is_cat, y, y, w, 3, 3)


@pytest.mark.parametrize("regression", [False, True], ids=["classes", "regression"])
@pytest.mark.parametrize("threads", [1, 2])
def test_the_step_histograms_of_parts_of_the_rows_add_up(monkeypatch, regression, threads):
    monkeypatch.setattr(grower, "threads_for", lambda cells: threads)
    data = _data(regression)
    cfg = GrowConfig(criterion=2 if regression else 1, gain_ratio=False, cat_mode=1,
                     missing_mode=1, max_surrogate=0, random_splitter=False, max_depth=5,
                     min_samples_split=2, min_samples_leaf=1, min_weight_leaf=0.0,
                     min_impurity_decrease=0.0, max_features=6)
    layout = grower.histogram_layout(data, cfg)
    rng = np.random.default_rng(1)
    idx = np.sort(rng.choice(3000, size=2000, replace=False))
    part = rng.integers(0, 3, size=idx.size)
    parts = [(idx[part == k], data.w[idx[part == k]].copy()) for k in range(3)]
    whole, = grower._dense_histograms_of(data, layout, [(idx, data.w[idx].copy())])
    # The parts in one call (each its own histograms) ...
    each = grower._dense_histograms_of(data, layout, parts)
    # ... are each what a call of its own gives,
    for (h, h_n), rows in zip(each, parts):
        alone, = grower._dense_histograms_of(data, layout, [rows])
        np.testing.assert_array_equal(h, alone[0])
        np.testing.assert_array_equal(h_n, alone[1])
    # ... and add up to the whole rows'.
    np.testing.assert_array_equal(sum(h_n for _, h_n in each), whole[1])
    np.testing.assert_allclose(sum(h for h, _ in each), whole[0], rtol=1e-12, atol=1e-9)
    assert whole[1].sum() == idx.size * layout[0].size


def test_the_larger_child_s_histograms_are_written_into_its_parent_s():
    # The larger child's histograms are its parent's less its sibling's, written into the
    # parent's arrays (no third set per split), empty bins cleared of rounding: the
    # subtraction both growers make.
    from quercus._kernels.histograms import subtract_histograms
    rng = np.random.default_rng(3)
    sib_n = rng.integers(0, 5, size=200)
    par_n = sib_n + rng.integers(0, 5, size=200)
    sib = rng.random((200, 3)) * sib_n[:, None]
    par = sib + rng.random((200, 3)) * (par_n - sib_n)[:, None] + 0.1 * (par_n > 0)[:, None]
    par[par_n == sib_n] = sib[par_n == sib_n] + 1e-17  # rounding left in emptied bins
    want = np.where((par_n == sib_n)[:, None], 0.0, par - sib)
    parent = (par.copy(), par_n.copy())
    got = subtract_histograms(*parent, sib, sib_n)
    assert got[0] is parent[0] and got[1] is parent[1]
    np.testing.assert_array_equal(got[0], want)
    np.testing.assert_array_equal(got[1], par_n - sib_n)
    assert (got[0][got[1] == 0] == 0).all() and (par_n == sib_n).any()
