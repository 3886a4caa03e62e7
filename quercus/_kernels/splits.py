"""Split search: the best candidate split of every feature at one node.

One search serves every algorithm. Per feature it builds the compact histogram (missing
values in a reserved last bin), turns each candidate into ``branch_stats`` and scores it:

- numeric: a cumulative scan over the sorted bins, two branches, threshold at the midpoint of
  the two adjacent observed values (the textbook's T_a, computed as scikit-learn does);
- categorical multiway (ID3/C4.5): one branch per category;
- categorical one-vs-rest (the seeds' CART rule): ``a == v`` against ``a != v``;
- categorical ordered (regression): categories sorted by mean target, then scanned like a
  numeric feature, which finds the best two-subset split (Breiman et al.).

Missing values, by ``missing_mode``:
- FRACTIONAL (C4.5) and SURROGATE (rpart): scored on the samples that have the attribute,
  the decrease multiplied by their weight fraction rho; C4.5's split information counts the
  missing weight as one more branch (Quinlan's rule, as in Weka's J48);
- LEARNED (scikit-learn): missing samples join the branch that scores best.

Which feature wins is decided by ``selection.choose_split``.
"""

from typing import NamedTuple

import numpy as np

from ._jit import hot, inner, kernel
from .borrow import borrowed
from .criteria import (ABSOLUTE_ERROR, ENTROPY, GINI, SQUARED_ERROR, is_regression, mass_scan,
                       needs_positive_mean, split_loss, split_scores, split_scores_into,
                       stats_weight)
from .schema import CAT_BINARY, CAT_MULTIWAY, CAT_ONE_VS_REST, CAT_SUBSET, LEARNED, MULTIWAY, NUMERIC
from .absolute import ae_search_feature
from .thresholds import (TIE_EPS, at_least, boundary_threshold, draw_boundary,  # noqa: F401
                         lower, midpoint)  # (TIE_EPS, at_least, lower: re-exported)
from .histograms import (compact_histogram, compact_histogram_into, dense_histogram_into,
                         dense_pass, feature_histogram, known_and_missing_totals,
                         slice_histogram, slice_positions, sorted_histogram,
                         sorted_histogram_into)

_LOG2 = np.log(2.0)


@kernel
def resolve_threshold(codes_f, idx, split_bin, missing_code, xv, row_stride, col_stride,
                      x_rows, f):
    """Threshold of a split of a feature with no value table (its codes are the ranks of
    its values): the midpoint of the largest value going left (code <= ``split_bin``) and
    the smallest going right among the node's samples ``idx`` with the feature known,
    read from the training matrix: feature ``f`` of sample ``i`` is
    ``x[x_rows[i] * row_stride + f * col_stride]`` (``x_rows`` empty: ``i`` itself), ``x``
    the matrix's buffer: ``xv`` is (float64 buffer, float32 buffer), the one not read
    empty (one compiled type for both). These are the two values the value table would
    give (a float32 value widened to float64 is the value the table holds).

    One code is one value, so the pass reads codes only: the samples of the largest code
    on the left and the smallest on the right, then those two values.
    """
    left_code, right_code = -1, missing_code
    left_row, right_row = -1, -1
    for j in range(idx.shape[0]):
        i = idx[j]
        c = np.int64(codes_f[i])
        if c <= split_bin:
            if c > left_code:
                left_code, left_row = c, i
        elif c < right_code:
            right_code, right_row = c, i
    return midpoint_of_rows(xv, row_stride, col_stride, x_rows, left_row, right_row, f)


@kernel(inline="always")
def midpoint_of_rows(xv, row_stride, col_stride, x_rows, left, right, f):
    """Midpoint of feature ``f`` of samples ``left`` and ``right`` in the training matrix
    (see :func:`resolve_threshold` for the buffer, its strides and ``x_rows``)."""
    if x_rows.shape[0] > 0:
        left, right = x_rows[left], x_rows[right]
    a, b = left * row_stride + f * col_stride, right * row_stride + f * col_stride
    x64, x32 = xv
    if x64.shape[0] > 0:
        return midpoint(x64[a], x64[b])
    return midpoint(np.float64(x32[a]), np.float64(x32[b]))


@inner
def _branch_ok(a, b, n_a, n_b, criterion, min_leaf_n, min_leaf_w):
    if n_a < min_leaf_n or n_b < min_leaf_n:
        return False
    if stats_weight(a, criterion) < min_leaf_w or stats_weight(b, criterion) < min_leaf_w:
        return False
    if needs_positive_mean(criterion) and (a[1] <= 1e-12 or b[1] <= 1e-12):
        return False  # a Poisson child needs a positive mean (scikit-learn's rule)
    return True


# Rows of the scratch that one feature's scoring works in (:func:`score_histogram`'s
# ``work``, float64 (WORK_ROWS, n_stats)), made once per node search or subtree rather than
# as a handful of small arrays per feature and node.
W_MISS, W_TOTAL, W_LEFT, W_BEST, W_RIGHT, W_LA, W_RA, W_STATS = 0, 1, 2, 3, 4, 5, 6, 7
WORK_ROWS = W_STATS + 3  # (two rows of branch stats, and their parent's)


@kernel
def _split_missing(bins, counts, n, n_real_bins):
    """Separate the reserved missing bin. Returns (n_known_bins, miss_stats, n_miss)."""
    miss = np.empty(counts.shape[1])
    nk, n_miss = _split_missing_into(bins, counts, n, n_real_bins, miss)
    return nk, miss, n_miss


@kernel(inline="always")
def known_bins(bins, nb, n_real_bins):
    """How many of a compact histogram's ``nb`` present bins are known: ``nb - 1`` when
    the last is the reserved missing bin (code ``n_real_bins``), else ``nb``."""
    return nb - 1 if nb > 0 and bins[nb - 1] == n_real_bins else nb


@kernel(inline="always")
def _split_missing_into(bins, counts, n, n_real_bins, miss):
    """:func:`_split_missing` writing the missing bin's stats (zeros: none) into ``miss``.
    Returns (n_known_bins, n_miss)."""
    nb = bins.shape[0]
    if known_bins(bins, nb, n_real_bins) < nb:
        for k in range(counts.shape[1]):
            miss[k] = counts[nb - 1, k]
        return nb - 1, n[nb - 1]
    for k in range(counts.shape[1]):
        miss[k] = 0.0
    return nb, np.int64(0)


@hot
def _final_scores(left, right, miss, n_miss, miss_dir, criterion, missing_mode, stats):
    """Decrease and split information of a two-way split, missing values included.

    ``miss_dir``: 0 missing joins the left branch, 1 the right, -1 scored on known only.
    ``stats``: scratch of three rows, the branches' stats and their parent's.
    """
    n_stats = left.shape[0]
    branches = stats[:2]
    if missing_mode == 2 or n_miss == 0:  # LEARNED, or nothing missing
        for k in range(n_stats):
            branches[0, k] = left[k] + (miss[k] if miss_dir == 0 else 0.0)
            branches[1, k] = right[k] + (miss[k] if miss_dir == 1 else 0.0)
        return split_scores_into(branches, criterion, stats[2])
    for k in range(n_stats):
        branches[0, k] = left[k]
        branches[1, k] = right[k]
    child, dec, _ = split_scores_into(branches, criterion, stats[2])
    return child, dec * _rho(left, right, miss, criterion), _info_with_missing(
        branches, miss, criterion)


@inner
def _rho(left, right, miss, criterion):
    known = stats_weight(left, criterion) + stats_weight(right, criterion)
    total = known + stats_weight(miss, criterion)
    return known / total if total > 0.0 else 0.0


@kernel
def _info_with_missing(branch_stats, miss, criterion):
    """Split information with the missing weight as one more branch (Quinlan)."""
    total = stats_weight(miss, criterion)
    for b in range(branch_stats.shape[0]):
        total += stats_weight(branch_stats[b], criterion)
    if total <= 0.0:
        return 0.0
    info = 0.0
    for b in range(branch_stats.shape[0] + 1):
        w = stats_weight(branch_stats[b], criterion) if b < branch_stats.shape[0] else \
            stats_weight(miss, criterion)
        frac = w / total
        if frac > 0.0:
            info -= frac * np.log(frac) / np.log(2.0)
    return info


@inner
def scan_ordered(counts, n, total_n, miss, n_miss, criterion, missing_mode, min_leaf_n,
                 min_leaf_w, lo_t, hi_t, work):
    """Best boundary of a cumulative scan over ``counts`` rows in their given order
    (``work[W_TOTAL]``, ``total_n``: their :func:`_totals`).

    Boundaries ``t`` in ``[lo_t, hi_t)`` put rows ``0..t`` left. Returns
    (best_t, miss_dir, best_left) with best_t = -1 when no boundary is valid, and
    best_t = nb - 1 for LEARNED's "every known value left, missing right" candidate.
    ``best_left`` is the known rows' stats left of the best boundary, copied from the scan
    when it finds a better one (the same sums in the same order, so the same bits, as
    summing the prefix again afterwards, without that second pass). ``work``: the
    scratch of :func:`score_histogram` (its rows W_TOTAL, W_LEFT, W_BEST, W_RIGHT, W_LA,
    W_RA; ``best_left`` is its row W_BEST).
    """
    nb, n_stats = counts.shape
    total = work[W_TOTAL]
    left = work[W_LEFT]
    best_left = work[W_BEST]
    for k in range(n_stats):
        left[k] = 0.0
        best_left[k] = 0.0
    learned = missing_mode == 2 and n_miss > 0
    best_t = np.int64(-1)
    best_dir = np.int64(-1)
    best_child = np.inf
    left_n = np.int64(0)
    for b in range(lo_t):
        left_n += n[b]
        for k in range(n_stats):
            left[k] += counts[b, k]
    if not learned and mass_scan(criterion):
        return _scan_known(counts, n, work, total_n, left_n, criterion, min_leaf_n,
                           min_leaf_w, lo_t, hi_t), -1, best_left
    right = work[W_RIGHT]
    la = work[W_LA]
    ra = work[W_RA]
    for t in range(lo_t, hi_t):
        left_n += n[t]
        for k in range(n_stats):
            left[k] += counts[t, k]
            right[k] = total[k] - left[k]
        right_n = total_n - left_n
        if not learned:
            if _branch_ok(left, right, left_n, right_n, criterion, min_leaf_n, min_leaf_w):
                child = split_loss(left, right, criterion)
                if lower(child, best_child):
                    best_t, best_dir, best_child = t, -1, child
                    _copy_into(best_left, left)
            continue
        # Missing to the right first, so that a tie keeps them right (scikit-learn's order).
        for d in range(1, -1, -1):
            for k in range(n_stats):
                la[k] = left[k] + (miss[k] if d == 0 else 0.0)
                ra[k] = right[k] + (miss[k] if d == 1 else 0.0)
            nl = left_n + (n_miss if d == 0 else 0)
            nr = right_n + (n_miss if d == 1 else 0)
            if _branch_ok(la, ra, nl, nr, criterion, min_leaf_n, min_leaf_w):
                child = split_loss(la, ra, criterion)
                if lower(child, best_child):
                    best_t, best_dir, best_child = t, d, child
                    _copy_into(best_left, left)
    if learned and hi_t == nb - 1:
        # Every known value left, the missing ones right.
        if _branch_ok(total, miss, total_n, n_miss, criterion, min_leaf_n, min_leaf_w):
            child = split_loss(total, miss, criterion)
            if lower(child, best_child):
                best_t, best_dir, best_child = nb - 1, 1, child
                _copy_into(best_left, total)
    return best_t, best_dir, best_left


@kernel(inline="always")
def _scan_known(counts, n, work, total_n, left_n, criterion, min_leaf_n, min_leaf_w, lo_t,
                hi_t):
    """The hot loop of :func:`scan_ordered` without missing values to place (Gini,
    entropy, squared error), on :func:`score_histogram`'s ``work``: the totals in its row
    W_TOTAL, the left branch's stats of rows ``0..lo_t - 1`` (``left_n`` samples) in its
    row W_LEFT, the best boundary's left stats written into its row W_BEST. Returns the
    best boundary (-1: none)."""
    # The commonest cases with their stats in scalars: the loop below keeps them in
    # arrays whose length numba does not know, so that every step loops over them and
    # reads them back from memory (the same sums in the same order: the same bits).
    if work.shape[1] == 2 and (criterion == GINI or criterion == ENTROPY):
        return _scan_two_classes(counts, n, work, total_n, left_n, criterion, min_leaf_n,
                                 min_leaf_w, lo_t, hi_t)
    if criterion == SQUARED_ERROR:
        return _scan_squared_error(counts, n, work, total_n, left_n, min_leaf_n, min_leaf_w,
                                   lo_t, hi_t)
    total = work[W_TOTAL]
    left = work[W_LEFT]
    best_left = work[W_BEST]
    regression = is_regression(criterion)
    total_w = stats_weight(total, criterion)
    left_w = stats_weight(left, criterion)
    best_t = np.int64(-1)
    best_child = np.inf
    for t in range(lo_t, hi_t):
        left_n, left_w, child = _add_row_and_score(
            counts, t, n[t], left, left_n, left_w, total, total_n, total_w, regression,
            criterion, min_leaf_n, min_leaf_w)
        if lower(child, best_child):
            best_t, best_child = t, child
            _copy_into(best_left, left)
    return best_t


@hot
def _scan_two_classes(counts, n, work, total_n, left_n, criterion, min_leaf_n, min_leaf_w,
                      lo_t, hi_t):
    """:func:`_scan_known` for Gini or entropy on two classes: :func:`_add_row_and_score`'s
    and :func:`_mass_impurity`'s arithmetic, in their order, on scalars (``work``'s row
    W_LEFT is left as it came: only its row W_BEST is read afterwards)."""
    t0 = work[W_TOTAL, 0]
    t1 = work[W_TOTAL, 1]
    total_w = 0.0
    total_w += t0
    total_w += t1
    l0 = work[W_LEFT, 0]
    l1 = work[W_LEFT, 1]
    left_w = 0.0
    left_w += l0
    left_w += l1
    best_t = np.int64(-1)
    best_child = np.inf
    for t in range(lo_t, hi_t):
        c0 = counts[t, 0]
        c1 = counts[t, 1]
        left_n += n[t]
        l0 += c0
        l1 += c1
        row_w = 0.0
        row_w += c0
        row_w += c1
        left_w = left_w + row_w
        right_w = total_w - left_w
        if not _sizes_ok(left_n, total_n - left_n, left_w, right_w, min_leaf_n, min_leaf_w):
            continue
        child = (_two_class_mass(l0, l1, left_w, criterion)
                 + _two_class_mass(t0 - l0, t1 - l1, right_w, criterion)) / total_w
        if lower(child, best_child):
            best_t, best_child = t, child
            work[W_BEST, 0] = l0
            work[W_BEST, 1] = l1
    return best_t


@inner
def _two_class_mass(a0, a1, w, criterion):
    """:func:`_mass_impurity` of a branch of class weights ``a0``, ``a1`` (weight ``w``
    > 0), Gini or entropy."""
    acc = 0.0
    acc += _class_term(a0, w, criterion)
    acc += _class_term(a1, w, criterion)
    if criterion == GINI:
        return max(w - acc / w, 0.0)
    return acc / _LOG2


@inner
def _class_term(c, w, criterion):
    """One class's term in the sum of :func:`_mass_impurity` and :func:`_two_class_mass`,
    for class weight ``c`` in a branch of weight ``w`` > 0: ``c * c`` (Gini), or
    ``-c * log(c / w)`` (entropy, nats; 0 for an empty class)."""
    if criterion == GINI:
        return c * c
    if c > 0.0:
        p = c / w
        if p > 0.0:
            return -(c * np.log(p))
    return 0.0


@inner
def _squared_error_mass(s1, s2, w):
    """``w`` times the variance of a branch of sums ``s1`` (w*y) and ``s2`` (w*y^2) and
    weight ``w`` > 0 (:func:`_mass_impurity`'s squared error)."""
    return max(s2 - s1 * s1 / w, 0.0)


@inner
def _sizes_ok(left_n, right_n, left_w, right_w, min_leaf_n, min_leaf_w):
    """Whether both branches of a boundary have the least samples and weight a leaf
    needs, and some weight (every scan's test)."""
    return not (left_n < min_leaf_n or right_n < min_leaf_n or left_w < min_leaf_w
                or right_w < min_leaf_w or left_w <= 0.0 or right_w <= 0.0)


@hot
def _scan_squared_error(counts, n, work, total_n, left_n, min_leaf_n, min_leaf_w, lo_t,
                        hi_t):
    """:func:`_scan_known` for squared error (stats: weight, sum of w*y, sum of w*y^2):
    :func:`_add_row_and_score`'s and :func:`_mass_impurity`'s arithmetic, in their
    order, on scalars."""
    total_w = work[W_TOTAL, 0]
    t1 = work[W_TOTAL, 1]
    t2 = work[W_TOTAL, 2]
    l0 = work[W_LEFT, 0]
    l1 = work[W_LEFT, 1]
    l2 = work[W_LEFT, 2]
    best_t = np.int64(-1)
    best_child = np.inf
    for t in range(lo_t, hi_t):
        left_n += n[t]
        l0 += counts[t, 0]
        l1 += counts[t, 1]
        l2 += counts[t, 2]
        left_w = l0
        right_w = total_w - left_w
        if not _sizes_ok(left_n, total_n - left_n, left_w, right_w, min_leaf_n, min_leaf_w):
            continue
        child = (_squared_error_mass(l1, l2, left_w)
                 + _squared_error_mass(t1 - l1, t2 - l2, right_w)) / total_w
        if lower(child, best_child):
            best_t, best_child = t, child
            work[W_BEST, 0] = l0
            work[W_BEST, 1] = l1
            work[W_BEST, 2] = l2
    return best_t


@kernel(inline="always")
def _copy_into(out, src):
    """``out[:] = src`` without the slice assignment's shape check (compiled with its
    error message's formatting, in every kernel that inlines the scan)."""
    for k in range(src.shape[0]):
        out[k] = src[k]


@kernel(inline="always")
def _difference(total, left, out):
    """``out[:] = total - left`` (the right branch's stats), returned."""
    for k in range(total.shape[0]):
        out[k] = total[k] - left[k]
    return out


@kernel(inline="always")
def _add_row_and_score(counts, t, n_t, left, left_n, left_w, total, total_n, total_w,
                       regression, criterion, min_leaf_n, min_leaf_w):
    """One step of a cumulative scan: row ``t`` of ``counts`` (``n_t`` samples) joins the
    left branch (``left`` in place). Returns the new (left_n, left_w) and the children's
    impurity of the boundary after it, inf when a branch is too small or weightless."""
    left_n += n_t
    for k in range(left.shape[0]):
        left[k] += counts[t, k]
    left_w = left[0] if regression else left_w + _row_weight(counts, t)
    right_w = total_w - left_w
    if not _sizes_ok(left_n, total_n - left_n, left_w, right_w, min_leaf_n, min_leaf_w):
        return left_n, left_w, np.inf
    child = (_mass_impurity(left, left_w, total, 1.0, criterion)
             + _mass_impurity(left, right_w, total, -1.0, criterion)) / total_w
    return left_n, left_w, child


@kernel(inline="always")
def _row_weight(counts, t):
    w = 0.0
    for k in range(counts.shape[1]):
        w += counts[t, k]
    return w


@kernel(inline="always")
def _stats_weight_at(counts, t, criterion):
    """:func:`stats_weight` of row ``t`` of ``counts``, read by index (no view of it)."""
    if is_regression(criterion):
        return counts[t, 0]
    return _row_weight(counts, t)


@kernel(inline="always")
def _mass_impurity(left, w, total, sign, criterion):
    """``w`` times the impurity of the left branch (``sign`` 1) or of the right one,
    ``total - left`` (``sign`` -1), whose weight is ``w`` > 0: squared error, Gini or
    entropy, the criteria whose ``scan`` is "mass" (the registry's)."""
    if criterion == SQUARED_ERROR:
        return _squared_error_mass(left[1] if sign > 0 else total[1] - left[1],
                                   left[2] if sign > 0 else total[2] - left[2], w)
    acc = 0.0
    for k in range(left.shape[0]):
        acc += _class_term(left[k] if sign > 0 else total[k] - left[k], w, criterion)
    if criterion == GINI:
        return max(w - acc / w, 0.0)
    return acc / _LOG2


@inner
def _totals(counts, n, total):
    """The stats (written into ``total``) and the sample count (returned) of all
    ``counts`` rows: ``_prefix(counts, nb - 1)``, summed in the same order (the same
    bits)."""
    for k in range(counts.shape[1]):
        total[k] = 0.0
    total_n = np.int64(0)
    for b in range(counts.shape[0]):
        total_n += n[b]
        for k in range(counts.shape[1]):
            total[k] += counts[b, k]
    return total_n


@inner
def _prefix(counts, upto):
    out = np.zeros(counts.shape[1])
    for b in range(upto + 1):
        for k in range(counts.shape[1]):
            out[k] += counts[b, k]
    return out


@kernel(inline="always")
def best_split_numeric(bins, counts, n, lo, hi, miss, n_miss, criterion, missing_mode,
                       min_leaf_n, min_leaf_w, u, work, known_n=-1):
    """Best threshold of one numeric feature from its compact histogram (known bins).

    ``lo[bin]`` / ``hi[bin]`` are the smallest / largest observed value of each bin (equal
    in exact mode); the threshold between two bins is the midpoint of the left one's ``hi``
    and the right one's ``lo``. ``u`` in [0, 1) draws one random threshold
    (``splitter="random"``); ``u < 0`` scans every midpoint. ``work``: the scratch of
    :func:`score_histogram`.
    Returns (found, child_impurity, decrease, split_info, last_left_bin, threshold,
    miss_dir). ``known_n`` >= 0: the bins' sample count, their stats already in
    ``work[W_TOTAL]`` (:func:`_totals`' sums).
    """
    nb = counts.shape[0]
    none = (False, 0.0, -np.inf, 0.0, -1, 0.0, -1)
    if nb < 1 or (nb < 2 and not (missing_mode == 2 and n_miss > 0)):
        return none
    lo_t, hi_t = 0, nb - 1
    draw = 0.0
    if u >= 0.0 and nb >= 2:
        t, draw = draw_boundary(bins, nb, lo, hi, u)
        lo_t, hi_t = t, t + 1
    total = work[W_TOTAL]
    total_n = np.int64(known_n)
    if known_n < 0:
        total_n = _totals(counts, n, total)
    t, d, left = scan_ordered(counts, n, total_n, miss, n_miss, criterion, missing_mode,
                              min_leaf_n, min_leaf_w, lo_t, hi_t, work)
    if t < 0:
        return none
    right = _difference(total, left, work[W_RIGHT])
    child, dec, info = _final_scores(left, right, miss, n_miss, d, criterion, missing_mode,
                                     work[W_STATS:])
    if t == nb - 1:
        thr = np.inf  # known values all left, missing right
    else:
        thr = boundary_threshold(bins, t, lo, hi, u, draw)
    return (True, child, dec, info, bins[t], thr, d)


@inner
def best_split_multiway(counts, n, miss, n_miss, criterion, missing_mode, min_leaf_n,
                        min_leaf_w, min_objects=0.0):
    """Multiway split of a categorical feature: one branch per category present.

    Empty categories are branches too (leaves with the parent's prediction) but add nothing
    to the scores. LEARNED sends the missing samples to the branch that scores best; the
    other modes score on known values. Returns (found, child_impurity, decrease,
    split_info, miss_branch) where miss_branch indexes ``counts`` rows (-1: none).
    ``min_objects`` > 0 is C4.5's rule (J48's -M): at least two branches must hold that
    much known weight.
    """
    nb, n_stats = counts.shape
    if nb < 2:
        return False, 0.0, -np.inf, 0.0, -1
    big = 0
    for b in range(nb):
        wb = stats_weight(counts[b], criterion)
        if n[b] < min_leaf_n or wb < min_leaf_w:
            return False, 0.0, -np.inf, 0.0, -1
        if wb >= min_objects:
            big += 1
    if big < 2:
        return False, 0.0, -np.inf, 0.0, -1
    if n_miss == 0 or missing_mode != 2:
        child, dec, info = split_scores(counts, criterion)
        if n_miss == 0:
            return True, child, dec, info, -1
        total = np.zeros(n_stats)
        for b in range(nb):
            for k in range(n_stats):
                total[k] += counts[b, k]
        known = stats_weight(total, criterion)
        rho = known / (known + stats_weight(miss, criterion))
        return True, child, dec * rho, _info_with_missing(counts, miss, criterion), -1
    best = (False, 0.0, -np.inf, 0.0, -1)
    trial = counts.copy()
    for j in range(nb):
        for k in range(n_stats):
            trial[j, k] += miss[k]
        child, dec, info = split_scores(trial, criterion)
        if lower(best[2], dec):
            best = (True, child, dec, info, j)
        for k in range(n_stats):
            trial[j, k] -= miss[k]
    return best


@inner
def best_split_one_vs_rest(bins, counts, n, miss, n_miss, criterion, missing_mode,
                           min_leaf_n, min_leaf_w, u, work):
    """Best ``a == v`` / ``a != v`` split of a categorical feature.

    Returns (found, child_impurity, decrease, split_info, category, miss_dir).
    """
    nb, n_stats = counts.shape
    best = (False, 0.0, -np.inf, 0.0, -1, -1)
    if nb < 1 or (nb < 2 and not (missing_mode == 2 and n_miss > 0)):
        return best
    total = np.zeros(n_stats)
    total_n = np.int64(0)
    for b in range(nb):
        total_n += n[b]
        for k in range(n_stats):
            total[k] += counts[b, k]
    left = np.empty(n_stats)
    right = np.empty(n_stats)
    lo, hi = 0, nb
    if u >= 0.0:
        lo = min(int(u * nb), nb - 1)
        hi = lo + 1
    learned = missing_mode == 2 and n_miss > 0
    best_child = np.inf
    best_b = np.int64(-1)
    best_d = np.int64(-1)
    n_dirs = 2 if learned else 1
    for b in range(lo, hi):
        for dd in range(n_dirs):
            # Missing to the right first, so that a tie keeps them right.
            d = 1 - dd if learned else -1
            for k in range(n_stats):
                left[k] = counts[b, k] + (miss[k] if d == 0 else 0.0)
                right[k] = total[k] - counts[b, k] + (miss[k] if d == 1 else 0.0)
            nl = n[b] + (n_miss if d == 0 else 0)
            nr = total_n - n[b] + (n_miss if d == 1 else 0)
            if not _branch_ok(left, right, nl, nr, criterion, min_leaf_n, min_leaf_w):
                continue
            child = split_loss(left, right, criterion)
            if lower(child, best_child):
                best_child, best_b, best_d = child, b, d
    if best_b < 0:
        return best
    for k in range(n_stats):
        left[k] = counts[best_b, k]
        right[k] = total[k] - counts[best_b, k]
    child, dec, info = _final_scores(left, right, miss, n_miss, best_d, criterion,
                                     missing_mode, work[W_STATS:])
    return (True, child, dec, info, bins[best_b], best_d)


@kernel
def category_order(counts, criterion):
    """Order of the histogram rows by mean target (ties by category order)."""
    nb = counts.shape[0]
    key = np.empty(nb)
    for b in range(nb):
        w = stats_weight(counts[b], criterion)
        key[b] = counts[b, 1] / w if w > 0.0 else 0.0
    return np.argsort(key, kind="mergesort")


@inner
def best_split_ordered(bins, counts, n, miss, n_miss, criterion, missing_mode, min_leaf_n,
                       min_leaf_w, u, work):
    """Best two-subset split of a categorical feature for regression: categories sorted
    by mean target, then scanned. Returns (found, child_impurity, decrease, split_info,
    n_left_categories, miss_dir); the left subset is the first ``n_left`` categories of
    :func:`category_order`.
    """
    nb = counts.shape[0]
    none = (False, 0.0, -np.inf, 0.0, -1, -1)
    if nb < 1 or (nb < 2 and not (missing_mode == 2 and n_miss > 0)):
        return none
    order = category_order(counts, criterion)
    sc = counts[order]
    sn = n[order]
    lo_t, hi_t = 0, nb - 1
    if u >= 0.0 and nb >= 2:
        lo_t = min(int(u * (nb - 1)), nb - 2)
        hi_t = lo_t + 1
    total = work[W_TOTAL]
    total_n = _totals(sc, sn, total)
    t, d, left = scan_ordered(sc, sn, total_n, miss, n_miss, criterion, missing_mode,
                              min_leaf_n, min_leaf_w, lo_t, hi_t, work)
    if t < 0:
        return none
    # t == nb - 1 is LEARNED's "every known category left, the missing ones right".
    right = _difference(total, left, work[W_RIGHT])
    child, dec, info = _final_scores(left, right, miss, n_miss, d, criterion, missing_mode,
                                     work[W_STATS:])
    return (True, child, dec, info, t + 1, d)


@kernel(inline="always")
def _known_share_and_least_weight(known_w, miss, n_miss, n_stats, criterion, min_leaf_w,
                                  min_objects):
    """(rho, least weight of a binary split's branch) of a feature at a node whose known
    values weigh ``known_w`` (read only when something is missing or ``min_objects > 0``).
    rho is 1 with nothing missing: all of the weight is known (a searched node has some).
    C4.5 (J48): each side of a binary split holds at least 10% of the known weight per
    class, bounded to [min_objects, 25]; a multiway split needs two big branches."""
    rho = 1.0
    if n_miss > 0 or min_objects > 0.0:
        tot = known_w + stats_weight(miss, criterion)
        rho = known_w / tot if tot > 0.0 else 0.0
    min_w_bin = min_leaf_w
    if min_objects > 0.0:
        bound = min(max(0.1 * known_w / max(n_stats, 1), min_objects), 25.0)
        min_w_bin = max(min_leaf_w, bound)
    return rho, at_least(min_w_bin)


@hot
def _presorted_numeric(h_bins, h_counts, h_n, n_h, nbf, bin_lo, bin_hi, v0, v1, known_n,
                       criterion, missing_mode, min_leaf_n, min_leaf_w, work):
    """:func:`score_histogram`'s search of a numeric feature (``nbf`` bins) by squared
    error, Gini or entropy (no random draw, no C4.5 branch rule, missing values not
    learned) from a presorted histogram in the search's scratch: its first ``n_h`` rows,
    ``known_n`` known samples, their totals in ``work[W_TOTAL]``; the feature's value
    table ``bin_lo[v0:v1]`` / ``bin_hi[v0:v1]``. The scratch, the value table and
    ``work`` are read in place by the same scan (:func:`_scan_known`) with the same sums
    in the same order as :func:`best_split_numeric`'s: none of the slices and calls
    between them."""
    n_stats = h_counts.shape[1]
    nk = n_h
    n_miss = np.int64(0)
    if n_h > 0 and h_bins[n_h - 1] == nbf:
        nk = n_h - 1
        n_miss = h_n[n_h - 1]
        for k in range(n_stats):
            work[W_MISS, k] = h_counts[n_h - 1, k]
    else:
        for k in range(n_stats):
            work[W_MISS, k] = 0.0
    rho = 1.0
    if n_miss > 0:  # (score_histogram's sums, row by row)
        known_w = 0.0
        for b in range(nk):
            known_w += _stats_weight_at(h_counts, b, criterion)
        tot = known_w + _stats_weight_at(work, W_MISS, criterion)
        rho = known_w / tot if tot > 0.0 else 0.0
    if nk < 2:
        return False, NUMERIC, 0.0, -np.inf, 0.0, np.int64(-1), 0.0, np.int64(-1), rho
    for k in range(n_stats):
        work[W_LEFT, k] = 0.0
        work[W_BEST, k] = 0.0
    t = _scan_known(h_counts, h_n, work, known_n, np.int64(0), criterion, min_leaf_n,
                    at_least(min_leaf_w), 0, nk - 1)
    if t < 0:
        return False, NUMERIC, 0.0, -np.inf, 0.0, np.int64(-1), 0.0, np.int64(-1), rho
    for k in range(n_stats):
        work[W_RIGHT, k] = work[W_TOTAL, k] - work[W_BEST, k]
    child, dec, info = _final_scores(work[W_BEST], work[W_RIGHT], work[W_MISS], n_miss,
                                     np.int64(-1), criterion, missing_mode, work[W_STATS:])
    thr = np.nan  # (no value table: resolve_threshold reads the node's values)
    if v1 > v0:
        thr = midpoint(bin_hi[v0 + h_bins[t]], bin_lo[v0 + h_bins[t + 1]])
    return True, NUMERIC, child, dec, info, h_bins[t], thr, np.int64(-1), rho


@kernel(inline="always")
def score_histogram(bins, counts, n, binned, is_cat, f, n_stats, criterion, cat_mode,
                    missing_mode, min_leaf_n, min_leaf_w, u, min_objects, work, known_n=-1):
    """The best split of feature ``f`` (of the :data:`~quercus._kernels.schema.Binned`
    record ``binned``) from its compact histogram at a node (see :func:`search_at`):
    (found, kind, child_impurity, decrease, split_info, split_bin, threshold, miss_dir,
    rho), as :func:`search_node` describes them. ``work``: float64 scratch of (WORK_ROWS,
    n_stats), its rows overwritten (one per search, not per feature). ``known_n`` >= 0:
    the known bins' sample count, their stats already in ``work[W_TOTAL]`` (a numeric
    feature's scan then does not sum them)."""
    n_bins, bin_lo, bin_hi, bin_offsets = binned.n_bins, binned.lo, binned.hi, binned.offsets
    nbf = n_bins[f]
    miss = work[W_MISS]
    nk, n_miss = _split_missing_into(bins, counts, n, nbf, miss)
    kb = bins[:nk]
    kc = counts[:nk]
    kn = n[:nk]
    known_w = 0.0
    if n_miss > 0 or min_objects > 0.0:
        for b in range(nk):
            known_w += _stats_weight_at(kc, b, criterion)
    rho, min_w_bin = _known_share_and_least_weight(known_w, miss, n_miss, n_stats, criterion,
                                                   min_leaf_w, min_objects)
    # ``is_cat is None`` (no categorical feature) is decided at compile time: numba prunes the
    # categorical branch, and a numeric fit never compiles the categorical scorers.
    if is_cat is None or not is_cat[f]:
        lo = bin_lo[bin_offsets[f]:bin_offsets[f + 1]]
        hi = bin_hi[bin_offsets[f]:bin_offsets[f + 1]]
        ok, c, d, s, b, t, md = best_split_numeric(
            kb, kc, kn, lo, hi, miss, n_miss, criterion, missing_mode, min_leaf_n,
            min_w_bin, u, work, known_n)
        return ok, NUMERIC, c, d, s, b, t, md, rho
    if cat_mode == CAT_MULTIWAY:
        ok, c, d, s, mb = best_split_multiway(kc, kn, miss, n_miss, criterion,
                                              missing_mode, min_leaf_n, at_least(min_leaf_w),
                                              at_least(min_objects))
        md = kb[mb] if ok and mb >= 0 else -1
        return ok, MULTIWAY, c, d, s, -1, 0.0, md, rho
    if cat_mode == CAT_ONE_VS_REST:
        ok, c, d, s, v, md = best_split_one_vs_rest(
            kb, kc, kn, miss, n_miss, criterion, missing_mode, min_leaf_n, min_w_bin, u, work)
        if missing_mode == LEARNED and n_miss > 0 and nk >= 1 and u < 0:
            # Also "every known category | the missing ones", as for numbers; it is
            # stored as a subset split with all present categories on the left.
            known = _prefix(kc, nk - 1)
            if _branch_ok(known, miss, kn.sum(), n_miss, criterion, min_leaf_n, min_w_bin):
                alt = split_loss(known, miss, criterion)
                if not ok or lower(alt, c):
                    c2, d2, s2 = _final_scores(known, np.zeros(n_stats), miss, n_miss,
                                               np.int64(1), criterion, missing_mode,
                                               work[W_STATS:])
                    return True, CAT_SUBSET, c2, d2, s2, nk, 0.0, 1, rho
        return ok, CAT_BINARY, c, d, s, v, 0.0, md, rho
    ok, c, d, s, nl, md = best_split_ordered(
        kb, kc, kn, miss, n_miss, criterion, missing_mode, min_leaf_n, min_w_bin, u, work)
    return ok, CAT_SUBSET, c, d, s, nl, 0.0, md, rho


@kernel
def stream_numeric(codes_f, idx, wi, y, y2, nbf, lo, hi, n_stats, criterion, missing_mode,
                   min_leaf_n, min_leaf_w, min_objects, width):
    """:func:`score_histogram` of a numeric feature with ``nbf`` bins (its missing bin
    ``nbf``), every midpoint scanned, without its whole histogram: the scratch is a slice
    of the largest power of two of codes up to ``width`` (and 4 bytes a sample) instead of
    ``nbf`` bins (a bin per distinct value at the root of an exact fit, on every
    thread).

    One pass over the samples sums the totals and groups the samples by slice
    (``slice_positions``); then each slice's dense histogram is built from its own samples
    and scanned, the boundary after a bin scored as the next known bin shows it is one.
    The totals are summed in sample order, not bin by bin as :func:`score_histogram`
    does, so the scores can differ from its in the last bits (with weights of 1 and
    classes, not at all: the sums are whole numbers); every bin's sums are the same.

    Returns (streamed, found, kind, child_impurity, decrease, split_info, split_bin,
    threshold, miss_dir, rho); ``streamed`` is False (and the rest meaningless) when the
    missing values would have to be placed (LEARNED with some missing): the caller then
    scores the whole histogram.
    """
    sums, total_n, n_miss = known_and_missing_totals(codes_f, idx, wi, y, y2, nbf, n_stats,
                                                     criterion)
    total, miss = sums[0], sums[1]
    if missing_mode == LEARNED and n_miss > 0:
        return False, False, NUMERIC, 0.0, -np.inf, 0.0, np.int64(-1), 0.0, np.int64(-1), 1.0
    total_w = stats_weight(total, criterion)
    rho, min_w_bin = _known_share_and_least_weight(total_w, miss, n_miss, n_stats, criterion,
                                                   min_leaf_w, min_objects)
    shift = 0  # slices of a power of two of codes: a sample's slice is found by a shift
    while (2 << shift) <= width:
        shift += 1
    width = 1 << shift
    n_slices = (nbf >> shift) + 1  # codes 0 .. nbf (the missing bin)
    pos, starts = slice_positions(codes_f, idx, shift, n_slices)
    dense = np.zeros((width, n_stats))  # each bin cleared once read (see slice_histogram)
    dense_n = np.zeros(width, dtype=np.int64)
    regression = is_regression(criterion)
    left = np.zeros(n_stats)
    best_left = np.zeros(n_stats)
    left_w = 0.0
    left_n = np.int64(0)
    best_child = np.inf
    best_code = np.int64(-1)
    next_code = np.int64(-1)
    # The boundary after the last known bin added: a boundary only once a known bin follows.
    pending_child = np.inf
    pending_code = np.int64(-1)
    for sl in range(n_slices):
        c0 = sl << shift
        if c0 >= nbf:
            break  # only the missing bin is left
        if starts[sl + 1] == starts[sl]:
            continue  # no sample in this slice
        slice_histogram(codes_f, idx, wi, y, y2, pos[starts[sl]:starts[sl + 1]], c0, dense,
                        dense_n, criterion)
        for b in range(min(width, nbf - c0)):  # the known codes (the missing bin is last)
            if dense_n[b] == 0:
                continue
            if pending_code >= 0:
                if lower(pending_child, best_child):
                    best_child = pending_child
                    best_code = pending_code
                    next_code = c0 + b
                    _copy_into(best_left, left)
            left_n, left_w, pending_child = _add_row_and_score(
                dense, b, dense_n[b], left, left_n, left_w, total, total_n, total_w,
                regression, criterion, min_leaf_n, min_w_bin)
            pending_code = c0 + b
            for k in range(n_stats):
                dense[b, k] = 0.0
            dense_n[b] = 0
    if best_code < 0:
        return True, False, NUMERIC, 0.0, -np.inf, 0.0, np.int64(-1), 0.0, np.int64(-1), rho
    right = total - best_left
    child, dec, info = _final_scores(best_left, right, miss, n_miss, np.int64(-1), criterion,
                                     missing_mode, np.empty((3, n_stats)))
    thr = np.nan if lo.shape[0] == 0 else midpoint(hi[best_code], lo[next_code])
    return True, True, NUMERIC, child, dec, info, best_code, thr, np.int64(-1), rho


@hot
def search_at(binned, is_cat, features, idx, wi, y, y2, n_stats, criterion, cat_mode,
              missing_mode, min_leaf_n, min_leaf_w, uniforms, min_objects, hist, hist_n,
              hist_offsets, stream_bins, presorted, work, absolute, scratch=None):
    """The search of one node, packed as :func:`search_features` returns it: the one loop
    over (node, feature) of both growers. With ``absolute`` (not None: the absolute-error
    criterion, scored from the node's samples, ``absolute.ae_search_feature``) no
    histogram is made (None: that search is not compiled). Otherwise each feature's
    histogram comes from, in turn:
    the streamed scan (``stream_bins``, as :func:`search_features` says; None: not
    compiled), the node's dense histogram (``hist``, empty: none), the subtree kernel's
    presorted order (``presorted``: (orders, slot of each feature or -1, the node's first
    column, scratch bins, counts and n for nodes of at most ``SCRATCH_MAX_SAMPLES``
    samples); None: not compiled), or the node's samples. ``uniforms``: the random
    splitter's draws, None for an exhaustive search. ``work``: see
    :func:`score_histogram`.

    ``scratch``: the caller's arrays for what every node would otherwise allocate, (bins,
    stats and counts of a histogram of as many bins as they have rows, and the outputs:
    found, kind, res and ints with a row per feature), reused from node to node: the
    outputs returned are views of them, read before the next search. None: allocated
    here."""
    codes, n_bins, bin_lo, bin_hi, bin_offsets = binned
    nf = features.shape[0]
    if scratch is None:
        found, kind, res, ints = search_outputs(nf)
        d_rows = 0  # (no histogram in scratch; the empty arrays have the scratch's types)
        d_bins, d_counts, d_n = np.empty(0, dtype=np.int64), work[:0], np.empty(0, np.int64)
    else:
        d_bins, d_counts, d_n, found, kind, res, ints = scratch
        found, kind, res, ints = found[:nf], kind[:nf], res[:nf], ints[:nf]
        d_rows = d_bins.shape[0]
    m = idx.shape[0]
    if presorted is not None:  # (unpacked once: each unpacking counts references)
        srt, slot_of, p_start, h_bins, h_counts, h_n = presorted
    for i in range(features.shape[0]):
        f = features[i]
        u = -1.0
        if uniforms is not None:
            u = uniforms[i]
        if absolute is not None:
            cat = False
            if is_cat is not None:
                cat = is_cat[f]
            r = ae_search_feature(codes[:, f], n_bins[f], cat,
                                  bin_lo[bin_offsets[f]:bin_offsets[f + 1]],
                                  bin_hi[bin_offsets[f]:bin_offsets[f + 1]], idx, wi, y,
                                  cat_mode, missing_mode, min_leaf_n, at_least(min_leaf_w), u)
            # (no split information: absolute error has no gain ratio)
            _store(i, (r[0], r[1], r[2], r[3], 0.0, r[4], r[5], r[6], r[7]), found, kind,
                   res, ints)
            continue
        if stream_bins is not None:
            nbf = n_bins[f]
            numeric = True
            if is_cat is not None:
                numeric = not is_cat[f]
            if (stream_bins > 0 and numeric and nbf + 1 > stream_bins
                    and dense_pass(nbf + 1, m) and hist_offsets[f + 1] == hist_offsets[f]
                    and mass_scan(criterion) and u < 0.0):
                r = stream_numeric(codes[:, f], idx, wi, y, y2, nbf,
                                   bin_lo[bin_offsets[f]:bin_offsets[f + 1]],
                                   bin_hi[bin_offsets[f]:bin_offsets[f + 1]], n_stats,
                                   criterion, missing_mode, min_leaf_n, min_leaf_w,
                                   min_objects, stream_bins)
                if r[0]:
                    _store(i, r[1:], found, kind, res, ints)
                    continue
        h0, h1 = hist_offsets[f], hist_offsets[f + 1]
        known_n = np.int64(-1)  # (the known samples when their totals are in work already)
        if hist.shape[0] > 0 and h1 > h0:
            if h1 - h0 <= d_rows:
                nb = compact_histogram_into(hist[h0:h1], hist_n[h0:h1], d_bins, d_counts, d_n)
                bins, counts, n = d_bins[:nb], d_counts[:nb], d_n[:nb]
            else:
                bins, counts, n = compact_histogram(hist[h0:h1], hist_n[h0:h1])
        elif presorted is not None and slot_of[f] >= 0:
            order = srt[slot_of[f], p_start:p_start + m]
            if m <= h_bins.shape[0]:
                # (The known bins' totals summed while the histogram is made: the scan
                # needs no pass of its own for them.)
                n_h = sorted_histogram_into(codes[:, f], order, idx, wi, y, y2, criterion,
                                            h_bins, h_counts, h_n, None, work[W_TOTAL],
                                            n_bins[f])
                known_n = np.int64(m)
                if n_h > 0 and h_bins[n_h - 1] == n_bins[f]:
                    known_n -= h_n[n_h - 1]
                if (u < 0.0 and missing_mode != LEARNED and min_objects == 0.0
                        and mass_scan(criterion) and (is_cat is None or not is_cat[f])):
                    # (the commonest searches of small nodes, in place)
                    _store(i, _presorted_numeric(
                        h_bins, h_counts, h_n, n_h, n_bins[f], bin_lo, bin_hi,
                        bin_offsets[f], bin_offsets[f + 1], known_n, criterion,
                        missing_mode, min_leaf_n, min_leaf_w, work), found, kind, res, ints)
                    continue
                bins, counts, n = h_bins[:n_h], h_counts[:n_h], h_n[:n_h]
            else:
                bins, counts, n = sorted_histogram(codes[:, f], order, idx, wi, y, y2,
                                                   n_stats, criterion)
        elif n_bins[f] + 1 <= d_rows and dense_pass(n_bins[f] + 1, m):
            # (feature_histogram's dense pass, in the scratch)
            nb = dense_histogram_into(codes[:, f], idx, wi, y, y2, n_bins[f] + 1, criterion,
                                      d_bins, d_counts, d_n)
            bins, counts, n = d_bins[:nb], d_counts[:nb], d_n[:nb]
        else:
            bins, counts, n = feature_histogram(codes[:, f], idx, wi, y, y2, n_bins[f] + 1,
                                                n_stats, criterion)
        _store(i, score_histogram(bins, counts, n, binned, is_cat, f, n_stats, criterion,
                                  cat_mode, missing_mode, min_leaf_n, min_leaf_w, u,
                                  min_objects, work, known_n),
               found, kind, res, ints)
    return found, kind, res, ints


@kernel
def search_features(binned, is_cat, features, idx, wi, y, y2, n_stats, criterion, cat_mode,
                    missing_mode, min_leaf_n, min_leaf_w, uniforms, min_objects, hist, hist_n,
                    hist_offsets, stream_bins, absolute):
    """:func:`search_node` taking the dense histograms of the features that have one
    (``hist_offsets[f + 1] > hist_offsets[f]``: rows ``hist_offsets[f]..`` of ``hist`` /
    ``hist_n``, the missing bin last) from the caller; one thread (``quercus._threads``
    shares a big node's features out to several). A numeric feature of more than
    ``stream_bins`` bins is scored by :func:`stream_numeric` where a dense histogram
    would be built; with
    ``stream_bins=None`` that path is not compiled (a small fit never needs it). The
    search is :func:`search_at`'s, as the subtree kernel's (``absolute``: see there).

    Returns the outputs packed as (found, kind, res, ints): :func:`unpack_search` turns
    them into :func:`search_node`'s nine arrays (in Python: copying them out in compiled
    code lengthened a cold first fit's compile)."""
    # (The arguments lent to the search: the caller holds them; the outputs are its own.)
    return search_at(borrowed(binned), borrowed(is_cat), borrowed(features), borrowed(idx),
                     borrowed(wi), borrowed(y), borrowed(y2), n_stats, criterion, cat_mode,
                     missing_mode, min_leaf_n, min_leaf_w, borrowed(uniforms), min_objects,
                     borrowed(hist), borrowed(hist_n), borrowed(hist_offsets), stream_bins,
                     None, np.empty((WORK_ROWS, n_stats)), absolute)


# Columns of a search's packed outputs (see :func:`search_outputs`): the floats in ``res``, the
# integers in ``ints``. One layout for the compiled and the Python unpacking.
RES_CHILD, RES_DECREASE, RES_INFO, RES_THRESHOLD, RES_RHO = 0, 1, 2, 3, 4
INT_BIN, INT_MISS_DIR = 0, 1


@inner
def search_outputs(nf):
    """(found, kind, res, ints) for ``nf`` features, a row per feature: what
    :func:`search_at` returns, and the layout of its ``scratch``'s outputs."""
    return (np.zeros(nf, dtype=np.bool_), np.zeros(nf, dtype=np.int8), np.zeros((nf, 5)),
            np.full((nf, 2), -1, dtype=np.int64))


@hot
def _store(i, r, found, kind, res, ints):
    """Store one feature's result ``r`` (as :func:`score_histogram` returns it) in row ``i``."""
    found[i] = r[0]
    kind[i] = r[1]
    res[i, RES_CHILD] = r[2]
    res[i, RES_DECREASE] = r[3]
    res[i, RES_INFO] = r[4]
    ints[i, INT_BIN] = r[5]
    res[i, RES_THRESHOLD] = r[6]
    ints[i, INT_MISS_DIR] = r[7]
    res[i, RES_RHO] = r[8]


def search_node(binned, is_cat, features, idx, wi, y, y2, n_stats, criterion, cat_mode,
                missing_mode, min_leaf_n, min_leaf_w, uniforms, min_objects=0.0,
                stream_bins=None):
    """Best split of each candidate feature at a node.

    Parameters
    ----------
    binned : :data:`~quercus._kernels.schema.Binned`: ``codes``, uint8, uint16 or int32
        (n_samples, n_features), Fortran order, the bin codes (a missing value has code
        ``n_bins[f]``); ``n_bins``, int64 (n_features,), bins of observed values; ``lo``,
        ``hi``, ``offsets``: the smallest and the largest observed value of every numeric
        bin (float64, often one array: exact bins), feature ``f``'s at
        ``offsets[f]:offsets[f + 1]``.
    is_cat : bool array (n_features,), or None when no feature is categorical (the kernels
        are then compiled without the categorical split search).
    features : int64 array of the features to try, in column order.
    idx, wi : the node's samples and their weights at this node.
    y, y2 : float64 targets (class codes for classification) and second statistic.
    cat_mode : CAT_MULTIWAY, CAT_ONE_VS_REST or CAT_ORDERED.
    missing_mode : FRACTIONAL, SURROGATE or LEARNED.
    uniforms : float64 array (len(features),), ``< 0`` for an exhaustive search.
    min_objects : C4.5's minimum cases (J48's -M): a multiway split needs two branches with
        that much weight; each side of a binary split ``min(max(0.1 * known weight /
        n_classes, min_objects), 25)``. 0: off.
    stream_bins : a numeric feature of more bins is scored ``stream_bins`` bins at a time
        (:func:`stream_numeric`: the same result in less memory). None or 0: never.
    criterion ``ABSOLUTE_ERROR`` searches the node's sorted samples
    (``absolute.ae_search_feature``), whatever ``y2`` holds.

    Returns
    -------
    :class:`Candidates`: found (bool), kind (int8), child (impurity), decrease, split_info,
    split_bin (int64), threshold, miss_dir (int64), rho, each of length ``len(features)``.
    """
    none = np.zeros(binned.n_bins.shape[0] + 1, dtype=np.int64)
    return unpack_search(*search_features(
        binned, is_cat, features, idx, wi, y, y2, n_stats, criterion, cat_mode, missing_mode,
        min_leaf_n, min_leaf_w, uniforms, float(min_objects), np.zeros((0, n_stats)),
        np.zeros(0, dtype=np.int64), none, stream_bins,
        True if criterion == ABSOLUTE_ERROR else None))


def unpack_search(found, kind, res, ints):
    """:func:`search_features`' packed outputs (``res`` and ``ints`` a row per feature) as
    :func:`search_node`'s nine arrays, each contiguous.

    Examples
    --------
    >>> import numpy as np
    >>> res = np.arange(10.0).reshape(2, 5)
    >>> ints = np.array([[3, -1], [4, 1]])
    >>> out = unpack_search(np.ones(2, bool), np.ones(2, np.int8), res, ints)
    >>> out.decrease.tolist(), out.split_bin.tolist(), out.miss_dir.tolist()
    ([1.0, 6.0], [3, 4], [-1, 1])
    """
    r = np.ascontiguousarray(res.T)
    n = np.ascontiguousarray(ints.T)
    return Candidates(found, kind, r[RES_CHILD], r[RES_DECREASE], r[RES_INFO], n[INT_BIN],
                      r[RES_THRESHOLD], n[INT_MISS_DIR], r[RES_RHO])


class Candidates(NamedTuple):
    """The best split of each searched feature at a node, one entry per feature: what
    :func:`search_node` (and the absolute-error search) return. ``split_bin`` is the last
    left bin, the category ``v`` of ``a == v``, or the number of categories on the left of
    an ordered split; ``miss_dir`` the branch missing values join under LEARNED (-1
    otherwise); ``rho`` the known weight fraction."""

    found: np.ndarray
    kind: np.ndarray
    child: np.ndarray
    decrease: np.ndarray
    split_info: np.ndarray
    split_bin: np.ndarray
    threshold: np.ndarray
    miss_dir: np.ndarray
    rho: np.ndarray
