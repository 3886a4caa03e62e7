"""A node's random draws are a function of its key: the same wherever and whenever it grows."""

import numba
import numpy as np
import pytest
from sklearn.datasets import make_classification

from quercus import CARTClassifier, CARTRegressor, export_dict
from quercus._kernels.draws import child_key, node_draws, root_key, uniform


@numba.njit
def _compiled_draws(features, max_features, random_splitter, key):
    return node_draws(features, max_features, random_splitter, key)


@numba.njit
def _compiled_keys(seed, n):
    out = np.empty(n, dtype=np.int64)
    key = root_key(seed)
    for i in range(n):
        key = child_key(key, i % 3)
        out[i] = key
    return out


def test_compiled_and_python_draws_are_the_same_numbers():
    # The arithmetic stays below 2**63: numba's int64 and Python's ints agree to the bit.
    features = np.arange(3, 40, dtype=np.int64)
    for seed in (0, 1, 2**31 - 1):
        keys = _compiled_keys(seed, 50)
        key = root_key(seed)
        for i in range(50):
            key = child_key(key, i % 3)
            assert keys[i] == key
            py = node_draws(features, 7, True, key)
            jit = _compiled_draws(features, 7, True, np.int64(key))
            np.testing.assert_array_equal(py[0], jit[0])
            np.testing.assert_array_equal(py[1], jit[1])


def test_keys_are_inside_32_bits_and_siblings_differ():
    key = root_key(123)
    kids = [child_key(key, c) for c in range(50)]
    assert len(set(kids + [key])) == 51
    assert all(0 <= k < 2**32 for k in kids)


def test_a_node_draws_distinct_sorted_features_each_about_equally_often():
    features = np.arange(10, dtype=np.int64) * 2  # candidates need not be 0..n-1
    counts = np.zeros(20)
    key = root_key(9)
    n_nodes = 4000
    for i in range(n_nodes):
        chosen, u = node_draws(features, 3, False, child_key(key, i))
        assert chosen.size == 3 and np.all(np.diff(chosen) > 0)
        assert np.isin(chosen, features).all()
        assert (u == -1.0).all()  # no random splitter: exhaustive search
        counts[chosen] += 1
    share = counts[features] / n_nodes  # each feature: 3 in 10 nodes
    sd = np.sqrt(0.3 * 0.7 / n_nodes)
    assert np.abs(share - 0.3).max() < 5 * sd
    # The splitter's uniforms: spread over [0, 1)
    u = np.array([uniform(child_key(key, i), 0) for i in range(n_nodes)])
    assert 0.0 <= u.min() and u.max() < 1.0
    assert np.abs(np.histogram(u, bins=10, range=(0, 1))[0] / n_nodes - 0.1).max() < 0.02


def test_a_node_with_fewer_candidates_than_max_features_searches_them_all():
    chosen, u = node_draws(np.array([1, 4, 6]), 5, True, root_key(0))
    assert chosen.tolist() == [1, 4, 6]
    assert ((0.0 <= u) & (u < 1.0)).all()


@pytest.mark.parametrize("est", [
    CARTClassifier(max_features=4, random_state=0),
    CARTClassifier(splitter="random", random_state=1),
    CARTRegressor(splitter="random", max_features=5, random_state=2),
], ids=["max_features", "random splitter", "regression both"])
def test_a_random_tree_is_the_same_on_one_thread_or_two(est):
    # 6,000 rows: the top nodes are the Python grower's, the subtrees below the kernel's,
    # grown side by side on two threads.
    X, y = make_classification(6000, 12, n_informative=6, random_state=0)
    if isinstance(est, CARTRegressor):
        y = X[:, 0] * 3 + X[:, 1] ** 2
    X[np.random.default_rng(0).random(X.shape) < 0.05] = np.nan
    one = export_dict(est.set_params(n_jobs=1).fit(X, y))
    two = export_dict(est.set_params(n_jobs=2).fit(X, y))
    assert one == two
    other = export_dict(est.set_params(random_state=99).fit(X, y))
    assert other != one
