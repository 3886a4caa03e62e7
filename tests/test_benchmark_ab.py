"""benchmarks/ab.py's own plumbing: the verdict on synthetic numbers, the alternation, the
command line, a measured process's quercus coming from its side's checkout, the table, and
one cheap run end to end (interpreted kernels: no compiling)."""

import doctest
import os
import subprocess
import sys

import pytest

from benchmarks import ab, suite


def _res(fit_s, predict_s=0.01, peak_mb=50.0, leaves=7, settings="CARTClassifier()"):
    return dict(fit_s=fit_s, predict_s=predict_s, peak_mb=peak_mb, score=0.9, leaves=leaves,
                settings=settings)


ROW = ab.Row("golf", suite.CLF, "cart-exact", "golf.split.pkl", 30)


def test_the_module_s_examples_hold():
    assert doctest.testmod(ab).failed == 0


@pytest.mark.parametrize("what", ["fit_s", "predict_s", "peak_mb"])
def test_six_percent_worse_is_flagged_and_four_percent_is_not(what):
    base = dict(fit_s=0.5, predict_s=0.02, peak_mb=40.0)
    worse = dict(base, **{what: base[what] * 1.06})
    slightly = dict(base, **{what: base[what] * 1.04})
    assert ab.judge(base, worse)[1] == [what.split("_")[0]]
    assert ab.judge(base, slightly)[1] == []
    assert ab.judge(base, base)[0][what] == 1.0
    exactly = dict(base, **{what: {"fit_s": 0.525, "predict_s": 0.021, "peak_mb": 42.0}[what]})
    assert ab.judge(base, exactly)[1] == []           # 5% worse is not "more than 5%"


def test_values_under_the_floors_are_not_flagged_however_large_the_ratio():
    base = dict(fit_s=0.0002, predict_s=0.0001, peak_mb=0.0)
    new = dict(fit_s=0.0009, predict_s=0.0008, peak_mb=0.9)   # 4.5x, 8x, from 0 MB
    ratios, worse = ab.judge(base, new)
    assert worse == [] and set(ratios.values()) == {1.0}
    # ... but a value that rises above its floor is compared with the floor
    assert ab.judge(base, dict(new, fit_s=0.0012))[1] == ["fit"]
    assert ab.judge(base, dict(new, peak_mb=3.0))[1] == ["peak"]


def test_a_missing_peak_gives_no_ratio_and_no_flag():
    base = dict(fit_s=1.0, predict_s=1.0, peak_mb=float("nan"))
    ratios, worse = ab.judge(base, dict(base, peak_mb=5.0))
    assert worse == [] and ratios["peak_mb"] != ratios["peak_mb"]


def test_a_row_is_judged_on_the_medians_over_rounds_not_on_one_noisy_round():
    base = [_res(1.0), _res(1.0), _res(1.0)]
    new = [_res(1.02), _res(1.9), _res(1.01)]   # one round disturbed
    s = ab.summarise(ROW, {"base": base, "new": new})
    assert s["new"]["fit_s"] == 1.02 and s["verdict"] == "ok"
    s = ab.summarise(ROW, {"base": base, "new": [_res(1.1), _res(1.08), _res(1.2)]})
    assert s["worse"] == ["fit"] and s["verdict"] == "WORSE: fit"


def test_a_failed_side_and_a_changed_tree_show_in_the_verdict():
    failed = ab.summarise(ROW, {"base": [_res(1.0)], "new": [{"error": "boom"}]})
    assert failed["verdict"] == "FAILED new: boom" and failed["failed"]
    changed = ab.summarise(ROW, {"base": [_res(1.0, leaves=7)],
                                 "new": [_res(1.0, leaves=9, settings="other")]})
    assert changed["leaves"] == "7 / 9" and changed["verdict"] == "ok; leaves differ"
    assert changed["settings"] == "other (base: CARTClassifier())"


def test_the_sides_alternate_and_each_row_runs_both_sides_back_to_back():
    plan = ab.schedule(["a", "b"], 3)
    assert len(plan) == 12
    firsts = [plan[i][2] for i in range(0, 12, 2)]
    assert firsts == ["base", "base", "new", "new", "base", "base"]
    for i in range(0, 12, 2):
        assert plan[i][:2] == plan[i + 1][:2] and {plan[i][2], plan[i + 1][2]} == set(ab.SIDES)


def test_the_table_has_one_line_per_row_and_the_summary_counts_them():
    rows = [ab.summarise(ROW, {"base": [_res(1.0)], "new": [_res(1.1)]}),
            ab.summarise(ab.Row("diabetes", suite.REG, "cart-hist", "d.pkl", 30),
                         {"base": [_res(0.5)], "new": [_res(0.5)]})]
    lines = ab.table(rows).splitlines()
    assert len(lines) == 4 and lines[0].startswith("| data | learner |")
    assert lines[2].split(" | ")[-1] == "WORSE: fit |" and "| 1.100 |" in lines[2]
    assert lines[3].startswith("| diabetes (R²) | quercus CART hist |")
    assert ab.summary_line(rows, None).startswith("1 of 2 rows more than 5% worse, 0 failed.")
    assert not ab.passed(rows, None) and ab.passed(rows[1:], None)
    cold = {"base": [20.0, 18.0], "new": [21.0, 19.0]}
    assert not ab.passed(rows[1:], cold)   # a cold first fit slower than before fails too


@pytest.mark.parametrize("argv, message", [
    (["HEAD", "--only", "nosuchset"], "unknown data sets"),
    (["HEAD", "--learners", "sklearn"], "--learners"),
    (["HEAD", "--rounds", "0"], "--rounds"),
    (["HEAD", "--out", "../elsewhere"], "--out"),
    (["no-such-revision-xyz"], "neither a revision"),
])
def test_bad_arguments_are_refused_before_anything_runs(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        ab.parse_args(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_arguments_name_the_rows_and_resolve_both_sides():
    args = ab.parse_args(["HEAD", "--only", "golf,diabetes", "--learners", "c45"])
    assert [d.name for d in args.chosen] == ["golf", "diabetes"]
    assert args.learners == ["c45"] and (args.rounds, args.reps, args.cold) == (3, 3, False)
    base, new = args.sides
    assert base.worktree and len(base.sha) == 40           # a revision: checked out later
    assert not new.worktree and new.path == ab.REPO        # default: this working tree
    quick = ab.parse_args([str(ab.REPO)])
    assert [d.name for d in quick.chosen] == [d.name for d in suite.DATASETS if d.quick]
    assert not quick.sides[0].worktree and quick.sides[0].path == ab.REPO


def _fake_checkout(folder):
    (folder / "quercus").mkdir(parents=True)
    (folder / "quercus" / "__init__.py").write_text("__version__ = 'fake'\n")
    return ab.Side("base", str(folder), folder.resolve())


def test_a_measured_process_imports_quercus_from_its_side_and_the_harness_from_here(
        tmp_path):
    side = _fake_checkout(tmp_path / "side")
    cmd = ab.child_command(side, "benchmarks.compile_times", "learner_label", ["c45"])
    assert cmd[:2] == [sys.executable, "-c"] and cmd[3:5] == [str(side.path), str(ab.REPO)]
    env = ab.child_env(side, tmp_path / "cache", jit="compile")
    assert env["PYTHONPATH"].split(os.pathsep)[0] == str(side.path)
    assert env["QUERCUS_CACHE_DIR"] == str(tmp_path / "cache") and "NUMBA_CACHE_DIR" not in env
    # The fake side has no benchmarks package: the function ran from this checkout's, and
    # quercus is the fake one, not the venv's editable install.
    assert ab.run_child(side, tmp_path / "cache", "benchmarks.compile_times",
                        "learner_label", ["c45"], timeout=120) == "C45Classifier()"


def test_a_side_without_quercus_is_refused_rather_than_measured_with_another(tmp_path):
    side = ab.Side("base", str(tmp_path), tmp_path.resolve())
    with pytest.raises(RuntimeError, match="not from"):
        ab.run_child(side, tmp_path / "cache", "benchmarks.compile_times", "learner_label",
                     ["c45"], timeout=120)


def test_a_small_run_end_to_end_removes_its_worktree(tmp_path):
    # Both sides are checkouts of this commit; interpreted kernels: nothing compiles.
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.ab", "HEAD", "--only", "golf", "--learners",
         "cart-exact", "--rounds", "1", "--reps", "1", "--no-write"],
        cwd=ab.REPO, env=dict(os.environ, QUERCUS_JIT="interpret"), capture_output=True,
        text=True, timeout=120)
    assert out.returncode in (0, 1), out.stderr[-2000:]
    assert "| golf | quercus CART exact |" in out.stdout
    assert "rows more than 5% worse, 0 failed." in out.stdout
    worktrees = subprocess.run(["git", "worktree", "list"], cwd=ab.REPO, capture_output=True,
                               text=True).stdout
    assert "quercus-ab-" not in worktrees
    assert "Written" not in out.stdout                    # --no-write


def test_the_child_program_itself_puts_its_side_first_whatever_the_cwd_and_environment(
        tmp_path):
    side = _fake_checkout(tmp_path / "side")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run(ab.child_command(side, "benchmarks.compile_times", "learner_label",
                                          ["cart"]),
                         cwd=ab.REPO, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert str(side.path / "quercus" / "__init__.py") in out.stdout
