"""A cross-validation fold grown and scored in one kernel call.

Cost-complexity pruning's folds are many small fits: on a few hundred rows the Python
around a fold (coding its labels, building its tree arrays, routing its held-out rows)
cost more than growing it, and held the GIL while the folds ran on two threads. Here a
fold's rows of the whole data's bins are grown by ``grow_subtree`` and its held-out rows
scored by ``held_out_moments``, with in between exactly the steps the Python path takes:
the fold's classes coded as ``quercus._pruning``'s fold labels, the tree's routing arrays
in the schema's types, each node's risk (``quercus._pruning.node_risk``) and class
(``quercus._target.majority``), sums added as NumPy adds them (:func:`numpy_sum`).
``tests/test_pruning.py`` compares the tables with the Python path's to the bit.
"""

import numpy as np

from ._jit import inner, kernel
from .complexity import RISK_ERROR, held_out_moments
from .histograms import class_totals
from .schema import (CAT_MAP_START, CATEGORY, DEPTH, FEATURE, FIRST_CHILD, IMPURITY, KIND,
                     MISSING_CHILD, MISSING_MODE, N_CHILDREN, SUR_COUNT, SUR_START,
                     THRESHOLD, VALUE, WEIGHT, Routing)
from .subtree import grow_subtree

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
def fold_moments(train, test, codes, taken, n_bins, is_cat, bin_lo, bin_hi, bin_offsets,
                 y_all, y2_all, n_classes, regression, w_user, w_err, X, thresholds,
                 criterion, gain_ratio, cat_mode, missing_mode, max_depth, min_samples_split,
                 min_samples_leaf, min_weight_leaf, min_impurity_decrease, min_objects,
                 total_w, stats0, can_presort, dense_features, hist_offsets,
                 hist_min_samples, risk_floor, risk_loss, surrogates, xv, x_row_stride,
                 x_col_stride, x_rows):
    """The held-out moments (``held_out_moments``'s mean and m2 at each of
    ``thresholds``) of one cross-validation fold: its training rows ``train`` grown
    into a tree, its rows ``test`` scored along the tree's weakest-link sequence.

    ``codes`` are every row's bins (``taken``: the fold's rows' own, in ``train``'s
    order), with ``n_bins`` .. ``bin_offsets`` as ``grow_subtree`` takes them. A
    classifier's ``y_all`` are every row's class codes among ``n_classes`` (the fold
    codes the classes among its rows, in that order); a regressor's its values and
    ``y2_all`` their second statistic, with the fold's root ``stats0``. ``w_user``: the
    rows' weights to grow with (no class weights), ``w_err`` to count errors with; ``X``:
    every encoded row. The growth settings are ``grow_subtree``'s for the fold
    (``total_w``, ``min_weight_leaf`` and ``risk_floor`` of its weights), ``risk_loss``
    the pruning's loss (RISK_IMPURITY or RISK_ERROR). A tree routing each row to one
    node (no FRACTIONAL node) of at most ``MAX_CLASSES`` classes.
    """
    m = train.shape[0]
    p = codes.shape[1]
    if taken:
        fold_codes = codes
    else:
        # The fold's rows of the whole data's bins, in Fortran order (Bins.take_rows).
        by_feature = np.empty((p, m), dtype=codes.dtype)
        for f in range(p):
            for j in range(m):
                by_feature[f, j] = codes[train[j], f]
        fold_codes = by_feature.T
    w = np.empty(m)
    for j in range(m):
        w[j] = w_user[train[j]]
    y = np.empty(m)
    y2 = np.empty(m)
    recode = np.full(max(n_classes, 1), -1, dtype=np.int64)
    if regression:
        n_stats = 3
        for j in range(m):
            y[j] = y_all[train[j]]
            y2[j] = y2_all[train[j]]
        stats = stats0
    else:
        # The fold's classes are those among its rows, coded in the whole data's order.
        seen = np.zeros(n_classes, dtype=np.bool_)
        for j in range(m):
            seen[np.int64(y_all[train[j]])] = True
        n_stats = 0
        for c in range(n_classes):
            if seen[c]:
                recode[c] = n_stats
                n_stats += 1
        for j in range(m):
            y[j] = recode[np.int64(y_all[train[j]])]
            y2[j] = y[j]
        stats = class_totals(y, w, n_stats)
    ints, flts, count, cat_map, sur_ints, sur_flts = grow_subtree(
        fold_codes, n_bins, is_cat, bin_lo, bin_hi, bin_offsets, y, y2, n_stats, regression,
        criterion, gain_ratio, cat_mode, missing_mode, max_depth, min_samples_split,
        min_samples_leaf, min_weight_leaf, min_impurity_decrease, min_objects, total_w,
        np.arange(m), w, stats, np.zeros(p, dtype=np.bool_), np.int64(0), can_presort,
        dense_features, hist_offsets, hist_min_samples, risk_floor, risk_loss, surrogates,
        xv, x_row_stride, x_col_stride, x_rows)
    n_out = flts.shape[1] - VALUE
    # The routing arrays, in the schema's types (those of a TreeArrays' fields, so that
    # held_out_moments runs the code it runs for the Python path).
    kind = np.empty(count, dtype=np.int8)
    feature = np.empty(count, dtype=np.int32)
    threshold = np.empty(count)
    category = np.empty(count, dtype=np.int32)
    first_child = np.empty(count, dtype=np.int32)
    n_children = np.empty(count, dtype=np.int32)
    node_missing_mode = np.empty(count, dtype=np.int8)
    missing_child = np.empty(count, dtype=np.int32)
    cat_map_start = np.empty(count, dtype=np.int32)
    sur_start = np.empty(count, dtype=np.int32)
    sur_count = np.empty(count, dtype=np.int32)
    max_depth_seen = 0
    for v in range(count):
        kind[v] = ints[v, KIND]
        feature[v] = ints[v, FEATURE]
        threshold[v] = flts[v, THRESHOLD]
        category[v] = ints[v, CATEGORY]
        first_child[v] = ints[v, FIRST_CHILD] + 1 if ints[v, FIRST_CHILD] >= 0 else ints[
            v, FIRST_CHILD]
        n_children[v] = ints[v, N_CHILDREN]
        node_missing_mode[v] = ints[v, MISSING_MODE]
        missing_child[v] = ints[v, MISSING_CHILD]
        cat_map_start[v] = ints[v, CAT_MAP_START]
        sur_start[v] = ints[v, SUR_START]
        sur_count[v] = ints[v, SUR_COUNT]
        max_depth_seen = max(max_depth_seen, ints[v, DEPTH])
    cat_map8 = np.empty(cat_map.shape[0], dtype=np.int8)
    for i in range(cat_map.shape[0]):
        cat_map8[i] = cat_map[i]
    n_sur = sur_ints.shape[0]  # (columns: schema.SUR_INT_COLUMNS, SUR_FLOAT_COLUMNS)
    sur_feature = np.empty(n_sur, dtype=np.int64)
    sur_kind = np.empty(n_sur, dtype=np.int8)
    sur_threshold = np.empty(n_sur)
    sur_category = np.empty(n_sur, dtype=np.int64)
    sur_flip = np.empty(n_sur, dtype=np.int8)
    for i in range(n_sur):
        sur_feature[i] = sur_ints[i, 0]
        sur_kind[i] = sur_ints[i, 1]
        sur_category[i] = sur_ints[i, 2]
        sur_flip[i] = sur_ints[i, 3]
        sur_threshold[i] = sur_flts[i, 0]
    t = Routing(kind, feature, threshold, category, first_child, n_children,
                node_missing_mode, missing_child, cat_map_start, cat_map8, sur_start,
                sur_count, sur_feature, sur_kind, sur_threshold, sur_category, sur_flip)
    # Each node's risk (node_risk), class (the majority of its proportions, ties to the
    # class seen first among the fold's rows) and prediction.
    w_root = flts[0, WEIGHT]
    risk = np.empty(count)
    label = np.zeros(count, dtype=np.int64)
    node_value = np.empty(count)
    value = np.empty(n_out)
    if not regression:
        first_seen = np.full(n_stats, m, dtype=np.int64)
        for j in range(m - 1, -1, -1):
            first_seen[np.int64(y[j])] = j
        order = np.argsort(first_seen, kind="mergesort")  # classes by priority
    for v in range(count):
        for c in range(n_out):
            value[c] = flts[v, VALUE + c]
        if regression:
            node_value[v] = value[0]
            risk[v] = flts[v, IMPURITY] * flts[v, WEIGHT] / w_root
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
            risk[v] = (total - most if flts[v, WEIGHT] > 0 else 0.0) / w_root
        else:
            risk[v] = flts[v, IMPURITY] * flts[v, WEIGHT] / w_root
    mt = test.shape[0]
    X_te = np.empty((mt, X.shape[1]))
    target = np.empty(mt)
    w_te = np.empty(mt)
    for j in range(mt):
        i = test[j]
        for f in range(X.shape[1]):
            X_te[j, f] = X[i, f]
        target[j] = y_all[i] if regression else recode[np.int64(y_all[i])]
        w_te[j] = w_err[i]
    return held_out_moments(risk, t, X_te, max_depth_seen + 1, thresholds, label,
                            node_value, target, w_te, regression)
