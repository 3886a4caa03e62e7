"""Stable partition of a node's samples into its children."""

import numpy as np
from numba import njit

from .splits import CAT_BINARY, MULTIWAY, NUMERIC


@njit(cache=True, nogil=True)
def branch_of(code, kind, split_bin):
    """Child offset of a training sample with bin ``code`` at a split."""
    if kind == NUMERIC:
        return 0 if code <= split_bin else 1
    if kind == CAT_BINARY:
        return 0 if code == split_bin else 1
    return code  # MULTIWAY: one child per category


@njit(cache=True, nogil=True)
def partition(order, start, end, codes_f, kind, split_bin, n_children, y, w, n_classes):
    """Reorder ``order[start:end]`` so that each child's samples are contiguous.

    The partition is stable (children keep the parents' relative order), which keeps fits
    deterministic. Returns the children's sample counts and weighted class counts.
    """
    m = end - start
    child_n = np.zeros(n_children, dtype=np.int64)
    child_value = np.zeros((n_children, n_classes))
    branch = np.empty(m, dtype=np.int64)
    for i in range(m):
        s = order[start + i]
        b = branch_of(codes_f[s], kind, split_bin)
        branch[i] = b
        child_n[b] += 1
        child_value[b, y[s]] += w[s]
    pos = np.empty(n_children, dtype=np.int64)
    acc = 0
    for b in range(n_children):
        pos[b] = acc
        acc += child_n[b]
    tmp = np.empty(m, dtype=order.dtype)
    for i in range(m):
        b = branch[i]
        tmp[pos[b]] = order[start + i]
        pos[b] += 1
    for i in range(m):
        order[start + i] = tmp[i]
    return child_n, child_value
