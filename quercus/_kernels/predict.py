"""Routing samples through a fitted tree.

``X`` holds numeric values and category codes as float64; NaN is a missing value and a
category code of -1 one unseen at fit time.
"""

from typing import NamedTuple, Optional

import numpy as np
from numba import prange

from ._jit import inner, kernel, read_only
from .schema import CAT_BINARY, CAT_SUBSET, FRACTIONAL, LEAF, LEARNED, MULTIWAY, NUMERIC

# Rows per parallel task of the routing kernels: large enough to amortise a task's scratch
# stack, small enough to balance the threads.
CHUNK = 4096
# Rows routed together by the apply kernel (see _apply_rows): chosen by timing fewer and
# more (benchmarks/results/design_choices.md).
LANES = 8

STOP = -1    # the sample stops at this node (a category unseen at fit time)
SPREAD = -2  # C4.5: a missing value goes down every branch, weighted
SLOW = -3    # not a numeric split of a known value: take the general route


@kernel(inline="always")
def _numeric_step(x, node, kind, feature, threshold, first_child):
    """The common case, kept small so that it inlines: a known value at a numeric split.
    (Calling the general router with all the tree's arrays costs several times as much per
    step; a step that also handled categorical splits, or called out for them, made
    numeric trees route slower: the callers try :func:`_categorical_step` after this one.)"""
    if kind[node] != NUMERIC:
        return SLOW
    v = x[feature[node]]
    if np.isnan(v):
        return SLOW
    return first_child[node] + (1 if v > threshold[node] else 0)


@inner
def _categorical_step(x, node, k, feature, category, first_child, n_children, cat_map_start,
                      cat_map):
    """The step at a categorical split, tried after :func:`_numeric_step`: a one-category
    split (an unseen category, code -1, goes right there too), or a subset or multiway split
    of a category seen at fit time; SLOW for anything else (a missing value, a category
    without a branch). :func:`_route` takes its known categories from here too."""
    v = x[feature[node]]
    if np.isnan(v):
        return SLOW
    c = np.int64(v)
    if k == CAT_BINARY:
        return first_child[node] + (0 if c == category[node] else 1)
    if c < 0:
        return SLOW
    if k == CAT_SUBSET:
        return first_child[node] + cat_map[cat_map_start[node] + c]
    if k != MULTIWAY or c >= n_children[node]:  # unseen at a multiway node: it stops
        return SLOW
    return first_child[node] + c


@kernel(inline="always")
def _fast_args(t):
    """The tree's arrays the routing steps read (unpacked once per call of a routing
    kernel: unpacking them at every step would count references to each)."""
    return (t.kind, t.feature, t.threshold, t.category, t.first_child, t.n_children,
            t.cat_map_start, t.cat_map)


@inner
def next_node(x, node, t):
    """Child of ``node`` that row ``x`` goes to, or STOP, or SPREAD (``t``: the tree's
    kernel arguments)."""
    (kind, feature, threshold, category, first_child, n_children, missing_mode,
     missing_child, cat_map_start, cat_map, sur_start, sur_count, sur_feature, sur_kind,
     sur_threshold, sur_category, sur_flip) = t
    return _route(x, node, kind, feature, threshold, category, first_child, n_children,
                  missing_mode, missing_child, cat_map_start, cat_map, sur_start, sur_count,
                  sur_feature, sur_kind, sur_threshold, sur_category, sur_flip)


@inner
def _route(x, node, kind, feature, threshold, category, first_child, n_children,
           missing_mode, missing_child, cat_map_start, cat_map, sur_start, sur_count,
           sur_feature, sur_kind, sur_threshold, sur_category, sur_flip):
    k = kind[node]
    v = x[feature[node]]
    if np.isnan(v):
        mode = missing_mode[node]
        if mode == FRACTIONAL:
            return SPREAD
        if mode != LEARNED:
            for s in range(sur_start[node], sur_start[node] + sur_count[node]):
                xv = x[sur_feature[s]]
                if np.isnan(xv):
                    continue
                if sur_kind[s] == NUMERIC:
                    go = 1 if xv > sur_threshold[s] else 0
                else:
                    go = 0 if np.int64(xv) == sur_category[s] else 1
                if sur_flip[s]:
                    go = 1 - go
                return first_child[node] + go
        if missing_child[node] < 0:
            return STOP
        return first_child[node] + missing_child[node]
    if k == NUMERIC:
        return first_child[node] + (1 if v > threshold[node] else 0)
    # A known category: where it has no branch (unseen at fit time), the row stops here.
    nxt = _categorical_step(x, node, k, feature, category, first_child, n_children,
                            cat_map_start, cat_map)
    return STOP if nxt == SLOW else nxt


@kernel(inline="always")
def _spread(stack_node, stack_w, top, node, w, first_child, n_children, weighted_n):
    """Push the children of ``node`` with their shares of weight ``w`` (C4.5's rule for a
    missing value: the branches' training weights); returns the new stack top."""
    total = 0.0
    for c in range(first_child[node], first_child[node] + n_children[node]):
        total += weighted_n[c]
    for c in range(first_child[node], first_child[node] + n_children[node]):
        if weighted_n[c] > 0.0:
            stack_node[top] = c
            stack_w[top] = w * weighted_n[c] / total
            top += 1
    return top


def apply_tree(X, t, rt, check_inf=False, node_out=None):
    """Index of the node where each row ends: a leaf, or the internal node where it
    stopped (unseen category) or spread over the branches (C4.5 missing value). More than
    one chunk of rows is routed in parallel.

    With ``node_out`` (n_nodes, k), returns instead each row's ``node_out[node]``: the same
    numbers as ``node_out[apply_tree(...)]``, taken by each parallel task for its rows
    while they are in cache, instead of by NumPy on one thread afterwards.

    With ``check_inf``, returns (result, has_inf): each parallel task also looks for an
    infinite value in its block of rows as it reads it (the result is meaningless when
    one is found). A separate pass over X, as the caller's check would make, read all of
    it once more from memory: a sizeable part of a big prediction.

    ``rt``: the tree's :func:`route_table` (made once per fitted tree by the caller)."""
    n = X.shape[0]
    nodes = np.empty(n, dtype=np.int64)
    if node_out is None:
        vals, node_out = _NO_VALS, _NO_VALS
    else:
        node_out = np.ascontiguousarray(node_out, dtype=np.float64)
        vals = np.empty((n, node_out.shape[1]))
    # One kernel type for every call: node_out read-only, the table's two flat views.
    node_out = read_only(node_out)
    if X.dtype == np.float32 and rt.narrow is not None:
        rv, rc = rt.narrow.view(np.float32).reshape(-1), rt.narrow.reshape(-1)
    else:
        rv, rc = rt.wide.view(np.float64).reshape(-1), rt.wide.view(np.int32).reshape(-1)
    bad = np.zeros(max(1, (n + CHUNK - 1) // CHUNK) if check_inf else 0, dtype=np.bool_)
    X = read_only(np.ascontiguousarray(X) if n <= CHUNK else X)
    if n <= CHUNK:
        if check_inf:
            bad[0] = np.isinf(X).any()
        _apply_rows(X, t, rv, rc, 0, n, nodes)
        if vals is not _NO_VALS:
            vals = node_out[nodes]
    elif not X.flags.c_contiguous:
        _apply_parallel_blocks(X, t, rv, rc, nodes, node_out, vals, bad)
    else:
        _apply_parallel(X, t, rv, rc, nodes, node_out, vals, bad)
    out = nodes if vals is _NO_VALS else vals
    return (out, bool(bad.any())) if check_inf else out


# node_out and its result when apply_tree is not given one (see _apply_parallel).
_NO_VALS = np.empty((0, 0))


class RouteTable(NamedTuple):
    """:func:`route_table`'s two tables: for float64 rows, and for float32 rows (None when
    the tree has a categorical split)."""

    wide: np.ndarray
    narrow: Optional[np.ndarray]


def route_table(t):
    """The records the routing loop reads, one small record a node, so that a step reads
    one place instead of one in each of the tree's arrays: a :class:`RouteTable` (for
    float64 rows, for float32 rows). A step goes to ``child + (x[feature] > value)``:

    - a numeric split: its threshold, feature and first child;
    - a leaf: +inf, feature 0 and itself, so that it routes to itself (no value is above
      +inf, and NaN compares false) and the step needs no branch on the kind of node;
    - a categorical split: its feature, ``-2 - first child``, a negative step, the sign of
      the slow way (:func:`_apply_rows`), and as value the category of a one-category
      split (>= 0), ``-1 - cat_map_start`` for a subset split, NaN for a multiway split.

    For float64 rows, 16 bytes a node: (n_nodes, 2) int64, column 0 read as float64 the
    value, column 1 read as two int32 the feature and the child. For float32 rows, 12
    bytes a node, a quarter fewer cache lines for the tree: (n_nodes, 3) int32, the value
    read as float32, the feature, the child; None for a tree with a categorical split (its
    rows are float64). That value is the largest float32 at or below the threshold ``t``
    (-inf below float32's range), and a float32 ``x`` goes the way it goes when compared
    with ``t`` in float64: ``x > t`` implies ``x > value`` (``value <= t``), ``x <= t``
    implies ``x <= value`` (``x`` is a float32 at or below ``t``), and NaN compares false
    with both."""
    kind, feature, threshold, category, first_child = (t.kind, t.feature, t.threshold,
                                                       t.category, t.first_child)
    n = kind.shape[0]
    leaf, numeric = kind == LEAF, kind == NUMERIC
    value = np.select([numeric, leaf, kind == CAT_BINARY, kind == CAT_SUBSET],
                      [threshold, np.inf, category, -1 - t.cat_map_start], np.nan)
    feat = np.where(leaf, 0, feature)
    child = np.select([numeric, leaf], [first_child, np.arange(n)], -2 - first_child)
    wide = np.empty((n, 2), dtype=np.int64)
    wide.view(np.float64)[:, 0] = value
    wide.view(np.int32)[:, 2] = feat
    wide.view(np.int32)[:, 3] = child
    if not (leaf | numeric).all():
        return RouteTable(wide, None)
    with np.errstate(over="ignore"):  # to +-inf beyond float32's range, then down
        low = value.astype(np.float32)
        low = np.where(low > value, np.nextafter(low, np.float32(-np.inf)), low)
    narrow = np.empty((n, 3), dtype=np.int32)
    narrow.view(np.float32)[:, 0] = low
    narrow[:, 1] = feat
    narrow[:, 2] = child
    return RouteTable(wide, narrow)


@kernel(parallel=True)
def _apply_parallel_blocks(X, t, rv, rc, nodes, node_out, vals, bad):
    """:func:`_apply_parallel` for a column-ordered X: each task copies its block of rows
    into row order first (in cache, in parallel) instead of the caller copying all of X."""
    n = X.shape[0]
    for c in prange((n + CHUNK - 1) // CHUNK):
        s, e = c * CHUNK, min(n, (c + 1) * CHUNK)
        block = np.ascontiguousarray(X[s:e])
        if bad.shape[0] > 0:
            bad[c] = _has_inf(block)
        _apply_rows(block, t, rv, rc, 0, e - s, nodes[s:e])
        if vals.shape[0] > 0:
            _take_rows(node_out, nodes[s:e], vals[s:e])


@kernel(parallel=True)
def _apply_parallel(X, t, rv, rc, nodes, node_out, vals, bad):
    """Rows routed in parallel tasks of CHUNK rows; with a non-empty ``bad`` (one flag a
    task), each task first reads its rows through for an infinite value, which also brings
    them into cache for the routing. With a non-empty ``vals``, each task then writes its
    rows' ``node_out``."""
    n = X.shape[0]
    for c in prange((n + CHUNK - 1) // CHUNK):
        s, e = c * CHUNK, min(n, (c + 1) * CHUNK)
        if bad.shape[0] > 0:
            bad[c] = _has_inf(X[s:e])
        _apply_rows(X, t, rv, rc, s, e, nodes[s:e])
        if vals.shape[0] > 0:
            _take_rows(node_out, nodes[s:e], vals[s:e])


@kernel
def _take_rows(table, index, out):
    """``out[i] = table[index[i]]``. A kernel of its own, not part of the routing loop:
    compiled once whatever X's type, where the loop is compiled for each."""
    for i in range(index.shape[0]):
        for k in range(out.shape[1]):
            out[i, k] = table[index[i], k]


@inner
def _has_inf(rows):
    """Whether the row-ordered block ``rows`` holds an infinite value (NaN is not one).
    Read as one flat run, which vectorises better than row by row."""
    flat = rows.reshape(-1)
    found = False
    for k in range(flat.shape[0]):
        found |= abs(flat[k]) == np.inf
    return found


@kernel
def _apply_rows(X, t, rv, rc, start, stop, nodes):
    """Rows ``start..stop`` of X routed with a :func:`route_table` (``rv``, ``rc``: its
    records read flat as values and as int32): row ``i`` ends in node
    ``nodes[i - start]``."""
    (kind, feature, threshold, category, first_child, n_children, missing_mode,
     missing_child, cat_map_start, cat_map, sur_start, sur_count, sur_feature, sur_kind,
     sur_threshold, sur_category, sur_flip) = t
    # Record strides and offsets (2 and 4 in the float64 table, 3 and 3 in the float32
    # one), and the indices of the routing loop, as unsigned integers: numba wraps a
    # signed index around (negative from the end) at every read, several instructions
    # each, and with them the loop ran out of registers.
    v_stride = np.uint64(rv.shape[0] // kind.shape[0])
    c_stride = np.uint64(rc.shape[0] // kind.shape[0])
    f_at = c_stride - np.uint64(2)
    c_at = c_stride - np.uint64(1)
    # LANES rows go down together, one step each in turn, so that their memory reads
    # overlap instead of waiting one after another (a row's next node depends on its last
    # read). A lane whose row ends (at its leaf, or early) takes the next row at once. A
    # leaf routes to itself, so a step has no branch on the kind of node: its branches are
    # a row's end (about one step in the tree's depth) and, rarely taken on numeric data,
    # a categorical split or a missing value. The general router is called only for a
    # missing value or a category without a branch (passing it the tree's arrays costs
    # several times a step).
    node = np.zeros(LANES, dtype=np.int64)
    row = np.empty(LANES, dtype=np.int64)
    live = np.zeros(LANES, dtype=np.bool_)
    nxt_row = start
    active = 0
    for r in range(LANES):
        row[r] = min(nxt_row, stop - 1)
        if nxt_row < stop:
            live[r] = True
            nxt_row += 1
            active += 1
    while active > 0:
        for r in range(LANES):
            ur = np.uint64(r)
            nd = node[ur]
            i = row[ur]
            u = np.uint64(nd) * c_stride
            v = X[np.uint64(i), np.uint64(rc[u + f_at])]
            nn = np.int64(rc[u + c_at]) + (1 if v > rv[np.uint64(nd) * v_stride] else 0)
            # A categorical split (a negative step), or a missing value anywhere but at a
            # leaf (which routes to itself).
            if nn < 0 or (nn != nd and np.isnan(v)):
                c = rv[np.uint64(nd) * v_stride]
                first = np.int64(rc[u + c_at])
                nn = SLOW
                if first < 0 and not np.isnan(v):
                    first = -2 - first
                    if c >= 0.0:  # a == c (an unseen category, -1, goes right)
                        nn = first + (0 if v == c else 1)
                    elif c < 0.0 and v >= 0.0:  # a subset split, a category seen at fit
                        nn = first + cat_map[np.int64(-1.0 - c) + np.int64(v)]
                    elif np.isnan(c) and v >= 0.0 and v < n_children[nd]:  # multiway
                        nn = first + np.int64(v)
                if nn == SLOW:  # a missing value, or a category without a branch
                    nn = _route(X[i], nd, kind, feature, threshold, category, first_child,
                                n_children, missing_mode, missing_child, cat_map_start,
                                cat_map, sur_start, sur_count, sur_feature, sur_kind,
                                sur_threshold, sur_category, sur_flip)
                if nn < 0:  # it stops here: an unseen category, or spread (C4.5)
                    nn = nd
            if nn == nd:  # the row ends here (a leaf routes to itself): the next one
                if live[r]:
                    nodes[i - start] = nd
                    if nxt_row < stop:
                        row[r] = nxt_row
                        nxt_row += 1
                        nn = 0
                    else:
                        live[r] = False
                        active -= 1
            node[ur] = nn


def predict_tree(X, t, weighted_n, node_out):
    """Prediction of each row: ``node_out`` of the node reached; a row spread over the
    branches by a missing value gets the average of its nodes' ``node_out`` weighted by
    the branches' training weights (C4.5's rule). More than one chunk of rows is routed in
    parallel, each chunk with its own scratch stack."""
    out = np.zeros((X.shape[0], node_out.shape[1]))
    X = read_only(np.ascontiguousarray(X) if X.shape[0] <= CHUNK else X)
    if X.shape[0] <= CHUNK:
        _predict_rows(X, t, weighted_n, node_out, 0, X.shape[0], out)
    elif not X.flags.c_contiguous:
        _predict_parallel_blocks(X, t, weighted_n, node_out, out)
    else:
        _predict_parallel(X, t, weighted_n, node_out, out)
    return out


@kernel(parallel=True)
def _predict_parallel_blocks(X, t, weighted_n, node_out, out):
    """:func:`_predict_parallel` for a column-ordered X, block by block (see
    :func:`_apply_parallel_blocks`)."""
    n = X.shape[0]
    for c in prange((n + CHUNK - 1) // CHUNK):
        s, e = c * CHUNK, min(n, (c + 1) * CHUNK)
        block = np.ascontiguousarray(X[s:e])
        _predict_rows(block, t, weighted_n, node_out, 0, e - s, out[s:e])


@kernel(parallel=True)
def _predict_parallel(X, t, weighted_n, node_out, out):
    n = X.shape[0]
    for c in prange((n + CHUNK - 1) // CHUNK):
        _predict_rows(X, t, weighted_n, node_out, c * CHUNK, min(n, (c + 1) * CHUNK), out)


@kernel
def _predict_rows(X, t, weighted_n, node_out, start, stop, out):
    (kind, feature, threshold, category, first_child, n_children, cat_map_start,
     cat_map) = _fast_args(t)
    n_nodes, n_out = node_out.shape
    stack_node = np.empty(n_nodes, dtype=np.int64)
    stack_w = np.empty(n_nodes)
    for i in range(start, stop):
        stack_node[0] = 0
        stack_w[0] = 1.0
        top = 1
        x = X[i]
        while top > 0:
            top -= 1
            node = stack_node[top]
            w = stack_w[top]
            nxt = 0
            while kind[node] != LEAF:
                nxt = _numeric_step(x, node, kind, feature, threshold, first_child)
                if nxt == SLOW:
                    nxt = _categorical_step(x, node, kind[node], feature, category,
                                             first_child, n_children, cat_map_start, cat_map)
                if nxt == SLOW:
                    nxt = next_node(x, node, t)
                if nxt < 0:
                    break
                node = nxt
            if nxt == SPREAD:
                top = _spread(stack_node, stack_w, top, node, w, first_child, n_children,
                              weighted_n)
                continue
            for k in range(n_out):
                out[i, k] += w * node_out[node, k]


@kernel
def path_lengths_and_nodes(X, t, max_len):
    """Nodes visited by each row, root first, as a CSR (indptr, indices) pair."""
    (kind, feature, threshold, category, first_child, n_children, cat_map_start,
     cat_map) = _fast_args(t)
    n = X.shape[0]
    indptr = np.zeros(n + 1, dtype=np.int64)
    buf = np.empty(n * max_len, dtype=np.int64)
    pos = 0
    for i in range(n):
        node = 0
        buf[pos] = 0
        pos += 1
        x = X[i]
        while kind[node] != LEAF:
            nxt = _numeric_step(x, node, kind, feature, threshold, first_child)
            if nxt == SLOW:
                nxt = _categorical_step(x, node, kind[node], feature, category,
                                         first_child, n_children, cat_map_start, cat_map)
            if nxt == SLOW:
                nxt = next_node(x, node, t)
            if nxt < 0:
                break
            node = nxt
            buf[pos] = node
            pos += 1
        indptr[i + 1] = pos
    return indptr, buf[:pos]


@kernel
def accumulate_node_stats(X, y, y2, w, t, weighted_n, n_stats, regression, start=0,
                          count=False):
    """Stats of the rows of ``X`` reaching every node (class weights, or regression sums
    ``[w, w*y, w*y2]``), each row counted at every node of its path from ``start``; a row
    spread over the branches by a missing value (C4.5) counts in each with the branch's share
    of its weight. A row that stops early (unseen category) counts only down to there.
    With ``count``, every visit adds 1 instead (the number of samples reaching a node)."""
    out = np.zeros((t.kind.shape[0], n_stats))
    accumulate_into(out, X, np.arange(X.shape[0]), y, y2, w, t, weighted_n, regression,
                    start, count)
    return out


@inner
def accumulate_into(out, X, rows, y, y2, w, t, weighted_n, regression, start, count):
    """:func:`accumulate_node_stats` of the rows ``rows`` of ``X`` and ``y`` (weights
    ``w[i]`` for ``rows[i]``), adding into ``out`` (n_nodes, n_stats)."""
    (kind, feature, threshold, category, first_child, n_children, cat_map_start,
     cat_map) = _fast_args(t)
    n = rows.shape[0]
    n_nodes = kind.shape[0]
    stack_node = np.empty(n_nodes, dtype=np.int64)
    stack_w = np.empty(n_nodes)
    for j in range(n):
        i = rows[j]
        stack_node[0] = start
        stack_w[0] = w[j]
        top = 1
        while top > 0:
            top -= 1
            node = stack_node[top]
            wt = stack_w[top]
            while True:
                if count:
                    out[node, 0] += 1.0
                elif regression:
                    out[node, 0] += wt
                    out[node, 1] += wt * y[i]
                    out[node, 2] += wt * y2[i]
                else:
                    out[node, np.int64(y[i])] += wt
                if kind[node] == LEAF:
                    break
                nxt = _numeric_step(X[i], node, kind, feature, threshold, first_child)
                if nxt == SLOW:
                    nxt = _categorical_step(X[i], node, kind[node], feature, category,
                                             first_child, n_children, cat_map_start, cat_map)
                if nxt == SLOW:
                    nxt = next_node(X[i], node, t)
                if nxt == SPREAD:
                    top = _spread(stack_node, stack_w, top, node, wt, first_child, n_children,
                                  weighted_n)
                    break
                if nxt < 0:
                    break
                node = nxt


@kernel
def child_branches(X, rows, t, node):
    """Branch of each of the rows ``rows`` of ``X`` at ``node``: the child's offset (0 for
    the first child), ``SPREAD`` for a row C4.5 shares out over every branch (a missing
    value), ``STOP`` for one that goes nowhere. One int32 a row, where its weights per
    branch would take a (rows x branches) matrix (a 1,000-category multiway split)."""
    (kind, feature, threshold, category, first_child, n_children, cat_map_start,
     cat_map) = _fast_args(t)
    first = first_child[node]
    out = np.empty(rows.shape[0], dtype=np.int32)
    for i in range(rows.shape[0]):
        x = X[rows[i]]
        nxt = _numeric_step(x, node, kind, feature, threshold, first_child)
        if nxt == SLOW:
            nxt = _categorical_step(x, node, kind[node], feature, category,
                                     first_child, n_children, cat_map_start, cat_map)
        if nxt == SLOW:
            nxt = next_node(x, node, t)
        if nxt >= 0:
            out[i] = nxt - first
        elif nxt == SPREAD:
            out[i] = SPREAD
        else:
            out[i] = STOP
    return out


@inner
def children_weight(weighted_n, first, k):
    """Training weight of the ``k`` children from ``first`` on: what a spread row's weight
    is shared out by."""
    total = 0.0
    for c in range(k):
        total += weighted_n[first + c]
    return total


@inner
def stop_node_moments(indptr, indices, collapse, thresholds, node_label, node_value, target,
                      w, regression):
    """Mean and sum of squared deviations, over the rows, of each row's loss in the pruned
    trees of a weakest-link sequence, without a (thresholds x rows) matrix. Rows' paths
    through the full tree are the CSR pair ``indptr``/``indices`` (root first); node ``v``
    is a leaf of the subtree at threshold ``a`` when ``collapse[v] <= a``, and a row stops
    at the first such node of its path, else at its path's end. The loss is the
    misclassified weight ``w`` when ``node_label`` of the stop node differs from the row's
    class code ``target``, or ``w * (target - node_value)**2`` when ``regression``.
    ``thresholds`` ascending. Two passes, as ``mean`` then ``((e - mean)**2).sum()``."""
    n = indptr.shape[0] - 1
    k = thresholds.shape[0]
    mean = np.zeros(k)
    m2 = np.zeros(k)
    if n == 0:
        return mean, m2
    longest = 0
    for i in range(n):
        longest = max(longest, indptr[i + 1] - indptr[i])
    rec = np.empty(longest, dtype=np.int64)  # (one row's at a time)
    for second in range(2):
        for i in range(n):
            s, e = indptr[i], indptr[i + 1]
            # The path's record lows of collapse: a row stops at the first record at or
            # below the threshold, which moves up the path as the threshold grows.
            n_rec = 0
            low = np.inf
            for j in range(s, e):
                c = collapse[indices[j]]
                if c < low:
                    low = c
                    rec[n_rec] = j
                    n_rec += 1
            q = n_rec
            for a in range(k):
                while q > 0 and collapse[indices[rec[q - 1]]] <= thresholds[a]:
                    q -= 1
                node = indices[rec[q]] if q < n_rec else indices[e - 1]
                if regression:
                    d = target[i] - node_value[node]
                    loss = w[i] * d * d
                else:
                    loss = w[i] if node_label[node] != np.int64(target[i]) else 0.0
                if second:
                    d = loss - mean[a]
                    m2[a] += d * d
                else:
                    mean[a] += loss
        if not second:
            for a in range(k):
                mean[a] /= n
    return mean, m2
