"""A cross-validation fold's tree scored straight from the kernel's tables.

Cost-complexity pruning's folds are many small fits: on a few hundred rows the Python
around a fold (a tree object, its routing arrays, node risks and classes) cost more than
growing it, and held the GIL while the folds ran on two threads. A fold grown whole by
``grow_subtree`` is scored here in one call from that kernel's nodes, with exactly the
steps the Python path takes: the tree's routing arrays in the schema's types, each node's
risk (``quercus._pruning.node_risk``) and class (``quercus._target.majority``), sums added
as NumPy adds them (:func:`numpy_sum`), then ``held_out_moments``.
``tests/test_pruning.py`` compares the tables with the Python path's to the bit.

(Growing the fold in the same kernel call would link ``grow_subtree``'s code into it and
compile it again for each of its variants: benchmarks/results/design_choices.md.)
"""

import numpy as np

from ._jit import hot, inner, kernel
from .complexity import RISK_ERROR, held_out_moments
from .schema import Routing

# The most classes numpy_sum adds as NumPy does (one block of its pairwise sum).
MAX_CLASSES = 128


@inner
def numpy_sum(a):
    """``a.sum()`` of a 1-d float64 array of at most :data:`MAX_CLASSES` entries, added as
    NumPy adds it (in order below 8 entries, else in 8 interleaved partial sums): the
    same sums give the same bits.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.random.default_rng(0).uniform(0, 1e3, 40)
    >>> float(numpy_sum(a)) == float(a.sum())
    True
    """
    n = a.shape[0]
    if n < 8:
        s = 0.0
        for i in range(n):
            s += a[i]
        return s
    r = np.empty(8)
    for j in range(8):
        r[j] = a[j]
    i = 8
    while i < n - n % 8:
        for j in range(8):
            r[j] += a[i + j]
        i += 8
    s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    while i < n:
        s += a[i]
        i += 1
    return s


@kernel
def table_moments(nodes, slot_start, cat_map, cat_start, surs, sur_start, y, y_rows,
                  y_start, n_stats, regression, risk_loss, X, target, w, x_start,
                  thresholds):
    """The held-out moments (``held_out_moments``'s mean and m2 at each of
    ``thresholds``, a row per fold) of cross-validation folds' trees, straight from the
    tables ``grow_subtree`` grew them into (fold r's tree is its block r: slots
    ``slot_start[r]..``, its ``cat_map`` from ``cat_start[r]`` and its surrogates from
    ``sur_start[r]``): fold r's held-out rows ``X[x_start[r]:x_start[r + 1]]`` (class
    codes among the fold's classes or values ``target``, weights ``w``, alike) scored
    along its tree's weakest-link sequence. ``y[y_rows[y_start[r]:y_start[r + 1]]]``: fold
    r's training targets (class codes among its ``n_stats`` classes, whose order of first
    appearance breaks a node's ties); ``risk_loss``: the pruning's loss (RISK_IMPURITY or
    RISK_ERROR). Trees routing each row to one node (no FRACTIONAL node) of at most
    ``MAX_CLASSES`` classes.
    """
    n_folds = slot_start.shape[0] - 1
    mean = np.empty((n_folds, thresholds.shape[0]))
    m2 = np.empty((n_folds, thresholds.shape[0]))
    for r in range(n_folds):
        a, b = slot_start[r], slot_start[r + 1]
        c0, c1 = cat_start[r], cat_start[r + 1]
        s0, s1 = sur_start[r], sur_start[r + 1]
        x0, x1 = x_start[r], x_start[r + 1]
        mean_r, m2_r = _tree_moments(
            nodes, a, b, cat_map[c0:c1], surs, s0, s1, y,
            y_rows[y_start[r]:y_start[r + 1]], n_stats, regression, risk_loss, X[x0:x1],
            target[x0:x1], w[x0:x1], thresholds)
        for t in range(thresholds.shape[0]):
            mean[r, t] = mean_r[t]
            m2[r, t] = m2_r[t]
    return mean, m2


@hot
def _tree_moments(nodes, a, b, cat_map, surs, s0, s1, y, y_rows, n_stats, regression,
                  risk_loss, X, target, w, thresholds):
    """:func:`table_moments` of one fold (its block: slots ``a .. b - 1`` of ``nodes``,
    entries ``s0 .. s1 - 1`` of ``surs``; its training rows ``y_rows`` of ``y``)."""
    m = y_rows.shape[0]
    count = b - a
    n_out = nodes.value.shape[1]
    # The routing arrays, in the schema's types (those of a TreeArrays' fields, so that
    # held_out_moments runs the code it runs for the Python path): the block's own, but
    # its links, which count from its first new node.
    first_child = np.empty(count, dtype=np.int32)
    max_depth_seen = 0
    for v in range(count):
        fc = nodes.first_child[a + v]
        first_child[v] = fc + 1 if fc >= 0 else fc
        max_depth_seen = max(max_depth_seen, nodes.depth[a + v])
    t = Routing(nodes.kind[a:b], nodes.feature[a:b], nodes.threshold[a:b],
                nodes.category[a:b], first_child, nodes.n_children[a:b],
                nodes.missing_mode[a:b], nodes.missing_child[a:b], nodes.cat_map_start[a:b],
                cat_map, nodes.sur_start[a:b], nodes.sur_count[a:b], surs.sur_feature[s0:s1],
                surs.sur_kind[s0:s1], surs.sur_threshold[s0:s1], surs.sur_category[s0:s1],
                surs.sur_flip[s0:s1])
    # Each node's risk (node_risk), class (the majority of its proportions, ties to the
    # class seen first among the fold's rows) and prediction.
    weight = nodes.weighted_n_node_samples[a:b]
    impurity = nodes.impurity[a:b]
    w_root = weight[0]
    risk = np.empty(count)
    label = np.zeros(count, dtype=np.int64)
    node_value = np.empty(count)
    value = np.empty(n_out)
    # The fold's classes in the order they first appear among its rows: a tie between
    # classes goes to the one seen first (the fold's class_priority).
    order = np.empty(n_stats, dtype=np.int64)
    if not regression:
        seen_class = np.zeros(n_stats, dtype=np.bool_)
        n_seen = 0
        for j in range(m):
            c = np.int64(y[y_rows[j]])
            if not seen_class[c]:
                seen_class[c] = True
                order[n_seen] = c
                n_seen += 1
    for v in range(count):
        for c in range(n_out):
            value[c] = nodes.value[a + v, c]
        if regression:
            node_value[v] = value[0]
            risk[v] = impurity[v] * weight[v] / w_root
            continue
        total = numpy_sum(value)
        top = 0.0
        for c in range(n_out):
            top = max(top, value[c] / total if total > 0 else 0.0)
        node_value[v] = value[0] / total if total > 0 else 0.0
        cut = top - 1e-12 * max(top, 1.0)
        for i in range(n_out):
            c = order[i]
            if (value[c] / total if total > 0 else 0.0) >= cut:
                label[v] = c
                break
        if risk_loss == RISK_ERROR:
            most = value[0]
            for c in range(1, n_out):
                most = max(most, value[c])
            risk[v] = (total - most if weight[v] > 0 else 0.0) / w_root
        else:
            risk[v] = impurity[v] * weight[v] / w_root
    return held_out_moments(risk, t, X, max_depth_seen + 1, thresholds, label,
                            node_value, target, w, regression)
