"""The subtree kernel's own time in a small cross-validated fit, for A/B runs of a kernel
change (the fit around it, pandas and Python, varies more on this VM than the kernel does).

    python benchmarks/kernel_time.py OUT.json [CASE ...]

A CASE is ``name:factors:task`` of ``benchmarks/data-cache/cv_small`` (made by
``python -m benchmarks.cv_small``): ``case00:x0,x1,x2,x3,x4,x5:class`` is watermelon 2.0,
``case28:-:anova`` make_regression 400 x 20; the default is the seven cases of
``benchmarks/results/subtree_room.md``. For each, one
``CARTClassifier``/``CARTRegressor(pruning="cost_complexity", random_state=0)`` fit (all
else default) records the arguments of every ``grow_subtree`` call it makes (the folds' and
the final tree's); then those calls are replayed, all of them in a row, for 4 s, and the
fastest replay is written (seconds). Run with ``QUERCUS_JIT=compile`` and a warm
``QUERCUS_CACHE_DIR`` so that no kernel runs as Python; compare builds by running each from
its own checkout (``PYTHONPATH=/path/to/checkout python benchmarks/kernel_time.py ...``,
run as a file so that the checkout's quercus is the one imported), alternating.

Or let it alternate them, from the repository root::

    python -m benchmarks.kernel_time --ab BASE [NEW] [--rounds 3] [CASE ...]

BASE and NEW are what ``benchmarks/ab.py`` takes: git revisions (each checked out into a
temporary worktree, removed at the end) or paths of checkouts; NEW defaults to this
working tree. Each (round, side, case) is a fresh process that imports quercus from its
side's checkout and keeps its kernels in a cache of its own side; the side that runs first
alternates by round. It prints, for each case, new / base of the fastest replays over all
rounds and the range and median of the rounds' own ratios (below 1: NEW is faster).
"""

import importlib.util
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CASES = ("case00:x0,x1,x2,x3,x4,x5:class", "case09:-:class", "case18:-:class",
         "case22:-:class", "case28:-:anova", "case31:-:anova", "case37:x0,x1,x2:anova")
REPLAY_SECONDS = 4.0


def kernel_seconds(spec):
    """The fastest replay of one fit's ``grow_subtree`` calls, for case ``spec``."""
    import quercus
    import quercus._grower as grower
    spec_ = importlib.util.spec_from_file_location("cv_small", HERE / "cv_small.py")
    cv_small = importlib.util.module_from_spec(spec_)
    spec_.loader.exec_module(cv_small)  # (this checkout's, whichever quercus is imported)
    X, y, task = cv_small.read_spec(spec)
    calls, kernel = [], grower.grow_subtree

    def spy(*args):
        calls.append(args)
        return kernel(*args)

    grower.grow_subtree = spy
    try:
        cls = quercus.CARTClassifier if task == "class" else quercus.CARTRegressor
        with quercus.config_context(jit="compile"):
            cls(pruning="cost_complexity", random_state=0).fit(X, y)
    finally:
        grower.grow_subtree = kernel
    best, end = float("inf"), time.perf_counter() + REPLAY_SECONDS
    while time.perf_counter() < end:
        t0 = time.perf_counter()
        for args in calls:
            kernel(*args)
        best = min(best, time.perf_counter() - t0)
    return best


def ab_times(base, new, rounds, specs):
    """{case: {"base": [...], "new": [...]}}: :func:`kernel_seconds` of each case in each
    round, each in a fresh process of its side (``benchmarks/ab.py``'s: BASE and NEW a
    revision or a checkout's path, NEW None for this working tree)."""
    from benchmarks import ab as harness
    sides = {"base": harness.resolve_side("base", base), "new": harness.resolve_side("new", new)}
    folder = Path(tempfile.mkdtemp(prefix="kernel_ab_"))
    try:
        for side in sides.values():
            if side.worktree:
                harness.check_out(side, folder / side.name)
            print(side.label(), flush=True)
        times = {spec: {"base": [], "new": []} for spec in specs}
        for r in range(rounds):
            for name in harness.order(r):
                for spec in specs:
                    times[spec][name].append(harness.run_child(
                        sides[name], folder / f"cache_{name}", "benchmarks.kernel_time",
                        "kernel_seconds", [spec]))
        return times
    finally:
        for side in sides.values():
            harness.remove_worktree(side)
        shutil.rmtree(folder, ignore_errors=True)


def ab_summary(times):
    """A line per case of :func:`ab_times`' timings: new / base of the two sides' fastest
    replays, then the range and median of the rounds' ratios.

    Examples
    --------
    >>> ab_summary({"case09:-:class": {"base": [2e-3, 1e-3], "new": [1.8e-3, 1.1e-3]}})
    ['case09: new / base 1.100 by the fastest (base 1.000 ms, new 1.100 ms); rounds 0.900-1.100, median 1.000']
    """
    lines = []
    for spec, t in times.items():
        rounds = [n / b for b, n in zip(t["base"], t["new"])]
        lines.append(f"{spec.split(':')[0]}: new / base {min(t['new']) / min(t['base']):.3f} "
                     f"by the fastest (base {min(t['base']) * 1e3:.3f} ms, new "
                     f"{min(t['new']) * 1e3:.3f} ms); rounds {min(rounds):.3f}-"
                     f"{max(rounds):.3f}, median {statistics.median(rounds):.3f}")
    return lines


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        raise SystemExit(__doc__)
    if argv[0] == "--ab":
        rest = argv[1:]
        rounds = 3
        if "--rounds" in rest:
            i = rest.index("--rounds")
            value = rest[i + 1] if i + 1 < len(rest) else ""
            if not value.isdigit() or int(value) < 1:
                raise SystemExit(f"--rounds needs a whole number of rounds, 1 or more: "
                                 f"got {value!r}")
            rounds = int(value)
            rest = rest[:i] + rest[i + 2:]
        if not rest:
            raise SystemExit("--ab needs BASE: a git revision or a checkout's path")
        base, rest = rest[0], rest[1:]
        new = None
        if rest and ":" not in rest[0]:  # (a case is name:factors:task)
            new, rest = rest[0], rest[1:]
        for line in ab_summary(ab_times(base, new, rounds, rest or list(CASES))):
            print(line)
        return
    import quercus
    out = {"quercus": quercus.__file__}
    for spec in argv[1:] or CASES:
        out[spec.split(":")[0]] = kernel_seconds(spec)
        print(f"{spec.split(':')[0]}: {out[spec.split(':')[0]] * 1e3:.2f} ms", flush=True)
    Path(argv[0]).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
