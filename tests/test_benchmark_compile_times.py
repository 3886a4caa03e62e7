"""benchmarks/compile_times.py's own plumbing: own compile times from nested events, the
per-function summary, and one measured process end to end."""

import pytest

from benchmarks import compile_times as ct


def test_own_time_is_a_compile_less_the_compiles_inside_it_at_any_depth():
    clock = ct.CompileClock()
    clock.start("top", 0.0)
    clock.start("mid", 1.0)
    clock.start("leaf", 2.0)
    clock.end(2.5, "s")      # leaf: 0.5
    clock.end(4.0, "s")      # mid: 3.0 - 0.5
    clock.start("sibling", 5.0)
    clock.end(6.0, "s")      # sibling: 1.0
    clock.end(10.0, "s")     # top: 10 - 3 (mid, leaf inside) - 1
    assert [r[:2] for r in clock.records] == [("leaf", 0.5), ("mid", 2.5), ("sibling", 1.0),
                                              ("top", 6.0)]
    assert sum(r[1] for r in clock.records) == pytest.approx(10.0)


def test_llvm_time_goes_to_the_innermost_compile_and_nested_locks_count_once():
    clock = ct.CompileClock()
    clock.llvm_start(0.0)    # outside any compile (loading a cached kernel): not counted
    clock.llvm_end(0.5)
    clock.start("outer", 1.0)
    clock.llvm_start(1.0)
    clock.llvm_start(1.2)    # the lock taken again inside: one interval
    clock.llvm_end(1.4)
    clock.llvm_end(2.0)      # outer: 1.0
    clock.start("inner", 3.0)
    clock.llvm_start(3.0)
    clock.llvm_end(3.25)     # inner: 0.25
    clock.end(4.0, "s")
    clock.end(5.0, "s")
    assert [(r[0], r[2]) for r in clock.records] == [("inner", 0.25), ("outer", 1.0)]


def test_summary_adds_a_function_s_compiles_and_counts_its_distinct_signatures():
    rows = ct.summarize([("f", 1.0, 0.5, "(int64,)"), ("g", 0.5, 0.0, "(int64,)"),
                         ("f", 2.0, 1.0, "(Literal[int](0),)"), ("f", 0.25, 0.0, "(int64,)")])
    assert rows == [("f", 3.25, 1.5, 2), ("g", 0.5, 0.0, 1)]


def test_a_measured_process_reports_its_fit_and_the_table_names_its_shape():
    # Interpreted kernels: the plumbing end to end without a minute of compiling.
    result = ct.measure("c45", rows=30, cols=3, categorical=1, jit="interpret", timeout=600)
    assert result["wall"] > 0 and result["cpu"] > 0
    assert result["records"] == []
    text = ct.report(result, "c45", 30, 3, 1, top=5)
    assert "`C45Classifier().fit`, 30 x 3 float64 + 1 categorical columns" in text
    assert "compiling 0.0 s in 0 functions, 0.0 s of it in LLVM" in text


@pytest.mark.parametrize("argv", [["--out", "a/b"], ["--out", "x.md"], ["--cols", "2"]])
def test_bad_arguments_are_refused_before_anything_runs(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        ct.main(argv)
    assert exc.value.code == 2
    assert argv[0] in capsys.readouterr().err
