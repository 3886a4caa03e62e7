"""Small work runs the kernels' Python source instead of compiling it
(``quercus/_kernels/_interpret.py``): the same trees and numbers as the compiled kernels,
chosen only when a kernel is neither compiled nor cached, and a notice while a compile
runs."""

import io
import json
import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus import (C45Classifier, CARTClassifier, CARTRegressor, DecisionTreeClassifier,
                     DecisionTreeRegressor, ID3Classifier, config_context, export_dict)
from quercus._kernels import _interpret, _jit
from quercus._kernels.thresholds import midpoint
from quercus.datasets import load_golf, load_watermelon


def _fit_both(make, X, y, **fit):
    out = []
    for mode in ("compile", "interpret"):
        with config_context(jit=mode):
            est = make().fit(X, y, **fit)
            proba = (est.predict_proba(X) if hasattr(est, "predict_proba")
                     else est.predict(X))
            table = est.explain(0) if est.tree_.node_count > 1 else None
        out.append((est, proba, table))
    return out


def _assert_same(a, b):
    (ea, pa, ta), (eb, pb, tb) = a, b
    assert json.dumps(export_dict(ea)) == json.dumps(export_dict(eb))
    for field in ("threshold", "impurity", "value", "weighted_n_node_samples"):
        assert np.array_equal(getattr(ea.tree_, field), getattr(eb.tree_, field),
                              equal_nan=True), field
    assert np.array_equal(pa, pb)
    if ta is not None:
        pd.testing.assert_frame_equal(ta, tb)


ESTIMATORS = {
    "id3": ID3Classifier,
    "c45": C45Classifier,
    "c45_unpruned": lambda: C45Classifier(pruning=None),
    "cart": CARTClassifier,
    "cart_always_surrogates": lambda: CARTClassifier(surrogates="always"),
    "cart_ordered": lambda: CARTClassifier(categorical_split="ordered"),
    "cart_cost_complexity": lambda: CARTClassifier(pruning="cost_complexity", ccp_alpha=0.01),
    "learned_entropy": lambda: DecisionTreeClassifier(criterion="entropy"),
}


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
@pytest.mark.parametrize("data", ["2.0", "3.0", "2.0alpha", "golf"])
def test_interpreted_kernels_grow_the_compiled_tree_on_the_bundled_data(name, data):
    X, y = load_golf() if data == "golf" else load_watermelon(data)
    _assert_same(*_fit_both(ESTIMATORS[name], X, y))


@pytest.mark.parametrize("criterion", ["squared_error", "absolute_error", "poisson"])
def test_interpreted_regression_kernels_agree(criterion):
    X, _ = load_watermelon("3.0")
    y = X["含糖率"]
    X = X.drop(columns="含糖率")
    _assert_same(*_fit_both(lambda: DecisionTreeRegressor(criterion=criterion), X, y))
    _assert_same(*_fit_both(CARTRegressor, X, y))


@pytest.mark.parametrize("max_bins", [255, None])
def test_interpreted_kernels_agree_on_wide_codes_and_missing_values(max_bins):
    """300 distinct values give uint8 codes up to 255 (the missing code) in histogram
    mode and uint16 codes in exact mode: NumPy's narrow integers would wrap where numba's
    64-bit arithmetic does not."""
    rng = np.random.default_rng(3)
    X = np.round(rng.normal(size=(600, 3)), 2)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + 0.5 * np.nan_to_num(X[:, 1]) > 0).astype(int)
    for make in (CARTClassifier, ID3Classifier, C45Classifier,
                 lambda: DecisionTreeClassifier(max_bins=max_bins)):
        _assert_same(*_fit_both(make, X, y))


def test_a_small_uncompiled_kernel_call_runs_as_python_and_a_big_one_compiles(monkeypatch):
    monkeypatch.setattr(_interpret, "_entry_bytes", lambda d, a: 0)
    monkeypatch.setattr(_interpret, "_spent", 0.0)  # (the suite's own interpreted time)

    class Fake:
        overloads = {}

    small = (np.zeros(10),)
    big = (np.zeros(_interpret.SMALL_CELLS + 1),)
    with config_context(jit="auto"):
        assert _interpret.should_interpret(Fake(), small)
        assert not _interpret.should_interpret(Fake(), big)
        # Arrays inside a tuple argument count too.
        assert not _interpret.should_interpret(Fake(), ((np.zeros(1), big[0]),))
        Fake.overloads = {"compiled": None}
        assert not _interpret.should_interpret(Fake(), small)  # compiled: use it
    with config_context(jit="compile"):
        assert not _interpret.should_interpret(Fake, small)
    with config_context(jit="interpret"):
        assert _interpret.should_interpret(Fake, big)


def test_a_kernel_in_the_disk_cache_is_loaded_once_it_ran_as_long_as_a_load(monkeypatch):
    # Loading a tiny fit's kernels from the disk cache costs more than running them as
    # Python on its rows: each runs as Python until it has taken as long as loading it
    # would (its entry's size, and the code generator's set-up at a process's first
    # load), then it is loaded; a kernel not on disk stays interpreted until BUDGET.
    class Fake:
        overloads = {}

    size = {"bytes": 1_200_000}
    monkeypatch.setattr(_interpret, "_entry_bytes", lambda d, a: size["bytes"])
    monkeypatch.setattr(_interpret, "_spent", 0.0)
    monkeypatch.setattr(_interpret, "_spent_on", {})
    monkeypatch.setattr(_interpret, "_set_up", False)
    hot, cold, small = Fake(), Fake(), (np.zeros(3),)
    first_load = _interpret.load_seconds(size["bytes"])
    with config_context(jit="auto"):
        assert _interpret.should_interpret(hot, small)
        _interpret._spent_on[id(hot)] = 0.9 * first_load
        assert _interpret.should_interpret(hot, small)
        _interpret._spent_on[id(hot)] = first_load
        assert not _interpret.should_interpret(hot, small)  # its own time, not the process's
        assert _interpret.should_interpret(cold, small)
        # Once a kernel is loaded, the next loads cost no set-up: they come sooner.
        assert _interpret.load_seconds(size["bytes"]) < first_load
        # Beyond a tiny call, a cached kernel is loaded at once.
        beyond = (np.zeros(_interpret.TINY_CELLS + 1),)
        assert not _interpret.should_interpret(Fake(), beyond)
        size["bytes"] = 0  # not on disk: interpreted
        assert _interpret.should_interpret(hot, small)
        assert _interpret.should_interpret(Fake(), beyond)
    assert _interpret.load_seconds(10**6) < _interpret.BUDGET


def test_a_cache_entry_s_size_is_read_from_the_disk(monkeypatch):
    from quercus._kernels.histograms import class_totals
    args = (np.zeros(4), np.ones(4), 2)
    with config_context(jit="compile"):
        class_totals(*args)  # (in the suite's cache from here on)
    monkeypatch.setattr(_interpret, "_on_disk", {})
    monkeypatch.setattr(class_totals._cache, "_indexes", {}, raising=False)
    assert _interpret._entry_bytes(class_totals, args) > 1000
    other = (np.zeros(4, dtype=np.complex128), np.ones(4), 2)  # (types no fit uses)
    assert _interpret._entry_bytes(class_totals, other) == 0


def test_interpreted_time_is_counted_per_kernel(monkeypatch):
    from quercus._kernels.thresholds import midpoint
    monkeypatch.setattr(_interpret, "_spent_on", {})
    _interpret.run(midpoint, (1.0, 2.0), {})
    first = _interpret._spent_on[id(midpoint)]
    _interpret.run(midpoint, (1.0, 2.0), {})
    assert 0.0 < first < _interpret._spent_on[id(midpoint)]
    assert list(_interpret._spent_on) == [id(midpoint)]


def test_narrow_integer_arrays_are_widened_and_written_back():
    """A kernel writing into a uint8 array sees 64-bit integers and its writes land."""
    out = np.zeros(3, dtype=np.uint8)
    widened = []
    wide = _interpret._widen(out, widened)
    assert wide.dtype == np.int64 and widened[0][0] is out
    wide[:] = [1, 2, 255]
    np.copyto(out, wide, casting="unsafe")
    assert out.tolist() == [1, 2, 255]


def test_the_twins_call_each_other_not_the_dispatchers():
    from quercus._kernels import criteria
    twin = _interpret.twin(criteria.impurity)
    assert not hasattr(twin, "overloads")  # a plain function
    assert twin.__globals__["np"].log is _interpret._log
    counts = np.array([1.0, 3.0])
    assert twin(counts, criteria.GINI) == criteria.impurity.py_func(counts, criteria.GINI)


def test_log_and_sqrt_follow_compiled_code_at_the_edges():
    assert _interpret._log(0.0) == -np.inf
    assert np.isnan(_interpret._log(-1.0))
    assert np.isnan(_interpret._sqrt(-1.0))
    assert _interpret._log(np.array([1.0]))[0] == 0.0


def test_a_fresh_process_fits_the_textbook_trees_without_compiling(tmp_path):
    """With an empty kernel cache, the first ID3, C4.5 and CART fits, predictions and
    explanations of watermelon 2.0 compile nothing and write nothing to the cache."""
    cache = tmp_path / "numba-cache"
    code = textwrap.dedent("""
        import quercus
        from quercus import C45Classifier, CARTClassifier, ID3Classifier
        from quercus._kernels import _jit
        from quercus.datasets import load_watermelon
        X, y = load_watermelon("2.0")
        for cls in (ID3Classifier, C45Classifier, CARTClassifier):
            est = cls().fit(X, y)
            est.predict(X), est.predict_proba(X), est.explain(0), est.decision_path(X)
        compiled = [name for name, d in _jit.kernels() if d.overloads]
        print(len(compiled), compiled)
    """)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "QUERCUS_JIT": "auto"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True)
    assert out.stdout.startswith("0 []"), out.stdout
    assert not cache.exists() or not any(cache.rglob("*.nbi"))


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_a_long_compile_is_announced_once_on_a_terminal_only(monkeypatch):
    monkeypatch.setattr(_interpret, "NOTICE_AFTER", 0.01)
    monkeypatch.setattr(_interpret, "_noticed", False)
    for stream, verbose, expected in ((io.StringIO(), True, 0), (_Terminal(), False, 0),
                                      (_Terminal(), True, 1)):
        monkeypatch.setattr(sys, "stderr", stream)
        with config_context(verbose=verbose):
            for _ in range(2):
                with _interpret.compile_notice():
                    time.sleep(0.2)
        assert stream.getvalue().count("quercus: compiling") == expected
    # A call that ends before the delay says nothing.
    monkeypatch.setattr(_interpret, "_noticed", False)
    monkeypatch.setattr(_interpret, "NOTICE_AFTER", 5.0)
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    with _interpret.compile_notice():
        pass
    assert terminal.getvalue() == ""


def test_kernels_are_dispatchers_that_still_compile_when_asked():
    with config_context(jit="compile"):
        assert float(midpoint(1.0, 3.0)) == 2.0
    assert midpoint.overloads
    assert all(isinstance(d, _jit.Kernel) for _, d in _jit.kernels())


def test_config_rejects_an_unknown_mode_naming_it():
    with pytest.raises(ValueError, match="'jit' parameter of set_config"):
        quercus.set_config(jit="fast")
    env = {**os.environ, "QUERCUS_JIT": "turbo"}
    out = subprocess.run([sys.executable, "-c", "import quercus"], env=env,
                         capture_output=True, text=True)
    assert out.returncode != 0 and "QUERCUS_JIT" in out.stderr


def test_a_process_that_spent_its_interpreted_budget_compiles(monkeypatch):
    class Fake:
        overloads = {}

    monkeypatch.setattr(_interpret, "_entry_bytes", lambda d, a: 0)
    monkeypatch.setattr(_interpret, "_spent", 0.0)
    with config_context(jit="auto"):
        assert _interpret.should_interpret(Fake(), (np.zeros(3),))
        monkeypatch.setattr(_interpret, "_spent", _interpret.BUDGET + 1)
        assert not _interpret.should_interpret(Fake(), (np.zeros(3),))


def test_a_cache_entry_for_other_argument_types_does_not_count(tmp_path):
    """A kernel cached for float64 labels, called on float32 ones, would compile: it runs
    as Python instead. Called on the cached types it is loaded."""
    code = textwrap.dedent("""
        import numpy as np, sys
        from quercus._kernels import _interpret
        from quercus._kernels.histograms import class_totals
        args = (np.zeros(4), np.ones(4), 2)
        if sys.argv[1] == "fill":
            from quercus import config_context
            with config_context(jit="compile"):
                class_totals(*args)
        else:
            other = (np.zeros(4, dtype=np.float32), np.ones(4), 2)
            print(_interpret._entry_bytes(class_totals, args) > 0,
                  _interpret._entry_bytes(class_totals, other) > 0)
    """)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    subprocess.run([sys.executable, "-c", code, "fill"], env=env, check=True)
    out = subprocess.run([sys.executable, "-c", code, "check"], env=env, check=True,
                         capture_output=True, text=True)
    assert out.stdout.split() == ["True", "False"]


@pytest.mark.parametrize("make", [ID3Classifier, C45Classifier,
                                  lambda: C45Classifier(pruning=None)])
def test_weight_sums_add_in_the_compiled_order_when_interpreted(make):
    """Ten classes and fractional weights: NumPy's pairwise ``sum`` of eight or more
    values can differ in the last bit from the compiled kernels' sequential one, so the
    kernels add with ``ordered_sum`` and both modes give the same weights, bit for bit."""
    rng = np.random.default_rng(7)
    n = 400
    X = pd.DataFrame({"a": rng.choice(list("pqrstuvwxyz"), n),
                      "b": rng.normal(size=n).round(2),
                      "c": rng.choice(list("klmno"), n)})
    X.loc[rng.random(n) < 0.15, "a"] = None
    X.loc[rng.random(n) < 0.15, "b"] = np.nan
    y = rng.integers(0, 10, n)
    w = rng.random(n) * 3 + 0.01
    _assert_same(*_fit_both(make, X, y, sample_weight=w))


def test_a_named_tuple_of_narrow_arrays_stays_named_when_widened():
    # The routing kernels read the tree's Routing record by field name; the interpreted
    # path widens its int8/int32 arrays as numba would and must keep the names.
    from quercus._kernels._interpret import _widen
    from quercus._kernels.schema import ROUTING_FIELDS, Routing
    record = Routing(*[np.zeros(2, dtype=np.int8) for _ in ROUTING_FIELDS])
    widened = []
    out = _widen(record, widened)
    assert type(out) is Routing and out.kind.dtype == np.int64
    assert len(widened) == len(ROUTING_FIELDS)
