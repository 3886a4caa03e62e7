"""The rules of one node, said once for both growers.

Whether a node may be split, and how a chosen split sends its samples to the children,
are decided here for the Python grower's big nodes (``_grower.grow``, through the two
kernels :func:`settle_node`, :func:`split_branches`, :func:`scan_order` and
:func:`plan_histograms`) and for the subtree kernel's small ones
(:func:`quercus._kernels.subtree.grow_subtree`, through the same functions compiled into
it), so that a rule is changed in one place and both growers grow the same tree.
"""

import numpy as np

from ._jit import inner, kernel
from .absolute import ae_node
from .complexity import collapses_at_floor, weighted_risk
from .criteria import ABSOLUTE_ERROR, impurity
from .histograms import _accumulate, feature_histogram
from .partition import route_into
from .schema import CAT_SUBSET, LEARNED, MULTIWAY
from .splits import _split_missing, at_least, category_order

_EPSILON = np.finfo(np.float64).eps


@inner
def settle_value(out, stats, y, idx, wi, criterion, regression, absolute):
    """Write what a node of samples ``idx`` (weights ``wi``, stats ``stats``) predicts
    into ``out``: its class weights, its mean target, or with ``absolute`` (not None) its
    weighted median (:func:`~quercus._kernels.absolute.ae_node`); returns its impurity
    under ``criterion``.

    Examples
    --------
    >>> import numpy as np
    >>> out = np.zeros(1)
    >>> stats = np.array([2.0, 3.0, 4.5])  # weight, sum of w*y, sum of w*y*y
    >>> imp = settle_value(out, stats, np.array([1.5, 1.5]), np.arange(2), np.ones(2), 2,
    ...                    True, None)  # squared error
    >>> float(out[0]), abs(float(imp)) < 1e-12
    (1.5, True)
    """
    if absolute is not None:
        med, imp = ae_node(y, idx, wi)
        out[0] = med
        return imp
    if regression:
        out[0] = stats[1] / stats[0]
    else:
        for k in range(out.shape[0]):
            out[k] = stats[k]
    return impurity(stats, criterion)


@inner
def may_split(depth, m, weight, max_depth, min_samples_split, min_samples_leaf,
              min_weight_leaf, min_objects):
    """Whether the depth and size rules allow splitting a node of ``m`` samples and
    ``weight`` at ``depth`` (a weight bound passes at :func:`at_least` of itself).

    Examples
    --------
    >>> may_split(0, 10, 10.0, 5, 2, 1, 0.0, 0.0), may_split(5, 10, 10.0, 5, 2, 1, 0.0, 0.0)
    (True, False)
    >>> may_split(0, 3, 3.0, 5, 2, 2, 0.0, 0.0)   # two leaves of 2 need 4 samples
    False
    """
    return not (depth >= max_depth or m < min_samples_split or m < 2 * min_samples_leaf
                or weight < at_least(2 * min_weight_leaf) or weight < at_least(2 * min_objects))


@inner
def settle(stats, imp, idx, wi, y, regression, depth, max_depth, min_samples_split,
           min_samples_leaf, min_weight_leaf, min_objects, risk_floor, risk_loss):
    """A node's weight and whether it is worth a split search.

    The node (samples ``idx``, weights ``wi``, stats ``stats``, impurity ``imp``) is a
    leaf when it is pure (one class present; a regressor's: a constant target, whatever
    rounding leaves in its impurity), when :func:`may_split` says so, or when its risk is
    below the cost-complexity floor ``risk_floor`` (0: none; :func:`weighted_risk` with
    loss ``risk_loss``). Returns (impurity, 0 for a pure regression node, weight summed in
    sample order, searchable).

    Examples
    --------
    >>> import numpy as np
    >>> idx, wi, y = np.arange(3), np.ones(3), np.array([0.0, 1.0, 1.0])
    >>> imp, weight, ok = settle(np.array([1.0, 2.0]), 0.44, idx, wi, y, False, 0, 5, 2, 1,
    ...                          0.0, 0.0, 0.0, 0)
    >>> float(weight), ok
    (3.0, True)
    >>> settle(np.array([0.0, 3.0]), 0.0, idx, wi, y, False, 0, 5, 2, 1, 0.0, 0.0, 0.0, 0)[2]
    False
    """
    m = idx.shape[0]
    weight = 0.0
    for i in range(m):
        weight += wi[i]
    if regression:
        y_min = np.inf
        y_max = -np.inf
        for i in range(m):
            y_min = min(y_min, y[idx[i]])
            y_max = max(y_max, y[idx[i]])
        pure = imp <= _EPSILON or y_min == y_max
        if pure:
            imp = 0.0
    else:
        n_present = 0
        for k in range(stats.shape[0]):
            if stats[k] > 0:
                n_present += 1
        pure = n_present <= 1
    if pure or not may_split(depth, m, weight, max_depth, min_samples_split,
                             min_samples_leaf, min_weight_leaf, min_objects):
        return imp, weight, False
    if risk_floor > 0.0 and weighted_risk(stats, imp, weight, risk_loss) < risk_floor:
        return imp, weight, False
    return imp, weight, True


@inner
def keeps_histograms(m, stats, weight, depth, hist_min_samples, max_depth,
                     min_samples_split, min_samples_leaf, min_weight_leaf, min_objects):
    """Whether a child of ``m`` samples, ``weight`` and ``stats`` at ``depth`` keeps dense
    histograms (its own, or its parent's less its sibling's): when it has at least
    ``hist_min_samples``, may split (:func:`may_split`) and is not pure.

    Examples
    --------
    >>> import numpy as np
    >>> keeps_histograms(600, np.array([300.0, 300.0]), 600.0, 1, 512, 10, 2, 1, 0.0, 0.0)
    True
    >>> keeps_histograms(600, np.array([600.0, 0.0]), 600.0, 1, 512, 10, 2, 1, 0.0, 0.0)
    False
    """
    present = 0
    for k in range(stats.shape[0]):
        if stats[k] > 0:
            present += 1
    return (m >= hist_min_samples and present > 1
            and may_split(depth, m, weight, max_depth, min_samples_split, min_samples_leaf,
                          min_weight_leaf, min_objects))


@inner
def histogram_plan(offsets, child_stats, c_weight, depth, hist_min_samples, max_depth,
                   min_samples_split, min_samples_leaf, min_weight_leaf, min_objects):
    """Which children of a binary split (children's samples at ``offsets``, their stats
    and weights ``c_weight``, the parent at ``depth``) keep dense histograms: (the larger
    child, whether it keeps them, whether the smaller keeps its own). The larger child's
    are the parent's less the smaller's, so it keeps them only if the smaller's are
    built; of two equal children the first is the larger. Each by
    :func:`keeps_histograms`.

    Examples
    --------
    >>> import numpy as np
    >>> stats = np.array([[300.0, 300.0], [100.0, 500.0]])
    >>> plan = histogram_plan(np.array([0, 600, 1200]), stats, np.array([600.0, 600.0]),
    ...                       0, 512, 10, 2, 1, 0.0, 0.0)
    >>> int(plan[0]), bool(plan[1]), bool(plan[2])
    (0, True, True)
    """
    big = 0 if offsets[1] - offsets[0] >= offsets[2] - offsets[1] else 1
    small = 1 - big
    if not keeps_histograms(offsets[big + 1] - offsets[big], child_stats[big], c_weight[big],
                            depth + 1, hist_min_samples, max_depth, min_samples_split,
                            min_samples_leaf, min_weight_leaf, min_objects):
        return big, False, False
    return big, True, keeps_histograms(offsets[small + 1] - offsets[small],
                                       child_stats[small], c_weight[small], depth + 1,
                                       hist_min_samples, max_depth, min_samples_split,
                                       min_samples_leaf, min_weight_leaf, min_objects)


@kernel
def scan_order(codes_f, nbf, idx, wi, y, y2, n_stats, criterion):
    """The categories present at a node (of a feature of ``nbf`` categories, its missing
    code ``nbf``) in the order an ordered subset split scans them: by mean target
    (:func:`quercus._kernels.splits.category_order`). Both growers and ``explain`` read
    it (absolute error orders by weighted median instead).

    Examples
    --------
    >>> import numpy as np
    >>> codes = np.array([0, 1, 1, 3], dtype=np.uint8)   # 3 categories; 3: missing
    >>> y = np.array([5.0, 1.0, 1.0, 9.0])
    >>> scan_order(codes, 3, np.arange(4), np.ones(4), y, y * y, 3, 2).tolist()
    [1, 0]
    """
    bins, counts, n = feature_histogram(codes_f, idx, wi, y, y2, nbf + 1, n_stats, criterion)
    nk, _, _ = _split_missing(bins, counts, n, nbf)
    return bins[:nk][category_order(counts[:nk], criterion)]


@kernel
def subset_map(codes, n_bins, f, idx, wi, y, y2, n_stats, criterion, n_left):
    """The child (0 left, 1 right, -1 absent from the node) of every category of an
    ordered subset split of feature ``f`` that puts the first ``n_left`` categories of
    :func:`scan_order` on the left.

    Examples
    --------
    >>> import numpy as np
    >>> codes = np.array([[0], [1], [1], [3]], dtype=np.uint8)   # 3 categories; 3: missing
    >>> y = np.array([5.0, 1.0, 1.0, 9.0])
    >>> cat_map = subset_map(codes, np.array([3]), 0, np.arange(4), np.ones(4), y, y * y,
    ...                      3, 2, 1)   # regression: 3 stats, squared error
    >>> cat_map.tolist()   # category 1 (mean 1) left, 0 (mean 5) right, 2 absent
    [1, 0, -1]
    """
    nbf = n_bins[f]
    order = scan_order(codes[:, f], nbf, idx, wi, y, y2, n_stats, criterion)
    cat_map = np.full(nbf, -1, dtype=np.int64)
    for j in range(order.shape[0]):
        cat_map[order[j]] = 0 if j < n_left else 1
    return cat_map


@inner
def majority_child(known_w):
    """The child that takes what no rule sends elsewhere: the heaviest (by the samples
    whose branch is known); of two equal ones the right, as scikit-learn sends missing
    values at a node that saw none (``missing_go_to_left = n_left > n_right``).

    Examples
    --------
    >>> import numpy as np
    >>> int(majority_child(np.array([2.0, 2.0])))
    1
    >>> int(majority_child(np.array([3.0, 1.0, 4.0])))
    2
    """
    if known_w.shape[0] > 2:
        return np.argmax(known_w)
    return 0 if known_w[0] > known_w[1] + 1e-12 * max(1.0, known_w[1]) else 1


@inner
def branches(codes_f, nbf, k, split_bin, cat_map, idx, wi, missing_mode, miss_dir):
    """Where a split (kind ``k`` on bin ``split_bin``, ``cat_map`` for a subset split, of a
    feature of ``nbf`` bins) sends each of the node's samples.

    Returns (branch: each sample's child, -1 when it misses the attribute; the known
    samples' weight per child; whether any sample misses it; the missing child: the
    learned direction ``miss_dir`` under ``LEARNED``, else :func:`majority_child`). The
    categories of a subset split absent from the node (``cat_map`` -1) follow the
    majority, written into ``cat_map``.
    """
    n_children = nbf if k == MULTIWAY else 2
    return branches_into(codes_f, nbf, k, split_bin, cat_map, idx, wi, missing_mode,
                         miss_dir, np.empty(idx.shape[0], dtype=np.int32),
                         np.empty(n_children))


@inner
def branches_into(codes_f, nbf, k, split_bin, cat_map, idx, wi, missing_mode, miss_dir,
                  branch_buf, known_buf):
    """:func:`branches` written into the caller's scratch: ``branch_buf`` (int32, at
    least a slot per sample) and ``known_buf`` (at least a slot per child); the branch
    and known weights it returns are views of them."""
    n_children = nbf if k == MULTIWAY else 2
    branch = route_into(codes_f, idx, k, split_bin, cat_map, nbf,
                        branch_buf[:idx.shape[0]])
    known_w = known_buf[:n_children]
    for c in range(n_children):
        known_w[c] = 0.0
    any_missing = False
    for i in range(idx.shape[0]):
        if branch[i] >= 0:
            known_w[branch[i]] += wi[i]
        else:
            any_missing = True
    majority = majority_child(known_w)
    missing_child = majority
    if missing_mode == LEARNED and miss_dir >= 0:
        missing_child = miss_dir
    if k == CAT_SUBSET:
        for c in range(nbf):
            if cat_map[c] < 0:
                cat_map[c] = majority
    return branch, known_w, any_missing, missing_child


@inner
def collapses(stats, imp, weight, branch, idx, wi, y, y2, n_children, n_stats, regression,
              criterion, stat_crit, risk_loss, risk_floor):
    """Whether the chosen split of a node (``branch``: each sample's child, -1 missing) is
    collapsed at every alpha from the cost-complexity floor up
    (:func:`collapses_at_floor`, the children's stats from their known samples): the node
    is then a leaf. Never without a floor (``risk_floor`` 0), nor for absolute error,
    whose children's risk is not in their stats."""
    return collapses_into(stats, imp, weight, branch, idx, wi, y, y2, n_children, n_stats,
                          regression, criterion, stat_crit, risk_loss, risk_floor,
                          np.empty((n_children, n_stats)))


@inner
def collapses_into(stats, imp, weight, branch, idx, wi, y, y2, n_children, n_stats,
                   regression, criterion, stat_crit, risk_loss, risk_floor, stats_buf):
    """:func:`collapses` with the children's stats summed in the caller's scratch
    ``stats_buf`` (at least ``n_children`` rows of ``n_stats``)."""
    if risk_floor <= 0.0 or criterion == ABSOLUTE_ERROR:
        return False
    child_stats = stats_buf[:n_children]
    for c in range(n_children):
        for k in range(n_stats):
            child_stats[c, k] = 0.0
    for i in range(idx.shape[0]):
        if branch[i] >= 0:
            _accumulate(child_stats, branch[i], y[idx[i]], y2[idx[i]], wi[i], stat_crit)
    return collapses_at_floor(weighted_risk(stats, imp, weight, risk_loss), child_stats,
                              regression, criterion, risk_loss, risk_floor)


@kernel
def settle_node(stats, imp, idx, wi, y, regression, depth, max_depth, min_samples_split,
                min_samples_leaf, min_weight_leaf, min_objects, risk_floor, risk_loss):
    """:func:`settle` for the Python grower.

    Examples
    --------
    >>> import numpy as np
    >>> idx, wi, y = np.arange(2), np.ones(2), np.array([1.5, 1.5])
    >>> imp, weight, ok = settle_node(np.array([2.0, 3.0, 4.5]), 1e-17, idx, wi, y, True, 0,
    ...                               5, 2, 1, 0.0, 0.0, 0.0, 0)   # a constant target: pure
    >>> float(imp), float(weight), bool(ok)
    (0.0, 2.0, False)
    """
    return settle(stats, imp, idx, wi, y, regression, depth, max_depth, min_samples_split,
                  min_samples_leaf, min_weight_leaf, min_objects, risk_floor, risk_loss)


@kernel
def split_branches(codes_f, nbf, k, split_bin, cat_map, idx, wi, missing_mode, miss_dir,
                   stats, imp, weight, y, y2, n_stats, regression, criterion, stat_crit,
                   risk_loss, risk_floor):
    """:func:`branches` and :func:`collapses` for the Python grower: (branch, known
    weights per child, any missing, missing child, collapses).

    Examples
    --------
    >>> import numpy as np
    >>> codes = np.array([0, 1, 2, 3], dtype=np.uint8)   # bin 3: missing
    >>> branch, known_w, miss, child, gone = split_branches(
    ...     codes, 3, 1, 0, np.zeros(1, np.int64), np.arange(4), np.ones(4), 1, -1,
    ...     np.array([2.0, 2.0]), 0.5, 4.0, np.array([0., 1., 1., 0.]),
    ...     np.array([0., 1., 1., 0.]), 2, False, 1, 1, 0, 0.0)
    >>> branch.tolist(), known_w.tolist(), bool(miss), int(child), bool(gone)
    ([0, 1, 1, -1], [1.0, 2.0], True, 1, False)
    """
    branch, known_w, any_missing, missing_child = branches(
        codes_f, nbf, k, split_bin, cat_map, idx, wi, missing_mode, miss_dir)
    gone = collapses(stats, imp, weight, branch, idx, wi, y, y2, known_w.shape[0], n_stats,
                     regression, criterion, stat_crit, risk_loss, risk_floor)
    return branch, known_w, any_missing, missing_child, gone


@kernel
def plan_histograms(offsets, child_stats, c_weight, depth, hist_min_samples, max_depth,
                    min_samples_split, min_samples_leaf, min_weight_leaf, min_objects):
    """:func:`histogram_plan` for the Python grower (``c_weight``: the children's weights,
    as :func:`~quercus._kernels.split_step.apply_split` sums them).

    Examples
    --------
    >>> import numpy as np
    >>> stats = np.array([[1.0, 2.0], [600.0, 0.0]])   # the larger child is pure
    >>> plan = plan_histograms(np.array([0, 3, 603]), stats, np.array([3.0, 600.0]), 0, 512,
    ...                        10, 2, 1, 0.0, 0.0)
    >>> int(plan[0]), bool(plan[1]), bool(plan[2])
    (1, False, False)
    """
    return histogram_plan(offsets, child_stats, c_weight, depth, hist_min_samples, max_depth,
                          min_samples_split, min_samples_leaf, min_weight_leaf, min_objects)
