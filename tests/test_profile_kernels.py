"""The kernel profiler's own pieces (benchmarks/profile_kernels.py): naming numba's
symbols, mapping compiled functions to their addresses, and reading perf's report."""

import shutil

import numba
import numpy as np
import pytest

from benchmarks.profile_kernels import (compiled_functions, perf_map_lines, shares,
                                         short_name, source_chains)


def test_short_name_reads_the_length_prefixed_parts_of_a_numba_symbol():
    assert short_name("_ZN7quercus8_kernels7subtree12grow_subtreeB2v1B62c8tJTIeFIjx"
                      "E5ArrayItLi2E1F7mutable7alignedE") == "quercus._kernels.subtree.grow_subtree"
    assert short_name("_ZN7cpython7quercus8_kernels6splits5lowerB3v12E") == \
        "cpython.quercus._kernels.splits.lower"
    assert short_name("NRT_decref") == "NRT_decref"


def test_shares_add_up_one_name_compiled_into_several_kernels():
    report = """# Samples: 3K of event 'cpu-clock'
    30.00%  [.] quercus._kernels.splits.scan_ordered
    12.50%  [.] quercus._kernels.splits.scan_ordered
    20.00%  [.] malloc
     1.25%  [k] clear_page_erms
"""
    assert shares(report, 2) == [(42.5, "quercus._kernels.splits.scan_ordered"),
                                 (20.0, "malloc")]
    assert shares(report, 10)[-1] == (1.25, "clear_page_erms")


@pytest.mark.skipif(shutil.which("nm") is None, reason="needs nm (binutils)")
def test_perf_map_names_a_function_compiled_in_this_process_at_its_address():
    @numba.njit
    def add_one(a):
        return a + 1.0

    add_one(np.zeros(3))
    lines = perf_map_lines([add_one])
    named = [ln.split() for ln in lines if ln.split()[2].endswith(".add_one")]
    assert named, lines
    address, size, _ = named[0]
    assert int(address, 16) > 0 and int(size, 16) > 0
    # Different functions get different addresses.
    assert len({ln.split()[0] for ln in lines}) == len(lines)


def test_a_case_s_rows_are_read_from_its_csv_with_its_task(tmp_path, monkeypatch):
    import argparse

    import pandas as pd

    from benchmarks import cv_small
    from benchmarks.profile_kernels import training_rows
    pd.DataFrame({"x0": ["a", "b", "a"], "x1": [1.0, None, 3.0],
                  "y": [0.5, 1.5, 2.5]}).to_csv(tmp_path / "case99.csv", index=False)
    monkeypatch.setattr(cv_small, "CACHE", tmp_path)
    args = argparse.Namespace(case="case99:x0:anova", set=None, rows=0, cols=0)
    X, y, task, cats = training_rows(args)
    assert task == "regression" and cats == []
    assert list(X.columns) == ["x0", "x1"] and X["x1"].isna().tolist() == [False, True, False]
    assert np.asarray(y).tolist() == [0.5, 1.5, 2.5]


@pytest.mark.skipif(shutil.which("nm") is None or shutil.which("addr2line") is None,
                    reason="needs nm and addr2line (binutils)")
def test_source_chains_put_samples_on_the_lines_of_the_sampled_function(tmp_path):
    @numba.njit(debug=True)  # (line tables)
    def doubled_sum(a):
        t = 0.0
        for v in a:
            t += v * 2.0
        return t

    doubled_sum(np.ones(5))
    functions = compiled_functions([doubled_sum], str(tmp_path))
    body = [f for f in functions if short_name(f[2]).endswith(".doubled_sum")
            and not short_name(f[2]).startswith(("cpython.", "cfunc."))]
    wrapper = [f for f in functions if short_name(f[2]).startswith("cpython.")]
    address, size = body[0][:2]
    ips = [address + k for k in range(0, size, 3)] + [1]  # (and one in no kernel)
    chains = source_chains(ips, functions)
    assert sum(chains.values()) == len(ips) and chains[("(elsewhere)",)] == 1
    first = doubled_sum.py_func.__code__.co_firstlineno
    lines = [int(chain[0].rpartition(":")[2]) for chain in chains
             if chain[0].startswith("test_profile_kernels.py:")
             and not chain[0].endswith("?")]
    assert lines and all(first <= line <= first + 5 for line in lines), chains
    # numba's Python wrapper has no line table (and sits after the body in the object):
    # its samples count under its name, none on the body's lines.
    address, size, symbol = wrapper[0][:3]
    assert source_chains(range(address, address + size, 3), functions) == {
        (short_name(symbol),): len(range(0, size, 3))}
