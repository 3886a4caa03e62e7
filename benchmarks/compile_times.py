"""Where a cold first fit's time goes, kernel by kernel: numba's compile of each function.

One fit in a fresh interpreter with an empty kernel cache (and ``QUERCUS_JIT=compile``, so
that small data compiles too), listening to numba's compile events. Each function's *own*
time is its compile less that of the functions compiled inside it (its callees, typed for
it), and of that the part spent in LLVM (optimising and emitting machine code; the rest
is numba's typing and lowering in Python). Printed: the fit's wall and CPU seconds, the sum
of the compiles, and the functions by own time, with how many signatures each compiled. Issue 31's cold first fit and issue
34's "cold compile time lower than before" are measured with it::

    python -m benchmarks.compile_times                          # CART defaults, 100,000 x 20
    python -m benchmarks.compile_times --learner c45 --rows 3000 --categorical 2
    python -m benchmarks.compile_times --out compile_times      # also a results file

A function listed with more than one signature compiled its body again for other argument
types (a literal constant, another array layout): one type at every call saves that
compile.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "benchmarks" / "results"

# learner: (estimator class in quercus, its parameters)
LEARNERS = {
    "cart": ("CARTClassifier", {}),
    "cart-exact": ("CARTClassifier", {"max_bins": None}),
    "ccp": ("CARTClassifier", {"pruning": "cost_complexity"}),
    "c45": ("C45Classifier", {}),
    "id3": ("ID3Classifier", {}),
    "regressor": ("CARTRegressor", {}),
}


def learner_label(learner):
    """How a learner is written in the report.

    Examples
    --------
    >>> learner_label("cart-exact")
    'CARTClassifier(max_bins=None)'
    """
    cls, params = LEARNERS[learner]
    return f"{cls}({', '.join(f'{k}={v!r}' for k, v in params.items())})"


class CompileClock:
    """Own compile seconds per function from nested start / end events: a compile's time
    less that of the compiles that ran inside it; and of those, the seconds spent in LLVM
    (numba's LLVM lock held) while it was the innermost compile.

    Examples
    --------
    >>> clock = CompileClock()
    >>> clock.start("outer", 0.0); clock.start("inner", 1.0)
    >>> clock.llvm_start(1.5); clock.llvm_end(2.0); clock.end(3.0, "(int64,)")
    >>> clock.end(10.0, "(float64,)")
    >>> [r[:3] for r in clock.records]  # inner 2 s, 0.5 of it LLVM; outer 10 s less 2
    [('inner', 2.0, 0.5), ('outer', 8.0, 0.0)]
    """

    def __init__(self):
        self.records = []  # (name, own seconds, own LLVM seconds, signature), as they end
        self._stack = []   # [name, start, seconds of the compiles inside, LLVM seconds]
        self._llvm_depth = 0
        self._llvm_t0 = 0.0

    def start(self, name, t):
        self._stack.append([name, t, 0.0, 0.0])

    def end(self, t, signature):
        name, t0, inside, llvm = self._stack.pop()
        took = t - t0
        self.records.append((name, took - inside, llvm, signature))
        if self._stack:
            self._stack[-1][2] += took

    def llvm_start(self, t):
        if self._llvm_depth == 0:
            self._llvm_t0 = t
        self._llvm_depth += 1

    def llvm_end(self, t):
        self._llvm_depth -= 1
        if self._llvm_depth == 0 and self._stack:
            self._stack[-1][3] += t - self._llvm_t0


def summarize(records):
    """(name, own seconds, own LLVM seconds, signatures compiled) per function, most time
    first.

    Examples
    --------
    >>> summarize([("a", 1.0, 0.5, "s1"), ("b", 3.0, 1.0, "s"), ("a", 0.5, 0.25, "s2")])
    [('b', 3.0, 1.0, 1), ('a', 1.5, 0.75, 2)]
    """
    total, llvm, sigs = {}, {}, {}
    for name, own, own_llvm, signature in records:
        total[name] = total.get(name, 0.0) + own
        llvm[name] = llvm.get(name, 0.0) + own_llvm
        sigs.setdefault(name, set()).add(signature)
    return sorted(((name, total[name], llvm[name], len(sigs[name])) for name in total),
                  key=lambda row: (-row[1], row[0]))


def _child(config):
    """The measured process: data, a listener on numba's compile events, the fit."""
    import numpy as np
    import pandas as pd
    from numba.core import event

    rng = np.random.default_rng(0)
    n, p, k = config["rows"], config["cols"], config["categorical"]
    X = pd.DataFrame(rng.normal(size=(n, p)), columns=[f"x{j}" for j in range(p)])
    signal = X["x0"] + X["x1"] * X["x2"]
    for j in range(k):
        X[f"c{j}"] = pd.Categorical(rng.choice(["a", "b", "c", "d"], size=n))
    data = X if k else X.to_numpy()
    regression = config["learner"] == "regressor"
    y = (signal + 0.3 * rng.normal(size=n)).to_numpy() if regression else \
        (signal > 0).astype(int).to_numpy()
    clock = CompileClock()

    class Listener(event.Listener):
        def on_start(self, ev):
            clock.start(ev.data["dispatcher"].py_func.__qualname__, time.perf_counter())

        def on_end(self, ev):
            clock.end(time.perf_counter(), str(ev.data["args"]))

    class LLVMListener(event.Listener):
        def on_start(self, ev):
            clock.llvm_start(time.perf_counter())

        def on_end(self, ev):
            clock.llvm_end(time.perf_counter())

    event.register("numba:compile", Listener())
    event.register("numba:llvm_lock", LLVMListener())
    t0, c0 = time.perf_counter(), time.process_time()
    import quercus
    cls, params = LEARNERS[config["learner"]]
    getattr(quercus, cls)(**params).fit(data, y)
    print(json.dumps({"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0,
                      "records": clock.records}))


def measure(learner="cart", rows=100_000, cols=20, categorical=0, jit="compile",
            timeout=3600):
    """Run the measured fit in a fresh interpreter with an empty kernel cache and
    ``QUERCUS_JIT=jit``; its JSON (wall, cpu, records: :class:`CompileClock`'s)."""
    config = dict(learner=learner, rows=rows, cols=cols, categorical=categorical)
    with tempfile.TemporaryDirectory(prefix="quercus-compile-") as tmp:
        env = dict(os.environ, QUERCUS_CACHE_DIR=tmp, QUERCUS_JIT=jit)
        env.pop("NUMBA_CACHE_DIR", None)
        res = subprocess.run([sys.executable, "-m", "benchmarks.compile_times", "--child",
                              json.dumps(config)], env=env, cwd=REPO, capture_output=True,
                             text=True, timeout=timeout)
    if res.returncode != 0:
        raise RuntimeError(res.stderr.strip()[-800:])
    return json.loads(res.stdout.strip().splitlines()[-1])


def report(result, learner, rows, cols, categorical, top):
    """The printed table (markdown) of one :func:`measure` result."""
    rows_out = summarize([tuple(r) for r in result["records"]])
    compiled = sum(r[1] for r in rows_out)
    in_llvm = sum(r[2] for r in rows_out)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO,
                            capture_output=True, text=True).stdout.strip()
    lines = [f"# Cold first fit, compile by function: git {commit}, {os.cpu_count()} cores",
             "",
             f"`import quercus` + `{learner_label(learner)}.fit`, {rows:,} x {cols} float64"
             + (f" + {categorical} categorical columns (4 levels)" if categorical else "")
             + ", fresh interpreter, empty kernel cache, `QUERCUS_JIT=compile`.",
             "",
             f"Wall {result['wall']:.1f} s, CPU {result['cpu']:.1f} s; compiling "
             f"{compiled:.1f} s in {len(rows_out)} functions, {in_llvm:.1f} s of it in LLVM.",
             "",
             "| function | own compile s | share | of which LLVM s | signatures |",
             "|---|---:|---:|---:|---:|"]
    def share(own):
        return f"{own / compiled:.0%}" if compiled > 0 else "-"

    for name, own, own_llvm, n_sig in rows_out[:top]:
        lines.append(f"| {name} | {own:.2f} | {share(own)} | {own_llvm:.2f} | {n_sig} |")
    rest = rows_out[top:]
    if rest:
        own = sum(r[1] for r in rest)
        lines.append(f"| {len(rest)} more | {own:.2f} | {share(own)} | "
                     f"{sum(r[2] for r in rest):.2f} | {sum(r[3] for r in rest)} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--learner", default="cart", choices=sorted(LEARNERS))
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--cols", type=int, default=20, help="numeric columns")
    parser.add_argument("--categorical", type=int, default=0,
                        help="categorical columns added (the fit then reads a DataFrame)")
    parser.add_argument("--top", type=int, default=25, help="functions listed")
    parser.add_argument("--out", default=None,
                        help="also write benchmarks/results/OUT.md (a plain name)")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        _child(json.loads(args.child))
        return 0
    if args.out is not None and (not args.out or "/" in args.out or "." in args.out):
        parser.error(f"--out must be a plain name without dots or slashes, got {args.out!r}")
    if args.rows < 2 or args.cols < 3 or args.categorical < 0:
        parser.error("--rows must be at least 2, --cols at least 3 (the target reads x0-x2), "
                     "--categorical at least 0")
    result = measure(args.learner, args.rows, args.cols, args.categorical)
    text = report(result, args.learner, args.rows, args.cols, args.categorical, args.top)
    print(text)
    if args.out:
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / f"{args.out}.md").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
