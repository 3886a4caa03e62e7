"""Breiman et al.'s weakest-link sequence on the flat tree, in one kernel call."""

import numpy as np

from ._jit import inner, kernel
from .criteria import ENTROPY, impurity
from .predict import path_lengths_and_nodes, stop_node_moments
from .schema import LEAF
from .tables import ordered_sum

# The losses R(t) of cost-complexity pruning (``ccp_loss``), as kernel codes: the
# criterion's impurity, rpart's misclassified weight (a regressor's: its impurity, the
# squared error), the seeds' entropy in bits.
RISK_IMPURITY, RISK_ERROR, RISK_ENTROPY = 0, 1, 2


@inner
def weighted_risk(stats, imp, weight, loss):
    """A node's loss times its weight (``R(t)`` times the root's weight), from its class
    weights ``stats`` (a regressor's: any, with ``loss`` RISK_IMPURITY), its impurity
    ``imp`` and its ``weight``: what a grower checks against a cost-complexity floor.

    Examples
    --------
    >>> import numpy as np
    >>> stats = np.array([3.0, 1.0])
    >>> float(weighted_risk(stats, 0.375, 4.0, RISK_IMPURITY))  # Gini 0.375 of 4 samples
    1.5
    >>> float(weighted_risk(stats, 0.375, 4.0, RISK_ERROR))     # one misclassified
    1.0
    """
    if loss == RISK_ERROR:
        top = 0.0
        for k in range(stats.shape[0]):
            top = max(top, stats[k])
        return weight - top
    if loss == RISK_ENTROPY:
        return impurity(stats, ENTROPY) * weight
    return imp * weight


@inner
def collapses_at_floor(risk, child_stats, regression, criterion, loss, floor):
    """Whether a node of risk ``risk`` (:func:`weighted_risk`), split into children of at
    least the stats ``child_stats[c]`` (a lower bound will do: a child's risk only grows
    with more samples), is a leaf of every minimal cost-complexity subtree at ``alpha >=
    floor``, however its children split. With ``n`` children, the split survives at
    ``alpha`` only if ``R(t) + alpha > sum_c min(R(c) + alpha, 2 alpha)``, since a child
    is a leaf or holds at least two; the margin rises with ``alpha`` (every child adds at
    least one ``alpha``), so failing it at ``floor`` fails it above. The grower then makes
    the node a leaf: the subtrees at ``alpha >= floor`` are the same, with less growth.

    Examples
    --------
    >>> import numpy as np
    >>> pure = np.array([[5.0, 0.0], [0.0, 1.0]])     # 5 + 1 samples, both children pure
    >>> risk = 6 * float(impurity(np.array([5.0, 1.0]), ENTROPY))   # 3.90 bits
    >>> bool(collapses_at_floor(risk, pure, False, ENTROPY, RISK_IMPURITY, 3.0))
    False
    >>> bool(collapses_at_floor(risk, pure, False, ENTROPY, RISK_IMPURITY, 4.0))
    True
    """
    n = child_stats.shape[0]
    bound = (n - 1) * floor
    for c in range(n):
        st = child_stats[c]
        weight = st[0] if regression else ordered_sum(st)
        bound += min(weighted_risk(st, impurity(st, criterion), weight, loss), floor)
    # (A hair of slack: rounding must not collapse a split that survives at the floor.)
    return risk < bound * (1.0 - 1e-9)


@kernel
def weakest_links(risk, kind, first_child, n_children):
    """The nested subtrees of minimal cost complexity.

    ``g(t) = (R(t) - R(T_t)) / (|leaves(T_t)| - 1)`` for every internal node reachable from
    the root; each step prunes every internal node whose ``g`` is the minimum (within
    rounding), the topmost ones (a pruned node's descendants go with it, in index order).

    Returns (alphas, leaf risk, n_internal, n_leaves, step_ptr, step_nodes): one entry per
    subtree, the full tree first (alpha 0, nothing pruned); subtree ``s`` is the one before
    it with ``step_nodes[step_ptr[s]:step_ptr[s + 1]]`` made leaves.
    """
    n = kind.shape[0]
    parent = np.full(n, -1, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)  # reachable nodes, parents before children
    order[0] = 0
    n_reach = 1
    i = 0
    while i < n_reach:
        v = order[i]
        if kind[v] != LEAF:
            for c in range(n_children[v]):
                parent[first_child[v] + c] = v
                order[n_reach] = first_child[v] + c
                n_reach += 1
        i += 1
    active = np.zeros(n, dtype=np.bool_)
    leaf_sum = np.zeros(n)
    n_leaves = np.zeros(n, dtype=np.int64)
    for i in range(n_reach - 1, -1, -1):  # children first
        v = order[i]
        if kind[v] == LEAF:
            leaf_sum[v] = risk[v]
            n_leaves[v] = 1
        else:
            active[v] = True
            for c in range(n_children[v]):
                leaf_sum[v] += leaf_sum[first_child[v] + c]
                n_leaves[v] += n_leaves[first_child[v] + c]
    g = np.full(n, np.inf)
    n_active = 0
    # The active internal nodes in index order: each step scans these, not every node (a
    # full tree's steps mostly prune one node each, and the scans of every node were most
    # of a fold's scoring); the same nodes are visited in the same order.
    act = np.empty(n, dtype=np.int64)
    for v in range(n):
        if active[v]:
            g[v] = _g(risk, leaf_sum, n_leaves, v)
            act[n_active] = v
            n_active += 1
    n_act = n_active
    # (Arrays made once, not lists grown step by step: each step collapses at least one
    # of the n_active internal nodes, each of them at most once.)
    alphas = np.empty(n_active + 1)
    risks = np.empty(n_active + 1)
    n_int = np.empty(n_active + 1, dtype=np.int64)
    n_lv = np.empty(n_active + 1, dtype=np.int64)
    step_ptr = np.zeros(n_active + 2, dtype=np.int64)
    step_nodes = np.empty(n_active, dtype=np.int64)
    stack = np.empty(n, dtype=np.int64)
    alphas[0] = 0.0
    risks[0] = leaf_sum[0] if active[0] else risk[0]
    n_int[0] = n_active
    n_lv[0] = n_leaves[0] if active[0] else 1
    n_steps = 1
    n_nodes = 0
    in_step = np.zeros(n, dtype=np.bool_)
    while active[0]:
        best = np.inf
        for i in range(n_act):
            if g[act[i]] < best:
                best = g[act[i]]
        tol = best + 1e-12 * max(1.0, abs(best))
        for i in range(n_act):
            in_step[act[i]] = g[act[i]] <= tol
        first_new = n_nodes
        for i in range(n_act):
            v = act[i]
            if not in_step[v]:
                continue
            a = parent[v]
            covered = False
            while a >= 0:
                if in_step[a]:
                    covered = True
                    break
                a = parent[a]
            if not covered:
                step_nodes[n_nodes] = v
                n_nodes += 1
        for s in range(first_new, n_nodes):
            v = step_nodes[s]
            stack[0] = v
            top = 1
            while top > 0:
                top -= 1
                d = stack[top]
                if active[d]:
                    active[d] = False
                    g[d] = np.inf
                    n_active -= 1
                    for c in range(n_children[d]):
                        stack[top] = first_child[d] + c
                        top += 1
            d_risk = leaf_sum[v] - risk[v]
            d_leaves = n_leaves[v] - 1
            a = parent[v]
            while a >= 0:
                leaf_sum[a] -= d_risk
                n_leaves[a] -= d_leaves
                a = parent[a]
            leaf_sum[v] = risk[v]
            n_leaves[v] = 1
        for s in range(first_new, n_nodes):
            a = parent[step_nodes[s]]
            while a >= 0:
                if active[a]:
                    g[a] = _g(risk, leaf_sum, n_leaves, a)
                a = parent[a]
        kept = 0
        for i in range(n_act):
            in_step[act[i]] = False
            if active[act[i]]:
                act[kept] = act[i]
                kept += 1
        n_act = kept
        alphas[n_steps] = max(best, 0.0)
        risks[n_steps] = leaf_sum[0] if active[0] else risk[0]
        n_int[n_steps] = n_active
        n_lv[n_steps] = n_leaves[0] if active[0] else 1
        n_steps += 1
        step_ptr[n_steps] = n_nodes
    return (alphas[:n_steps], risks[:n_steps], n_int[:n_steps], n_lv[:n_steps],
            step_ptr[:n_steps + 1], step_nodes[:n_nodes])


@inner
def _g(risk, leaf_sum, n_leaves, v):
    return (risk[v] - leaf_sum[v]) / max(n_leaves[v] - 1, 1)


@kernel(forceinline=True)
def held_out_moments(risk, t, X, max_len, thresholds, node_label, node_value, target, w,
                     regression):
    """The held-out loss's moments in each subtree of the weakest-link sequence of the tree
    ``t`` (its routing arrays; node risks ``risk``), at each of ``thresholds``: see
    :func:`quercus._kernels.predict.stop_node_moments`. One call for a cross-validation
    fold's pruning path and scoring, for trees that route each row to one node."""
    indptr, indices = path_lengths_and_nodes(X, t, max_len)
    alphas = collapse_alphas(risk, t.kind, t.first_child, t.n_children)
    return stop_node_moments(indptr, indices, alphas, thresholds, node_label, node_value,
                             target, w, regression)


@kernel
def collapse_alphas(risk, kind, first_child, n_children):
    """The alpha at which each node becomes a leaf in the weakest-link sequence of node
    risks ``risk`` (-inf: a leaf already; inf: never pruned, the root of a tree that
    cannot shrink)."""
    alphas, _, _, _, ptr, nodes = weakest_links(risk, kind, first_child, n_children)
    collapse = np.full(kind.shape[0], np.inf)
    for v in range(kind.shape[0]):
        if kind[v] == LEAF:
            collapse[v] = -np.inf
    for s in range(1, alphas.shape[0]):
        for j in range(ptr[s], ptr[s + 1]):
            collapse[nodes[j]] = min(collapse[nodes[j]], alphas[s])
    return collapse
