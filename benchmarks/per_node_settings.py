"""The settings whose nodes used to be grown one by one in Python (random draws at each
node: ``max_features``, ``splitter="random"``; ``criterion="absolute_error"``; pre-pruning
on a validation set) against scikit-learn's tree with the same settings, each case in a
fresh process.

    python -m benchmarks.per_node_settings                  # the table, printed
    python -m benchmarks.per_node_settings --quick          # one shape
    python -m benchmarks.per_node_settings --quercus PATH   # another checkout's quercus

Data: ``make_classification(n, p, n_informative=p // 2, random_state=0)`` (the random
settings) or ``make_regression(n, p, n_informative=p // 2, noise=10, random_state=0)``
(absolute error) in float64 and float32, 80% of the rows to fit and 20% to score.
quercus: ``CARTClassifier`` with ``max_features="sqrt"`` or ``splitter="random"`` and
``random_state=0``, or ``CARTRegressor(criterion="absolute_error")``, every other parameter
its default (so ``max_bins=255``; the surrogates search nothing, as there is no missing
value); scikit-learn: ``DecisionTreeClassifier`` / ``DecisionTreeRegressor`` with the same
setting. Pre-pruning: ``CARTClassifier(pruning="pre", random_state=0)``, and with
``strict_improvement=False`` (a split that leaves the validation error as it is kept too:
deeper trees), a quarter of the fitting rows held out for its test (its default
``validation_fraction``); scikit-learn
has no such pruning, so its row is its default ``DecisionTreeClassifier()``, a scale
only. Each side fits once untimed (numba's kernels compiled or loaded from the cache),
then the median of ``--reps`` fits is reported, with the test score (accuracy, or R²) and
leaves. The ratio is scikit-learn's time over quercus's: above 1, quercus is faster.
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHAPES = ((100_000, 20), (20_000, 50))
# (name, task, quercus's parameters, scikit-learn's: None for the same)
SETTINGS = (("max_features='sqrt'", "clf", dict(max_features="sqrt", random_state=0), None),
            ("splitter='random'", "clf", dict(splitter="random", random_state=0), None),
            ("criterion='absolute_error'", "reg", dict(criterion="absolute_error"), None),
            ("pruning='pre'", "clf", dict(pruning="pre", random_state=0), {}),
            ("pruning='pre', strict_improvement=False", "clf",
             dict(pruning="pre", strict_improvement=False, random_state=0), {}))

CASE = r"""
import json, statistics, sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np
from sklearn.datasets import make_classification, make_regression
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
import quercus
n, p, dtype, task, kw, their_kw, reps = json.loads(sys.argv[2])
their_kw = kw if their_kw is None else their_kw
if task == "clf":
    X, y = make_classification(n, p, n_informative=p // 2, random_state=0)
    ours, theirs = quercus.CARTClassifier, DecisionTreeClassifier
else:
    X, y = make_regression(n, p, n_informative=p // 2, noise=10, random_state=0)
    ours, theirs = quercus.CARTRegressor, DecisionTreeRegressor
X = X.astype(dtype)
cut = int(0.8 * n)
out = {"quercus_file": quercus.__file__}
for side, make in (("quercus", lambda: ours(**kw)),
                   ("sklearn", lambda: theirs(**their_kw))):
    make().fit(X[:cut], y[:cut])
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        est = make().fit(X[:cut], y[:cut])
        times.append(time.perf_counter() - t0)
    out[side] = {"seconds": statistics.median(times),
                 "score": float(est.score(X[cut:], y[cut:])),
                 "leaves": int(est.get_n_leaves())}
print(json.dumps(out))
"""


def run_case(quercus_path, n, p, dtype, task, kw, their_kw, reps):
    out = subprocess.run([sys.executable, "-c", CASE, str(quercus_path),
                          json.dumps([n, p, dtype, task, kw, their_kw, reps])],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the first shape only")
    parser.add_argument("--only", help="run the settings whose name contains this")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--quercus", default=str(REPO),
                        help="checkout whose quercus is timed (default: this one)")
    args = parser.parse_args(argv)
    shapes = SHAPES[:1] if args.quick else SHAPES
    print("| rows x cols | dtype | setting | quercus s | sklearn s | sklearn / quercus "
          "| test accuracy or R² quercus / sklearn | leaves quercus / sklearn |")
    print("|---|---|---|---|---|---|---|---|")
    for n, p in shapes:
        for dtype in ("float64", "float32"):
            for name, task, kw, their_kw in SETTINGS:
                if args.only and args.only not in name:
                    continue
                r = run_case(args.quercus, n, p, dtype, task, kw, their_kw, args.reps)
                q, s = r["quercus"], r["sklearn"]
                print(f"| {n:,} x {p} | {dtype} | {name} | {q['seconds']:.3f} | "
                      f"{s['seconds']:.3f} | {s['seconds'] / q['seconds']:.2f} | "
                      f"{q['score']:.4f} / {s['score']:.4f} | "
                      f"{q['leaves']} / {s['leaves']} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
