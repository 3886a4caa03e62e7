"""How the kernels are compiled (``quercus/_kernels/_jit.py``): the options every kernel
shares, and the helpers compiled into their callers only."""

import re

import numba
import numba.core.caching
import numpy as np
import pandas as pd
import pytest

import quercus
from quercus import _binning, _estimators
from quercus._kernels import _jit, criteria, predict, schema, splits


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


def test_an_inner_helper_is_optimised_in_its_callers_only():
    """numba optimised a helper's module on its own, then again inside every caller's
    module: an ``inner`` helper's own module is left as lowered (its calls not inlined),
    while a kernel calling helpers is optimised whole, the helpers inlined into it."""
    compiler = _jit._inner_options().get("pipeline_class")
    assert compiler is not None, "this numba lost the internals _jit._inner_compiler needs"

    @_jit.inner
    def tripled(x):
        return 3.0 * x

    def summed(a):
        s = 0.0
        for i in range(a.shape[0]):
            s += tripled(a[i])
        return s

    alone = numba.njit(pipeline_class=compiler, no_cpython_wrapper=True,
                       no_cfunc_wrapper=True)(summed)
    alone.compile("float64(float64[::1])")
    calls = re.compile(r"call [^\n]*tripled")
    assert calls.search(alone.inspect_llvm(alone.signatures[0]))  # the call kept
    kernel = numba.njit(no_cfunc_wrapper=True)(summed)
    assert kernel(np.arange(3.0)) == 9.0
    assert not calls.search(kernel.inspect_llvm(kernel.signatures[0]))  # inlined


def _bulky(a, k):
    """The body of the helpers below: too big for LLVM to inline at four call sites."""
    out = np.empty(a.shape[0])
    for i in range(a.shape[0]):
        x = a[i] * k
        if x > 2.0:
            out[i] = np.sqrt(x) + np.log(x) * np.exp(-x) / (1.0 + x * x)
        elif x > 0.0:
            out[i] = np.tanh(x) * np.arctan(x) - np.expm1(x) * np.log1p(x * x)
        elif x > -2.0:
            out[i] = np.sinh(x) * np.arctan2(x, 3.0) - np.log10(-x) / (4.0 - x)
        else:
            out[i] = np.sqrt(-x) * np.cos(x) + np.sin(x) / (2.0 + x * x)
    s = 0.0
    for i in range(out.shape[0]):
        s += out[i] * (i + 1)
    return s


def _named(func, name):
    """A copy of ``func`` called ``name``: numba names the compiled code after it."""
    code = func.__code__.replace(co_name=name, co_qualname=name)
    return type(func)(code, func.__globals__, name)


BULKY_ARGS = np.linspace(-2.95, 3.05, 7)


def test_a_hot_helper_is_inlined_where_llvm_would_keep_an_inner_one_a_call():
    """``hot`` (``inner`` with ``forceinline``) puts the helper's code into each caller,
    so that numba's pruning of reference counts sees the arguments' counts in one
    function; the same helper as ``inner``, too big to inline four times, stays a call."""
    found = {}
    for name, decorator in (("warm_inner", _jit.inner), ("warm_hot", _jit.hot)):
        helper = decorator(_named(_bulky, name))

        def four(a):
            return (helper(a, 1.5) - helper(a, -0.5)) * helper(a, 0.25) + helper(a, -2.0)

        kernel = numba.njit(no_cfunc_wrapper=True)(four)
        assert kernel(BULKY_ARGS) == pytest.approx(four(BULKY_ARGS))
        found[name] = bool(re.search(r"call [^\n]*" + name,
                                     kernel.inspect_llvm(kernel.signatures[0])))
    assert found == {"warm_inner": True, "warm_hot": False}


def test_what_a_hot_helper_calls_is_not_forced_inline_with_it():
    """numba compiles a callee with its caller's ``forceinline`` unless the callee sets
    its own: ``inner`` and ``kernel`` set False, so that a ``hot`` search does not force
    everything below it into every kernel that calls it (which made the test suite's
    compiles take about twice as long)."""
    below = _jit.inner(_named(_bulky, "below_hot"))

    @_jit.hot
    def above(a):
        return (below(a, 1.5) - below(a, -0.5)) * below(a, 0.25) + below(a, -2.0)

    kernel = numba.njit(no_cfunc_wrapper=True)(lambda a: above(a))
    assert kernel(BULKY_ARGS) == pytest.approx(above(BULKY_ARGS))
    module = kernel.inspect_llvm(kernel.signatures[0])
    assert not re.search(r"call [^\n]*above", module)  # the hot helper inlined
    assert re.search(r"call [^\n]*below_hot", module)  # its callee left to LLVM: a call


def test_an_inner_helpers_own_module_is_never_loaded_so_kernels_call_their_copies(
        monkeypatch):
    """A kernel runs its own, optimised, copy of every helper, in the process that compiled
    it as in one that loads it from the disk cache. numba links helpers' copies into a
    kernel as "linkonce_odr", and the JIT binds a call LLVM did not inline to the first
    definition of that name it loaded: with the helper's own module loaded, that was its
    unoptimised code, which left every compiling process's kernels about twice as slow."""
    from numba.core import codegen
    assert _jit._inner_options().get("pipeline_class") is not None
    loaded = []
    add = codegen.JITCPUCodegen._add_module
    monkeypatch.setattr(codegen.JITCPUCodegen, "_add_module",
                        lambda self, module: (loaded.append(module.name), add(self, module))[1])
    churned = _jit.inner(_named(_bulky, "churned"))

    def twice(a):
        return (churned(a, 1.5) - churned(a, -0.5)) * churned(a, 0.25) + churned(a, -2.0)

    kernel = numba.njit(no_cfunc_wrapper=True)(twice)
    a = BULKY_ARGS
    assert np.isfinite(twice(a)) and kernel(a) == pytest.approx(twice(a))
    module = kernel.inspect_llvm(kernel.signatures[0])
    assert re.search(r"call [^\n]*churned", module), "LLVM inlined the helper: no call"
    assert re.search(r"^define [^\n]*@\S*churned", module, re.M), "no copy in the kernel"
    assert any("twice" in name for name in loaded), loaded
    assert not any("churned" in name for name in loaded), loaded


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
    args = (schema.Binned(codes, n_bins, lo, lo, offsets), None, features, idx, w, y, y, 2,
            criteria.GINI,
            schema.CAT_MULTIWAY, schema.LEARNED, 1, 0.0, np.full(p, -1.0))
    out = splits.search_node(*args)
    packed = splits.search_features(*args, 0.0, np.zeros((0, 2)), np.zeros(0, dtype=np.int64),
                                    np.zeros(p + 1, dtype=np.int64), None, None)
    found, kind, res, ints = packed
    assert out[0].tolist() == found.tolist() and out[1].tolist() == kind.tolist()
    for k, col in zip((2, 3, 4, 6, 8), range(5)):
        assert out[k].tolist() == res[:, col].tolist() and out[k].flags.c_contiguous
    assert out[5].tolist() == ints[:, 0].tolist() and out[7].tolist() == ints[:, 1].tolist()
    assert int(np.argmax(out[3])) == 1  # the informative feature's decrease is the largest



@pytest.mark.parametrize("rows", [100, 3 * predict.CHUNK])
def test_routing_kernels_are_given_read_only_arrays_whatever_the_input(monkeypatch, rows):
    """numba compiles a kernel once per array type, writable and read-only apart, and
    ``DataFrame.to_numpy()`` is read-only under pandas 3: the routing kernels always get a
    read-only array, so that ``quercus warmup``'s writable predictions compile what a
    DataFrame's prediction needs (it compiled again for 10 s before)."""
    seen = []

    def spy(name, kernel):
        def call(X, *args):
            seen.append((name, X.flags.writeable))
            return kernel(X, *args)
        return call

    # The kernels Python calls for X of one block (the small path) or of several; the
    # row kernels are also called by the parallel ones, which must compile with the real
    # ones, so they are only replaced where nothing parallel runs.
    names = (("_apply_rows", "_predict_rows") if rows <= predict.CHUNK else
             ("_apply_parallel", "_apply_parallel_blocks", "_predict_parallel",
              "_predict_parallel_blocks"))
    for name in names:
        monkeypatch.setattr(predict, name, spy(name, getattr(predict, name)))
    monkeypatch.setattr(_estimators, "path_lengths_and_nodes",
                        spy("path_lengths_and_nodes", _estimators.path_lengths_and_nodes))
    rng = np.random.default_rng(0)
    X = rng.normal(size=(rows, 4))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    X_missing = X.copy()
    X_missing[::7, 0] = np.nan  # C4.5 spreads these rows: predict_tree's kernels
    cart = quercus.CARTClassifier(max_depth=4).fit(X, y)
    c45 = quercus.C45Classifier().fit(X_missing, y)
    for data in (X, np.asfortranarray(X), pd.DataFrame(X)):
        assert data is not X or data.flags.writeable
        cart.predict(data)
        cart.decision_path(data)
    for data in (X_missing, np.asfortranarray(X_missing), pd.DataFrame(X_missing)):
        c45.predict_proba(data)
    called = {name for name, _ in seen}
    assert {"path_lengths_and_nodes", "_apply_rows" if rows == 100 else "_apply_parallel",
            "_predict_rows" if rows == 100 else "_predict_parallel_blocks"} <= called
    assert not any(writeable for _, writeable in seen), seen


@pytest.mark.parametrize("order", ["C", "F"])
def test_coding_sampled_bins_is_given_read_only_arrays_whatever_the_input(monkeypatch, order):
    """The same for the kernels that code bins cut from a sample of a long column (a
    small sample here; 200,000 rows by default), in one block of rows and in several, for
    a writable array, a read-only one and a DataFrame."""
    seen = []

    def spy(kernel):
        def call(X, *args):
            seen.append(X.flags.writeable)
            return kernel(X, *args)
        return call

    monkeypatch.setattr(_binning, "_EDGE_SAMPLE", 500)
    for name in ("_code_rows", "_code_rows_parallel"):
        monkeypatch.setattr(_binning, name, spy(getattr(_binning, name)))
    rng = np.random.default_rng(0)
    for rows in (2_000, 2 * _binning._ROWS + 10):
        X = np.asarray(rng.normal(size=(rows, 3)), order=order)
        locked = X.view()
        locked.flags.writeable = False
        for data in (X, locked, pd.DataFrame(X)):
            quercus.CARTClassifier(max_depth=2).fit(data, X[:, 0] > 0)
    assert len(seen) == 6 and not any(seen)
