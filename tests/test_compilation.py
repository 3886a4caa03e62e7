"""How the kernels are compiled (``quercus/_kernels/_jit.py``): the options every kernel
shares, and the helpers compiled into their callers only."""

import numba
import numba.core.caching
import numpy as np

from quercus._kernels import _jit, criteria, splits


def test_every_kernel_is_cached_releases_the_gil_and_has_no_c_wrapper():
    """A kernel written with a bare ``@njit`` would compile a C wrapper no caller uses
    (and, without ``cache=True``, compile again in every process)."""
    kernels = []
    for where, obj in _jit.kernels():
        opts = obj.targetoptions
        assert not isinstance(obj._cache, numba.core.caching.NullCache), where
        assert opts.get("nogil") and opts.get("no_cfunc_wrapper"), where
        kernels.append(where.rsplit(".", 1)[1])
    assert {"search_features", "route", "scatter", "grow_subtree"} <= set(kernels)


def test_inner_helpers_are_no_dispatchers_and_run_as_python_when_called_from_python():
    """``inner`` helpers (numba's ``register_jitable``) are compiled into the kernels that
    call them; from Python they are the plain function, with the same result."""
    assert not isinstance(criteria.stats_weight, numba.core.dispatcher.Dispatcher)
    assert not isinstance(splits.scan_ordered, numba.core.dispatcher.Dispatcher)
    counts = np.array([2.0, 3.0])
    assert criteria.stats_weight(counts, criteria.GINI) == 5.0
    # The compiled caller agrees: impurity (a kernel) reads the weight through it.
    assert criteria.impurity(counts, criteria.GINI) == 1.0 - (0.4 ** 2 + 0.6 ** 2)


def test_search_node_is_search_features_unpacked():
    rng = np.random.default_rng(0)
    n, p = 60, 3
    codes = np.asfortranarray(rng.integers(0, 5, size=(n, p)).astype(np.uint8))
    n_bins = np.full(p, 5, dtype=np.int64)
    lo = np.tile(np.arange(5.0), p)
    offsets = np.arange(0, 5 * p + 1, 5, dtype=np.int64)
    y = (codes[:, 1] > 2).astype(np.float64)
    features = np.arange(p, dtype=np.int64)
    idx = np.arange(n, dtype=np.int64)
    w = np.ones(n)
    args = (codes, n_bins, None, lo, lo, offsets, features, idx, w, y, y, 2, criteria.GINI,
            splits.CAT_MULTIWAY, splits.LEARNED, 1, 0.0, np.full(p, -1.0))
    out = splits.search_node(*args)
    packed = splits.search_features(*args, 0.0, np.zeros((0, 2)), np.zeros(0, dtype=np.int64),
                                    np.zeros(p + 1, dtype=np.int64), None)
    found, kind, res, ints = packed
    assert out[0].tolist() == found.tolist() and out[1].tolist() == kind.tolist()
    for k, col in zip((2, 3, 4, 6, 8), range(5)):
        assert out[k].tolist() == res[:, col].tolist() and out[k].flags.c_contiguous
    assert out[5].tolist() == ints[:, 0].tolist() and out[7].tolist() == ints[:, 1].tolist()
    assert int(np.argmax(out[3])) == 1  # the informative feature's decrease is the largest
