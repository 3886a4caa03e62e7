"""Trees that draw at random at each node (``max_features``, ``splitter="random"``) against
scikit-learn's with the same settings, each case in a fresh process.

    python -m benchmarks.random_draws                  # the table, printed
    python -m benchmarks.random_draws --quick          # one shape
    python -m benchmarks.random_draws --quercus PATH   # time the quercus of another checkout

Data: ``make_classification(n, p, n_informative=p // 2, random_state=0)`` in float64 and
float32, 80% of the rows to fit and 20% to score. quercus: ``CARTClassifier`` with
``max_features="sqrt"`` or ``splitter="random"`` and ``random_state=0``, every other
parameter its default (so ``max_bins=255``; the surrogates search nothing, as there is no
missing value); scikit-learn: ``DecisionTreeClassifier`` with the same two settings. Each
side fits once untimed (numba's kernels compiled or loaded from the cache), then the median
of ``--reps`` fits is reported, with test accuracy and leaves. The ratio is scikit-learn's
time over quercus's: above 1, quercus is faster.
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHAPES = ((100_000, 20), (20_000, 50))
SETTINGS = (("max_features='sqrt'", dict(max_features="sqrt")),
            ("splitter='random'", dict(splitter="random")))

CASE = r"""
import json, statistics, sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np
from sklearn.datasets import make_classification
from sklearn.tree import DecisionTreeClassifier
import quercus
n, p, dtype, kw, reps = json.loads(sys.argv[2])
X, y = make_classification(n, p, n_informative=p // 2, random_state=0)
X = X.astype(dtype)
cut = int(0.8 * n)
out = {"quercus_file": quercus.__file__}
for side, make in (("quercus", lambda: quercus.CARTClassifier(random_state=0, **kw)),
                   ("sklearn", lambda: DecisionTreeClassifier(random_state=0, **kw))):
    make().fit(X[:cut], y[:cut])
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        est = make().fit(X[:cut], y[:cut])
        times.append(time.perf_counter() - t0)
    out[side] = {"seconds": statistics.median(times),
                 "accuracy": float((est.predict(X[cut:]) == y[cut:]).mean()),
                 "leaves": int(est.get_n_leaves())}
print(json.dumps(out))
"""


def run_case(quercus_path, n, p, dtype, kw, reps):
    out = subprocess.run([sys.executable, "-c", CASE, str(quercus_path),
                          json.dumps([n, p, dtype, kw, reps])],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the first shape only")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--quercus", default=str(REPO),
                        help="checkout whose quercus is timed (default: this one)")
    args = parser.parse_args(argv)
    shapes = SHAPES[:1] if args.quick else SHAPES
    print("| rows x cols | dtype | setting | quercus s | sklearn s | sklearn / quercus "
          "| accuracy quercus / sklearn | leaves quercus / sklearn |")
    print("|---|---|---|---|---|---|---|---|")
    for n, p in shapes:
        for dtype in ("float64", "float32"):
            for name, kw in SETTINGS:
                r = run_case(args.quercus, n, p, dtype, kw, args.reps)
                q, s = r["quercus"], r["sklearn"]
                print(f"| {n:,} x {p} | {dtype} | {name} | {q['seconds']:.3f} | "
                      f"{s['seconds']:.3f} | {s['seconds'] / q['seconds']:.2f} | "
                      f"{q['accuracy']:.4f} / {s['accuracy']:.4f} | "
                      f"{q['leaves']} / {s['leaves']} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
