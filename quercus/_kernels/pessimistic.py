"""C4.5's pessimistic error estimate, and the estimate of a subtree for re-sorted data."""

import numpy as np

from ._jit import inner, kernel
from .predict import SPREAD, accumulate_into, child_branches, children_weight
from .schema import LEAF
from .tables import grown, ordered_sum

# Flags passed as np.bool_ values: a literal True / False would compile the callee again
# for each literal.
_NO = np.bool_(False)
_YES = np.bool_(True)


@kernel
def added_errors_z(n, e, cf, z):
    """Extra errors at confidence ``cf`` (``z`` its upper normal quantile) for ``e`` errors
    in ``n`` cases: the upper confidence limit of the binomial, as in Quinlan's code and
    Weka's J48 (below one error, interpolated between 0 and 1 error)."""
    if n <= 0.0:
        return 0.0
    if e < 1.0:
        base = n * (1.0 - cf ** (1.0 / n))
        if e == 0.0:
            return base
        return base + e * (added_errors_z(n, 1.0, cf, z) - base)
    if e + 0.5 >= n:
        return max(n - e, 0.0)
    f = (e + 0.5) / n
    r = (f + z * z / (2.0 * n) + z * np.sqrt(f / n - f * f / n + z * z / (4.0 * n * n))) / (
        1.0 + z * z / n)
    return r * n - e


@inner
def leaf_estimated_errors(dist, cf, z):
    """Training errors of a leaf with class weights ``dist`` plus the pessimistic extra."""
    n = 0.0
    top = 0.0
    for k in range(dist.shape[0]):
        n += dist[k]
        top = max(top, dist[k])
    e = n - top if n > 0.0 else 0.0
    return e + added_errors_z(n, e, cf, z)


@kernel
def collapse_no_better(kind, first_child, n_children, train_err):
    """C4.5's first pass, top-down: a subtree whose leaves make no fewer training errors
    than its root as a leaf (``train_err``; within 1e-3) becomes that leaf. Marks them in
    ``kind`` and returns (the collapsed nodes in order, their subtrees' error sums, their
    leaves). Children come after their parents, so one backward pass sums the leaves."""
    n = kind.shape[0]
    below = np.zeros(n)
    leaves = np.zeros(n, dtype=np.int64)
    for v in range(n - 1, -1, -1):
        if kind[v] == LEAF:
            below[v] = train_err[v]
            leaves[v] = 1
        else:
            for c in range(first_child[v], first_child[v] + n_children[v]):
                below[v] += below[c]
                leaves[v] += leaves[c]
    out = np.empty(n, dtype=np.int64)
    n_out = 0
    stack = np.empty(n, dtype=np.int64)
    stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        v = stack[top]
        if kind[v] == LEAF:
            continue
        if below[v] >= train_err[v] - 1e-3:
            out[n_out] = v
            n_out += 1
            kind[v] = LEAF
        else:
            for c in range(first_child[v], first_child[v] + n_children[v]):
                stack[top] = c
                top += 1
    nodes = out[:n_out].copy()
    return nodes, below[nodes], leaves[nodes]


@inner
def _class_weights(y, rows, w, n_classes):
    dist = np.zeros(n_classes)
    for i in range(rows.shape[0]):
        dist[np.int64(y[rows[i]])] += w[i]
    return dist


@inner
def _subtree_nodes(t, node, out, stack):
    """Write the nodes of the subtree of ``node`` into ``out`` in depth-first order (last
    child first) and return how many; ``out`` and ``stack`` hold every node of the tree
    (allocated once per pruning, not once per node)."""
    kind, first_child, n_children = t.kind, t.first_child, t.n_children
    n = 0
    stack[0] = node
    top = 1
    while top > 0:
        top -= 1
        v = stack[top]
        out[n] = v
        n += 1
        if kind[v] != LEAF:
            for c in range(n_children[v]):
                stack[top] = first_child[v] + c
                top += 1
    return n


@inner
def _count_leaves(t, node, out, stack):
    n = 0
    for i in range(_subtree_nodes(t, node, out, stack)):
        if t.kind[out[i]] == LEAF:
            n += 1
    return n


@inner
def _rows_with_weight(rows, weights):
    """The ``rows`` whose ``weights`` are not zero, and those weights."""
    n_in = 0
    for i in range(rows.shape[0]):
        if weights[i] != 0.0:
            n_in += 1
    out = np.empty(n_in, dtype=np.int64)
    out_w = np.empty(n_in)
    k = 0
    for i in range(rows.shape[0]):
        if weights[i] != 0.0:
            out[k] = rows[i]
            out_w[k] = weights[i]
            k += 1
    return out, out_w


@inner
def _other_branch_weights(wts, branch, j, weight_j, total):
    """Each row's weight down every branch but ``j`` (of ``branch``, see
    :func:`quercus._kernels.predict.child_branches`): none for a row of branch ``j``, the
    other branches' share ``1 - weight_j / total`` for a spread row, all of it else."""
    out = np.empty(wts.shape[0])
    for i in range(wts.shape[0]):
        b = branch[i]
        if b == j:
            share = wts[i]
        elif b == SPREAD:
            share = wts[i] * weight_j / total
        else:
            share = 0.0
        out[i] = wts[i] - share
    return out


@kernel
def _bucket_rows(branch, k):
    """The positions of ``branch``'s rows grouped by branch, in order within each: branch
    ``j``'s are ``order[starts[j]:starts[j + 1]]``, and ``order[starts[k]:]`` are the
    spread rows (a counting sort; a stopping row is in none). Once per node, so that each
    child's rows cost its own count, not the node's (a 1,000-way split)."""
    starts = np.zeros(k + 2, dtype=np.int64)
    for i in range(branch.shape[0]):
        b = branch[i]
        if b >= 0:
            starts[b + 1] += 1
        elif b == SPREAD:
            starts[k + 1] += 1
    for j in range(k + 1):
        starts[j + 1] += starts[j]
    order = np.empty(starts[k + 1], dtype=np.int64)
    fill = starts[:k + 1].copy()
    for i in range(branch.shape[0]):
        b = branch[i]
        j = b if b >= 0 else (k if b == SPREAD else -1)
        if j >= 0:
            order[fill[j]] = i
            fill[j] += 1
    return order, starts


@kernel
def _child_rows(rows, wts, order, starts, j, weight_j, total):
    """The rows going down branch ``j`` (those of a non-zero weight) and their weights:
    all of a row of that branch, the branch's share ``weight_j / total`` of a spread row;
    from the node's :func:`_bucket_rows`, the branch's own rows merged by position with the
    spread ones (the rows in the node's order)."""
    k = starts.shape[0] - 2
    a, a_end = starts[j], starts[j + 1]
    s, s_end = starts[k], starts[k + 1]
    out = np.empty(a_end - a + s_end - s, dtype=np.int64)
    out_w = np.empty(out.shape[0])
    n = 0
    while a < a_end or s < s_end:
        if s >= s_end or (a < a_end and order[a] < order[s]):
            i = order[a]
            share = wts[i]
            a += 1
        else:
            i = order[s]
            share = wts[i] * weight_j / total
            s += 1
        if share != 0.0:
            out[n] = rows[i]
            out_w[n] = share
            n += 1
    return out[:n], out_w[:n]


@inner
def _raise_branch(X, rows, y, w, t, weighted_n, value, n_node_samples, rho, node, largest,
                  scratch):
    """Subtree raising: ``largest`` replaces ``node`` and the node's rows are re-sorted
    into its subtree (class weights, weight and sample count of every node below; a
    branch the rows no longer reach predicts as its parent)."""
    n_nodes = t.kind.shape[0]
    accumulate_into(scratch, X, rows, y, y, w, t, weighted_n, _NO, largest, _NO)
    counts = np.zeros((n_nodes, 1))
    accumulate_into(counts, X, rows, y, y, w, t, weighted_n, _NO, largest, _YES)
    kind, first_child, n_children = t.kind, t.first_child, t.n_children
    stack = [(largest, node)]
    while len(stack) > 0:
        v, parent = stack.pop()
        total_w = ordered_sum(scratch[v])
        # Element loops: a row assignment compiles numba's shape-mismatch message (tables.py).
        src, at = (scratch, v) if total_w > 0 else (value, parent)
        for k in range(value.shape[1]):
            value[v, k] = src[at, k]
        weighted_n[v] = total_w
        n_node_samples[v] = np.int64(counts[v, 0])
        scratch[v, :] = 0.0
        if kind[v] != LEAF:
            for c in range(n_children[v] - 1, -1, -1):
                stack.append((first_child[v] + c, v))
    # Every routing field of the node but the flat arrays' (cat_map, the surrogates'), and rho
    t.kind[node] = t.kind[largest]
    t.feature[node] = t.feature[largest]
    t.threshold[node] = t.threshold[largest]
    t.category[node] = t.category[largest]
    t.first_child[node] = t.first_child[largest]
    t.n_children[node] = t.n_children[largest]
    t.missing_mode[node] = t.missing_mode[largest]
    t.missing_child[node] = t.missing_child[largest]
    t.cat_map_start[node] = t.cat_map_start[largest]
    t.sur_start[node] = t.sur_start[largest]
    t.sur_count[node] = t.sur_count[largest]
    rho[node] = rho[largest]


@kernel
def prune_pessimistic(X, y, w, t, weighted_n, value, n_node_samples, rho, n_classes, cf, z,
                      subtree_raising):
    """C4.5's bottom-up error-based pruning (see :func:`quercus._pruning.pessimistic`) in
    place on the tree's arrays ``t`` (its kernel arguments), ``weighted_n``, ``value``,
    ``n_node_samples`` and ``rho``, for the training rows ``X``, ``y``, ``w``.

    Returns the decisions in order as (node, errors before, errors after, reason: 1 made a
    leaf, 2 replaced by its largest branch, leaves removed, feature of the node).
    """
    kind, first_child, n_children = t.kind, t.first_child, t.n_children
    n_nodes = kind.shape[0]
    scratch = np.zeros((n_nodes, n_classes))
    # Class weights each leaf got from its own branch's rows when that branch was pruned:
    # a node's branch estimate routes only its other rows through its largest branch.
    own = np.zeros((n_nodes, n_classes))
    walk = np.empty(n_nodes, dtype=np.int64)  # work space of _subtree_nodes
    walk_stack = np.empty(n_nodes, dtype=np.int64)
    # The decisions: (node, reason, leaves removed, feature) and (errors before, after);
    # a raised branch's nodes are decided again, so there can be more than n_nodes.
    rec_i = np.empty((n_nodes, 4), dtype=np.int64)
    rec_f = np.empty((n_nodes, 2))
    n_rec = 0
    # Frames of the depth-first walk: node, its rows and their weights, each row's branch,
    # the children's training weight, the next child, the summed estimate of the pruned
    # children, the largest one.
    # Scalars in arrays indexed by depth, arrays in lists (numba's typed lists, and
    # lists of scalars, are slow to compile).
    f_node = np.empty(n_nodes + 1, dtype=np.int64)
    f_next = np.empty(n_nodes + 1, dtype=np.int64)
    f_largest = np.empty(n_nodes + 1, dtype=np.int64)
    f_err = np.empty(n_nodes + 1)
    f_largest_w = np.empty(n_nodes + 1)
    f_total = np.empty(n_nodes + 1)
    f_rows = [np.arange(X.shape[0])]
    f_w = [w.copy()]
    f_branch = [np.zeros(0, dtype=np.int32)]
    none = np.zeros(0, dtype=np.int64)
    f_order = [none]  # each frame's _bucket_rows
    f_starts = [none]
    top = _push(f_node, f_next, np.int64(-1), np.int64(0))
    while top >= 0:
        node = f_node[top]
        rows = f_rows[top]
        wts = f_w[top]
        j = f_next[top]
        if j == -1:
            if kind[node] == LEAF:
                dist = _class_weights(y, rows, wts, n_classes)
                for k in range(n_classes):  # not own[node] = dist: see _raise_branch
                    own[node, k] = dist[k]
                top = _pop(f_rows, f_w, f_branch, f_order, f_starts, top)
                _deliver(f_node, f_next, f_err, f_largest, f_largest_w, first_child, top,
                         leaf_estimated_errors(dist, cf, z), ordered_sum(dist))
                continue
            f_branch[top] = child_branches(X, rows, t, node)
            f_order[top], f_starts[top] = _bucket_rows(f_branch[top], n_children[node])
            f_total[top] = children_weight(weighted_n, first_child[node], n_children[node])
            f_next[top] = 0
            f_err[top] = 0.0  # also after a raise: the node's branches are new
            f_largest[top] = -1
            f_largest_w[top] = -1.0
            j = 0
        if j < n_children[node]:
            f_next[top] = j + 1
            c = first_child[node] + j
            c_rows, c_w = _child_rows(rows, wts, f_order[top], f_starts[top], j,
                                      weighted_n[c], f_total[top])
            top = _push(f_node, f_next, top, c)
            f_rows.append(c_rows)
            f_w.append(c_w)
            f_branch.append(np.zeros(0, dtype=np.int32))
            f_order.append(none)
            f_starts.append(none)
            continue
        # Every branch is pruned: decide this node.
        dist = _class_weights(y, rows, wts, n_classes)
        leaf_err = leaf_estimated_errors(dist, cf, z)
        tree_err = f_err[top]
        largest = f_largest[top]
        branch_err = np.inf
        if subtree_raising:
            branch_err = _branch_estimate(X, y, rows, wts, f_branch[top],
                                          largest - first_child[node], f_total[top], t,
                                          weighted_n, largest, own, scratch, cf, z, walk,
                                          walk_stack)
        ret_err = tree_err
        reason, after = 0, 0.0
        if leaf_err <= tree_err + 0.1 and leaf_err <= branch_err + 0.1:
            reason, after = 1, leaf_err
        elif subtree_raising and branch_err <= tree_err + 0.1:
            reason, after = 2, branch_err
        if reason > 0:
            if n_rec == rec_i.shape[0]:
                rec_i, rec_f = grown(rec_i, 2 * n_rec, n_rec), grown(rec_f, 2 * n_rec, n_rec)
            rec_i[n_rec, 0] = node
            rec_i[n_rec, 1] = reason
            rec_i[n_rec, 2] = _count_leaves(t, node, walk, walk_stack) - 1
            rec_i[n_rec, 3] = t.feature[node]
            rec_f[n_rec, 0] = tree_err
            rec_f[n_rec, 1] = after
            n_rec += 1
        if reason == 1:
            kind[node] = LEAF
            for k in range(n_classes):
                own[node, k] = dist[k]
            ret_err = leaf_err
        elif reason == 2:
            _raise_branch(X, rows, y, wts, t, weighted_n, value, n_node_samples, rho, node,
                          largest, scratch)
            f_next[top] = -1  # prune the raised branch again, in the node's place
            continue
        top = _pop(f_rows, f_w, f_branch, f_order, f_starts, top)
        _deliver(f_node, f_next, f_err, f_largest, f_largest_w, first_child, top, ret_err,
                 ordered_sum(dist))
    return (rec_i[:n_rec, 0].copy(), rec_f[:n_rec, 0].copy(), rec_f[:n_rec, 1].copy(),
            rec_i[:n_rec, 1].copy(), rec_i[:n_rec, 2].copy(), rec_i[:n_rec, 3].copy())


@inner
def _branch_estimate(X, y, rows, wts, branch, col, total, t, weighted_n, largest, own,
                     scratch, cf, z, walk, walk_stack):
    """Estimated errors of the subtree ``largest`` (the node's branch ``col``) for all the
    node's rows: the class weights its leaves hold from their own rows (``own``) plus the
    rest of each row's weight (other branches' rows, a spread row's other shares) routed
    from ``largest``. Routing is linear in the weight, so this is the sum of every row's
    full routing. ``total``: the training weight of the node's children."""
    rest, rest_w = _rows_with_weight(rows, _other_branch_weights(
        wts, branch, col, weighted_n[largest], total))
    accumulate_into(scratch, X, rest, y, y, rest_w, t, weighted_n, _NO, largest, _NO)
    total = 0.0
    for i in range(_subtree_nodes(t, largest, walk, walk_stack)):
        node = walk[i]
        if t.kind[node] == LEAF:
            for c in range(scratch.shape[1]):
                scratch[node, c] += own[node, c]
            total += leaf_estimated_errors(scratch[node], cf, z)
        scratch[node, :] = 0.0
    return total


@inner
def _push(f_node, f_next, top, node):
    """A new frame for ``node`` above ``top``; returns its index."""
    top += 1
    f_node[top] = node
    f_next[top] = -1
    return top


@inner
def _pop(f_rows, f_w, f_branch, f_order, f_starts, top):
    f_rows.pop()
    f_w.pop()
    f_branch.pop()
    f_order.pop()
    f_starts.pop()
    return top - 1


@inner
def _deliver(f_node, f_next, f_err, f_largest, f_largest_w, first_child, top, err, weight):
    """Hand a pruned branch's estimate and weight to its parent's frame ``top``."""
    if top < 0:
        return
    f_err[top] += err
    if weight > f_largest_w[top]:
        f_largest_w[top] = weight
        f_largest[top] = first_child[f_node[top]] + f_next[top] - 1
