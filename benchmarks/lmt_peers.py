"""quercus.LogisticModelTree against Weka's LMT, on the same 10 folds.

Run from the repository root::

    python -m benchmarks.lmt_peers              # every data set, writes results/lmt.md
    python -m benchmarks.lmt_peers --quick      # iris, wine, HouseVotes84 only
    python -m benchmarks.lmt_peers --no-write   # print only

``LogisticModelTree()`` (its defaults are LMT's: ``-M 15``, the fast iteration heuristic,
C4.5 splits, 5-fold cost-complexity pruning) against ``weka.classifiers.trees.LMT`` with
its defaults, on stratified 10-fold cross-validation (``random_state=0``) of scikit-learn's
iris, wine and breast cancer (wdbc), and mlbench's PimaIndiansDiabetes, Glass, Sonar,
Vehicle, HouseVotes84 (categorical, missing values) and BreastCancer (missing values),
exported at run time with Rscript (``benchmarks/mlbench_csv.R``,
``benchmarks/mlbench_export.R``). Every fold is written as a train and a test ARFF file;
Weka runs all of a data set's folds in one JVM through ``benchmarks/LMTFolds.java``
(compiled at run time with ``javac``). quercus gets the same training rows in the same
order, so its inner cross-validations (Weka's fold assignment, ``random_state=None``) see
the same folds as Weka's. Fit times: the median of ``--reps`` fits per fold, after an
untimed warm-up on both sides.

Everything exported goes to ``benchmarks/data-cache/lmt/`` (gitignored). Without R,
mlbench, java or Weka the script says what it skips (``bash benchmarks/setup_peers.sh``
installs them on Debian).
"""

import argparse
import datetime
import shutil
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.base import clone

from benchmarks.missing_values import (export_data, machine_description, r_status, _run_r,
                                       weka_jar, weka_version)
from benchmarks.pruning_peers import (MLBENCH_CACHE, describe, folds_of, load_mlbench,
                                      load_sklearn, markdown_table, write_arff)
from quercus import LogisticModelTree

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CACHE = HERE / "data-cache" / "lmt"
RESULTS_MD = HERE / "results" / "lmt.md"
HARNESS = HERE / "LMTFolds.java"
CSV_R = HERE / "mlbench_csv.R"
WEKA_OPTIONS = ""  # LMT's defaults: -M 15, fast regression heuristic, C4.5 splits

# (name, target, categorical attributes?, exporter, about)
MLBENCH = [
    ("PimaIndiansDiabetes", "diabetes", False, "csv",
     "Pima Indians diabetes: 8 numeric attributes, 2 classes"),
    ("Glass", "Type", False, "csv", "glass identification: 9 numeric attributes, 6 classes"),
    ("Sonar", "Class", False, "csv", "sonar returns: 60 numeric attributes, 2 classes"),
    ("Vehicle", "Class", False, "csv",
     "vehicle silhouettes: 18 numeric attributes, 4 classes"),
    ("HouseVotes84", "Class", True, "export",
     "1984 US House votes: 16 y/n attributes, missing values, 2 classes"),
    ("BreastCancer", "Class", False, "export",
     "Wisconsin breast cancer: 9 scores 1-10, Bare.nuclei missing in 16 rows, 2 classes"),
]
QUICK = {"iris", "wine", "HouseVotes84"}


def export_csv(names, out_dir):
    out_dir.mkdir(parents=True, exist_ok=True)
    try:
        out = _run_r([CSV_R, out_dir, *names])
    except (OSError, subprocess.SubprocessError) as exc:
        print(f"Exporting mlbench data failed ({exc}).")
        return []
    if out.returncode != 0:
        print(f"Exporting mlbench data failed: {out.stderr.strip()[:300]}")
    return [n for n in names if (out_dir / f"{n}.csv").exists()]


def compile_harness(jar):
    out = CACHE / "java"
    cls = out / "LMTFolds.class"
    if cls.exists() and cls.stat().st_mtime >= HARNESS.stat().st_mtime:
        return out
    if shutil.which("javac") is None:
        return None
    out.mkdir(parents=True, exist_ok=True)
    res = subprocess.run(["javac", "-nowarn", "-cp", str(jar), "-d", str(out), str(HARNESS)],
                         capture_output=True, text=True, timeout=300)
    if res.returncode != 0:
        print(f"  javac failed: {res.stderr.strip()[:300]}")
        return None
    return out


def run_weka(jar, classes_dir, files, reps, out_tsv):
    res = subprocess.run(["java", "-Xmx2g", "-cp", f"{jar}:{classes_dir}", "LMTFolds",
                          WEKA_OPTIONS, str(reps), str(out_tsv), *map(str, files)],
                         capture_output=True, text=True, timeout=7200)
    if res.returncode != 0:
        raise RuntimeError(f"LMTFolds failed: {res.stderr.strip()[:500]}")
    rows = []
    for line in out_tsv.read_text().splitlines():
        f, correct, n_test, leaves, size, med, _, pred, _ = line.split("\t")
        rows.append(dict(fold=int(f), accuracy=int(correct) / int(n_test), leaves=int(leaves),
                         size=int(size), fit_seconds=float(med),
                         pred=np.array([int(p) for p in pred.split(",")])))
    return rows


def run_quercus(d, splits, reps):
    est = LogisticModelTree()
    clone(est).fit(d.X.iloc[splits[0][0]], d.y[splits[0][0]])  # untimed warm-up
    rows = []
    for k, (train, test) in enumerate(splits):
        secs = []
        for _ in range(reps):
            model = clone(est)
            t0 = time.perf_counter()
            model.fit(d.X.iloc[train], d.y[train])
            secs.append(time.perf_counter() - t0)
        pred = np.asarray(model.predict(d.X.iloc[test]), dtype=str)
        rows.append(dict(fold=k + 1, accuracy=float(np.mean(pred == d.y[test])),
                         leaves=model.n_leaves_, size=model.node_count_,
                         fit_seconds=float(np.median(secs)), pred=pred))
    return rows


def datasets(has_mlbench, quick):
    sets = [("iris", lambda: load_sklearn("iris")), ("wine", lambda: load_sklearn("wine")),
            ("wdbc", lambda: load_sklearn("wdbc"))]
    if has_mlbench:
        csv = [m[0] for m in MLBENCH if m[3] == "csv" and (not quick or m[0] in QUICK)]
        prep = [m[0] for m in MLBENCH if m[3] == "export" and (not quick or m[0] in QUICK)]
        got = set(export_csv(csv, MLBENCH_CACHE)) if csv else set()
        got |= set(export_data(prep, MLBENCH_CACHE)) if prep else set()
        for name, target, categorical, _, about in MLBENCH:
            if name in got:
                sets.append((name, lambda a=(name, target, categorical, about):
                             load_mlbench(*a)))
    else:
        print("R's mlbench is not available: only scikit-learn's data sets are used.")
    return [(n, f) for n, f in sets if not quick or n in QUICK]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=1,
                        help="timed fits per fold (median; default 1)")
    parser.add_argument("--quick", action="store_true", help="three small data sets")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    _, has_mlbench, _, r_version, _ = r_status()
    jar = weka_jar()
    if jar is None:
        print("Weka (java and weka.jar, or $WEKA_JAR) not found: nothing to compare against. "
              "Install it with: bash benchmarks/setup_peers.sh")
        return 0
    weka = weka_version(jar)
    classes_dir = compile_harness(jar)
    if classes_dir is None:
        print("javac is needed to run benchmarks/LMTFolds.java: skipped.")
        return 0
    work = CACHE / "folds"
    work.mkdir(parents=True, exist_ok=True)
    described, rows, summary = [], [], []
    for name, make in datasets(has_mlbench, args.quick):
        d = make()
        described.append(describe(d))
        splits = folds_of(d.y)
        files = []
        for k, (train, test) in enumerate(splits):
            tr, te = work / f"{name}.{k + 1}.train.arff", work / f"{name}.{k + 1}.test.arff"
            write_arff(tr, d, train)
            write_arff(te, d, test)
            files += [tr, te]
        print(f"{d.name}: {len(d.X)} rows", flush=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            q = run_quercus(d, splits, args.reps)
        w = run_weka(jar, classes_dir, files, args.reps, work / f"{name}.out.tsv")
        hits = sum(int(np.sum(np.asarray(d.classes)[wr["pred"]] == qr["pred"]))
                   for wr, qr in zip(w, q))
        same = 100 * hits / len(d.y)
        qf, wf = pd.DataFrame(q), pd.DataFrame(w)
        for who, f in (("quercus LogisticModelTree()", qf), ("Weka LMT (defaults)", wf)):
            rows.append([d.name, who,
                         f"{100 * f['accuracy'].mean():.2f} ± "
                         f"{100 * f['accuracy'].std(ddof=1):.1f}",
                         f"{f['leaves'].mean():.1f}", f"{f['size'].mean():.1f}",
                         f"{1000 * f['fit_seconds'].mean():.0f}",
                         f"{same:.1f}" if who.startswith("Weka") else ""])
        same_trees = int(sum(a == b for a, b in zip(qf["size"], wf["size"])))
        summary.append(dict(name=d.name, q=100 * qf["accuracy"].mean(),
                            w=100 * wf["accuracy"].mean(), same=same,
                            same_size=same_trees, tq=qf["fit_seconds"].mean(),
                            tw=wf["fit_seconds"].mean()))
        print(f"  quercus {100 * qf['accuracy'].mean():.2f}% ({qf['size'].mean():.1f} nodes, "
              f"{1000 * qf['fit_seconds'].mean():.0f} ms), Weka "
              f"{100 * wf['accuracy'].mean():.2f}% ({wf['size'].mean():.1f} nodes, "
              f"{1000 * wf['fit_seconds'].mean():.0f} ms), same prediction {same:.1f}%",
              flush=True)
    s = pd.DataFrame(summary)
    table = markdown_table(["Data set", "Learner", "Accuracy %", "Leaves", "Tree size",
                            "Fit ms", "Same prediction as quercus %"], rows)
    overview = markdown_table(
        ["Data set", "Accuracy quercus %", "Accuracy Weka %", "difference (points)",
         "folds with the same tree size", "same prediction %", "fit time quercus / Weka"],
        [[r.name, f"{r.q:.2f}", f"{r.w:.2f}", f"{r.q - r.w:+.2f}", f"{r.same_size} / 10",
          f"{r.same:.1f}", f"{r.tq / r.tw:.1f}"] for r in s.itertuples()]
        + [["**mean**", f"{s.q.mean():.2f}", f"{s.w.mean():.2f}",
            f"{s.q.mean() - s.w.mean():+.2f}", "", f"{s.same.mean():.1f}", ""]])
    print("\n" + overview)
    if args.no_write:
        return 0
    text = [
        "# LogisticModelTree against Weka's LMT", "",
        f"Generated by `python -m benchmarks.lmt_peers{' --quick' if args.quick else ''}` on "
        f"{datetime.date.today().isoformat()}. Do not edit by hand; the guide is "
        "[docs/logistic.md](../../docs/logistic.md) (\"Logistic model trees\").", "",
        f"Machine: {machine_description(r_version, None, weka)}.", "",
        "Stratified 10-fold cross-validation (`random_state=0`), the same folds for both: "
        "Weka reads each fold as a train and a test ARFF file (every nominal attribute "
        "declared with the levels of the whole data set, as the pandas Categorical quercus "
        "gets), quercus fits the same training rows in the same order. quercus: "
        "`LogisticModelTree()`; Weka: `weka.classifiers.trees.LMT` with its defaults (`-M 15`, "
        "the fast heuristic for the number of LogitBoost iterations, C4.5 splits, 5-fold "
        "cost-complexity pruning). Accuracy: mean ± sample standard deviation over the folds; "
        "leaves and tree size (all nodes): means over the folds; fit time: mean over the "
        f"folds of the median of {args.reps} fit(s), after an untimed warm-up on both sides "
        "(Weka: `benchmarks/LMTFolds.java`, one JVM per data set). Same prediction: test rows "
        "where Weka predicts what quercus predicts.", "",
        "## Summary", "", overview, "",
        "## Data", "",
        markdown_table(["Data set", "From", "rows", "categorical / numeric", "classes",
                        "missing cells", "rows with a missing value", "About"], described),
        "", "## Results", "", table, ""]
    RESULTS_MD.parent.mkdir(parents=True, exist_ok=True)
    RESULTS_MD.write_text("\n".join(text), encoding="utf-8")
    print(f"\nWritten {RESULTS_MD.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
