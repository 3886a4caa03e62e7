"""Pruning against its reference implementations: C4.5 vs Weka's J48, cost-complexity vs rpart.

Run from the repository root::

    python -m benchmarks.pruning_peers                  # both parts
    python -m benchmarks.pruning_peers --part j48       # C4.5 vs J48 only
    python -m benchmarks.pruning_peers --part rpart     # cost-complexity vs rpart only
    python -m benchmarks.pruning_peers --no-write       # print, do not write results/

Part 1, **C4.5 vs J48**: ``quercus.C45Classifier()`` (gain ratio, multiway categorical
splits, fractional missing values, pessimistic pruning at CF = 0.25 with subtree raising)
against ``weka.classifiers.trees.J48 -C 0.25 -M 2`` (J48's defaults), then two more pairs
that change one rule on both sides (minimum cases 1: ``min_objects=1`` / ``-M 1``; no
subtree raising: ``subtree_raising=False`` / ``-S``), on the same stratified 10 folds
(``random_state=0``) of data sets with categorical attributes, numeric attributes and
missing values: mlbench's Soybean,
HouseVotes84 and BreastCancer (exported at run time by ``benchmarks/mlbench_export.R``),
Weka's own breast-cancer, labor and credit-g ARFF files (Debian's ``weka`` ships them), and
scikit-learn's iris and breast cancer (wdbc). Every fold is written as a train and a test
ARFF file; J48 runs in one JVM per data set through ``benchmarks/J48Folds.java`` (compiled at
run time with ``javac``; without it, ``J48 -t train.arff -T test.arff`` is run per fold and
its printed build time used). Both sides are timed after an untimed warm-up, as the median
of ``--reps`` builds per fold.

Part 2, **cost-complexity vs rpart**: ``CARTClassifier(pruning="cost_complexity",
ccp_loss="error", cv=<folds>, max_surrogate=0, cp=0)`` against
``rpart(method="class", control=rpart.control(cp=0, minsplit=2, minbucket=1, xval=<fold ids>,
maxsurrogate=0, usesurrogate=0))`` (``benchmarks/rpart_cptable.R``) with the same fold
assignment, on numeric data without missing values (iris, wine, wdbc, mlbench BreastCancer's
complete cases). The two complexity tables are compared row by row, and two checks explain
the differences: rpart's own cp rule applied to quercus's tree, and rpart's cross-validation
replayed on quercus's fold trees (see ``docs/pruning_peers.md``). Then both are timed on
``make_classification`` (``--timing-rows`` x 20, default 20,000) with 10-fold CV.

Everything exported (CSV, ARFF, the compiled harness) goes to ``benchmarks/data-cache/``
(gitignored). The tables are printed and written to ``benchmarks/results/pruning_peers.md``.
Without R, mlbench, rpart, java or Weka the script says what it skips and exits normally
(``bash benchmarks/setup_peers.sh`` installs them on Debian).
"""

import argparse
import datetime
import shutil
import subprocess
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_iris, load_wine, make_classification
from sklearn.model_selection import StratifiedKFold

import quercus
from quercus import C45Classifier, CARTClassifier

# The R and Weka plumbing of the missing-value benchmark, reused as is.
from benchmarks.missing_values import (export_data, machine_description, r_status, _run_r,
                                       weka_jar, weka_version)

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CACHE = HERE / "data-cache" / "pruning_peers"
MLBENCH_CACHE = HERE / "data-cache"
RESULTS_MD = HERE / "results" / "pruning_peers.md"
HARNESS = HERE / "J48Folds.java"
RPART_R = HERE / "rpart_cptable.R"
WEKA_ARFF_DIR = Path("/usr/share/doc/weka/examples")
N_SPLITS = 10
SEED = 0
J48_SETTINGS = {"Weka J48 -C 0.25 -M 2 (defaults)": "-C 0.25 -M 2"}
QUERCUS_C45 = "quercus C45Classifier()"
# Every midpoint a candidate, as in J48 and rpart (quercus bins an attribute with more
# than 255 distinct values by default).
EXACT = {"max_bins": None} if "max_bins" in C45Classifier().get_params() else {}


# ------------------------------------------------------------------------------ data
@dataclass
class Data:
    name: str
    source: str
    X: pd.DataFrame            # categorical columns as pd.Categorical, numeric as float
    y: np.ndarray              # labels as str
    classes: list              # declared class levels (ARFF order)
    about: str
    levels: dict = field(default_factory=dict)   # categorical column -> declared levels


def _frame(columns, levels):
    X = pd.DataFrame({c: (pd.Categorical(v, categories=levels[c]) if c in levels
                          else np.asarray(v, dtype=np.float64)) for c, v in columns.items()})
    return X


def load_mlbench(name, target, categorical, about):
    path = MLBENCH_CACHE / f"{name}.csv"
    frame = pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[""])
    features = [c for c in frame.columns if c != target]
    levels = ({c: sorted(frame[c].dropna().unique()) for c in features} if categorical
              else {})
    X = _frame({c: frame[c].to_numpy(dtype=object) if categorical
                else frame[c].astype(float).to_numpy() for c in features}, levels)
    y = frame[target].to_numpy(dtype=str)
    return Data(name, "R mlbench", X, y, sorted(np.unique(y)), about, levels)


def load_weka_arff(stem, about):
    from scipy.io import arff
    raw, meta = arff.loadarff(WEKA_ARFF_DIR / f"{stem}.arff")
    names = meta.names()
    target = names[-1]
    levels, columns = {}, {}
    for c in names[:-1]:
        kind, values = meta[c]
        if kind == "nominal":
            v = np.array([s.decode() if isinstance(s, bytes) else s for s in raw[c]],
                         dtype=object)
            v[v == "?"] = np.nan
            levels[c] = list(values)
            columns[c] = v
        else:
            columns[c] = raw[c].astype(np.float64)
    y = np.array([s.decode() if isinstance(s, bytes) else s for s in raw[target]])
    if (y == "?").any():
        raise ValueError(f"{stem}: missing labels")
    return Data(f"{stem} (Weka)", "Weka's ARFF", _frame(columns, levels), y.astype(str),
                list(meta[target][1]), about, levels)


def load_sklearn(which):
    if which == "iris":
        b = load_iris()
        about = "Fisher's iris: 4 numeric measurements, 3 species"
        name = "iris"
    elif which == "wine":
        b = load_wine()
        about = "wine recognition: 13 numeric chemical measurements, 3 cultivars"
        name = "wine"
    else:
        b = load_breast_cancer()
        about = "Wisconsin diagnostic breast cancer (wdbc): 30 numeric features, 2 classes"
        name = "wdbc"
    X = pd.DataFrame(b.data, columns=[str(c) for c in b.feature_names])
    y = np.asarray(b.target_names)[b.target].astype(str)
    return Data(name, "scikit-learn", X, y, sorted(np.unique(y)), about)


MLBENCH_J48 = [
    ("Soybean", "Class", True,
     "Michalski's soybean diseases: 35 categorical attributes, 19 classes, missing values"),
    ("HouseVotes84", "Class", True,
     "1984 US House votes: 16 y/n attributes, missing when no yea or nay, party"),
    ("BreastCancer", "Class", False,
     "Wisconsin breast cancer (Wolberg): 9 cytology scores 1-10, Bare.nuclei missing in 16 "
     "rows"),
]
WEKA_J48 = [
    ("breast-cancer", "Ljubljana breast cancer recurrence: 9 categorical attributes, 2 "
                      "classes, missing values"),
    ("labor", "labor negotiations: 8 numeric and 8 categorical attributes, 57 rows, many "
              "missing values"),
    ("credit-g", "German credit: 7 numeric and 13 categorical attributes, 1000 rows"),
]


def describe(d):
    n_cat = sum(c in d.levels for c in d.X.columns)
    miss = d.X.isna().to_numpy()
    return [d.name, d.source, len(d.X), f"{n_cat} / {d.X.shape[1] - n_cat}", len(d.classes),
            f"{100 * miss.mean():.1f}%", f"{100 * miss.any(axis=1).mean():.0f}%", d.about]


def folds_of(y):
    cv = StratifiedKFold(N_SPLITS, shuffle=True, random_state=SEED)
    with warnings.catch_warnings():
        # Soybean's and labor's smallest classes have fewer than 10 rows.
        warnings.filterwarnings("ignore", message="The least populated class")
        return list(cv.split(np.zeros(len(y)), y))


# ----------------------------------------------------------------------- ARFF writing
def _arff_str(v):
    return "'" + str(v).replace("\\", "\\\\").replace("'", "\\'") + "'"


def write_arff(path, d, rows):
    """ARFF of ``rows`` of ``d``: every nominal attribute (and the class) declared with the
    levels of the whole data set, missing values as '?', numbers at full precision."""
    lines = [f"@relation {_arff_str(d.name)}"]
    cols = []
    for c in d.X.columns:
        if c in d.levels:
            lines.append(f"@attribute {_arff_str(c)} "
                         "{" + ",".join(_arff_str(v) for v in d.levels[c]) + "}")
            v = d.X[c].to_numpy(dtype=object)[rows]
            cols.append(["?" if pd.isna(s) else _arff_str(s) for s in v])
        else:
            lines.append(f"@attribute {_arff_str(c)} numeric")
            v = d.X[c].to_numpy(dtype=np.float64)[rows]
            cols.append(["?" if np.isnan(s) else repr(float(s)) for s in v])
    target = "class" if "class" not in d.X.columns else "class_"
    lines.append(f"@attribute {target} " + "{" + ",".join(_arff_str(v) for v in d.classes)
                 + "}")
    cols.append([_arff_str(s) for s in d.y[rows]])
    lines.append("@data")
    lines += [",".join(row) for row in zip(*cols)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


# ------------------------------------------------------------------------ J48 runner
def compile_harness(jar):
    """Compile J48Folds.java into the cache; the class directory, or None without javac."""
    out = CACHE / "java"
    cls = out / "J48Folds.class"
    if cls.exists() and cls.stat().st_mtime >= HARNESS.stat().st_mtime:
        return out
    if shutil.which("javac") is None:
        return None
    out.mkdir(parents=True, exist_ok=True)
    res = subprocess.run(["javac", "-nowarn", "-cp", str(jar), "-d", str(out), str(HARNESS)],
                         capture_output=True, text=True, timeout=300)
    if res.returncode != 0:
        print(f"  javac failed ({res.stderr.strip()[:300]}); timing J48 from its own report.")
        return None
    return out


def run_j48_harness(jar, classes_dir, options, files, reps, out_tsv):
    cp = f"{jar}:{classes_dir}"
    res = subprocess.run(["java", "-Xmx2g", "-cp", cp, "J48Folds", options, str(reps),
                          str(out_tsv), *map(str, files)],
                         capture_output=True, text=True, timeout=3600)
    if res.returncode != 0:
        raise RuntimeError(f"J48Folds failed: {res.stderr.strip()[:500]}")
    rows = []
    for line in out_tsv.read_text().splitlines():
        f, correct, n_test, leaves, size, med, mn, pred = line.split("\t")
        rows.append(dict(fold=int(f), accuracy=int(correct) / int(n_test),
                         leaves=int(leaves), size=int(size), fit_seconds=float(med),
                         pred=np.array([int(p) for p in pred.split(",")])))
    return rows


def run_j48_cli(jar, options, files):
    """Fallback without javac: one JVM per fold, J48's printed build time (10 ms steps)."""
    import re
    rows = []
    for i in range(0, len(files), 2):
        res = subprocess.run(["java", "-Xmx2g", "-cp", str(jar), "weka.classifiers.trees.J48",
                              *options.split(), "-t", str(files[i]), "-T", str(files[i + 1])],
                             capture_output=True, text=True, timeout=600)
        if res.returncode != 0:
            raise RuntimeError(f"J48 failed: {res.stderr.strip()[:500]}")
        text = res.stdout
        test = text[text.index("=== Error on test data ==="):]
        correct = int(re.search(r"Correctly Classified Instances\s+(\d+)", test).group(1))
        total = int(re.search(r"Total Number of Instances\s+(\d+)", test).group(1))
        rows.append(dict(
            fold=i // 2 + 1, accuracy=correct / total,
            leaves=int(re.search(r"Number of Leaves\s*:\s*(\d+)", text).group(1)),
            size=int(re.search(r"Size of the tree\s*:\s*(\d+)", text).group(1)),
            fit_seconds=float(re.search(r"Time taken to build model:\s*([\d.]+)",
                                        text).group(1)),
            pred=None))
    return rows


def run_quercus_c45(est, d, splits, reps):
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
                         leaves=model.get_n_leaves(), size=model.tree_.node_count,
                         fit_seconds=float(np.median(secs)), pred=pred))
    return rows


def pairings():
    """(label, quercus estimator, J48 options): the main pair first, then the pairs that
    isolate one rule each. quercus without ``min_objects`` (before J48's -M was added) is
    paired as it is."""
    has_m = "min_objects" in C45Classifier().get_params()
    m1 = C45Classifier(min_objects=1) if has_m else C45Classifier()
    pairs = [
        ("defaults: C45Classifier() / J48 -C 0.25 -M 2", C45Classifier(), "-C 0.25 -M 2"),
        ("minimum cases 1: C45Classifier(min_objects=1) / J48 -C 0.25 -M 1"
         if has_m else "C45Classifier() / J48 -C 0.25 -M 1", m1, "-C 0.25 -M 1"),
        ("no subtree raising: C45Classifier(subtree_raising=False) / J48 -C 0.25 -M 2 -S",
         C45Classifier(subtree_raising=False), "-C 0.25 -M 2 -S"),
    ]
    return [(label, est.set_params(**EXACT), options) for label, est, options in pairs]


def j48_part(jar, reps, has_mlbench):
    print("\n== Part 1: C45Classifier() vs Weka J48 ==")
    sets = []
    if has_mlbench:
        names = [m[0] for m in MLBENCH_J48]
        got = export_data(names, MLBENCH_CACHE)
        for name, target, categorical, about in MLBENCH_J48:
            if name in got:
                sets.append(lambda a=(name, target, categorical, about): load_mlbench(*a))
            else:
                print(f"{name}: not exported from mlbench, skipped.")
    else:
        print("R's mlbench is not available: Soybean, HouseVotes84 and BreastCancer skipped.")
    for stem, about in WEKA_J48:
        if (WEKA_ARFF_DIR / f"{stem}.arff").exists():
            sets.append(lambda a=(stem, about): load_weka_arff(*a))
        else:
            print(f"{stem}.arff not found in {WEKA_ARFF_DIR}: skipped.")
    sets += [lambda: load_sklearn("iris"), lambda: load_sklearn("wdbc")]

    classes_dir = compile_harness(jar)
    work = CACHE / "j48"
    work.mkdir(parents=True, exist_ok=True)
    described, main_rows, pair_rows = [], [], []
    for make in sets:
        d = make()
        described.append(describe(d))
        splits = folds_of(d.y)
        stem = d.name.split(" ")[0]
        files = []
        for k, (train, test) in enumerate(splits):
            tr, te = work / f"{stem}.{k + 1}.train.arff", work / f"{stem}.{k + 1}.test.arff"
            write_arff(tr, d, train)
            write_arff(te, d, test)
            files += [tr, te]
        print(f"{d.name}: {len(d.X)} rows", flush=True)
        for i, (label, est, options) in enumerate(pairings()):
            r = reps if i == 0 else 1  # only the main pair is timed
            q = run_quercus_c45(est, d, splits, r)
            if classes_dir is not None:
                j = run_j48_harness(jar, classes_dir, options, files, r,
                                    work / f"{stem}.out.tsv")
            else:
                j = run_j48_cli(jar, options, files)
            same = ""
            if j[0]["pred"] is not None:
                hits = sum(int(np.sum(np.asarray(d.classes)[jr["pred"]] == qr["pred"]))
                           for jr, qr in zip(j, q))
                same = f"{100 * hits / len(d.y):.1f}"
            ql, jl = [x["leaves"] for x in q], [x["leaves"] for x in j]
            pair_rows.append([d.name, label.split(":")[0], f"{np.mean(ql):.1f} / "
                              f"{np.mean(jl):.1f}",
                              f"{sum(a == b for a, b in zip(ql, jl))} / {len(ql)}", same])
            if i == 0:
                q_ms = np.mean([x["fit_seconds"] for x in q])
                j_ms = np.mean([x["fit_seconds"] for x in j])
                for who, rows in ((QUERCUS_C45, q), (next(iter(J48_SETTINGS)), j)):
                    f = pd.DataFrame(rows)
                    main_rows.append([
                        d.name, who,
                        f"{100 * f['accuracy'].mean():.1f} ± "
                        f"{100 * f['accuracy'].std(ddof=1):.1f}",
                        f"{f['leaves'].mean():.1f}", f"{f['size'].mean():.1f}",
                        f"{1000 * f['fit_seconds'].mean():.1f}",
                        (f"{q_ms / j_ms:.1f}" if j_ms > 0 else "n/a") if who == QUERCUS_C45
                        else "",
                        same if who != QUERCUS_C45 else ""])
                    print(f"  {who}: acc {100 * f['accuracy'].mean():.1f}, leaves "
                          f"{f['leaves'].mean():.1f}, {1000 * f['fit_seconds'].mean():.1f} ms",
                          flush=True)
            print(f"  {label.split(':')[0]}: leaves {np.mean(ql):.1f} / {np.mean(jl):.1f}, "
                  f"same prediction {same}%", flush=True)
    data_table = markdown_table(
        ["Data set", "From", "rows", "categorical / numeric", "classes", "missing cells",
         "rows with a missing value", "About"], described)
    table = markdown_table(
        ["Data set", "Learner", "Accuracy %", "Leaves", "Tree size", "Fit ms",
         "quercus / J48 time", "Same prediction as quercus %"], main_rows)
    pairs = markdown_table(
        ["Data set", "Pair (quercus / J48)", "mean leaves quercus / J48",
         "folds with the same number of leaves", "same prediction %"], pair_rows)
    timing = ("median of {reps} builds per fold in one JVM after a warm-up "
              "(`benchmarks/J48Folds.java`)" if classes_dir is not None else
              "J48's printed build time, 10 ms resolution, one fresh JVM per fold "
              "(javac was not available)").format(reps=reps)
    return data_table, table, pairs, timing


# ----------------------------------------------------------------------- rpart part
def _write_numeric_csv(path, X, y):
    frame = pd.DataFrame(np.asarray(X, dtype=np.float64),
                         columns=[f"x{j + 1}" for j in range(X.shape[1])])
    frame["y"] = np.asarray(y).astype(str)
    frame.to_csv(path, index=False)  # floats as repr: R reads the same doubles


def _fold_vector(splits, n):
    fold = np.zeros(n, dtype=np.int64)
    for k, (_, test) in enumerate(splits):
        fold[test] = k + 1
    return fold


def run_rpart_cptable(name, X, y, splits, reps):
    """rpart's cptable and its median elapsed time; (None, None) when R fails."""
    data_csv, folds_csv = CACHE / f"{name}.csv", CACHE / f"{name}.folds.csv"
    cp_csv, times_csv = CACHE / f"{name}.rpart_cptable.csv", CACHE / f"{name}.rpart_times.csv"
    _write_numeric_csv(data_csv, X, y)
    pd.DataFrame({"fold": _fold_vector(splits, len(y))}).to_csv(folds_csv, index=False)
    for p in (cp_csv, times_csv):
        p.unlink(missing_ok=True)
    try:
        out = _run_r([RPART_R, data_csv, folds_csv, cp_csv, times_csv, reps], timeout=3600)
    except (OSError, subprocess.SubprocessError) as exc:
        print(f"  rpart did not finish ({exc}).")
        return None, None
    if out.returncode != 0 or not cp_csv.exists():
        print(f"  rpart failed: {out.stderr.strip()[:500]}")
        return None, None
    return pd.read_csv(cp_csv), float(pd.read_csv(times_csv)["seconds"].median())


def quercus_ccp(X, y, splits, reps):
    est = CARTClassifier(pruning="cost_complexity", ccp_loss="error", cv=splits,
                         max_surrogate=0, cp=0.0, **EXACT)
    secs = []
    for _ in range(reps):
        model = clone(est)
        t0 = time.perf_counter()
        model.fit(X, y)
        secs.append(time.perf_counter() - t0)
    return model, float(np.median(secs))


def rpart_complexity(tree, min_split=2):
    """rpart's node complexities (partition.c, then fix_cp) computed on a quercus tree.

    Returns (complexity of every node in absolute risk units, capped by its parent's;
    whether rpart keeps the node's split). rpart estimates a node's complexity from its
    children only (which child collapses first), not from the exact weakest link below it,
    and drops a split whose complexity is 0.
    """
    value = tree.value
    risk = value.sum(axis=1) - value.max(axis=1)
    comp = np.zeros(tree.node_count)
    split = np.zeros(tree.node_count, dtype=bool)

    def partition(node, inherited):
        r = risk[node]
        tempcp = min(r, inherited)
        if tree.kind[node] == 0 or tree.n_node_samples[node] < min_split or tempcp <= 0:
            comp[node] = 0.0
            return 0, r
        left, right = int(tree.first_child[node]), int(tree.first_child[node]) + 1
        ls, lr = partition(left, tempcp)
        t = max((r - lr) / (ls + 1), r - risk[left])
        t = min(t, inherited)
        rs, rr = partition(right, t)
        c = (r - (lr + rr)) / (ls + rs + 1)
        if comp[right] > comp[left]:
            if c > comp[left]:
                lr, ls = risk[left], 0
                c = (r - (lr + rr)) / (ls + rs + 1)
                if c > comp[right]:
                    rr, rs = risk[right], 0
        elif c > comp[right]:
            rr, rs = risk[right], 0
            c = (r - (lr + rr)) / (ls + rs + 1)
            if c > comp[left]:
                lr, ls = risk[left], 0
        c = (r - (lr + rr)) / (ls + rs + 1)
        comp[node] = c
        if c <= 0:
            comp[node] = 0.0
            return 0, r
        split[node] = True
        return ls + rs + 1, lr + rr

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * tree.max_depth + 1000))
    try:
        partition(0, risk[0])
    finally:
        sys.setrecursionlimit(limit)
    stack = [0]
    while stack:  # fix_cp: a node's complexity is at most its parent's
        node = stack.pop()
        if split[node]:
            for ch in tree.children(node):
                comp[ch] = min(comp[ch], comp[node])
                stack.append(ch)
    return comp, split, risk


def rpart_table_from_tree(tree):
    """rpart's (CP, nsplit, rel error) computed from a quercus tree with rpart's rule."""
    comp, split, risk = rpart_complexity(tree)
    reach, stack = [], [0]
    while stack:
        n = stack.pop()
        reach.append(n)
        if split[n]:
            stack.extend(tree.children(n))
    reach = np.asarray(reach)
    cps = np.unique(np.round(comp[reach], 12))[::-1]
    parent = tree.parent()
    rows = []
    for c in cps:
        internal = split[reach] & (comp[reach] > c + 1e-12)
        inner = set(reach[internal].tolist())
        leaves = [n for n in reach if n not in inner and (n == 0 or parent[n] in inner)]
        rows.append((c / risk[0], len(inner), risk[leaves].sum() / risk[0]))
    return pd.DataFrame(rows, columns=["CP", "nsplit", "rel_error"])


def replay_rpart_xval(X, y, splits, rp_table):
    """rpart's xval (xval.c, rundown.c) replayed on quercus's fold trees: each fold tree is
    pruned with rpart's complexities at the geometric means of rpart's CP column (scaled
    by the fold's share of the weight), an observation equal to a threshold goes to the
    ``>=`` side as in rpart, and a tied node predicts the first class. Returns the xerror
    and xstd columns (rpart's order)."""
    y = np.asarray(y).astype(str)
    n = len(y)
    root_risk = n - pd.Series(y).value_counts().max()
    cp = rp_table["CP"].to_numpy() * root_risk
    cpx = np.concatenate([[10 * cp[0]], np.sqrt(cp[:-1] * cp[1:])])
    err = np.zeros((len(cpx), n))
    X = np.asarray(X, dtype=np.float64)
    for train, test in splits:
        fold = CARTClassifier(max_surrogate=0, **EXACT).fit(X[train], y[train])
        t = fold.tree_
        comp, split, _ = rpart_complexity(t)
        label = fold.classes_[np.argmax(t.value, axis=1)]  # first class on a tie
        scaled = cpx * len(train) / n
        for i in test:
            for j, c in enumerate(scaled):
                node = 0
                while split[node] and c < comp[node]:
                    x = X[i, t.feature[node]]
                    node = int(t.first_child[node]) + (0 if x < t.threshold[node] else 1)
                err[j, i] = label[node] != y[i]
    xrisk = err.sum(axis=1)
    xstd = np.sqrt(np.maximum((err ** 2).sum(axis=1) - xrisk ** 2 / n, 0.0))
    return xrisk / root_risk, xstd / root_risk


def _on_threshold_quercus(X, y, splits):
    """Test values equal to a threshold on their path in quercus's full fold trees."""
    X = np.asarray(X, dtype=np.float64)
    count = 0
    for train, test in splits:
        fold = CARTClassifier(max_surrogate=0, **EXACT).fit(X[train], np.asarray(y)[train])
        t = fold.tree_
        path = fold.decision_path(X[test]).tocoo()
        internal = t.kind[path.col] != 0
        rows, nodes = path.row[internal], path.col[internal]
        count += int(np.sum(X[test][rows, t.feature[nodes]] == t.threshold[nodes]))
    return count


def one_se(xerror, xstd, order_small_first):
    """Index (in the given order, smallest tree first) of Breiman's 1-SE choice."""
    x = np.asarray(xerror)[order_small_first]
    s = np.asarray(xstd)[order_small_first]
    best = int(np.argmin(x))  # first minimum = the smallest tree among ties
    return int(order_small_first[int(np.flatnonzero(x <= x[best] + s[best] + 1e-12)[0])])


def compare_tables(name, rp, q, emu, replay):
    """Markdown side-by-side table (rpart's row order: largest CP first) and a summary."""
    qt = q.cp_table_.sort_values("alpha", ascending=False).reset_index(drop=True)
    merged = pd.merge(rp.reset_index().rename(columns={"index": "rp_row"}),
                      qt.reset_index().rename(columns={"index": "q_row"}),
                      left_on="nsplit", right_on="n_splits", how="outer", sort=False)
    merged["key"] = merged["nsplit"].fillna(merged["n_splits"])
    merged = merged.sort_values("key").reset_index(drop=True)

    def f(v, fmt="{:.4f}"):
        return "" if pd.isna(v) else fmt.format(v)

    rows = []
    for r in merged.itertuples(index=False):
        rows.append([f(r.key, "{:.0f}"), f(r.CP, "{:.5f}"), f(r.cp, "{:.5f}"),
                     f(r.rel_error_x), f(r.rel_error_y), f(r.xerror_x), f(r.xerror_y),
                     f(r.xstd_x), f(r.xstd_y)])
    table = markdown_table(["nsplit", "CP rpart", "cp quercus", "rel error rpart",
                            "rel error quercus", "xerror rpart", "xerror quercus",
                            "xstd rpart", "xstd quercus"], rows)
    both = merged.dropna(subset=["CP", "cp"])
    rp_pick = one_se(rp["xerror"], rp["xstd"], np.arange(len(rp)))
    q_small_first = np.argsort(-q.cp_table_["alpha"].to_numpy(), kind="stable")
    q_pick = one_se(q.cp_table_["xerror"], q.cp_table_["xstd"], q_small_first)
    emu_same = (len(emu) == len(rp)
                and np.allclose(emu["CP"], rp["CP"], rtol=1e-6, atol=1e-9)
                and (emu["nsplit"].to_numpy() == rp["nsplit"].to_numpy()).all()
                and np.allclose(emu["rel_error"], rp["rel_error"], rtol=1e-6, atol=1e-9))
    rx, rs = replay
    replay_same = np.allclose(rx, rp["xerror"], atol=1e-9) and np.allclose(
        rs, rp["xstd"], atol=1e-9)
    summary = dict(
        name=name, rows_rp=len(rp), rows_q=len(qt), common=len(both),
        max_cp=float(np.abs(both["CP"] - both["cp"]).max()) if len(both) else np.nan,
        max_rel=float(np.abs(both["rel_error_x"] - both["rel_error_y"]).max())
        if len(both) else np.nan,
        max_xerr=float(np.abs(both["xerror_x"] - both["xerror_y"]).max())
        if len(both) else np.nan,
        max_xstd=float(np.abs(both["xstd_x"] - both["xstd_y"]).max()) if len(both) else np.nan,
        pick_rp=int(rp["nsplit"].iloc[rp_pick]),
        pick_q=int(q.cp_table_["n_splits"].iloc[q_pick]),
        final_q=int(q.tree_.node_count - q.get_n_leaves()),
        emu_same=emu_same, replay_same=replay_same)
    return table, summary


def rpart_part(reps, timing_rows, timing_reps, has_mlbench):
    print("\n== Part 2: cost-complexity vs rpart ==")
    CACHE.mkdir(parents=True, exist_ok=True)
    sets = [load_sklearn("iris"), load_sklearn("wine"), load_sklearn("wdbc")]
    if has_mlbench and export_data(["BreastCancer"], MLBENCH_CACHE):
        bc = load_mlbench("BreastCancer", "Class", False, "")
        keep = ~bc.X.isna().any(axis=1).to_numpy()
        bc.X, bc.y = bc.X[keep].reset_index(drop=True), bc.y[keep]
        bc.name = "BreastCancer (complete cases)"
        sets.append(bc)
    else:
        print("mlbench BreastCancer not available: skipped.")
    # numba loads its kernels on the first fit of a process: warm up, untimed.
    CARTClassifier(max_surrogate=0, **EXACT).fit(sets[0].X, sets[0].y)

    sections, summaries, timings = [], [], []
    for d in sets:
        X = d.X.to_numpy(dtype=np.float64)
        y = d.y
        splits = folds_of(y)
        slug = d.name.split(" ")[0]
        rp, r_secs = run_rpart_cptable(slug, X, y, splits, reps)
        if rp is None:
            continue
        q, q_secs = quercus_ccp(pd.DataFrame(X), y, splits, reps)
        emu = rpart_table_from_tree(CARTClassifier(max_surrogate=0, **EXACT).fit(X, y).tree_)
        replay = replay_rpart_xval(X, y, splits, rp)
        table, s = compare_tables(d.name, rp, q, emu, replay)
        s["on_threshold_q"] = _on_threshold_quercus(X, y, splits)
        s["rows"] = len(y)
        summaries.append(s)
        timings.append([d.name, f"{len(y)} x {X.shape[1]}", f"{1000 * q_secs:.1f}",
                        f"{1000 * r_secs:.1f}", f"{q_secs / r_secs:.1f}" if r_secs > 0
                        else "n/a"])
        sections += [f"#### {d.name} ({len(y)} rows, {X.shape[1]} numeric attributes)", "",
                     table, ""]
        print(f"{d.name}: {len(rp)} rpart rows, {len(q.cp_table_)} quercus rows; "
              f"rpart rule on quercus's tree reproduces rpart's table: {s['emu_same']}; "
              f"replayed xval reproduces xerror/xstd: {s['replay_same']}", flush=True)

    # Timing on a larger numeric set.
    big = None
    if timing_rows > 0:
        X, y = make_classification(n_samples=timing_rows, n_features=20, n_informative=10,
                                   n_redundant=5, random_state=SEED)
        y = np.where(y == 1, "b", "a")
        splits = folds_of(y)
        rp, r_secs = run_rpart_cptable(f"make_classification_{timing_rows}", X, y, splits,
                                       timing_reps)
        if rp is not None:
            q, q_secs = quercus_ccp(pd.DataFrame(X), y, splits, timing_reps)
            grow = []
            for _ in range(timing_reps):
                t0 = time.perf_counter()
                full = CARTClassifier(max_surrogate=0, **EXACT).fit(X, y)
                grow.append(time.perf_counter() - t0)
            grow = float(np.median(grow))
            emu = rpart_table_from_tree(full.tree_)
            replay = replay_rpart_xval(X, y, splits, rp)
            _, s = compare_tables(f"make_classification {timing_rows} x 20", rp, q, emu,
                                  replay)
            s["on_threshold_q"] = _on_threshold_quercus(X, y, splits)
            s["rows"] = timing_rows
            summaries.append(s)
            timings.append([s["name"] + " (timing set)", f"{timing_rows} x 20",
                            f"{1000 * q_secs:.0f}", f"{1000 * r_secs:.0f}",
                            f"{q_secs / r_secs:.1f}"])
            big = dict(rows=timing_rows, q=q_secs, r=r_secs, grow=grow, n_leaves=
                       full.get_n_leaves(), reps=timing_reps)
            print(f"timing set: quercus {q_secs:.2f} s, rpart {r_secs:.2f} s, ratio "
                  f"{q_secs / r_secs:.1f} (one quercus tree grows in {grow:.2f} s)")
    summary_rows = [[s["name"], f"{s['rows_rp']} / {s['rows_q']}", s["common"],
                     f"{s['max_cp']:.2g}", f"{s['max_rel']:.2g}", f"{s['max_xerr']:.3g}",
                     f"{s['max_xstd']:.3g}", f"{s['pick_rp']} / {s['pick_q']}",
                     "yes" if s["emu_same"] else "no",
                     "yes" if s["replay_same"] else "no", s["on_threshold_q"]]
                    for s in summaries]
    summary = markdown_table(
        ["Data set", "rows rpart / quercus", "common nsplit", "max |Δ CP|",
         "max |Δ rel error|", "max |Δ xerror|", "max |Δ xstd|",
         "1-SE nsplit rpart / quercus", "rpart's cp rule on quercus's tree = rpart's table",
         "rpart's xval replayed on quercus's fold trees = rpart's xerror, xstd",
         "test values on a threshold"], summary_rows)
    timing = markdown_table(["Data set", "size", "quercus fit ms (10-fold CV pruning)",
                             "rpart ms (xval = 10)", "quercus / rpart"], timings)
    return sections, summary, timing, big


# ---------------------------------------------------------------------------- report
def markdown_table(header, rows):
    numeric = [all(_is_number(r[i]) for r in rows) if rows else False
               for i in range(len(header))]
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---:" if num else "---" for num in numeric) + "|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def _is_number(v):
    if isinstance(v, (int, float, np.integer, np.floating)):
        return True
    s = str(v).replace(" ± ", "").replace(" / ", "").replace(" x ", "").replace("%", "")
    try:
        float(s.replace(",", ""))
        return True
    except ValueError:
        return s == ""


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=["all", "j48", "rpart"], default="all")
    parser.add_argument("--reps", type=int, default=3,
                        help="timed fits per fold / per data set (median; default 3)")
    parser.add_argument("--timing-rows", type=int, default=20000,
                        help="rows of the make_classification timing set (0: skip)")
    parser.add_argument("--timing-reps", type=int, default=3,
                        help="timed runs on the timing set (median; default 3)")
    parser.add_argument("--no-write", action="store_true",
                        help="print only; do not write benchmarks/results/")
    args = parser.parse_args(argv)

    has_r, has_mlbench, has_rpart, r_version, rpart_version = r_status()
    if not has_r:
        print("R (Rscript) is not installed: the mlbench data sets and the rpart part are "
              "skipped. Install it with: bash benchmarks/setup_peers.sh")
    elif not has_mlbench:
        print("R's mlbench package is not installed: the mlbench data sets are skipped.")
    jar = weka_jar()
    weka = weka_version(jar) if jar is not None else None
    run_j48 = args.part in ("all", "j48")
    run_rpart = args.part in ("all", "rpart")
    if run_j48 and jar is None:
        print("Weka (java and weka.jar, or $WEKA_JAR) not found: the J48 part is skipped. "
              "Install it with: bash benchmarks/setup_peers.sh")
        run_j48 = False
    if run_rpart and not has_rpart:
        if has_r:
            print("R's rpart is not installed: the rpart part is skipped. Install it with: "
                  "bash benchmarks/setup_peers.sh")
        run_rpart = False
    if not run_j48 and not run_rpart:
        print("Nothing to compare against: done.")
        return 0
    CACHE.mkdir(parents=True, exist_ok=True)

    text = ["# Pruning: quercus against Weka's J48 and R's rpart", "",
            f"Generated by `python -m benchmarks.pruning_peers` on "
            f"{datetime.date.today().isoformat()}. Do not edit by hand; the discussion is in "
            "[docs/pruning_peers.md](../../docs/pruning_peers.md).", "",
            f"Machine: {machine_description(r_version, rpart_version, weka)}.", ""]
    if run_j48:
        data_table, j48_table, pairs, timing = j48_part(jar, args.reps, has_mlbench)
        print("\n" + j48_table)
        text += [
            "## 1. C4.5: `C45Classifier()` vs Weka J48", "",
            f"Stratified {N_SPLITS}-fold cross-validation, `random_state={SEED}`, the same "
            "folds for every learner (J48 reads them as ARFF files, every nominal attribute "
            "declared with the levels of the whole data set; quercus gets the same levels "
            "as `pandas.Categorical`, so both grow a branch for every level). quercus: "
            "`C45Classifier()` defaults (gain ratio, multiway categorical splits, fractional "
            "missing values, pessimistic pruning CF = 0.25 with subtree raising). J48: "
            "`-C 0.25 -M 2` (its defaults). Accuracy: mean ± sample "
            "standard deviation over the folds; leaves and tree size (all nodes): means "
            "over the folds; fit time: mean over the folds of the median of "
            f"{args.reps} fits (quercus: the `fit` call, after an untimed warm-up; J48: "
            f"{timing}). Same prediction: test rows where J48 predicts what quercus "
            "predicts.", "",
            "### Data", "", data_table, "", "### Results", "", j48_table, "",
            "### Agreement, one rule at a time", "",
            "The same folds with three pairs of settings: the defaults; the minimum number of "
            "cases per branch lowered to 1 on both sides; subtree raising off on both sides "
            "(J48's `-S`). Leaves: means over the folds; same prediction: share of all "
            "test rows.", "", pairs, ""]
    if run_rpart:
        sections, summary, timing, big = rpart_part(args.reps, args.timing_rows,
                                                    args.timing_reps, has_mlbench)
        print("\n" + summary + "\n\n" + timing)
        text += [
            "## 2. Cost-complexity: `CARTClassifier(pruning=\"cost_complexity\")` vs rpart",
            "",
            "quercus: `CARTClassifier(pruning=\"cost_complexity\", ccp_loss=\"error\", "
            "cv=<folds>, max_surrogate=0, cp=0)`; rpart: `rpart(y ~ ., method = \"class\", control "
            "= rpart.control(cp = 0, minsplit = 2, minbucket = 1, xval = <fold ids>, "
            "maxsurrogate = 0, usesurrogate = 0))`, the same stratified 10 folds "
            f"(`random_state={SEED}`) for both. Numeric data without missing values. "
            "quercus's `cp_table_` is listed in rpart's order (largest CP first) and joined "
            "on the number of splits; an empty cell is a subtree the other sequence does "
            "not have.", "",
            "### Summary", "", summary, "",
            "- *rpart's cp rule on quercus's tree*: rpart's complexities (partition.c, "
            "fix_cp) computed on the tree quercus grew on all rows give rpart's CP, nsplit "
            "and rel error columns.",
            "- *rpart's xval replayed*: quercus's fold trees pruned with rpart's complexities "
            "at the geometric means of rpart's CP column, values equal to a threshold sent "
            "to the `>=` side and ties to the first class, give rpart's xerror and xstd.",
            "- *test values on a threshold*: held-out values (summed over folds) equal to a "
            "threshold on their path in quercus's full fold trees; quercus sends them left "
            "(`<=`), rpart right (`>=`).", "",
            "### Timing", "", timing, ""]
        if big is not None:
            text += [
                f"Median of {big['reps']} runs on the timing set, of {args.reps} on the "
                f"others. On the timing set "
                f"one quercus tree (all rows, {big['n_leaves']} leaves) grows in "
                f"{1000 * big['grow']:.0f} ms, so the 11 trees of 10-fold CV take about "
                f"{11 * big['grow']:.1f} s of quercus's {big['q']:.1f} s; the rest is the "
                "cross-validation bookkeeping (pruning each fold tree at every alpha and "
                "predicting). rpart's time is the `rpart()` call (R's `proc.time`, 1 ms "
                "resolution), which grows the same 11 trees.", ""]
        text += ["### Complexity tables", "",
                 "The timing set's tables (about 80 rows each) are summarised above, not "
                 "listed.", "", *sections]
    if args.no_write:
        return 0
    RESULTS_MD.parent.mkdir(parents=True, exist_ok=True)
    RESULTS_MD.write_text("\n".join(text), encoding="utf-8")
    print(f"\nWritten {RESULTS_MD.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
