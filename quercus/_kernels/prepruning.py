"""Pre-pruning's test at a node (the book's section 4.3.1), said once for both growers.

A node is split only when the split lowers the error on held-out validation rows: the
rows that reach the node are routed by the split just made, as ``predict`` routes them
(the routing step of :mod:`quercus._kernels.predict`), and the error of predicting with
each child is compared with the error of predicting with the node. The Python grower
calls :func:`split_pays` for its big nodes, the subtree kernel compiles
:func:`validation_test` for its small ones.
"""

from typing import NamedTuple

import numpy as np

from ._jit import inner, kernel
from .node import settle_value
from .predict import SPREAD, STOP, _route
from .schema import CAT_SUBSET
from .tables import ordered_sum


class HeldOut(NamedTuple):
    """Pre-pruning's validation rows as the subtree kernel takes them: the encoded rows
    ``X`` (as ``predict`` reads them), their targets ``y``; root ``r``'s rows
    ``rows[row_start[r]:row_start[r + 1]]`` with their weights ``w`` alike; the class
    tie-break ranks ``priority`` (empty for a regressor) and the rule (``strict``: a split
    must lower the error)."""

    X: np.ndarray
    y: np.ndarray
    rows: np.ndarray
    w: np.ndarray
    row_start: np.ndarray
    priority: np.ndarray
    strict: bool


# Two errors closer than this are equal: the split must beat the leaf by more (strict) or
# not lose by more.
ERROR_TOL = 1e-9


@inner
def label_of(value, priority):
    """The class a node of class weights ``value`` predicts: the largest share, ties (to
    a relative 1e-12) to the class first in ``priority`` (the lowest rank).

    Examples
    --------
    >>> import numpy as np
    >>> int(label_of(np.array([2.0, 3.0, 3.0]), np.array([0, 2, 1])))  # tie: rank 1 wins
    2
    """
    total = 0.0
    for k in range(value.shape[0]):
        total += value[k]
    scale = 1.0 / total if total > 0 else 1.0
    top = value[0] * scale
    for k in range(1, value.shape[0]):
        top = max(top, value[k] * scale)
    best = -1
    for k in range(value.shape[0]):
        if value[k] * scale >= top - 1e-12 * max(top, 1.0):
            if best < 0 or priority[k] < priority[best]:
                best = k
    return best


@inner
def label_error(value, yv, rows, w, priority, regression):
    """The validation error of predicting with a node's ``value`` the rows ``rows`` of
    ``yv`` weighing ``w``: their misclassified weight, or their weighted squared error.

    Examples
    --------
    >>> import numpy as np
    >>> yv, rows, w = np.array([0.0, 1.0, 1.0]), np.arange(3), np.array([1.0, 2.0, 0.5])
    >>> float(label_error(np.array([5.0, 1.0]), yv, rows, w, np.arange(2), False))
    2.5
    >>> float(label_error(np.array([1.0]), yv, rows, w, np.arange(0), True))
    1.0
    """
    err = 0.0
    if regression:
        for i in range(rows.shape[0]):
            d = yv[rows[i]] - value[0]
            err += w[i] * d * d
        return err
    label = label_of(value, priority)
    for i in range(rows.shape[0]):
        if yv[rows[i]] != label:
            err += w[i]
    return err


@inner
def validation_test(Xv, yv, rows, wv, k, f, threshold, category, n_children, missing_mode,
                    missing_child, cat_map, surs, sur_from, n_sur, children, y, criterion,
                    absolute, parent_value, priority, regression, strict):
    """Does the split just made at a node lower the error on its validation rows?

    The node's validation rows are ``rows`` of ``Xv`` / ``yv`` (encoded as ``predict``
    reads them), weighing ``wv``. The split is kind ``k`` of attribute ``f`` (its
    ``threshold``, ``category``, categories' children ``cat_map``, ``n_children``), with
    the node's missing-value rule (``missing_mode``, ``missing_child`` and its surrogates,
    entries ``sur_from .. sur_from + n_sur - 1`` of the ``surs`` record). A row missing
    the attribute under C4.5's rule goes down every branch with a share of its weight, by
    the children's training weights; a row that goes nowhere (a category without a
    branch) is predicted by the node.

    The children predict what they will when grown: their values from their training
    samples (``children``, a :class:`~quercus._kernels.split_step.Children` record with
    its weights; targets ``y``, the fit's ``criterion``, ``absolute`` as
    :func:`~quercus._kernels.node.settle_value` takes it), or the node's ``parent_value``
    for a child of no weight.

    Returns (pays, error with the split, error as a leaf, and the rows each child gets:
    rows, weights, offsets by child). ``pays``: the split's error is lower (``strict``),
    or not higher, by more than :data:`ERROR_TOL`.
    """
    one = np.zeros(1, dtype=np.int64)
    kind = np.full(1, k, dtype=np.int64)
    feature = np.full(1, f, dtype=np.int64)
    thr = np.full(1, threshold)
    cat = np.full(1, category, dtype=np.int64)
    n_kids = np.full(1, n_children, dtype=np.int64)
    mode = np.full(1, missing_mode, dtype=np.int64)
    miss = np.full(1, missing_child, dtype=np.int64)
    cat_start = np.full(1, 0 if k == CAT_SUBSET else -1, dtype=np.int64)
    sur_count = np.full(1, n_sur, dtype=np.int64)
    sur_feature = surs.sur_feature[sur_from:sur_from + n_sur]
    sur_kind = surs.sur_kind[sur_from:sur_from + n_sur]
    sur_threshold = surs.sur_threshold[sur_from:sur_from + n_sur]
    sur_category = surs.sur_category[sur_from:sur_from + n_sur]
    sur_flip = surs.sur_flip[sur_from:sur_from + n_sur]
    m = rows.shape[0]
    child_weight = children.weight
    child_value = np.empty((n_children, parent_value.shape[0]))
    for c in range(n_children):
        s, e = children.offsets[c], children.offsets[c + 1]
        if e > s and child_weight[c] > 0:  # (as it will when the child is grown)
            settle_value(child_value[c], children.stats[c], y, children.rows[s:e],
                         children.w[s:e], criterion, regression, absolute)
        else:
            child_value[c] = parent_value
    total = ordered_sum(child_weight)
    # Each row's branch: its child, SPREAD (every child, by weight) or STOP.
    branch = np.empty(m, dtype=np.int64)
    n_in = np.zeros(n_children + 1, dtype=np.int64)
    stopped = np.zeros(m, dtype=np.int64)
    n_stopped = 0
    for i in range(m):
        b = _route(Xv[rows[i]], 0, kind, feature, thr, cat, one, n_kids, mode, miss,
                   cat_start, cat_map, one, sur_count, sur_feature, sur_kind, sur_threshold,
                   sur_category, sur_flip)
        if b == SPREAD and not total > 0:
            b = STOP  # (no child has weight: none to share the row out by)
        branch[i] = b
        if b == STOP:
            stopped[n_stopped] = i
            n_stopped += 1
        elif wv[i] > 0:  # (a row of no weight goes to no child and adds no error)
            if b >= 0:
                n_in[b + 1] += 1
            else:
                for c in range(n_children):
                    if child_weight[c] > 0:
                        n_in[c + 1] += 1
    offsets = np.zeros(n_children + 1, dtype=np.int64)
    for c in range(n_children):
        offsets[c + 1] = offsets[c] + n_in[c + 1]
    c_rows = np.empty(offsets[n_children], dtype=np.int64)
    c_w = np.empty(offsets[n_children])
    fill = offsets[:n_children].copy()
    for i in range(m):
        b = branch[i]
        if not wv[i] > 0:
            continue
        if b >= 0:
            c_rows[fill[b]] = rows[i]
            c_w[fill[b]] = wv[i]
            fill[b] += 1
        elif b == SPREAD:
            for c in range(n_children):
                if child_weight[c] > 0:
                    c_rows[fill[c]] = rows[i]
                    c_w[fill[c]] = wv[i] * child_weight[c] / total
                    fill[c] += 1
    leaf_err = label_error(parent_value, yv, rows, wv, priority, regression)
    split_err = 0.0
    for c in range(n_children):
        s, e = offsets[c], offsets[c + 1]
        split_err += label_error(child_value[c], yv, c_rows[s:e], c_w[s:e], priority,
                                 regression)
    stop_rows = np.empty(n_stopped, dtype=np.int64)
    stop_w = np.empty(n_stopped)
    for j in range(n_stopped):
        stop_rows[j] = rows[stopped[j]]
        stop_w[j] = wv[stopped[j]]
    split_err += label_error(parent_value, yv, stop_rows, stop_w, priority, regression)
    if strict:
        pays = split_err < leaf_err - ERROR_TOL
    else:
        pays = split_err <= leaf_err + ERROR_TOL
    return pays, split_err, leaf_err, c_rows, c_w, offsets


@kernel
def split_pays(Xv, yv, rows, wv, k, f, threshold, category, n_children, missing_mode,
               missing_child, cat_map, surs, sur_from, n_sur, children, y, criterion,
               absolute, parent_value, priority, regression, strict):
    """:func:`validation_test` for the Python grower.

    Examples
    --------
    >>> import numpy as np
    >>> from quercus._kernels.builder import surrogate_table
    >>> from quercus._kernels.criteria import GINI
    >>> from quercus._kernels.split_step import Children
    >>> Xv, yv = np.array([[1.0], [3.0], [np.nan]]), np.array([0.0, 1.0, 1.0])
    >>> # x <= 2 left (training weight 1, class 0), else right (weight 3, class 1); C4.5
    >>> # spreads the missing row by those weights
    >>> y = np.array([0.0, 1.0, 1.0])
    >>> kids = Children(np.arange(3), np.array([1.0, 2.0, 1.0]), np.array([0, 1, 3]),
    ...                 np.array([[1.0, 0.0], [0.0, 3.0]]), np.array([1.0, 3.0]))
    >>> pays, split_err, leaf_err, rows, w, offsets = split_pays(
    ...     Xv, yv, np.arange(3), np.ones(3), 1, 0, 2.0, -1, 2, 0, -1, np.zeros(1, np.int64),
    ...     surrogate_table(0), 0, 0, kids, y, GINI, None, np.array([1.0, 2.0]), np.arange(2),
    ...     False, True)
    >>> bool(pays), float(split_err), float(leaf_err)  # a quarter of the spread row is wrong
    (True, 0.25, 1.0)
    >>> rows.tolist(), w.tolist(), offsets.tolist()
    ([0, 2, 1, 2], [1.0, 0.25, 1.0, 0.75], [0, 2, 4])
    """
    return validation_test(Xv, yv, rows, wv, k, f, threshold, category, n_children,
                           missing_mode, missing_child, cat_map, surs, sur_from, n_sur,
                           children, y, criterion, absolute, parent_value, priority,
                           regression, strict)
