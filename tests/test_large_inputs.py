"""Inputs beyond 2^31 cells: kernels index with int64, so rows far into a huge matrix are
read where they are (sparse memory-mapped files: only the pages touched take room)."""

import numpy as np

from quercus._kernels.criteria import GINI
from quercus._kernels.histograms import build_histograms
from quercus._kernels.partition import route
from quercus._kernels.schema import NUMERIC, Binned
from quercus._kernels.splits import search_node

N_ROWS = 2**30 + 2**20  # two uint8 columns: 2^31 + 2^21 cells


def _sparse(path, dtype, shape, order):
    return np.memmap(path, dtype=dtype, mode="w+", shape=shape, order=order)


def test_kernels_read_cells_beyond_two_to_the_31(tmp_path):
    codes = _sparse(tmp_path / "codes", np.uint8, (N_ROWS, 2), "F")
    y = _sparse(tmp_path / "y", np.float64, (N_ROWS,), "C")
    far = np.arange(N_ROWS - 1_000, N_ROWS, dtype=np.int64)  # column 1: cells > 2^31
    assert (far[0] + N_ROWS) * codes.itemsize > 2**31
    codes[far, 1] = np.arange(1_000) % 10  # bins 0..9; bin 10 is the missing code
    y[far] = (np.arange(1_000) % 10 >= 6).astype(float)  # class 1 from bin 6 on
    w = np.ones(far.size)
    n_bins = np.array([1, 10], dtype=np.int64)
    offsets = np.array([0, 2, 13], dtype=np.int64)
    hist, hist_n = build_histograms(codes, np.array([1]), offsets, far, w, y, y, 2, GINI)
    assert hist_n[2:13].tolist() == [100] * 10 + [0]
    assert hist[2:12, 1].tolist() == [0.0] * 6 + [100.0] * 4
    values = np.arange(10, dtype=np.float64)
    bin_values = np.r_[0.0, values]  # exact bins: smallest = largest
    bin_offsets = np.array([0, 1, 11], dtype=np.int64)
    out = search_node(Binned(codes, n_bins, bin_values, bin_values, bin_offsets),
                      np.zeros(2, dtype=np.bool_), np.array([1]), far, w, y, y, 2, GINI, 0, 2,
                      1, 0.0, np.array([-1.0]))
    found, kind, _, dec, _, split_bin, thr = out[:7]
    assert found[0] and kind[0] == NUMERIC and split_bin[0] == 5 and thr[0] == 5.5
    assert dec[0] == 0.48  # a perfect split of 600 / 400
    branch = route(codes[:, 1], far, NUMERIC, 5, np.zeros(1, np.int64), 10)
    assert (branch == (np.arange(1_000) % 10 > 5)).all()
