"""Routing a node's samples into its children (stable, with fractional copies)."""

import numpy as np

from ._jit import inner, kernel
from .criteria import is_regression
from .schema import CAT_BINARY, CAT_SUBSET, NUMERIC


@kernel
def route(codes_f, idx, kind, split_bin, cat_map, n_real_bins):
    """Child offset of each of the node's samples from its bin code; -1 when missing.

    ``cat_map`` maps a category code to its child for ordered subset splits. (int32: 4
    bytes a row less at the root of a big fit; a split has fewer than 2**31 children.)
    """
    return route_into(codes_f, idx, kind, split_bin, cat_map, n_real_bins,
                      np.empty(idx.shape[0], dtype=np.int32))


@inner
def route_into(codes_f, idx, kind, split_bin, cat_map, n_real_bins, branch):
    """:func:`route` written into ``branch`` (int32, a slot per sample of ``idx``), which
    it returns."""
    m = idx.shape[0]
    for i in range(m):
        c = codes_f[idx[i]]
        if c == n_real_bins:
            branch[i] = -1
        elif kind == NUMERIC:
            branch[i] = 0 if c <= split_bin else 1
        elif kind == CAT_BINARY:
            branch[i] = 0 if c == split_bin else 1
        elif kind == CAT_SUBSET:
            branch[i] = cat_map[c]
        else:
            branch[i] = c
    return branch


@kernel
def scatter(idx, wi, branch, n_children, shares, y, y2, n_stats, criterion, unit):
    """Split the node's (sample, weight) lists into its children's.

    A sample with ``branch >= 0`` goes to that child with its weight; ``branch == -1``
    (C4.5's rule for a missing value) sends it to every child ``c`` with weight
    ``wi * shares[c]`` (children with share 0 get no copy). Order is kept (stable).

    Returns (child_idx, child_w, offsets, child_stats, child_n): child ``c`` owns
    ``child_idx[offsets[c]:offsets[c + 1]]``. With ``unit`` (every weight is 1 and no
    sample is spread) ``child_w`` is empty: the caller has its ones already.
    """
    m = idx.shape[0]
    child_n = np.zeros(n_children, dtype=np.int64)
    for i in range(m):
        b = branch[i]
        if b >= 0:
            child_n[b] += 1
        else:
            for c in range(n_children):
                if shares[c] > 0.0:
                    child_n[c] += 1
    offsets = np.zeros(n_children + 1, dtype=np.int64)
    for c in range(n_children):
        offsets[c + 1] = offsets[c] + child_n[c]
    out_idx = np.empty(offsets[n_children], dtype=np.int64)
    out_w = np.empty(0 if unit else offsets[n_children])
    stats = np.zeros((n_children, n_stats))
    pos = offsets[:n_children].copy()
    for i in range(m):
        b = branch[i]
        s = idx[i]
        for c in range(n_children):
            if b >= 0:
                if c != b:
                    continue
                w = wi[i]
            else:
                if shares[c] <= 0.0:
                    continue
                w = wi[i] * shares[c]
            out_idx[pos[c]] = s
            if not unit:
                out_w[pos[c]] = w
            pos[c] += 1
            if is_regression(criterion):
                stats[c, 0] += w
                stats[c, 1] += w * y[s]
                stats[c, 2] += w * y2[s]
            else:
                stats[c, np.int64(y[s])] += w
    return out_idx, out_w, offsets, stats, child_n
