"""A big fit hands the memory it freed back to the system (glibc's malloc_trim) before it
grows the tree, before the subtrees and when it ends; a small one does not pay for the
call, and an error still releases it."""

import numpy as np
import pytest

from quercus import CARTClassifier, _memory


@pytest.fixture
def releases(monkeypatch):
    calls = []
    monkeypatch.setattr(_memory, "release_free_memory", lambda: calls.append(1) or True)
    return calls


def test_a_fit_of_many_cells_releases_freed_memory_at_its_end(monkeypatch, releases):
    X = np.random.default_rng(0).normal(size=(400, 5))
    y = X[:, 0] > 0
    CARTClassifier().fit(X, y)
    assert releases == []  # 2,000 cells: below the bound
    monkeypatch.setattr(_memory, "TRIM_MIN_CELLS", 2_000)
    CARTClassifier().fit(X, y)
    assert releases == [1, 1]  # before growing (the whole tree in one kernel call), at the end


def test_a_big_fit_releases_before_its_subtrees_what_its_top_nodes_freed(monkeypatch,
                                                                       releases):
    from quercus import CARTRegressor, _grower
    rng = np.random.default_rng(3)
    X = rng.normal(size=(6000, 4))  # (6000 rows: the top nodes are split in Python)
    y = X[:, 0] + rng.normal(size=6000)
    seen = []
    real = _grower._grow_below

    def spy(*args):
        seen.append(len(releases))
        return real(*args)

    monkeypatch.setattr(_grower, "_grow_below", spy)
    monkeypatch.setattr(_memory, "TRIM_MIN_CELLS", 24_001)
    CARTRegressor(max_surrogate=0).fit(X, y)
    assert seen == [0] and releases == []
    monkeypatch.setattr(_memory, "TRIM_MIN_CELLS", 24_000)
    CARTRegressor(max_surrogate=0).fit(X, y)
    # before growing and before the subtrees (the tree grows in memory maps, or by other
    # threads, that cannot reuse the heap's freed blocks), then at the end
    assert seen == [0, 2] and releases == [1, 1, 1]


def test_a_failed_big_fit_still_releases(monkeypatch, releases):
    monkeypatch.setattr(_memory, "TRIM_MIN_CELLS", 10)
    X = np.random.default_rng(0).normal(size=(50, 3))
    with pytest.raises(ValueError, match="max_depth"):
        CARTClassifier(max_depth=-3).fit(X, X[:, 0] > 0)
    assert releases == []  # rejected before any work: nothing allocated to give back
    with pytest.raises(ValueError):
        CARTClassifier().fit(X, np.r_[X[:49, 0] > 0, np.nan])
    assert releases == [1]  # (the target is checked before growing)


def test_release_reports_whether_the_allocator_can_trim():
    assert _memory.release_free_memory() is bool(_memory._glibc())


def _deferred_weights(monkeypatch, est, X, y, sample_weight=None):
    """The weights of the nodes the Python grower hands to the subtree kernel, and the
    fit's weight array (``data.w``)."""
    from quercus import _grower
    seen = {}
    real = _grower._grow_below

    def spy(data, cfg, tree, deferred, *rest):
        seen["w"] = data.w
        seen["items"] = [item[2] for item in deferred]
        return real(data, cfg, tree, deferred, *rest)

    monkeypatch.setattr(_grower, "_grow_below", spy)  # (6000 rows: the root is Python's)
    est.fit(X, y, sample_weight=sample_weight)
    assert seen["items"], "no node reached the subtree kernel"
    return seen["w"], seen["items"]


def test_unit_weights_are_views_of_the_fit_weights_not_lists_of_their_own(monkeypatch):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(6000, 4))
    y = (X[:, 0] + 0.5 * rng.normal(size=6000) > 0).astype(int)
    w, items = _deferred_weights(monkeypatch, CARTClassifier(max_surrogate=0), X, y)
    assert all(np.shares_memory(wi, w) and (wi == 1.0).all() for wi in items)
    # Weights of 2: the same splits, but each node keeps a list of its own.
    unit_tree = CARTClassifier(max_surrogate=0).fit(X, y).tree_
    w2, items2 = _deferred_weights(monkeypatch, CARTClassifier(max_surrogate=0), X, y,
                                   np.full(6000, 2.0))
    assert not any(np.shares_memory(wi, w2) for wi in items2)
    doubled = CARTClassifier(max_surrogate=0).fit(X, y, sample_weight=np.full(6000, 2.0)).tree_
    np.testing.assert_array_equal(unit_tree.feature, doubled.feature)
    np.testing.assert_array_equal(unit_tree.threshold, doubled.threshold)
    np.testing.assert_allclose(2 * unit_tree.weighted_n_node_samples,
                               doubled.weighted_n_node_samples)


def test_weights_spread_by_c45_over_branches_are_not_taken_for_unit(monkeypatch):
    from quercus import C45Classifier
    rng = np.random.default_rng(2)
    X = rng.normal(size=(6000, 4))
    y = (X[:, 0] + 0.5 * rng.normal(size=6000) > 0).astype(int)
    X[rng.random(X.shape) < 0.2] = np.nan
    # (J48's minimum of 2 cases a branch: without it the fractional copies of rows
    # missing values multiply down a tree grown to purity.)
    w, items = _deferred_weights(monkeypatch, C45Classifier(max_bins=None), X, y)
    assert not any(np.shares_memory(wi, w) for wi in items)
    assert any((wi < 1.0).any() for wi in items)  # fractional copies reached them
