"""What a new user meets: first fits in fresh processes, the defaults against scikit-learn,
prediction throughput, and ``n_jobs`` beside other work. One run, every figure in a fresh
interpreter, printed as a table with its parameters and data shape, and written to
``benchmarks/results/first_use.md``.

    python -m benchmarks.first_use            # everything (about 15-25 minutes here)
    python -m benchmarks.first_use --only cold,defaults

Parts: ``cold`` (empty kernel cache: the textbook session, ``quercus demo``, a CART fit of
100,000 x 20; then the same with the cache filled), ``wheel`` (a wheel built from this
tree, with and without its first fit's kernels compiled at build time; first fits from
the installed wheel with an empty user cache: CART on float64, float32, missing values,
a table with categories, with cost-complexity pruning, and C4.5, whose kernels are not
shipped), ``defaults`` (200,000 x 20, float32
and float64: CART's defaults and exact mode against scikit-learn's defaults), ``predict``
(1,000,000 rows, 20 and 50 features, float32 and float64), ``jobs`` (cross-validation and
grid search with ``n_jobs``, quiet and beside a busy process).
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

TEXTBOOK = """
import time
t0 = time.perf_counter()
from quercus import C45Classifier, CARTClassifier, ID3Classifier
from quercus.datasets import load_watermelon
X, y = load_watermelon("2.0")
for cls in (ID3Classifier, C45Classifier, CARTClassifier):
    est = cls().fit(X, y)
    est.predict(X)
    est.explain(0)
print(json.dumps({"seconds": time.perf_counter() - t0}))
"""

# A first fit in a fresh interpreter: ``{before}`` (imports) and ``{prepare}`` (the data)
# run before the clock; ``{imp}``, the import of the estimator, inside it.
FIRST_FIT = """
import numpy as np
{before}
rng = np.random.default_rng(0)
X = rng.normal(size=({n}, {p})).astype(np.{dtype})
y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int)
{prepare}
t0 = time.perf_counter()
{imp}
est = {est}.fit(X, y)
fit = time.perf_counter() - t0
est.predict(X)
print(json.dumps({{"seconds": fit, "with_predict": time.perf_counter() - t0}}))
"""


def first_fit(imp, est="Est()", dtype="float64", before="", prepare="", n=100_000, p=20):
    """:data:`FIRST_FIT` filled in."""
    return FIRST_FIT.format(imp=imp, est=est, dtype=dtype, before=before, prepare=prepare,
                            n=n, p=p)


DEFAULTS = """
import numpy as np
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
X, y = make_classification(n_samples={n}, n_features={p}, n_informative={p} // 2,
                           random_state=0)
X = X.astype(np.{dtype})
Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=0)
{imp}
Est(**{params}).fit(Xtr[:5000], ytr[:5000])  # compiled (or loaded) before the timing
times = []
for _ in range(3):
    t0 = time.perf_counter()
    est = Est(**{params}).fit(Xtr, ytr)
    times.append(time.perf_counter() - t0)
print(json.dumps({{"seconds": sorted(times)[1], "accuracy": float(est.score(Xte, yte))}}))
"""

PREDICT = """
import numpy as np
rng = np.random.default_rng(0)
p = {p}
Xtr = rng.normal(size=(200_000, p)).astype(np.{dtype})
ytr = (Xtr[:, 0] + Xtr[:, 1] * Xtr[:, 2] + 0.3 * rng.normal(size=200_000) > 0).astype(int)
X = rng.normal(size=(1_000_000, p)).astype(np.{dtype})
{imp}
est = Est().fit(Xtr, ytr)
est.predict(X[:1000]), est.predict_proba(X[:1000])
out = {{}}
for what in ("predict", "predict_proba"):
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        getattr(est, what)(X)
        times.append(time.perf_counter() - t0)
    out[what] = sorted(times)[1]
print(json.dumps(out))
"""

JOBS = """
import numpy as np
from sklearn.datasets import make_classification
from sklearn.model_selection import GridSearchCV, cross_val_score
from quercus import CARTClassifier
X, y = make_classification(n_samples={n}, n_features=20, n_informative=10, random_state=0)
CARTClassifier().fit(X[:5000], y[:5000])
est = CARTClassifier(n_jobs={inner})
t0 = time.perf_counter()
{call}
print(json.dumps({{"seconds": time.perf_counter() - t0}}))
"""

_MISSING = "X[rng.random(X.shape) < 0.05] = np.nan"
_FRAME = ("X = pd.DataFrame(X[:, :10], columns=[f'x{j}' for j in range(10)])\n"
          "for j in range(3):\n"
          "    X[f'c{j}'] = pd.Categorical(rng.choice(list('abcdefgh'), size=len(X)))")


def _wheel_fit(est, dtype="float64", prepare=""):
    return first_fit("from quercus import CARTClassifier, C45Classifier", est, dtype,
                     before="import pandas as pd", prepare=prepare)


# The first fits measured from an installed wheel: (what, code, whether the build ships
# their kernels: quercus.cli.warmup.compile_first_use).
WHEEL_FITS = [
    ("CARTClassifier() fit, 100,000 x 20 float64", _wheel_fit("CARTClassifier()"), True),
    ("CARTClassifier() fit, 100,000 x 20 float32",
     _wheel_fit("CARTClassifier()", "float32"), True),
    ("CARTClassifier() fit, 100,000 x 20 float64, 5% of the cells missing",
     _wheel_fit("CARTClassifier()", prepare=_MISSING), True),
    ("CARTClassifier() fit, DataFrame 100,000 x (10 float64 + 3 categorical of 8 levels)",
     _wheel_fit("CARTClassifier()", prepare=_FRAME), True),
    ("CARTClassifier(pruning='cost_complexity') fit, 100,000 x 20 float64",
     _wheel_fit("CARTClassifier(pruning='cost_complexity')"), True),
    ("C45Classifier() fit, 100,000 x 20 float64", _wheel_fit("C45Classifier()"), False),
]

QUERCUS = "from quercus import CARTClassifier as Est"
SKLEARN = "from sklearn.tree import DecisionTreeClassifier as Est"


def run(code, env=None, timeout=3600, cwd=REPO):
    """One fresh interpreter: the JSON its last line prints."""
    full = "import json, time\n" + code
    res = subprocess.run([sys.executable, "-c", full], env=env or dict(os.environ),
                         cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if res.returncode != 0:
        raise RuntimeError(res.stderr.strip()[-800:])
    return json.loads(res.stdout.strip().splitlines()[-1])


def wall(cmd, env, cwd=REPO):
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t0


def cold(rows):
    with tempfile.TemporaryDirectory(prefix="quercus-cache-") as tmp:
        env = dict(os.environ, NUMBA_CACHE_DIR=tmp)
        env.pop("QUERCUS_JIT", None)
        t = run(TEXTBOOK, env)["seconds"]
        rows.append(("cold", "import + ID3, C4.5, CART fit, predict, explain of watermelon "
                     "2.0 (17 x 6), empty kernel cache", f"{t:.2f} s", "target 5 s"))
        t = wall([sys.executable, "-m", "quercus", "demo"], env)
        rows.append(("cold", "`quercus demo` (whole command), empty kernel cache",
                     f"{t:.2f} s", "target 10 s"))
        code = first_fit(QUERCUS)
        first = run(code, env)
        rows.append(("cold", "import + CARTClassifier() fit, 100,000 x 20 float64, empty "
                     "kernel cache", f"{first['seconds']:.1f} s",
                     f"fit + predict {first['with_predict']:.1f} s; target 15 s"))
        warm = run(code, env)
        peer = run(first_fit(SKLEARN), env)
        rows.append(("cold", "the same, kernels cached by the run above",
                     f"{warm['seconds']:.1f} s",
                     f"scikit-learn's DecisionTreeClassifier() the same way "
                     f"{peer['seconds']:.1f} s"))
        # The empty-cache session runs its kernels as Python and caches none: compile them
        # first, as a process fitting bigger data (or `quercus warmup`) leaves them.
        run(TEXTBOOK, dict(env, QUERCUS_JIT="compile"))
        t = run(TEXTBOOK, env)["seconds"]
        rows.append(("cold", "import + the same textbook session, its kernels cached (by a "
                     "run with QUERCUS_JIT=compile)", f"{t:.2f} s",
                     "no slower than with an empty cache"))


def defaults(rows):
    for dtype in ("float64", "float32"):
        sk = run(DEFAULTS.format(n=200_000, p=20, dtype=dtype, imp=SKLEARN, params="{}"))
        for label, params in (("CARTClassifier() (histogram: max_bins=255)", "{}"),
                              ("CARTClassifier(max_bins=None) (exact)",
                               "{'max_bins': None}")):
            q = run(DEFAULTS.format(n=200_000, p=20, dtype=dtype, imp=QUERCUS, params=params))
            rows.append(("defaults", f"{label} against DecisionTreeClassifier(), "
                         f"make_classification 200,000 x 20 {dtype}, 75% fit",
                         f"{q['seconds']:.2f} s / {sk['seconds']:.2f} s = "
                         f"{q['seconds'] / sk['seconds']:.2f}",
                         f"accuracy {q['accuracy']:.4f} / {sk['accuracy']:.4f}"))


def predict(rows):
    for p in (20, 50):
        for dtype in ("float64", "float32"):
            q = run(PREDICT.format(p=p, dtype=dtype, imp=QUERCUS))
            sk = run(PREDICT.format(p=p, dtype=dtype, imp=SKLEARN))
            for what in ("predict", "predict_proba"):
                rows.append(("predict", f"{what}, 1,000,000 x {p} {dtype}, fully grown tree "
                             f"of 200,000 rows (defaults of each)",
                             f"{q[what]:.3f} s / {sk[what]:.3f} s = "
                             f"{q[what] / sk[what]:.2f}", "quercus / scikit-learn"))


def jobs(rows):
    calls = {
        "cross_val_score(est, X, y, cv=5, n_jobs=2)":
            "cross_val_score(est, X, y, cv=5, n_jobs=2)",
        "GridSearchCV(est, {max_depth: [4, 8, 12, None]}, cv=3, n_jobs=-1).fit":
            "GridSearchCV(est, {'max_depth': [4, 8, 12, None]}, cv=3, n_jobs=-1).fit(X, y)",
        "one fit est.fit(X, y)": "est.fit(X, y)",
    }
    for busy in (False, True):
        hog = (subprocess.Popen([sys.executable, "-c", "while True: pass"])
               if busy else None)
        try:
            for label, call in calls.items():
                t = {inner: run(JOBS.format(n=100_000, inner=inner, call=call))["seconds"]
                     for inner in ("None", "1")}
                rows.append(("jobs", f"{label}, 100,000 x 20, "
                             f"{'one busy process beside it' if busy else 'quiet'}",
                             f"n_jobs=None {t['None']:.2f} s, n_jobs=1 {t['1']:.2f} s",
                             f"ratio {t['None'] / t['1']:.2f}"))
        finally:
            if hog is not None:
                hog.kill()


def wheel(rows):
    """The package as a wheel installs it: built from this tree (its kernels compiled at
    build time, and once without them), installed into a folder of its own, then used in
    fresh processes outside the repository with an empty user kernel cache."""
    with tempfile.TemporaryDirectory(prefix="quercus-wheel-") as tmp:
        tmp = Path(tmp)
        env = {k: v for k, v in os.environ.items()
               if k not in ("NUMBA_CACHE_DIR", "QUERCUS_JIT", "QUERCUS_BUILD_KERNELS",
                            "QUERCUS_KERNEL_CPU", "PYTHONPATH")}
        for kernels in ("0", "1"):
            t = wall([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w",
                      str(tmp / f"wheel{kernels}"), str(REPO)],
                     dict(env, QUERCUS_BUILD_KERNELS=kernels))
            rows.append(("wheel", "`pip wheel . --no-deps` (isolated build), "
                         + ("the first fit's kernels compiled for this processor"
                            if kernels == "1" else "QUERCUS_BUILD_KERNELS=0"),
                         f"{t:.0f} s", "the difference is the compile at build time"))
        built = next((tmp / "wheel1").glob("quercus-*.whl"))
        site = tmp / "site"
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                        "--target", str(site), str(built)], env=env, check=True)
        use = dict(env, PYTHONPATH=str(site))
        for i, (what, code, shipped) in enumerate(WHEEL_FITS):
            use["QUERCUS_CACHE_DIR"] = str(tmp / f"user-cache-{i}")
            first = run(code, use, cwd=tmp)
            rows.append(("wheel", f"import + {what}, installed wheel, empty user kernel "
                         "cache", f"{first['seconds']:.1f} s",
                         f"fit + predict {first['with_predict']:.1f} s; "
                         + ("kernels shipped; target 15 s" if shipped
                            else "kernels not shipped: compiled")))
        use["QUERCUS_CACHE_DIR"] = str(tmp / "user-cache-textbook")
        t = run(TEXTBOOK, use, cwd=tmp)["seconds"]
        rows.append(("wheel", "import + ID3, C4.5, CART fit, predict, explain of watermelon "
                     "2.0, installed wheel, empty user kernel cache", f"{t:.2f} s",
                     "target 5 s"))
        t = wall([sys.executable, "-m", "quercus", "demo"], use, cwd=tmp)
        rows.append(("wheel", "`quercus demo`, installed wheel, empty user kernel cache",
                     f"{t:.2f} s", "target 10 s"))


PARTS = {"cold": cold, "wheel": wheel, "defaults": defaults, "predict": predict,
         "jobs": jobs}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=",".join(PARTS),
                        help=f"comma-separated parts among {', '.join(PARTS)}")
    parser.add_argument("--out", default="first_use",
                        help="results file name under benchmarks/results (no extension)")
    args = parser.parse_args(argv)
    parts = [p.strip() for p in args.only.split(",") if p.strip()]
    bad = [p for p in parts if p not in PARTS]
    if bad:
        parser.error(f"--only: unknown part(s) {bad}; choose among {list(PARTS)}")
    if not args.out or "/" in args.out or "." in args.out:
        parser.error(f"--out must be a plain name without dots or slashes, got {args.out!r}")
    rows = []
    for part in parts:
        print(f"[{part}] ...", file=sys.stderr, flush=True)
        PARTS[part](rows)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO,
                            capture_output=True, text=True).stdout.strip()
    lines = [f"# First use: measured at git {commit} on {os.cpu_count()} cores",
             "", "Command: `python -m benchmarks.first_use --only " + ",".join(parts) + "`",
             "", "| part | what, with its parameters and data shape | measured | note |",
             "|---|---|---|---|"]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
    text = "\n".join(lines) + "\n"
    print(text)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{args.out}.md").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
