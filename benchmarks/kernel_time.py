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
"""

import importlib.util
import json
import sys
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


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        raise SystemExit(__doc__)
    import quercus
    out = {"quercus": quercus.__file__}
    for spec in argv[1:] or CASES:
        out[spec.split(":")[0]] = kernel_seconds(spec)
        print(f"{spec.split(':')[0]}: {out[spec.split(':')[0]] * 1e3:.2f} ms", flush=True)
    Path(argv[0]).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
