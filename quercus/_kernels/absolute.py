"""Split search for the absolute-error criterion (leaf value: the weighted median).

Absolute error cannot be scored from histogram sums, so each feature's scan keeps the
samples themselves: the node's targets are ranked once, and two Fenwick trees over those
ranks (weights, weighted targets) give the weighted median and the sum of absolute
deviations of any growing set in O(log m). A numeric feature is scanned left to right and
right to left, so each boundary costs O(log m) and a feature O(m log m).
"""

import numpy as np

from ._jit import inner, kernel
from .tables import ordered_sum
from .schema import (CAT_BINARY, CAT_MULTIWAY, CAT_ONE_VS_REST, CAT_ORDERED, CAT_SUBSET,
                     LEARNED, MULTIWAY, NUMERIC)
from .thresholds import boundary_threshold, draw_boundary, lower


@inner
def _fw_add(tw, ts, rank, w, wy):
    i = rank + 1
    n = tw.shape[0]
    while i < n:
        tw[i] += w
        ts[i] += wy
        i += i & (-i)


@inner
def _fw_prefix(tw, ts, rank):
    """Weight and weighted sum of ranks 0..rank."""
    i = rank + 1
    W = 0.0
    S = 0.0
    while i > 0:
        W += tw[i]
        S += ts[i]
        i -= i & (-i)
    return W, S


@inner
def _fw_find(tw, target):
    """Smallest rank whose prefix weight reaches ``target``."""
    n = tw.shape[0] - 1
    step = 1
    while step * 2 <= n:
        step *= 2
    pos = 0
    rem = target
    while step > 0:
        if pos + step <= n and tw[pos + step] < rem:
            pos += step
            rem -= tw[pos]
        step //= 2
    return min(pos, n - 1)


@inner
def _fw_abs_dev(tw, ts, ys, W, S):
    """Sum of weighted absolute deviations from the weighted median of the set held."""
    if W <= 0.0:
        return 0.0
    r = _fw_find(tw, W / 2.0)
    med = ys[r]
    wle, sle = _fw_prefix(tw, ts, r)
    return med * wle - sle + (S - sle) - med * (W - wle)


@kernel
def abs_dev(yv, wv):
    """Sum of weighted absolute deviations of ``yv`` from their weighted median."""
    m = yv.shape[0]
    if m == 0:
        return 0.0
    order = np.argsort(yv, kind="mergesort")
    total = 0.0
    for i in range(m):
        total += wv[i]
    acc = 0.0
    med = yv[order[m - 1]]
    for i in range(m):
        acc += wv[order[i]]
        if acc >= total / 2.0:
            med = yv[order[i]]
            break
    out = 0.0
    for i in range(m):
        out += wv[i] * abs(yv[i] - med)
    return out


@inner
def _scan(groups_order, group_start, ranks, ys, wv, yv, n_groups, pre_rank, pre_w, pre_y,
          reverse):
    """Absolute-deviation sums of the union of the first g groups (g = 1..n_groups), with
    the ``pre`` samples (missing values) always included; scanned from the end when
    ``reverse``. Returns (ae[g], weight[g], count[g]) for g = 1..n_groups (index g-1)."""
    m = ys.shape[0]
    tw = np.zeros(m + 1)
    ts = np.zeros(m + 1)
    W = 0.0
    S = 0.0
    for j in range(pre_rank.shape[0]):
        _fw_add(tw, ts, pre_rank[j], pre_w[j], pre_w[j] * pre_y[j])
        W += pre_w[j]
        S += pre_w[j] * pre_y[j]
    ae = np.zeros(n_groups)
    wt = np.zeros(n_groups)
    cnt = np.zeros(n_groups, dtype=np.int64)
    c = 0
    for gi in range(n_groups):
        g = groups_order[n_groups - 1 - gi] if reverse else groups_order[gi]
        for e in range(group_start[g], group_start[g + 1]):
            _fw_add(tw, ts, ranks[e], wv[e], wv[e] * yv[e])
            W += wv[e]
            S += wv[e] * yv[e]
            c += 1
        ae[gi] = _fw_abs_dev(tw, ts, ys, W, S)
        wt[gi] = W
        cnt[gi] = c
    return ae, wt, cnt


@inner
def ae_search_feature(codes_f, n_real_bins, is_cat, lo, hi, idx, wi, y, cat_mode,
                      missing_mode, min_leaf_n, min_leaf_w, u):
    """Best absolute-error split of one feature at a node.

    Returns (found, kind, child_impurity, decrease, split_bin, threshold, miss_dir, rho)
    with the same meanings as :func:`search_node`; ordered categorical splits sort the
    categories by their weighted median.
    """
    m = idx.shape[0]
    none = (False, np.int8(0), 0.0, -np.inf, np.int64(-1), 0.0, np.int64(-1), 1.0)
    # Group the node's samples by bin; the missing bin comes last.
    local = np.empty(m, dtype=np.int64)
    for i in range(m):
        local[i] = codes_f[idx[i]]
    order = np.argsort(local, kind="mergesort")
    yv = np.empty(m)
    wv = np.empty(m)
    gbin = np.empty(m, dtype=np.int64)
    starts = np.empty(m + 1, dtype=np.int64)
    n_groups = 0
    prev = -1
    for i in range(m):
        b = local[order[i]]
        yv[i] = y[idx[order[i]]]
        wv[i] = wi[order[i]]
        if b != prev:
            gbin[n_groups] = b
            starts[n_groups] = i
            n_groups += 1
            prev = b
    starts[n_groups] = m
    has_missing = n_groups > 0 and gbin[n_groups - 1] == n_real_bins
    nk = n_groups - 1 if has_missing else n_groups
    n_known = starts[nk]
    yorder = np.argsort(yv, kind="mergesort")
    ranks = np.empty(m, dtype=np.int64)
    ys = np.empty(m)
    for r in range(m):
        ranks[yorder[r]] = r
        ys[r] = yv[yorder[r]]
    miss_rank = ranks[n_known:].copy()
    miss_w = wv[n_known:].copy()
    miss_y = yv[n_known:].copy()
    empty_i = np.zeros(0, dtype=np.int64)
    empty_f = np.zeros(0)
    w_known = 0.0
    for e in range(n_known):
        w_known += wv[e]
    w_all = 0.0
    for e in range(m):
        w_all += wv[e]
    rho = w_known / w_all if w_all > 0.0 else 0.0
    if nk < 2 and not (missing_mode == LEARNED and has_missing):
        return none
    learned = missing_mode == LEARNED and has_missing
    # Parent deviation over the samples the score covers: all of them when missing values
    # join a branch (LEARNED), else the known ones (the decrease then scaled by rho).
    parent_known = abs_dev(yv[:n_known], wv[:n_known]) / w_known if w_known > 0 else 0.0
    parent = abs_dev(yv, wv) / w_all if learned else parent_known
    group_order = np.arange(nk)
    if is_cat and cat_mode == CAT_ORDERED:
        key = np.empty(nk)
        for g in range(nk):
            s, e = starts[g], starts[g + 1]
            sub = np.argsort(yv[s:e], kind="mergesort")
            tot = 0.0
            for j in range(e - s):
                tot += wv[s + j]
            acc = 0.0
            key[g] = yv[s + sub[e - s - 1]]
            for j in range(e - s):
                acc += wv[s + sub[j]]
                if acc >= tot / 2.0:
                    key[g] = yv[s + sub[j]]
                    break
        group_order = np.argsort(key, kind="mergesort")
    best_child = np.inf
    best_t = -1
    best_d = -1
    best_thr = 0.0
    kind = NUMERIC
    if is_cat and cat_mode == CAT_MULTIWAY:
        kind = MULTIWAY
        tot_ae = 0.0
        for g in range(nk):
            s, e = starts[g], starts[g + 1]
            if e - s < min_leaf_n:
                return none
            tot_ae += abs_dev(yv[s:e], wv[s:e])
        if nk < 2:
            return none
        # Missing values are scored out (rho) and routed to the biggest branch.
        child = tot_ae / w_known
        return (True, np.int8(kind), child, rho * (parent_known - child), np.int64(-1), 0.0,
                np.int64(-1), rho)
    if is_cat and cat_mode == CAT_ONE_VS_REST:
        kind = CAT_BINARY
        for g in range(nk):
            s, e = starts[g], starts[g + 1]
            gw = 0.0
            for j in range(s, e):
                gw += wv[j]
            nl = e - s
            nr = n_known - nl
            for dd in range(2 if learned else 1):
                d = 1 - dd if learned else -1
                # Left: the category (plus missing if d == 0); right: the rest (+ missing).
                left_y = yv[s:e]
                left_w = wv[s:e]
                rest_y = np.concatenate((yv[:s], yv[e:n_known]))
                rest_w = np.concatenate((wv[:s], wv[e:n_known]))
                if d == 0:
                    left_y = np.concatenate((left_y, miss_y))
                    left_w = np.concatenate((left_w, miss_w))
                elif d == 1:
                    rest_y = np.concatenate((rest_y, miss_y))
                    rest_w = np.concatenate((rest_w, miss_w))
                if (left_y.shape[0] < min_leaf_n or rest_y.shape[0] < min_leaf_n
                        or ordered_sum(left_w) < min_leaf_w or ordered_sum(rest_w) < min_leaf_w
                        or nl == 0 or nr == 0):
                    continue
                child = (abs_dev(left_y, left_w) + abs_dev(rest_y, rest_w)) / (
                    ordered_sum(left_w) + ordered_sum(rest_w))
                if lower(child, best_child):
                    best_child, best_t, best_d = child, g, d
        if best_t < 0:
            return none
        scale = 1.0 if learned else rho
        return (True, np.int8(kind), best_child, scale * (parent - best_child),
                np.int64(gbin[best_t]), 0.0, np.int64(best_d), rho)
    if is_cat:
        kind = CAT_SUBSET
    # Numeric or ordered subsets: prefix and suffix scans over the groups.
    n_dirs = 2 if learned else 1
    lo_t, hi_t = 0, nk - 1
    draw = 0.0
    if u >= 0.0 and nk >= 2:
        if kind == NUMERIC:
            t, draw = draw_boundary(gbin, nk, lo, hi, u)
            lo_t, hi_t = t, t + 1
        else:
            lo_t = min(int(u * (nk - 1)), nk - 2)
            hi_t = lo_t + 1
    for dd in range(n_dirs):
        d = 1 - dd if learned else -1
        pre_l = d == 0
        pre_r = d == 1
        ae_l, w_l, n_l = _scan(group_order, starts, ranks, ys, wv, yv, nk,
                               miss_rank if pre_l else empty_i, miss_w if pre_l else empty_f,
                               miss_y if pre_l else empty_f, False)
        ae_r, w_r, n_r = _scan(group_order, starts, ranks, ys, wv, yv, nk,
                               miss_rank if pre_r else empty_i, miss_w if pre_r else empty_f,
                               miss_y if pre_r else empty_f, True)
        extra_l = miss_rank.shape[0] if pre_l else 0
        extra_r = miss_rank.shape[0] if pre_r else 0
        for t in range(lo_t, hi_t):
            # Left: groups 0..t; right: groups t+1..nk-1 = the last nk-1-t of the reverse scan.
            j = nk - 2 - t
            nl = n_l[t] + extra_l
            nr = n_r[j] + extra_r
            if nl < min_leaf_n or nr < min_leaf_n or w_l[t] < min_leaf_w or w_r[j] < min_leaf_w:
                continue
            child = (ae_l[t] + ae_r[j]) / (w_l[t] + w_r[j])
            if lower(child, best_child):
                best_child, best_t, best_d = child, t, d
    if learned and hi_t == nk - 1 and miss_rank.shape[0] >= min_leaf_n and n_known >= min_leaf_n:
        child = (abs_dev(yv[:n_known], wv[:n_known]) + abs_dev(miss_y, miss_w)) / w_all
        if lower(child, best_child):
            best_child, best_t, best_d = child, nk - 1, 1
    if best_t < 0:
        return none
    scale = 1.0 if learned else rho
    if kind == CAT_SUBSET:
        if best_t == nk - 1:
            return none
        return (True, np.int8(kind), best_child, scale * (parent - best_child),
                np.int64(best_t + 1), 0.0, np.int64(best_d), rho)
    if best_t == nk - 1:
        best_thr = np.inf
    else:
        best_thr = boundary_threshold(gbin, best_t, lo, hi, u, draw)
    return (True, np.int8(kind), best_child, scale * (parent - best_child),
            np.int64(gbin[min(best_t, nk - 1)]), best_thr, np.int64(best_d), rho)


@kernel
def ae_node(y, idx, wi):
    """A node's value and impurity under absolute error: the weighted median of its targets
    ``y[idx]`` (weights ``wi``), as scikit-learn's trees define it (the smallest value
    whose cumulative weight reaches half, averaged with the next on an exact half), and
    the weighted mean absolute deviation from it. Both growers call it.

    Examples
    --------
    >>> import numpy as np
    >>> med, imp = ae_node(np.array([1.0, 2.0, 9.0]), np.arange(3), np.ones(3))
    >>> float(med), round(float(imp), 6)
    (2.0, 2.666667)
    >>> float(ae_node(np.array([1.0, 3.0]), np.arange(2), np.ones(2))[0])  # exact half
    2.0
    """
    m = idx.shape[0]
    v = np.empty(m)
    for i in range(m):
        v[i] = y[idx[i]]
    order = np.argsort(v, kind="mergesort")
    cw = np.empty(m)
    acc = 0.0
    for i in range(m):
        acc += wi[order[i]]
        cw[i] = acc
    total = cw[m - 1]
    half = total / 2.0
    k = np.searchsorted(cw, half - 1e-12 * total)
    if abs(cw[k] - half) <= 1e-12 * total and k + 1 < m:
        med = (v[order[k]] + v[order[k + 1]]) / 2.0
    else:
        med = v[order[k]]
    dev = 0.0
    for i in range(m):
        dev += wi[i] * abs(v[i] - med)
    return med, dev / total


@kernel
def ae_category_order(codes_f, n_real_bins, idx, wi, y):
    """Present categories of a node sorted by weighted median (ties by category)."""
    m = idx.shape[0]
    local = np.empty(m, dtype=np.int64)
    for i in range(m):
        local[i] = codes_f[idx[i]]
    order = np.argsort(local, kind="mergesort")
    cats = np.empty(m, dtype=np.int64)
    key = np.empty(m)
    n_groups = 0
    i = 0
    while i < m:
        b = local[order[i]]
        j = i
        while j < m and local[order[j]] == b:
            j += 1
        if b != n_real_bins:
            yv = np.empty(j - i)
            wv = np.empty(j - i)
            for k in range(i, j):
                yv[k - i] = y[idx[order[k]]]
                wv[k - i] = wi[order[k]]
            so = np.argsort(yv, kind="mergesort")
            tot = ordered_sum(wv)
            acc = 0.0
            med = yv[so[-1]]
            for k in range(j - i):
                acc += wv[so[k]]
                if acc >= tot / 2.0:
                    med = yv[so[k]]
                    break
            cats[n_groups] = b
            key[n_groups] = med
            n_groups += 1
        i = j
    srt = np.argsort(key[:n_groups], kind="mergesort")
    return cats[:n_groups][srt]
