"""Issue 31, small data: the cross-validated cost-complexity fit with the defaults against
rpart's ``xval = 10``, from 14 to 5,000 rows, with and without missing values.

    python -m benchmarks.cv_small                 # everything, writes results/cv_small.md
    python -m benchmarks.cv_small --quick         # fewer repetitions
    python -m benchmarks.cv_small --no-write      # print only
    python -m benchmarks.cv_small --rounds 5 --only 'make_regression|Ozone'
                                                  # alternate the two sides 5 times

quercus: ``CARTClassifier(pruning="cost_complexity")`` / ``CARTRegressor(pruning=
"cost_complexity")``, every other parameter its default (``cv=10`` folds, ``cv_rule="1se"``,
``ccp_loss="impurity"``, ``cp=0.01``, ``max_bins=255``, ``max_surrogate=5``,
``min_samples_split=2``, ``random_state=None``, ``n_jobs=None``). Timed in a warm process
as rpart is timed below: one untimed fit first (the numba kernels compiled or loaded, with
``config_context(jit="compile")``: left to itself a process runs a tiny fit's kernels as
Python for its first few fits), then the median (and range) of ``--reps`` timings of a loop
of fits lasting at least ``--min-seconds``, per fit. The table also shows the median of
``--reps`` single fits timed alone, taken before the loops (how quercus alone was timed
until stop 65, while rpart was timed over loops).
Separately, the first ``fit`` of a fresh interpreter with the kernel cache already filled
(data read and quercus imported before the clock starts).

rpart: ``rpart(y ~ ., data, method = "class" | "anova", control = rpart.control(xval = 10))``
with every other setting its default (``cp = 0.01``, ``minsplit = 20``, ``minbucket = 7``,
``maxsurrogate = 5``, ``usesurrogate = 2``, ``maxcompete = 4``), timed inside one R process
(``benchmarks/rpart_xval_time.R``; R's start-up excluded) with ``system.time`` over a loop
of enough fits to last ``--min-seconds``, per fit, median and range of ``--reps`` such
timings, after one untimed fit.

With ``--rounds K`` the two sides take turns K times (quercus's cases in a fresh Python
process, then rpart's in a fresh R process, then quercus again...), and a case's ratio is
the median of its K rounds' ratios: on a shared machine a slow spell, or a slow process,
then lands on both sides of a ratio rather than on one.

Both sides read the same CSV (``benchmarks/data-cache/cv_small/``; the target in ``y``,
factors as text, missing values as empty cells): every bundled data set
(``quercus.datasets``), scikit-learn's iris, wine and breast cancer (wdbc), the first 100,
200, 400, 1,000 and 5,000 rows of ``make_classification(5000, 20, n_informative=10,
random_state=0)`` and ``make_regression(5000, 20, n_informative=10, noise=10,
random_state=0)``, and mlbench's BostonHousing (medv) and Ozone (V4; rows without V4
dropped, as rpart drops them; V1-V3 factors), each as it is and with 10% of its feature
cells knocked out at random (seed 0). Without R or rpart the rpart column is empty; without
mlbench its data sets are skipped.
"""

import argparse
import datetime
import json
import math
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CACHE = HERE / "data-cache" / "cv_small"
RESULTS_MD = HERE / "results" / "cv_small.md"
RPART_R = HERE / "rpart_xval_time.R"
CSV_R = HERE / "mlbench_csv.R"
SIZES = (100, 200, 400, 1000, 5000)
KNOCK_OUT = 0.10

QUERCUS_PARAMS = ('pruning="cost_complexity" (all else default: cv=10, cv_rule="1se", '
                  'cp=0.01, max_surrogate=5)')
RPART_CALL = "rpart(y ~ ., data, method=..., control=rpart.control(xval=10))"


# ------------------------------------------------------------------------------ data
def _knock_out(X, seed=0):
    rng = np.random.default_rng(seed)
    mask = rng.random(X.shape) < KNOCK_OUT
    return X.mask(pd.DataFrame(mask, index=X.index, columns=X.columns))


def base_sets(has_mlbench):
    """(name, X DataFrame, y, task, factor columns, has real missing values)."""
    from sklearn.datasets import (load_breast_cancer, load_iris, load_wine,
                                  make_classification, make_regression)
    import quercus.datasets as qd
    out = []
    for v, label in (("2.0", "watermelon 2.0"), ("3.0", "watermelon 3.0"),
                     ("2.0alpha", "watermelon 2.0α")):
        X, y = qd.load_watermelon(v)
        out.append((label, X.reset_index(drop=True), y.to_numpy(), "class", v == "2.0alpha"))
    X, y = qd.load_golf()
    X = X.assign(windy=X["windy"].map({True: "true", False: "false"}))
    out.append(("golf", X, y.to_numpy(), "class", False))
    for name, loader in (("iris", load_iris), ("wine", load_wine),
                         ("wdbc (breast cancer)", load_breast_cancer)):
        b = loader()
        out.append((name, pd.DataFrame(b.data), b.target_names[b.target], "class", False))
    Xc, yc = make_classification(5000, 20, n_informative=10, random_state=0)
    Xr, yr = make_regression(5000, 20, n_informative=10, noise=10, random_state=0)
    for n in SIZES:
        out.append((f"make_classification {n}", pd.DataFrame(Xc[:n]), yc[:n], "class", False))
    for n in SIZES:
        out.append((f"make_regression {n}", pd.DataFrame(Xr[:n]), yr[:n], "anova", False))
    if has_mlbench:
        for name, target in (("BostonHousing", "medv"), ("Ozone", "V4")):
            path = CACHE / f"{name}.csv"
            if not path.exists():
                continue
            frame = pd.read_csv(path, keep_default_na=False, na_values=[""])
            frame = frame[frame[target].notna()].reset_index(drop=True)
            y = frame.pop(target).to_numpy(dtype=float)
            cats = {"BostonHousing": ["chas"], "Ozone": ["V1", "V2", "V3"]}[name]
            for c in cats:
                frame[c] = frame[c].map(lambda v: v if pd.isna(v) else str(int(v)))
            out.append((name, frame, y, "anova", name == "Ozone"))
            if name == "Ozone":
                keep = frame.notna().all(axis=1).to_numpy()
                out.append(("Ozone complete cases", frame[keep].reset_index(drop=True),
                            y[keep], "anova", False))
    return out


def cases(has_mlbench):
    """Every case written to CSV: a list of dicts (name, csv, task, factors, shape,
    missing)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    out = []
    for i, (name, X, y, task, real_missing) in enumerate(base_sets(has_mlbench)):
        X = X.copy()
        X.columns = [f"x{j}" for j in range(X.shape[1])]
        factors = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
        for variant, Xv in (("as is", X), ("+10%", _knock_out(X, seed=i))):
            missing = ("real" if real_missing else "no") if variant == "as is" else (
                "real +10%" if real_missing else "10%")
            csv = CACHE / f"case{len(out):02d}.csv"
            Xv.assign(y=y).to_csv(csv, index=False, na_rep="")
            out.append({"name": name, "csv": str(csv), "task": task, "factors": factors,
                        "shape": X.shape, "missing": missing,
                        "missing_share": float(Xv.isna().to_numpy().mean())})
    return out


def read_case(case):
    """The CSV as quercus gets it: factors as pandas categoricals of text, NaN missing."""
    frame = pd.read_csv(case["csv"], keep_default_na=False, na_values=[""],
                        dtype={c: str for c in case["factors"]})
    y = frame.pop("y").to_numpy()
    for c in case["factors"]:
        frame[c] = pd.Categorical(frame[c])
    if case["task"] == "class":
        y = y.astype(str)
    return frame, y


def read_spec(spec):
    """(X, y, task) of a case named as ``name:factors:task`` (``case15:-:class``: the CSV
    ``case15.csv`` of the cache, no factor column, a classification): how
    ``benchmarks/kernel_time.py`` and ``benchmarks/profile_kernels.py`` name a case."""
    name, factors, task = spec.split(":")
    X, y = read_case({"csv": CACHE / f"{name}.csv", "task": task,
                      "factors": [] if factors == "-" else factors.split(",")})
    return X, y, task


def estimator(case):
    from quercus import CARTClassifier, CARTRegressor
    cls = CARTClassifier if case["task"] == "class" else CARTRegressor
    return cls(pruning="cost_complexity")


# ------------------------------------------------------------------------------ timing
def time_quercus(case, reps, min_seconds, slow_reps=3):
    """quercus's timings of ``case``, as rpart's script times rpart: after one untimed fit,
    ``reps`` timings of a loop of enough fits to last ``min_seconds``, each divided by its
    number of fits (``slow_reps`` timings of one fit when a fit takes over a second).
    Before the loops, ``reps`` single fits, each timed alone (what the table showed before
    both sides were timed alike). Returns (seconds per fit of each loop, seconds of each
    single fit, the chosen tree's leaves)."""
    import quercus
    X, y = read_case(case)
    t0 = time.perf_counter()
    # Untimed, its kernels compiled or loaded: left to itself ("auto"), a process runs a
    # tiny fit's kernels as Python for its first few fits, then loads them during a timed
    # one.
    with quercus.config_context(jit="compile"):
        est = estimator(case).fit(X, y)
    if time.perf_counter() - t0 > 1.0:
        reps = min(reps, slow_reps)
    single = []
    for _ in range(reps):
        t0 = time.perf_counter()
        est = estimator(case).fit(X, y)
        single.append(time.perf_counter() - t0)
    # (rpart's script sizes its loop by one timed fit; the single fits' median here.)
    inner = max(1, math.ceil(min_seconds / max(statistics.median(single), 1e-4)))
    loops = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(inner):
            est = estimator(case).fit(X, y)
        loops.append((time.perf_counter() - t0) / inner)
    return loops, single, int(est.get_n_leaves())


ROUND = """
import json, sys
from benchmarks.cv_small import time_quercus
args = json.loads(sys.stdin.read())
for case in args["cases"]:
    loops, single, leaves = time_quercus(case, args["reps"], args["min_seconds"])
    print(json.dumps({"loops": loops, "single": single, "leaves": leaves}), flush=True)
"""


def time_quercus_round(cases_, reps, min_seconds, report=print):
    """:func:`time_quercus` of every case of ``cases_``, in one fresh Python process (as
    each round of rpart's runs in a fresh R process): a process's speed on this VM can
    differ from the next one's for its whole life. ``report(i, loops)`` as each case ends.
    Returns {case index: (loops, leaves, single fits)}."""
    proc = subprocess.Popen([sys.executable, "-c", ROUND], cwd=REPO, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    proc.stdin.write(json.dumps({"cases": cases_, "reps": reps, "min_seconds": min_seconds}))
    proc.stdin.close()
    out = {}
    for i, line in enumerate(proc.stdout):
        r = json.loads(line)
        out[i] = (r["loops"], r["leaves"], r["single"])
        report(i, r["loops"])
    if proc.wait() != 0 or len(out) != len(cases_):
        raise RuntimeError(f"quercus's timing process failed (exit {proc.returncode}) "
                           f"after {len(out)} of {len(cases_)} cases")
    return out


FIRST_FIT = """
import json, sys, time
from benchmarks.cv_small import estimator, read_case
case = json.loads(sys.argv[1])
X, y = read_case(case)
import quercus
est = estimator(case)
t0 = time.perf_counter()
est.fit(X, y)
print(json.dumps({"seconds": time.perf_counter() - t0}))
"""


def first_fit(case):
    res = subprocess.run([sys.executable, "-c", FIRST_FIT, json.dumps(case)], cwd=REPO,
                         capture_output=True, text=True, timeout=600)
    if res.returncode != 0:
        raise RuntimeError(res.stderr.strip()[-800:])
    return json.loads(res.stdout.strip().splitlines()[-1])["seconds"]


def time_rpart(cases_, reps, min_seconds):
    manifest = CACHE / "manifest.tsv"
    out = CACHE / "rpart_times.tsv"
    rows = [f"r{i}\t{c['csv']}\t{c['task']}\t{','.join(c['factors']) or '-'}"
            for i, c in enumerate(cases_)]
    manifest.write_text("name\tcsv\tmethod\tfactors\n" + "\n".join(rows) + "\n")
    out.unlink(missing_ok=True)
    res = subprocess.run(["Rscript", "--vanilla", str(RPART_R), str(manifest), str(out),
                          str(reps), str(min_seconds)], capture_output=True, text=True,
                         timeout=7200)
    if res.returncode != 0 or not out.exists():
        print(f"rpart timing failed: {res.stderr.strip()[-500:]}")
        return {}
    table = pd.read_csv(out, sep="\t")
    return {int(r["name"][1:]): r for _, r in table.iterrows()}


# ------------------------------------------------------------------------------ report
def _fmt(t):
    return f"{t:.4f}" if t < 0.1 else f"{t:.3f}" if t < 10 else f"{t:.1f}"


def main(argv=None):
    from benchmarks.missing_values import machine_description, r_status
    from benchmarks.pruning_peers import markdown_table
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=9,
                        help="timed loops of fits, each side (3 of one fit when a quercus fit "
                             "takes over 1 s); median (default 9)")
    parser.add_argument("--min-seconds", "--r-min-seconds", dest="min_seconds", type=float,
                        default=0.2, help="shortest timing loop, quercus's and rpart's "
                                          "(default 0.2 s)")
    parser.add_argument("--quick", action="store_true", help="--reps 3, no fresh processes")
    parser.add_argument("--no-first-fit", action="store_true",
                        help="skip the first fit in a fresh interpreter")
    parser.add_argument("--no-write", action="store_true",
                        help="print only; do not write benchmarks/results/")
    parser.add_argument("--rounds", type=int, default=1,
                        help="time quercus then rpart this many times in turn; a case's "
                             "ratio is the median of the rounds' ratios (default 1)")
    parser.add_argument("--only", metavar="REGEX",
                        help="only the cases whose name matches this regular expression")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, got {args.rounds}")
    if args.quick:
        args.reps, args.no_first_fit = 3, True

    has_r, has_mlbench, has_rpart, r_version, rpart_version = r_status()
    if not has_r:
        print("R (Rscript) is not installed: rpart and the mlbench data sets are skipped.")
    elif not has_mlbench:
        print("R's mlbench package is not installed: its data sets are skipped.")
    elif not has_rpart:
        print("R's rpart is not installed: the rpart column stays empty.")
    CACHE.mkdir(parents=True, exist_ok=True)
    if has_mlbench:
        res = subprocess.run(["Rscript", "--vanilla", str(CSV_R), str(CACHE), "BostonHousing",
                              "Ozone"], capture_output=True, text=True, timeout=600)
        if res.returncode != 0:
            print(f"Exporting mlbench data failed: {res.stderr.strip()[:300]}")
    all_cases = cases(has_mlbench)
    if args.only:
        pattern = re.compile(args.only)
        all_cases = [c for c in all_cases if pattern.search(c["name"])]
        if not all_cases:
            parser.error(f"--only {args.only!r} matches no case")

    # Per round: quercus's (times, leaves) and rpart's row of every case.
    q_rounds, r_rounds = [], []
    for rnd in range(args.rounds):
        def report(i, times, rnd=rnd):
            c = all_cases[i]
            print(f"quercus {c['name']} ({c['missing']}): median "
                  f"{statistics.median(times):.4f} s" + (f" (round {rnd + 1})"
                                                         if args.rounds > 1 else ""))
        q_rounds.append(time_quercus_round(all_cases, args.reps, args.min_seconds, report))
        r_rounds.append(time_rpart(all_cases, args.reps, args.min_seconds)
                        if has_rpart else {})
    first = {}
    if not args.no_first_fit:
        for i, c in enumerate(all_cases):
            first[i] = first_fit(c)
            print(f"quercus first fit {c['name']} ({c['missing']}): {first[i]:.3f} s")

    header = ["data set", "rows x cols", "missing", "task", "quercus s (median [range])",
              "quercus single fits s (median)", "quercus first fit, fresh process s",
              "rpart s (median [range])",
              "quercus / rpart", "leaves quercus / rpart"]
    rows = []
    ratios = []
    for i, c in enumerate(all_cases):
        # (One round: its medians. Several: the median of the rounds' medians, the range
        # of every timing, and the median of the rounds' ratios.)
        meds = [statistics.median(q[i][0]) for q in q_rounds]
        every = [t for q in q_rounds for t in q[i][0]]
        leaves = q_rounds[-1][i][1]
        med = statistics.median(meds)
        qs = f"{_fmt(med)} [{_fmt(min(every))}-{_fmt(max(every))}]"
        ss = _fmt(statistics.median(statistics.median(q[i][2]) for q in q_rounds))
        fs = _fmt(first[i]) if i in first else "-"
        if all(i in r for r in r_rounds):
            rows_r = [r[i] for r in r_rounds]
            r_med = statistics.median(float(rr["median"]) for rr in rows_r)
            rs = (f"{_fmt(r_med)} [{_fmt(min(float(rr['min']) for rr in rows_r))}-"
                  f"{_fmt(max(float(rr['max']) for rr in rows_r))}]")
            per_round = [m / float(rr["median"]) for m, rr in zip(meds, rows_r)]
            ratio = statistics.median(per_round)
            ratios.append(ratio)
            ratio_s = f"**{ratio:.2f}**" if ratio > 1 else f"{ratio:.2f}"
            if len(per_round) > 1:
                ratio_s += f" ({min(per_round):.2f}-{max(per_round):.2f})"
            lv = f"{leaves} / {int(rows_r[-1]['n_splits']) + 1}"
        else:
            rs, ratio_s, lv = "-", "-", f"{leaves} / -"
        n, p = c["shape"]
        miss = c["missing"] + (f" ({100 * c['missing_share']:.1f}% cells)"
                               if c["missing"] != "no" else "")
        task = "classification" if c["task"] == "class" else "regression"
        rows.append([c["name"], f"{n} x {p}", miss, task, qs, ss, fs, rs, ratio_s, lv])
    table = markdown_table(header, rows)
    print("\n" + table)
    summary = ""
    if ratios:
        summary = (f"quercus / rpart: {min(ratios):.2f} to {max(ratios):.2f} "
                   f"(median {statistics.median(ratios):.2f}); slower than rpart (> 1) in "
                   f"{sum(x > 1 for x in ratios)} of {len(ratios)} cases.")
        print(summary)
    if args.no_write:
        return 0
    text = ["# Small data: cross-validated cost-complexity pruning against rpart's xval = 10",
            "", f"Generated by `python -m benchmarks.cv_small` on "
            f"{datetime.date.today().isoformat()} (issue 31). Do not edit by hand.", "",
            f"Machine: {machine_description(r_version, rpart_version)}.", "",
            f"- quercus: `CARTClassifier` / `CARTRegressor` with {QUERCUS_PARAMS}; "
            f"per fit, median and range of {args.reps} loops of fits lasting at least "
            f"{args.min_seconds} s (as rpart's below; 3 single fits when a fit takes over a "
            "second) in a warm process after one untimed fit (its kernels loaded: "
            "`config_context(jit=\"compile\")`). Single fits: the median of "
            f"{args.reps} fits each timed alone, before the loops (how quercus alone was "
            "timed until stop 65). First fit: one `fit` in a fresh interpreter, kernel cache "
            "filled, data read and quercus imported before the clock starts.",
            f"- rpart: `{RPART_CALL}` (method `class` or `anova`), all else rpart's "
            "defaults (cp = 0.01, minsplit = 20, minbucket = 7, maxsurrogate = 5, "
            f"usesurrogate = 2, maxcompete = 4); per fit, median and range of {args.reps} "
            f"`system.time` loops of at least {args.min_seconds} s in one R process after "
            "one untimed fit.",
            *([f"- {args.rounds} rounds, the two sides in turn (quercus's cases in one "
               "fresh Python process, then rpart's in a fresh R process, and again): a "
               "timing is the median "
               "of the rounds' medians with the range of every timing, and a ratio (of the "
               "loops' per-fit times) the median of the rounds' ratios, their range in "
               "parentheses."]
              if args.rounds > 1 else []),
            *([f"- Only the cases matching `--only {args.only}`."] if args.only else []),
            "- Both sides read the same CSV; missing: `real` = the data's own missing "
            f"values, `10%` = {100 * KNOCK_OUT:.0f}% of the feature cells knocked out at "
            "random. Leaves: quercus's chosen tree / rpart's tree (splits + 1), for scale: "
            "the two sides do not grow the same trees (both grow to cp = 0.01 before "
            "cross-validating, but rpart also stops at minsplit = 20 and minbucket = 7, "
            "quercus at min_samples_split = 2, min_samples_leaf = 1; the folds differ).",
            "- The machine's 2 cores are shared with other work: expect noise of tens of "
            "per cent; ratios > 1 are in bold.", "", table, "", summary, ""]
    RESULTS_MD.parent.mkdir(parents=True, exist_ok=True)
    RESULTS_MD.write_text("\n".join(text))
    print(f"wrote {RESULTS_MD.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
