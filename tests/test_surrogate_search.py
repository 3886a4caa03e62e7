"""Where surrogate splits are searched: by default only at nodes whose training samples
miss the split attribute; ``surrogates="always"`` searches them at every split node as
rpart does. The tree is the same either way."""

import numpy as np
import pytest

from quercus import CARTClassifier, CARTRegressor, export_text
from quercus._grower import GrowConfig, _surrogate_args
from quercus.datasets import load_watermelon


def _complete_data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    return X, y


@pytest.mark.parametrize("make", [CARTClassifier, CARTRegressor])
def test_complete_data_grows_the_same_tree_without_searching_surrogates(make):
    X, y = _complete_data()
    default = make().fit(X, y)
    always = make(surrogates="always").fit(X, y)
    assert export_text(default) == export_text(always)
    assert np.array_equal(default.tree_.threshold, always.tree_.threshold)
    assert default.tree_.sur_count.sum() == 0
    assert always.tree_.sur_count.sum() > 0


def test_a_missing_value_at_a_node_without_surrogates_goes_to_the_heavier_child():
    X, y = _complete_data()
    clf = CARTClassifier(max_depth=1).fit(X, y)
    t = clf.tree_
    heavier = int(np.argmax(t.weighted_n_node_samples[t.children(0)]))
    row = X[:1].copy()
    row[0, int(t.feature[0])] = np.nan
    assert clf.apply(row)[0] == t.children(0)[heavier]
    # rpart's way: a surrogate routes it (here: by the correlated-free other columns,
    # whatever they say), so the setting is one parameter away.
    rpart_like = CARTClassifier(max_depth=1, surrogates="always").fit(X, y)
    assert rpart_like.tree_.sur_count[0] > 0


def test_nodes_with_missing_training_values_still_get_surrogates():
    X, y = load_watermelon("2.0alpha")
    clf = CARTClassifier().fit(X, y)
    always = CARTClassifier(surrogates="always").fit(X, y)
    assert export_text(clf) == export_text(always)
    t = clf.tree_
    split = np.flatnonzero(t.n_children > 0)
    Xc = X.to_numpy()
    with_missing = []
    for node in split:
        rows = clf.decision_path(X)[:, node].toarray().ravel() > 0
        col = Xc[rows, int(t.feature[node])]
        with_missing.append(any(v is None or v != v for v in col))
    with_missing = np.array(with_missing)
    assert with_missing.any()
    # Only nodes whose training rows miss the split attribute searched surrogates.
    assert (t.sur_count[split][~with_missing] == 0).all()
    assert np.array_equal(t.sur_count[split][with_missing],
                          always.tree_.sur_count[split][with_missing])
    assert np.array_equal(clf.predict(X), always.predict(X))


def test_the_subtree_kernel_searches_surrogates_only_where_a_node_can_need_them():
    import types
    base = dict(criterion=0, gain_ratio=False, cat_mode=1, missing_mode=1, max_surrogate=5,
                random_splitter=False, max_depth=10, min_samples_split=2,
                min_samples_leaf=1, min_weight_leaf=0.0, min_impurity_decrease=0.0,
                max_features=5)
    where_missing = GrowConfig(**base, surrogates_always=False)
    always = GrowConfig(**base, surrogates_always=True)
    complete, missing = (types.SimpleNamespace(has_missing=h) for h in (False, True))
    # None: the kernel compiled without surrogate code (complete data, the default).
    assert _surrogate_args(complete, where_missing) is None
    assert _surrogate_args(missing, where_missing) == (5, False)
    assert _surrogate_args(complete, always) == (5, True)
    assert _surrogate_args(missing, GrowConfig(**{**base, "max_surrogate": 0})) is None


def test_a_bad_surrogates_value_is_named():
    X, y = _complete_data(50)
    with pytest.raises(ValueError, match="'surrogates' parameter"):
        CARTClassifier(surrogates="sometimes").fit(X, y)



@pytest.mark.parametrize("n_values", [5, 1000])
def test_surrogates_from_a_node_s_presorted_orders_are_those_of_its_histograms(n_values):
    """The subtree kernel reads a presorted attribute's surrogate histogram from the node's
    order (where the attribute has at least as many bins as the node has samples), the
    others from a histogram of every bin: the same candidates to the bit, whatever the
    samples missing the primary attribute or the surrogate."""
    from quercus._binning import bin_features
    from quercus._kernels.histograms import sorted_positions
    from quercus._kernels.schema import Binned
    from quercus._kernels.surrogates import all_surrogates
    rng = np.random.default_rng(7)
    n, p = 40, 4
    X = rng.integers(0, n_values, size=(n, p)).astype(float)
    X[rng.random((n, p)) < 0.15] = np.nan
    bins = bin_features(X, np.zeros(p, dtype=bool), [None] * p, None)
    node = np.sort(rng.choice(n, 30, replace=False)).astype(np.int64)
    w = rng.uniform(0.5, 2.0, node.size)
    branch = rng.integers(0, 2, node.size).astype(np.int64)
    branch[rng.random(node.size) < 0.2] = -1  # the primary is missing
    direction = np.zeros(n)
    direction[node[branch >= 0]] = branch[branch >= 0]
    known = branch >= 0
    # Every attribute presorted over the node (positions in it), the primary's too.
    srt = np.array([sorted_positions(bins.codes[:, f], node) for f in range(p)],
                   dtype=np.uint16)
    slot_of = np.arange(p, dtype=np.int64)
    args = (Binned(bins.codes, bins.n_bins, bins.lo, bins.hi, bins.offsets), None,
            np.arange(p), np.int64(0), node[known], w[known], direction)
    plain = all_surrogates(*args)
    presorted = all_surrogates(*args, (srt, slot_of, np.int64(0), node, w, branch))
    for a, b in zip(plain, presorted):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    assert (plain[0][1:] > 0).all()  # (candidates found)


@pytest.mark.parametrize("jit", ["compile", "interpret"])
@pytest.mark.parametrize("n_values", [5, 1000])
def test_surrogates_searched_in_a_reused_scratch_are_those_of_fresh_arrays(n_values, jit):
    """The subtree kernel hands every node's surrogate search the same scratch: the
    candidates must be those of fresh arrays, whatever the previous node left in it (the
    primary's row too, which the search skips)."""
    from quercus import config_context
    from quercus._binning import bin_features
    from quercus._kernels.histograms import sorted_positions
    from quercus._kernels.schema import Binned
    from quercus._kernels.surrogates import all_surrogates
    rng = np.random.default_rng(3)
    n, p = 40, 5
    X = rng.integers(0, n_values, size=(n, p)).astype(float)
    X[rng.random((n, p)) < 0.15] = np.nan
    bins = bin_features(X, np.zeros(p, dtype=bool), [None] * p, None)
    binned = Binned(bins.codes, bins.n_bins, bins.lo, bins.hi, bins.offsets)
    rows = max(n, int(bins.n_bins.max()) + 1)
    scratch = (np.full(rows, 99, np.int64), np.full((rows, 2), np.nan),
               np.full(rows, 99, np.int64), np.full(p, 5.0), np.full(p, 5.0),
               np.full(p, 9, np.int8), np.full(p, 99, np.int64), np.full(p, 5.0),
               np.full(p, 9, np.int8))
    for primary in (2, 0, 4):  # (one node after another, each with another primary)
        node = np.sort(rng.choice(n, 30, replace=False)).astype(np.int64)
        w = rng.uniform(0.5, 2.0, node.size)
        branch = rng.integers(0, 2, node.size).astype(np.int64)
        branch[rng.random(node.size) < 0.2] = -1
        direction = np.zeros(n)
        direction[node[branch >= 0]] = branch[branch >= 0]
        known = branch >= 0
        srt = np.array([sorted_positions(bins.codes[:, f], node) for f in range(p)],
                       dtype=np.uint16)
        # (attributes 0 and 1 presorted, the others from a histogram of every bin)
        slot_of = np.array([0, 1, -1, -1, -1], dtype=np.int64)
        args = (binned, None, np.arange(p), np.int64(primary), node[known], w[known],
                direction, (srt, slot_of, np.int64(0), node, w, branch))
        with config_context(jit=jit):
            fresh = all_surrogates(*args)
            reused = all_surrogates(*args, scratch)
        for a, b in zip(fresh, reused):
            # (As Python, a narrow integer array is widened for the call: the views are.)
            assert a.dtype == b.dtype or jit == "interpret"
            np.testing.assert_array_equal(a, b)
        assert fresh[0][primary] == -1 and (np.delete(fresh[0], primary) > 0).all()


@pytest.mark.parametrize("is_cat", [False, True], ids=["numeric", "categorical"])
@pytest.mark.parametrize("missing", [False, True], ids=["complete", "missing bin"])
def test_a_surrogate_is_scored_from_the_first_rows_of_a_dirty_scratch(is_cat, missing):
    from quercus._kernels.surrogates import score_surrogate
    rng = np.random.default_rng(3)
    n_real = 9
    bins = np.sort(rng.choice(n_real, 6, replace=False))
    if missing:
        bins = np.append(bins, n_real)  # (the missing bin last)
    counts = rng.uniform(0.0, 3.0, (bins.size, 2))
    lo = np.arange(n_real, dtype=float)
    hi = lo + 0.5
    exact = score_surrogate.py_func(bins, counts, bins.size, n_real, is_cat, lo, hi, 0,
                                    n_real)
    # The scratch's rows past nb hold an earlier histogram's, a missing bin among them; the
    # attribute's value table sits inside every attribute's, from entry 4.
    s_bins = np.concatenate([bins, [n_real, 2, n_real]])
    s_counts = np.vstack([counts, rng.uniform(5.0, 9.0, (3, 2))])
    all_lo = np.concatenate([np.full(4, -7.0), lo, [99.0]])
    all_hi = np.concatenate([np.full(4, -6.0), hi, [99.5]])
    assert score_surrogate.py_func(s_bins, s_counts, bins.size, n_real, is_cat, all_lo,
                                   all_hi, 4, 4 + n_real) == exact
    assert exact[0] > 0.0 and exact[3] >= 0
