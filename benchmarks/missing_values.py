"""Missing-value strategies on public data with real missing values.

Run from the repository root::

    python -m benchmarks.missing_values            # 10-fold CV, one repetition
    python -m benchmarks.missing_values --repeats 5

Data: R's mlbench package (Debian ``r-cran-mlbench``), exported to CSV at run time by
``benchmarks/mlbench_export.R`` into ``benchmarks/data-cache/`` (not committed). Every row is
kept: missing values go to the learners as they are (NaN / empty cells).

For each data set, the same stratified 10-fold split (fixed ``random_state``) is given to

- quercus ``C45Classifier()`` (and ``pruning=None`` when it prunes by default),
  ``ID3Classifier()`` (C4.5's fractional rule), ``CARTClassifier()`` and
  ``CARTClassifier(min_samples_split=20, min_samples_leaf=7)`` (rpart's surrogate splits;
  the second with rpart's default minsplit / minbucket), ``DecisionTreeClassifier()``
  (scikit-learn's learned direction), on the DataFrame as read (categorical columns as
  strings);
- scikit-learn's ``DecisionTreeClassifier(random_state=0)``, which handles NaN natively
  (scikit-learn >= 1.3), on ordinal codes of the categorical columns with NaN kept;
- R's ``rpart`` with its default settings, and grown out (``cp = 0``), on the same folds
  (the fold ids are written to CSV and read by ``benchmarks/rpart_cv.R``);
- Weka's J48 (C4.5 release 8) with its defaults and unpruned (``-U -M 1``), on ARFF files of
  the same folds, when ``java`` and ``weka.jar`` (Debian's ``weka``, or ``$WEKA_JAR``) exist.

Reported: accuracy (mean ± standard deviation over the folds), mean number of leaves, mean
fit time, and the number of training rows a learner left out of its tree. The table is
printed and written to ``benchmarks/results/missing_values.md``; per-fold numbers to
``benchmarks/results/missing_values_folds.csv``.

Without R, mlbench, rpart or Weka the script says what it skipped and exits normally
(``bash benchmarks/setup_peers.sh`` installs them on Debian).
"""

import argparse
import datetime
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import sklearn
from sklearn.base import clone
from sklearn.model_selection import RepeatedStratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OrdinalEncoder
from sklearn.tree import DecisionTreeClassifier as SkDecisionTreeClassifier

import quercus
from quercus import C45Classifier, CARTClassifier, DecisionTreeClassifier, ID3Classifier

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CACHE = HERE / "data-cache"
RESULTS_MD = HERE / "results" / "missing_values.md"
RESULTS_FOLDS = HERE / "results" / "missing_values_folds.csv"
EXPORT_R = HERE / "mlbench_export.R"
RPART_R = HERE / "rpart_cv.R"
N_SPLITS = 10
SEED = 0
R_TIMEOUT = 900  # seconds, for one Rscript call


@dataclass(frozen=True)
class DataSet:
    name: str         # the mlbench data set, and the CSV's stem
    target: str       # the label column
    kind: str         # "categorical" or "numeric": the type of every other column
    about: str


DATASETS = [
    DataSet("HouseVotes84", "Class", "categorical",
            "1984 US House of Representatives: 16 key votes (y/n, missing when the member "
            "did not vote yea or nay), party"),
    DataSet("Soybean", "Class", "categorical",
            "Michalski's soybean disease data: 35 categorical plant and seed descriptions, "
            "19 diseases"),
    DataSet("BreastCancer", "Class", "numeric",
            "Wisconsin breast cancer (Wolberg): 9 cytology scores 1-10 (Bare.nuclei missing in "
            "16 rows), benign/malignant; the sample Id is dropped"),
    DataSet("PimaIndiansDiabetes2", "diabetes", "numeric",
            "Pima Indians diabetes with the impossible zeros of glucose, pressure, triceps, "
            "insulin and mass recoded as missing by mlbench"),
]


# ---------------------------------------------------------------------------- R side
def _run_r(args, timeout=R_TIMEOUT):
    return subprocess.run(["Rscript", "--vanilla", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout)


def r_status():
    """(has_R, has_mlbench, has_rpart, R version, rpart version) without failing."""
    if shutil.which("Rscript") is None:
        return False, False, False, None, None
    code = ('cat(R.version$major, ".", R.version$minor, "\\n", sep = ""); '
            'for (p in c("mlbench", "rpart")) cat(if (requireNamespace(p, quietly = TRUE)) '
            'as.character(packageVersion(p)) else "-", "\\n")')
    try:
        out = _run_r(["-e", code], timeout=120)
    except (OSError, subprocess.SubprocessError) as exc:
        print(f"Rscript did not run ({exc}).")
        return False, False, False, None, None
    lines = [s.strip() for s in out.stdout.splitlines()]
    if out.returncode != 0 or len(lines) < 3:
        print(f"Rscript failed: {out.stderr.strip()[:300]}")
        return False, False, False, None, None
    return (True, lines[1] != "-", lines[2] != "-", lines[0],
            lines[2] if lines[2] != "-" else None)


def export_data(names, out_dir):
    """Export the mlbench data sets with Rscript; returns the names that were written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in names:
        (out_dir / f"{name}.csv").unlink(missing_ok=True)
    try:
        out = _run_r([EXPORT_R, out_dir, *names])
    except (OSError, subprocess.SubprocessError) as exc:
        print(f"Exporting the mlbench data failed ({exc}).")
        return []
    if out.returncode != 0:
        print(f"Exporting the mlbench data failed: {out.stderr.strip()[:500]}")
    return [n for n in names if (out_dir / f"{n}.csv").exists()]


def load(ds, data_dir):
    """The exported CSV as the learners get it: categorical columns as strings, NaN
    missing, every row kept."""
    path = data_dir / f"{ds.name}.csv"
    header = pd.read_csv(path, nrows=0).columns
    features = [c for c in header if c != ds.target]
    dtypes = {ds.target: str}
    dtypes.update({c: (str if ds.kind == "categorical" else np.float64) for c in features})
    frame = pd.read_csv(path, dtype=dtypes, keep_default_na=False, na_values=[""])
    X = frame[features]
    y = frame[ds.target].to_numpy(dtype=object)
    if pd.isna(y).any():
        raise ValueError(f"{ds.name}: missing labels")
    return X, y


def run_rpart(ds, data_dir, X, fold_ids, work):
    """rpart (default and grown out) on the given folds; a list of result rows."""
    types = pd.DataFrame({"name": [ds.target, *X.columns],
                          "kind": ["target", *[ds.kind] * X.shape[1]]})
    types_csv, folds_csv, out_csv = (work / f"{ds.name}.{s}.csv"
                                     for s in ("types", "folds", "rpart"))
    types.to_csv(types_csv, index=False)
    fold_ids.to_csv(folds_csv, index=False)
    try:
        out = _run_r([RPART_R, data_dir / f"{ds.name}.csv", types_csv, folds_csv, out_csv])
    except (OSError, subprocess.SubprocessError) as exc:
        print(f"  rpart skipped: Rscript did not finish ({exc}).")
        return []
    if out.returncode != 0 or not out_csv.exists():
        print(f"  rpart skipped: {out.stderr.strip()[:500]}")
        return []
    res = pd.read_csv(out_csv)
    labels = {"default": ("R rpart() defaults (cp=0.01, minsplit=20, minbucket=7)",
                          "surrogate (rpart)"),
              "full": ("R rpart(cp=0, minsplit=2, minbucket=1)", "surrogate (rpart)")}
    rows = []
    for rec in res.itertuples(index=False):
        learner, missing = labels[rec.setting]
        rows.append(dict(dataset=ds.name, learner=learner, missing=missing,
                         repeat=int(rec.repeat), fold=int(rec.fold),
                         accuracy=float(rec.accuracy), n_leaves=int(rec.n_leaves),
                         fit_seconds=float(rec.fit_seconds), n_train=int(rec.n_train),
                         n_fit=int(rec.n_fit)))
    return rows


# --------------------------------------------------------------------------- Weka J48
WEKA_JAR_CANDIDATES = ("/usr/share/java/weka.jar",)
J48_SETTINGS = {
    "Weka J48 defaults (-C 0.25 -M 2)": ["-C", "0.25", "-M", "2"],
    "Weka J48 -U -M 1 (unpruned)": ["-U", "-M", "1"],
}


def weka_jar():
    """Path of weka.jar (``$WEKA_JAR`` or Debian's), or None; also None without java."""
    if shutil.which("java") is None:
        return None
    for cand in (os.environ.get("WEKA_JAR"), *WEKA_JAR_CANDIDATES):
        if cand and Path(cand).is_file():
            return Path(cand)
    return None


def weka_version(jar):
    try:
        out = subprocess.run(["java", "-cp", str(jar), "weka.core.Version"],
                             capture_output=True, text=True, timeout=120)
        return out.stdout.strip().splitlines()[0] if out.returncode == 0 else None
    except (OSError, subprocess.SubprocessError, IndexError):
        return None


def _arff_value(v):
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return "?"
    if isinstance(v, str):
        return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return repr(float(v))


def write_arff(path, ds, X, y, levels):
    """ARFF with every nominal attribute declared with the levels of the whole data set
    (as R's factors are), missing values as '?'."""
    lines = [f"@relation {ds.name}"]
    for col in X.columns:
        kind = ("{" + ",".join(_arff_value(v) for v in levels[col]) + "}"
                if col in levels else "numeric")
        lines.append(f"@attribute {_arff_value(str(col))} {kind}")
    lines.append(f"@attribute {_arff_value(ds.target)} "
                 "{" + ",".join(_arff_value(v) for v in levels[ds.target]) + "}")
    lines.append("@data")
    cols = [X[c].to_numpy(dtype=object) for c in X.columns] + [np.asarray(y, dtype=object)]
    for i in range(len(X)):
        lines.append(",".join(_arff_value(c[i]) for c in cols))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


_J48_LEAF_WEIGHT = re.compile(r":\s*\S+\s*\((\d+(?:\.\d+)?)(?:/\d+(?:\.\d+)?)?\)\s*$")


def _parse_j48(text):
    """(accuracy on the test file, leaves, build seconds, total training weight in the
    leaves) from J48's report."""
    leaves = int(re.search(r"Number of Leaves\s*:\s*(\d+)", text).group(1))
    secs = float(re.search(r"Time taken to build model:\s*([\d.]+)", text).group(1))
    test = text[text.index("=== Error on test data ==="):]
    correct = int(re.search(r"Correctly Classified Instances\s+(\d+)", test).group(1))
    total = int(re.search(r"Total Number of Instances\s+(\d+)", test).group(1))
    tree_text = text[:text.index("Number of Leaves")]
    weight = sum(float(m.group(1)) for line in tree_text.splitlines()
                 if (m := _J48_LEAF_WEIGHT.search(line)))
    return correct / total, leaves, secs, weight


def run_j48(ds, X, y, splits, n_splits, work, jar):
    """Weka's J48 on the given folds; a list of result rows."""
    levels = {c: sorted(X[c].dropna().unique()) for c in X.columns
              if ds.kind == "categorical"}
    levels[ds.target] = sorted(pd.unique(y))
    rows = []
    for i, (train, test) in enumerate(splits):
        tr_path, te_path = work / f"{ds.name}.j48.train.arff", work / f"{ds.name}.j48.test.arff"
        write_arff(tr_path, ds, X.iloc[train], y[train], levels)
        write_arff(te_path, ds, X.iloc[test], y[test], levels)
        for label, options in J48_SETTINGS.items():
            out = subprocess.run(["java", "-Xmx2g", "-cp", str(jar),
                                  "weka.classifiers.trees.J48", *options,
                                  "-t", str(tr_path), "-T", str(te_path)],
                                 capture_output=True, text=True, timeout=600)
            if out.returncode != 0:
                raise RuntimeError(f"J48 failed: {out.stderr.strip()[:500]}")
            acc, leaves, secs, weight = _parse_j48(out.stdout)
            rows.append(dict(dataset=ds.name, learner=label, missing="fractional (C4.5)",
                             repeat=i // n_splits, fold=i % n_splits + 1, accuracy=acc,
                             n_leaves=leaves, fit_seconds=secs, n_train=len(train),
                             n_fit=int(round(weight))))
    return rows


# ----------------------------------------------------------------------- Python side
def python_learners():
    """(label, missing-value handling, estimator, kind) of the Python learners."""
    learners = []
    c45 = C45Classifier()
    pruning = c45.get_params().get("pruning")
    c45_label = "quercus C45Classifier()"
    if pruning is not None:
        c45_label += f" [pruning={pruning!r}]"
    learners.append((c45_label, "fractional (C4.5)", c45))
    if pruning is not None:
        learners.append(("quercus C45Classifier(pruning=None)", "fractional (C4.5)",
                         C45Classifier(pruning=None)))
    learners += [
        ("quercus ID3Classifier()", "fractional (C4.5)", ID3Classifier()),
        ("quercus CARTClassifier()", "surrogate (rpart)", CARTClassifier()),
        ("quercus CARTClassifier(min_samples_split=20, min_samples_leaf=7)",
         "surrogate (rpart)", CARTClassifier(min_samples_split=20, min_samples_leaf=7)),
        ("quercus DecisionTreeClassifier()", "learned (scikit-learn)",
         DecisionTreeClassifier()),
    ]
    # Every midpoint a candidate, as in the peers (quercus bins an attribute with more than
    # 255 distinct values by default).
    exact = {"max_bins": None} if "max_bins" in c45.get_params() else {}
    return [(label, how, est.set_params(**exact)) for label, how, est in learners]


def sklearn_learner(ds):
    tree = SkDecisionTreeClassifier(random_state=0)
    if ds.kind == "categorical":
        # Ordinal codes (categories sorted), NaN kept as NaN; a category unseen in the
        # training folds is coded NaN too, i.e. treated as missing.
        enc = OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=np.nan)
        est = make_pipeline(enc, tree)
        how = "learned (scikit-learn), ordinal codes"
    else:
        est = tree
        how = "learned (scikit-learn)"
    return (f"scikit-learn {sklearn.__version__} DecisionTreeClassifier(random_state=0)",
            how, est)


def _tree_of(est):
    return est[-1] if hasattr(est, "steps") else est


def evaluate(ds, label, how, est, X, y, splits, n_splits):
    """Fit and score ``est`` on every split; a list of per-fold result rows."""
    # Untimed warm-up: numba loads (or compiles) the kernels on the first fit of a process.
    clone(est).fit(X.iloc[splits[0][0]], y[splits[0][0]])
    rows = []
    for i, (train, test) in enumerate(splits):
        model = clone(est)
        t0 = time.perf_counter()
        model.fit(X.iloc[train], y[train])
        secs = time.perf_counter() - t0
        pred = np.asarray(model.predict(X.iloc[test]), dtype=object)
        if pred.shape != (len(test),) or pd.isna(pred).any():
            raise AssertionError(f"{label} left test rows unpredicted on {ds.name}")
        tree = _tree_of(model)
        rows.append(dict(dataset=ds.name, learner=label, missing=how,
                         repeat=i // n_splits, fold=i % n_splits + 1,
                         accuracy=float(np.mean(pred == y[test])),
                         n_leaves=int(tree.get_n_leaves()), fit_seconds=secs,
                         n_train=len(train), n_fit=int(tree.tree_.n_node_samples[0])))
    return rows


# --------------------------------------------------------------------------- report
def describe_data(ds, X, y):
    miss = X.isna()
    return dict(dataset=ds.name, rows=len(X), attributes=f"{X.shape[1]} {ds.kind}",
                classes=len(pd.unique(y)),
                missing_cells=f"{int(miss.to_numpy().sum())} "
                              f"({100 * miss.to_numpy().mean():.1f}%)",
                rows_with_missing=f"{int(miss.any(axis=1).sum())} "
                                  f"({100 * miss.any(axis=1).mean():.0f}%)",
                about=ds.about)


def summarise(folds):
    out = []
    order = {k: i for i, k in enumerate(dict.fromkeys(folds["learner"]))}
    for (dataset, learner, how), g in folds.groupby(["dataset", "learner", "missing"],
                                                    sort=False):
        out.append(dict(dataset=dataset, learner=learner, missing=how,
                        acc_mean=100 * g["accuracy"].mean(),
                        acc_std=100 * g["accuracy"].std(ddof=1),
                        leaves=g["n_leaves"].mean(), fit_ms=1000 * g["fit_seconds"].mean(),
                        dropped=int((g["n_train"] - g["n_fit"]).sum()),
                        n_folds=len(g), order=order[learner]))
    return pd.DataFrame(out)


def markdown_table(header, rows):
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---:" if h.endswith(("%", "leaves", "ms", "dropped", "rows",
                                                   "classes")) else "---"
                            for h in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def results_table(summary):
    rows = []
    for r in summary.itertuples(index=False):
        rows.append([r.dataset, r.learner, r.missing, f"{r.acc_mean:.1f} ± {r.acc_std:.1f}",
                     f"{r.leaves:.1f}", f"{r.fit_ms:.1f}", r.dropped])
    return markdown_table(["Data set", "Learner", "Missing values", "Accuracy %",
                           "Mean leaves", "Fit ms", "Rows dropped"], rows)


def data_table(descriptions):
    return markdown_table(
        ["Data set", "rows", "Attributes", "classes", "Missing cells", "Rows with a missing "
         "value", "About"],
        [[d["dataset"], d["rows"], d["attributes"], d["classes"], d["missing_cells"],
          d["rows_with_missing"], d["about"]] for d in descriptions])


def machine_description(r_version, rpart_version, weka=None):
    cpu = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split("MemTotal:")[1].split()[0])
        mem = f", {kb / 2**20:.0f} GiB memory"
    except (OSError, IndexError, ValueError):
        pass
    try:
        source = Path(quercus.__file__).resolve().parent.parent  # the quercus imported
        commit = subprocess.run(["git", "-C", str(source), "describe", "--always", "--dirty"],
                                capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    import numba
    parts = [f"{os.cpu_count()} cores ({cpu}){mem}, {platform.system()} "
             f"{platform.release()}",
             f"Python {platform.python_version()}, quercus {quercus.__version__}"
             + (f" (git {commit})" if commit else "")
             + f", numba {numba.__version__}, numpy {np.__version__}, pandas {pd.__version__}, "
             f"scikit-learn {sklearn.__version__}"]
    if r_version:
        parts.append(f"R {r_version}" + (f", rpart {rpart_version}" if rpart_version else ""))
    if weka:
        java = ""
        try:
            out = subprocess.run(["java", "-version"], capture_output=True, text=True,
                                 timeout=60)
            java = f" on {out.stderr.splitlines()[0]}" if out.stderr else ""
        except (OSError, subprocess.SubprocessError):
            pass
        parts.append(f"Weka {weka}{java}")
    return "; ".join(parts)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=1,
                        help="repetitions of the stratified 10-fold split (default 1)")
    parser.add_argument("--datasets", nargs="*", default=[d.name for d in DATASETS],
                        help="data sets to run (default: all)")
    parser.add_argument("--no-write", action="store_true",
                        help="print the table only; do not write benchmarks/results/")
    args = parser.parse_args(argv)
    chosen = [d for d in DATASETS if d.name in args.datasets]
    unknown = set(args.datasets) - {d.name for d in DATASETS}
    if unknown:
        parser.error(f"unknown data sets {sorted(unknown)}; "
                     f"choose from {[d.name for d in DATASETS]}")

    has_r, has_mlbench, has_rpart, r_version, rpart_version = r_status()
    if not has_r:
        print("R (Rscript) is not installed: skipping every data set, since the data come "
              "from R's mlbench. Install it with: bash benchmarks/setup_peers.sh")
        return 0
    if not has_mlbench:
        print("R's mlbench package is not installed: skipping every data set. Install it "
              "with: bash benchmarks/setup_peers.sh")
        return 0
    if not has_rpart:
        print("R's rpart package is not installed: the rpart rows are skipped.")
    jar = weka_jar()
    weka = weka_version(jar) if jar is not None else None
    if jar is None:
        print("Weka (weka.jar and java) not found: the J48 rows are skipped.")
    available = export_data([d.name for d in chosen], CACHE)
    for d in chosen:
        if d.name not in available:
            print(f"{d.name}: not exported from mlbench, skipped.")
    chosen = [d for d in chosen if d.name in available]
    if not chosen:
        print("No data set to run.")
        return 0

    all_rows, descriptions, errors = [], [], []
    with tempfile.TemporaryDirectory(prefix="quercus-missing-") as tmp:
        work = Path(tmp)
        for ds in chosen:
            X, y = load(ds, CACHE)
            descriptions.append(describe_data(ds, X, y))
            print(f"{ds.name}: {len(X)} rows, {X.shape[1]} attributes, "
                  f"{int(X.isna().to_numpy().sum())} missing cells", flush=True)
            cv = RepeatedStratifiedKFold(n_splits=N_SPLITS, n_repeats=args.repeats,
                                         random_state=SEED)
            with warnings.catch_warnings():
                # Soybean has a class with 8 rows (< 10 folds): scikit-learn warns.
                warnings.filterwarnings("ignore", message="The least populated class")
                splits = list(cv.split(X, y))
            fold_ids = pd.DataFrame({f"r{r}": np.zeros(len(X), dtype=np.int64)
                                     for r in range(args.repeats)})
            for i, (_, test) in enumerate(splits):
                fold_ids.iloc[test, i // N_SPLITS] = i % N_SPLITS + 1
            learners = python_learners() + [sklearn_learner(ds)]
            for label, how, est in learners:
                try:
                    all_rows += evaluate(ds, label, how, est, X, y, splits, N_SPLITS)
                except Exception as exc:  # report, keep going with the other learners
                    errors.append(f"{ds.name}, {label}: {type(exc).__name__}: {exc}")
                    print(f"  ERROR {label}: {type(exc).__name__}: {exc}", file=sys.stderr)
                    traceback.print_exc()
                print(f"  {label}: done", flush=True)
            if has_rpart:
                all_rows += run_rpart(ds, CACHE, X, fold_ids, work)
                print("  rpart: done", flush=True)
            else:
                print("  rpart: skipped (not installed)")
            if jar is not None:
                try:
                    all_rows += run_j48(ds, X, y, splits, N_SPLITS, work, jar)
                    print("  Weka J48: done", flush=True)
                except (OSError, subprocess.SubprocessError, RuntimeError, ValueError,
                        AttributeError) as exc:
                    print(f"  Weka J48 skipped: {type(exc).__name__}: {exc}")
            else:
                print("  Weka J48: skipped (java or weka.jar not found)")

    folds = pd.DataFrame(all_rows)
    summary = summarise(folds)
    summary["ds_order"] = summary["dataset"].map({d.name: i for i, d in enumerate(chosen)})
    summary = summary.sort_values(["ds_order", "order"], kind="stable")
    table = results_table(summary)
    print()
    print(table)
    if errors:
        print("\nErrors:\n" + "\n".join(f"- {e}" for e in errors))

    if args.no_write:
        return 0
    cmd = "python -m benchmarks.missing_values" + (f" --repeats {args.repeats}"
                                                    if args.repeats != 1 else "")
    if args.datasets != [d.name for d in DATASETS]:
        cmd += " --datasets " + " ".join(args.datasets)
    text = [
        "# Missing values: quercus's strategies, scikit-learn, rpart and J48",
        "",
        f"Generated by `{cmd}` on {datetime.date.today().isoformat()}. "
        "Do not edit by hand; see [docs/missing_values.md](../../docs/missing_values.md).",
        "",
        f"Machine: {machine_description(r_version, rpart_version, weka)}.",
        "",
        f"Stratified {N_SPLITS}-fold cross-validation, `random_state={SEED}`"
        + (f", repeated {args.repeats} times" if args.repeats > 1 else "")
        + "; the same folds for every learner (rpart reads them from a CSV, J48 from ARFF "
        "files). Accuracy: mean ± sample standard deviation over the folds. Mean leaves and "
        "fit time are averaged over the folds; the time is the `fit` call only, after one "
        "untimed warm-up fit (R: the `rpart()` call, with its internal 10-fold "
        "cross-validation of the cp table; J48: Weka's build time, at 10 ms resolution, in a "
        "fresh JVM). Rows dropped: training rows, summed over the folds, that the learner left "
        "out of its tree (the root's sample count, or J48's total leaf weight, below the "
        "training-fold size). No row is removed from the data.",
        "",
        "## Data",
        "",
        data_table(descriptions),
        "",
        "## Results",
        "",
        table,
        "",
    ]
    if not has_rpart:
        text += ["rpart was not installed: its rows are missing.", ""]
    if jar is None:
        text += ["Weka was not installed: the J48 rows are missing.", ""]
    if errors:
        text += ["## Errors", "", *[f"- {e}" for e in errors], ""]
    RESULTS_MD.parent.mkdir(parents=True, exist_ok=True)
    RESULTS_MD.write_text("\n".join(text), encoding="utf-8")
    folds.to_csv(RESULTS_FOLDS, index=False, float_format="%.6g")
    print(f"\nWritten {RESULTS_MD.relative_to(REPO)} and {RESULTS_FOLDS.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
