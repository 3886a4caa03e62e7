"""Growing a whole subtree in one kernel call.

Deep trees are mostly small nodes, and for a small node the Python around the split search
(the stack, the tree arrays, a handful of kernel calls) costs more than the search. When a
node is small enough, the grower hands it here and this kernel grows everything below it
with the Python grower's node order (depth first, first child first, children numbered
contiguously when their parent splits) and the same rules: whether a node is searched and
how a split routes its samples are the functions of :mod:`quercus._kernels.node`, which
the Python grower calls too. So the tree is the same.

It serves every configuration, pre-pruning on a validation set included (the same test
as the Python grower's, :mod:`quercus._kernels.prepruning`). A node's random draws
(``max_features``, the random splitter) are made from its key, as the Python grower makes them
(:mod:`quercus._kernels.draws`); absolute error's nodes are searched by the same
``search_at``. rpart's surrogate splits are kept and followed by the same helpers as the
Python grower's (``keep_surrogates`` and ``follow_surrogates`` in surrogates.py).
"""

from typing import NamedTuple

import numpy as np

from ._jit import hot, inner, kernel
from .absolute import ae_category_order
from .borrow import borrowed, keep_alive
from .builder import (as_parent, first_surrogates, init_nodes, leaf_nodes, surrogate_table,
                      unsplit, with_room, with_surrogate_room, write_stats)
from .criteria import GINI, SQUARED_ERROR
from .draws import child_key, node_draws
from .histograms import build_histograms, dense_pass, sorted_positions, subtract_histograms
from .node import (branches_into, collapses_into, histogram_plan, settle, settle_value,
                   subset_map)
from .prepruning import validation_test
from .selection import choose_split
from .split_step import apply_split
from .splits import (INT_BIN, INT_MISS_DIR, RES_DECREASE, RES_INFO, RES_RHO,
                     RES_THRESHOLD, TIE_EPS, WORK_ROWS, midpoint_of_rows, resolve_threshold,
                     search_at, search_outputs)
from .schema import CAT_BINARY, CAT_MULTIWAY, CAT_SUBSET, FRACTIONAL, MULTIWAY, NUMERIC
from .surrogates import (all_surrogates, follow_surrogates, keep_surrogates,
                         surrogate_outputs)
from .tables import grown_vector


class Pending(NamedTuple):
    """A node on the kernel's stack, to be settled and maybe split: its slot, its samples
    ``rows`` and their weights ``w``, its stats, the multiway attributes ``used`` above it,
    its first column ``start`` of the subtree's presorted orders, its histograms (empty
    when it keeps none), its key (its random draws') and its validation rows and their
    weights (empty without pre-pruning)."""

    slot: np.int64
    rows: np.ndarray
    w: np.ndarray
    stats: np.ndarray
    used: np.ndarray
    start: np.int64
    hist: np.ndarray
    hist_n: np.ndarray
    key: np.int64
    vrows: np.ndarray
    vw: np.ndarray


# The most rows a subtree presorts: its orders hold positions in uint16.
PRESORT_MAX_ROWS = 1 << 16
# A subtree of at most this many rows presorts every numeric feature of more than
# PRESORT_MIN_BINS bins: its small nodes then read a histogram of their own samples in
# order, instead of clearing and compacting one of every bin. (A feature of few bins
# clears little, and splitting its order at every node would cost more.)
PRESORT_ALL_ROWS = 2048
PRESORT_MIN_BINS = 64
# A presorted feature's histogram at a node of at most this many samples is built in the
# subtree's scratch; a bigger node's in arrays of its own, which the compiled loop fills
# faster than the scratch by more than making them costs (benchmarks/results/
# design_choices.md).
SCRATCH_MAX_SAMPLES = 256
# A feature of at most this many bins (its missing bin included) takes its histogram at a
# node in the subtree's scratch, not in arrays of its own.
DENSE_SCRATCH_BINS = 1024


@kernel
def grow_subtree(binned, is_cat, y, y2, n_stats, regression, criterion, gain_ratio, cat_mode,
                 missing_mode, max_depth, min_samples_split, min_samples_leaf,
                 min_weight_leaf, min_impurity_decrease, min_objects, total_w, idx0, w0,
                 root_start, stats0, used0, depth0, can_presort, dense_features,
                 hist_offsets, hist_min_samples, risk_floor, risk_loss, surrogates, xv,
                 x_row_stride, x_col_stride, x_rows, capacity, draws, absolute, validation):
    """Grow the subtrees below one or more nodes (roots), each as the Python grower would,
    on the training data's bins ``binned`` (a :data:`~quercus._kernels.schema.Binned`
    record; ``is_cat``: which features are categorical, None when none is).

    Root ``r`` has the samples ``idx0[root_start[r]:root_start[r + 1]]`` (weights ``w0``
    alike), stats ``stats0[r]``, the attributes ``used0[r]`` already used by a multiway
    split above it, depth ``depth0[r]``, and belongs to a tree whose root weighs
    ``total_w[r]``, grown to the floor ``risk_floor[r]`` (below). The roots are grown one
    after the other, each as if alone: the cross-validation folds of a small fit are
    grown in one call, each fold's rows of the whole data's bins a root.

    The nodes are written into a :data:`~quercus._kernels.schema.Nodes` record (of
    ``capacity`` slots to start with, from slot 0; a bigger copy once it is full) by
    :mod:`quercus._kernels.builder`, as the Python grower writes its own. Each root's
    subtree is a block of them: slots ``slot_start[r] .. slot_start[r + 1] - 1``, the root
    first and the nodes it creates after it. Within a block, ``first_child`` counts the
    block's new nodes from 0 (block slot j is new node j - 1), ``cat_map_start`` indexes
    the block's part of ``cat_map`` (from ``cat_start[r]``) and ``sur_start`` its part of
    the surrogates (from ``sur_start[r]``): the caller offsets them where it appends the
    subtree.

    With ``can_presort`` (no sample is ever spread over several branches), a numeric
    feature with too many bins for a dense histogram (any numeric feature, in a subtree of
    at most ``PRESORT_ALL_ROWS`` rows) is sorted once, here, and each node
    keeps its samples in that order (split stably to the children), so that no node sorts:
    the histograms are the same, built in the same order.

    The ``dense_features`` keep dense histograms (rows ``hist_offsets[f]..``) at nodes of
    at least ``hist_min_samples`` samples, and the larger child of a binary split gets its
    own by subtraction, as the Python grower's nodes do (none: an empty array).

    A node whose :func:`weighted_risk` (loss ``risk_loss``) is below its root's
    ``risk_floor`` is a leaf: the cost-complexity floor (0: none), see
    :func:`quercus._grower.grow`.

    ``surrogates``: (max_surrogate, always) for rpart's surrogate splits, searched at the
    split nodes whose samples miss the split attribute (or at every one: ``always``) and
    followed by those samples, as the Python grower's are; None: none (and their code is
    not compiled).

    A numeric feature without a value table (``bin_features(..., lazy=True)``) gets its
    threshold from the training matrix (``xv``, ``x_row_stride``, ``x_col_stride``,
    ``x_rows``: see :func:`resolve_threshold`; an empty ``xv`` when no feature needs it).

    ``draws``: a :class:`~quercus._kernels.draws.Draws` record when the nodes draw at
    random (:mod:`quercus._kernels.draws`: a node's draws depend on its key alone, so they
    are the Python grower's); None: no draws (and their code is not compiled).

    ``absolute``: True for the absolute-error criterion (a node's value is its weighted
    median, :func:`~quercus._kernels.absolute.ae_node`; its splits are searched from its
    sorted samples and its categories ordered by median), None otherwise (and that code
    is not compiled).

    ``validation``: a :class:`~quercus._kernels.prepruning.HeldOut` record for
    pre-pruning, a split kept only when it lowers the error of its node's validation rows
    (:func:`~quercus._kernels.prepruning.validation_test`, the Python grower's test);
    None: no pre-pruning (and its code is not compiled).

    Returns (nodes, slot_start, cat_map, cat_start, surs, sur_start, refused): the nodes
    (slots past ``slot_start[-1]`` unused), the categories' children of ordered splits and
    the surrogates (a :data:`~quercus._kernels.schema.Surrogates` record), each with its
    blocks' starts, and the splits pre-pruning refused, a row each in the order they were
    tried: (root, block slot, feature, error with the split, error as a leaf).
    """
    codes, n_bins, bin_lo, bin_hi, bin_offsets = binned
    n_out = 1 if regression else n_stats
    nodes = leaf_nodes(capacity, n_out)
    p = codes.shape[1]
    stat_crit = SQUARED_ERROR if regression else GINI
    count = np.int64(0)  # int64 from the start: a literal would compile callees twice
    cat_maps = np.empty(64, dtype=np.int8)  # (the schema's type of cat_map)
    n_cat = 0
    n_sur = 0
    max_sur = np.int64(0)  # the most surrogates a split keeps
    surs = surrogate_table(0)
    # Where the primary split sends each known sample, indexed by sample (only a node's
    # own entries are written, then read).
    direction = np.empty(0)
    # The surrogate search's attributes, made once.
    sur_features = np.arange(p)
    n_s = np.int64(0)  # the biggest root's samples
    for r in range(root_start.shape[0] - 1):
        n_s = max(n_s, root_start[r + 1] - root_start[r])
    if surrogates is not None:
        max_sur = np.int64(surrogates[0])
        surs = surrogate_table(16)
        direction = np.empty(codes.shape[0])
    no_hist = np.zeros((0, n_stats))
    no_hist_n = np.zeros(0, dtype=np.int64)
    work = np.empty((WORK_ROWS, n_stats))
    n_roots = root_start.shape[0] - 1
    # The most category-map entries a split writes (a subset split's: one a category) and
    # the most children it makes: two, but a multiway split's, one a category. (Room for
    # a multiway split's children in every binary tree made each subtree's record as big
    # as its widest attribute's categories.)
    most_cats = np.int64(2)
    if is_cat is not None:
        for f in range(p):
            if is_cat[f] and n_bins[f] > most_cats:
                most_cats = np.int64(n_bins[f])
    most = most_cats if cat_mode == CAT_MULTIWAY else np.int64(2)
    no_vrows = np.zeros(0, dtype=np.int64)
    no_vw = np.zeros(0)
    refused = np.empty((0, 5))
    # Per-call scratch for what every node would otherwise allocate: its candidate
    # features (read before the next node is taken) and the category map of a split that
    # is not a subset split (read only).
    feature_buf = np.empty(p, dtype=np.int64)
    no_cat_map = np.zeros(1, dtype=np.int64)
    # search_at's scratch: a histogram of up to DENSE_SCRATCH_BINS bins, cleared or copied
    # into at each (node, feature), and the search's outputs.
    d_rows = np.int64(0)
    for f in range(p):
        if n_bins[f] + 1 <= DENSE_SCRATCH_BINS:
            d_rows = max(d_rows, n_bins[f] + 1)
    found0, kind0, res0, ints0 = search_outputs(p)
    scratch = (np.empty(d_rows, dtype=np.int64), np.empty((d_rows, n_stats)),
               np.empty(d_rows, dtype=np.int64), found0, kind0, res0, ints0)
    # _add_surrogates' scratch: room for a root's samples, and a histogram with a row per
    # sample or per bin of an attribute that search_at's scratch takes.
    s_rows = max(n_s, d_rows) if surrogates is not None else np.int64(0)
    agree0, majority0, kind_s0, where0, thr0, flip0 = surrogate_outputs(p)
    sur_scratch = (np.empty(n_s, dtype=np.int64), np.empty(n_s),
                   (np.empty(s_rows, dtype=np.int64), np.empty((s_rows, 2)),
                    np.empty(s_rows, dtype=np.int64), agree0, majority0, kind_s0, where0,
                    thr0, flip0))
    # Scratch of every split's routing, made once a call: where each sample goes, the
    # known weight and the stats of each child (read before the next split), and the
    # presorted orders' split (_split_sorted).
    branch_buf = np.empty(n_s, dtype=np.int32)
    known_buf = np.empty(most)
    child_stats_buf = np.empty((most, n_stats))
    sort_scratch = (np.empty(n_s, dtype=np.int32), np.empty(most + 1, dtype=np.int64),
                    np.empty(most, dtype=np.int64))
    # The arrays the nodes' steps read and write, lent to them (borrow.py): their owners
    # here outlive every step.
    l_binned, l_is_cat = borrowed(binned), borrowed(is_cat)
    l_y, l_y2 = borrowed(y), borrowed(y2)
    l_hist_offsets, l_work = borrowed(hist_offsets), borrowed(work)
    l_features, l_scratch = borrowed(feature_buf), borrowed(scratch)
    l_sur_features, l_direction = borrowed(sur_features), borrowed(direction)
    l_sur_scratch = borrowed(sur_scratch)
    l_branch_buf, l_known_buf = borrowed(branch_buf), borrowed(known_buf)
    l_child_stats_buf, l_sort_scratch = borrowed(child_stats_buf), borrowed(sort_scratch)
    l_no_cat_map = borrowed(no_cat_map)
    n_refused = 0
    slot_start = np.empty(n_roots + 1, dtype=np.int64)
    cat_start = np.empty(n_roots + 1, dtype=np.int64)
    sur_start = np.empty(n_roots + 1, dtype=np.int64)
    for r in range(n_roots):
        # This root's block: its slot first, then the nodes it creates.
        base, cat_base, sur_base = count, np.int64(n_cat), np.int64(n_sur)
        slot_start[r], cat_start[r], sur_start[r] = base, cat_base, sur_base
        nodes = with_room(nodes, count, np.int64(1))
        init_nodes(nodes, count, np.int64(1), depth0[r])
        count += 1
        r_idx = idx0[root_start[r]:root_start[r + 1]]
        r_w = w0[root_start[r]:root_start[r + 1]]
        m0 = r_idx.shape[0]
        slot_of = np.full(p, -1, dtype=np.int64)
        n_ps = 0
        # A presorted order holds positions 0 .. m0 - 1 in 2 bytes each (half of int32's,
        # on every thread growing a subtree at once). The grower hands the kernel at most
        # SUBTREE_MAX_ROWS rows; a bigger node (a caller's own) sorts at every node
        # instead, as without presorting.
        if can_presort and m0 <= PRESORT_MAX_ROWS:
            for f in range(p):
                # (dense_pass false: these would be sorted at every node)
                if (is_cat is None or not is_cat[f]) and (
                        (m0 <= PRESORT_ALL_ROWS and n_bins[f] + 1 > PRESORT_MIN_BINS)
                        or not dense_pass(n_bins[f] + 1, m0)):
                    slot_of[f] = n_ps
                    n_ps += 1
        srt0 = np.empty((n_ps, m0), dtype=np.uint16)
        for f in range(p):
            if slot_of[f] >= 0:
                order = sorted_positions(codes[:, f], r_idx)
                for i in range(m0):
                    srt0[slot_of[f], i] = order[i]
        hist0, hist_n0 = no_hist, no_hist_n
        if dense_features.shape[0] > 0 and m0 >= hist_min_samples:
            hist0, hist_n0 = build_histograms(codes, dense_features, hist_offsets, r_idx,
                                              r_w, y, y2, n_stats, stat_crit)
        # Every node's presorted orders are its columns of srt0 (start .. start + m): a
        # split reorders them in place into its children's, which take the same columns in
        # child order (as the scatter lays out their samples). Tables copied per child
        # would hold the whole table twice at the first split.
        buf = np.empty(m0 if n_ps > 0 else 0, dtype=np.uint16)
        # Scratch of every node's split search: a presorted feature's histogram (at most a
        # bin per sample) and the scoring's rows.
        m_h = min(m0, SCRATCH_MAX_SAMPLES) if n_ps > 0 else 0
        h_bins = np.empty(m_h, dtype=np.int64)
        h_counts = np.empty((m_h, n_stats))
        h_n = np.empty(m_h, dtype=np.int64)
        l_srt0, l_slot_of, l_buf = borrowed(srt0), borrowed(slot_of), borrowed(buf)
        l_h_bins, l_h_counts, l_h_n = borrowed((h_bins, h_counts, h_n))
        key0 = np.int64(0)
        if draws is not None:
            key0 = draws.keys[r]
        vrows0, vw0 = no_vrows, no_vw
        if validation is not None:
            vs, ve = validation.row_start[r], validation.row_start[r + 1]
            vrows0, vw0 = validation.rows[vs:ve], validation.w[vs:ve]
        stack = [Pending(base, r_idx, r_w, stats0[r], used0[r], np.int64(0), hist0, hist_n0,
                         key0, vrows0, vw0)]
        # The node being split: it owns the arrays of its own that its steps are lent (it
        # lives until the next node is taken).
        item = stack[0]
        while len(stack) > 0:
            # Room for the most children (and category map entries, and surrogates) a
            # split makes, made here rather than at each split: a record reassigned inside
            # the loop below would cost numba a reference count of each of its arrays at
            # every node.
            nodes = with_room(nodes, count, most)
            surs = with_surrogate_room(surs, n_sur, max_sur)
            l_nodes, l_surs = borrowed(nodes), borrowed(surs)
            if n_cat + most_cats > cat_maps.shape[0]:
                cat_maps = grown_vector(cat_maps, max(2 * cat_maps.shape[0], n_cat + most_cats),
                                        n_cat)
            while (len(stack) > 0 and count + most <= nodes.kind.shape[0]
                   and n_sur + max_sur <= surs.sur_feature.shape[0]
                   and n_cat + most_cats <= cat_maps.shape[0]):
                item = stack.pop()
                slot, idx, wi, stats, used, start, hist, hist_n, key, vrows, vw = item
                presorted = (l_srt0, l_slot_of, start, l_h_bins, l_h_counts, l_h_n)
                l_idx, l_wi, l_stats = borrowed(idx), borrowed(wi), borrowed(stats)
                l_hist, l_hist_n = borrowed(hist), borrowed(hist_n)
                m = idx.shape[0]
                imp = settle_value(l_nodes.value[slot], l_stats, l_y, l_idx, l_wi, criterion,
                                   regression, absolute)
                depth = l_nodes.depth[slot]
                imp, weight, searchable = settle(
                    l_stats, imp, l_idx, l_wi, l_y, regression, depth, max_depth,
                    min_samples_split, min_samples_leaf, min_weight_leaf, min_objects,
                    risk_floor[r], risk_loss)
                write_stats(l_nodes, slot, imp, weight, m)
                if not searchable:
                    continue
                n_feat = np.int64(0)
                for f in range(p):
                    if not used[f]:
                        n_feat += 1
                if n_feat == 0:
                    continue
                features = l_features[:n_feat]
                j = 0
                for f in range(p):
                    if not used[f]:
                        features[j] = f
                        j += 1
                if draws is None:
                    found, kind, res, o_ints = search_at(
                        l_binned, l_is_cat, features, l_idx, l_wi, l_y, l_y2, n_stats,
                        criterion, cat_mode, missing_mode, min_samples_leaf,
                        min_weight_leaf, None, min_objects, l_hist, l_hist_n,
                        l_hist_offsets, None, presorted, l_work, absolute, l_scratch)
                else:
                    features, uniforms = node_draws(features, draws.max_features,
                                                    draws.random_splitter, key)
                    found, kind, res, o_ints = search_at(
                        l_binned, l_is_cat, features, l_idx, l_wi, l_y, l_y2, n_stats,
                        criterion, cat_mode, missing_mode, min_samples_leaf,
                        min_weight_leaf, uniforms, min_objects, l_hist, l_hist_n,
                        l_hist_offsets, None, presorted, l_work, absolute, l_scratch)
                # (The packed columns read in place: no copy of each per node.)
                best = choose_split(found, res[:, RES_DECREASE], res[:, RES_INFO], gain_ratio)
                if best < 0:
                    continue
                if weight / total_w[r] * res[best, RES_DECREASE] + TIE_EPS < min_impurity_decrease:
                    continue
                f = features[best]
                k = kind[best]
                split_bin = o_ints[best, INT_BIN]
                nbf = n_bins[f]
                threshold = res[best, RES_THRESHOLD]
                if k == NUMERIC and np.isnan(threshold):
                    if slot_of[f] >= 0:
                        order = l_srt0[slot_of[f], start:start + m]
                        threshold = _presorted_threshold(l_binned.codes[:, f], l_idx, order,
                                                         split_bin, xv, x_row_stride,
                                                         x_col_stride, x_rows, f)
                    else:
                        threshold = resolve_threshold(l_binned.codes[:, f], l_idx, split_bin,
                                                      nbf, xv, x_row_stride, x_col_stride,
                                                      x_rows, f)
                n_children = nbf if k == MULTIWAY else 2
                cat_map = l_no_cat_map
                # (``is_cat is None``: no categorical feature; numba compiles no subset split.)
                if is_cat is not None:
                    if k == CAT_SUBSET:
                        if absolute is not None:
                            cat_map = _median_subset_map(codes[:, f], nbf, idx, wi, y,
                                                         split_bin)
                        else:
                            cat_map = subset_map(codes, n_bins, f, idx, wi, y, y2, n_stats,
                                                 criterion, split_bin)
                # (branch and known_w: views of lent scratch.)
                branch, known_w, any_missing, missing_child = branches_into(
                    l_binned.codes[:, f], nbf, k, split_bin, cat_map, l_idx, l_wi,
                    missing_mode, o_ints[best, INT_MISS_DIR], l_branch_buf, l_known_buf)
                if collapses_into(l_stats, imp, weight, branch, l_idx, l_wi, l_y, l_y2,
                                  n_children, n_stats, regression, criterion, stat_crit,
                                  risk_loss, risk_floor[r], l_child_stats_buf):
                    continue
                cat_map_start = np.int64(-1)
                if k == CAT_SUBSET:
                    for c in range(nbf):
                        cat_maps[n_cat + c] = cat_map[c]
                    cat_map_start = n_cat - cat_base
                    n_cat += nbf
                node_sur_start = n_sur - sur_base
                n_kept = np.int64(0)
                if surrogates is not None:
                    if k != MULTIWAY and (any_missing or surrogates[1]):
                        n_kept = _add_surrogates(
                            l_binned, l_is_cat, l_sur_features, f, l_idx, l_wi,
                            branch, l_direction, max_sur, l_surs, n_sur, xv,
                            x_row_stride, x_col_stride, x_rows, (l_srt0, l_slot_of, start),
                            l_sur_scratch)
                        if any_missing:
                            follow_surrogates(l_binned.codes, l_binned.n_bins, l_binned.hi,
                                              l_binned.offsets, l_idx, branch, l_surs, n_sur,
                                              n_kept, missing_child, xv, x_row_stride,
                                              x_col_stride, x_rows)
                        n_sur += n_kept
                kids = apply_split(l_nodes, count, slot, base + 1, k, f, threshold,
                                   split_bin if k == CAT_BINARY else -1, n_children,
                                   res[best, RES_RHO], missing_mode, missing_child,
                                   any_missing, known_w, node_sur_start, n_kept,
                                   cat_map_start, l_idx, l_wi, branch, l_y, l_y2, n_stats,
                                   stat_crit, np.bool_(False))
                child_idx, child_w, offsets, child_stats, c_weight = kids
                first = count
                count += n_children
                c_vrows, c_vw, c_voff = no_vrows, no_vw, no_vrows
                if validation is not None:
                    pays, split_err, leaf_err, c_vrows, c_vw, c_voff = validation_test(
                        validation.X, validation.y, vrows, vw, k, f, threshold,
                        split_bin if k == CAT_BINARY else -1, n_children, missing_mode,
                        missing_child, cat_map, surs, n_sur - n_kept, n_kept, kids, y,
                        criterion, absolute, nodes.value[slot], validation.priority,
                        regression, validation.strict)
                    if not pays:
                        # The node stays a leaf: its split, children, category map and
                        # surrogates undone.
                        unsplit(nodes, slot)
                        count = first
                        n_sur -= n_kept
                        if k == CAT_SUBSET:
                            n_cat -= nbf
                        if n_refused == refused.shape[0]:
                            more = np.empty((max(16, 2 * n_refused), 5))
                            more[:n_refused] = refused[:n_refused]
                            refused = more
                        refused[n_refused, 0] = r
                        refused[n_refused, 1] = slot - base
                        refused[n_refused, 2] = f
                        refused[n_refused, 3] = split_err
                        refused[n_refused, 4] = leaf_err
                        n_refused += 1
                        continue
                child_used = used
                if k == MULTIWAY:
                    child_used = used.copy()
                    child_used[f] = True
                if n_ps > 0:
                    _split_sorted(l_srt0, start, l_buf, branch, n_children, l_sort_scratch)
                # The children's histograms: the smaller child's from its samples, the larger's
                # by subtraction (not where C4.5 spread a sample into both: counts would not add
                # up).
                # (Two pairs of variables, not lists: a list is an allocation a node.)
                hist_0, hist_n_0, hist_1, hist_n_1 = no_hist, no_hist_n, no_hist, no_hist_n
                spread = missing_mode == FRACTIONAL and any_missing
                if hist.shape[0] > 0 and n_children == 2 and not spread:
                    big, keep_big, keep_small = histogram_plan(
                        offsets, child_stats, c_weight, depth, hist_min_samples, max_depth,
                        min_samples_split, min_samples_leaf, min_weight_leaf, min_objects)
                    small = 1 - big
                    if keep_big:
                        s, e = offsets[small], offsets[small + 1]
                        h_s, h_sn = build_histograms(codes, dense_features, hist_offsets,
                                                     child_idx[s:e], child_w[s:e], y, y2, n_stats,
                                                     stat_crit)
                        h_b, h_bn = subtract_histograms(hist, hist_n, h_s, h_sn)
                        if big == 0:
                            hist_0, hist_n_0 = h_b, h_bn
                        else:
                            hist_1, hist_n_1 = h_b, h_bn
                        if keep_small:
                            if small == 0:
                                hist_0, hist_n_0 = h_s, h_sn
                            else:
                                hist_1, hist_n_1 = h_s, h_sn
                for c in range(n_children - 1, -1, -1):
                    s, e = offsets[c], offsets[c + 1]
                    if e > s and c_weight[c] > 0:
                        h, hn = no_hist, no_hist_n
                        if c == 0:
                            h, hn = hist_0, hist_n_0
                        elif c == 1:
                            h, hn = hist_1, hist_n_1
                        c_key = key  # (no draws: no key to make, and no code for it)
                        if draws is not None:
                            c_key = child_key(key, c)
                        c_vr, c_vwc = no_vrows, no_vw
                        if validation is not None:
                            c_vr = c_vrows[c_voff[c]:c_voff[c + 1]].copy()
                            c_vwc = c_vw[c_voff[c]:c_voff[c + 1]].copy()
                        # (Views of the split's arrays, which nothing writes: no copies.)
                        stack.append(Pending(first + c, child_idx[s:e], child_w[s:e],
                                             child_stats[c], child_used, start + s, h, hn,
                                             c_key, c_vr, c_vwc))
                    else:
                        # An empty branch (or one of zero weight) predicts as its parent.
                        as_parent(l_nodes, first + c, slot, e - s)
        keep_alive((srt0, slot_of, buf, h_bins, h_counts, h_n, item))
    keep_alive((work, feature_buf, scratch, sur_features, direction, sur_scratch, branch_buf,
                known_buf, child_stats_buf, sort_scratch, no_cat_map))
    slot_start[n_roots], cat_start[n_roots], sur_start[n_roots] = count, n_cat, n_sur
    return (nodes, slot_start, grown_vector(cat_maps, n_cat, n_cat), cat_start,
            first_surrogates(surs, n_sur), sur_start, refused[:n_refused].copy())


@hot
def _add_surrogates(binned, is_cat, features, f, idx, wi, branch, direction, max_surrogate,
                    surs, n_sur, xv, x_row_stride, x_col_stride, x_rows, presorted, scratch):
    """The node's surrogate splits of primary attribute ``f`` among ``features`` (every
    attribute of ``binned``; ``is_cat``: which are categorical, None when none is),
    searched on its samples of known ``branch`` and kept by :func:`keep_surrogates` (the
    Python grower searches on threads, then keeps them alike). ``presorted``: (orders,
    slot of each attribute, the node's first column) of the subtree's presorted
    attributes. ``scratch``: (room for the node's known samples and their weights, and
    :func:`all_surrogates`' scratch), reused from node to node. They are written into
    ``surs`` from entry ``n_sur`` (room for ``max_surrogate``); returns how many."""
    m = idx.shape[0]
    n_known = 0
    for i in range(m):
        if branch[i] >= 0:
            n_known += 1
    if n_known == 0:
        return 0
    sidx_buf, sw_buf, hist_scratch = scratch
    sidx = sidx_buf[:n_known]
    sw = sw_buf[:n_known]
    j = 0
    for i in range(m):
        if branch[i] >= 0:
            sidx[j] = idx[i]
            sw[j] = wi[i]
            direction[idx[i]] = branch[i]
            j += 1
    srt, slot_of, start = presorted
    agree, majority, kind, where, thr, flip = all_surrogates(
        binned, is_cat, features, f, sidx, sw, direction, (srt, slot_of, start, idx, wi, branch),
        hist_scratch)
    return keep_surrogates(binned.codes, binned.n_bins, agree, majority, kind, where, thr,
                           flip, sidx, max_surrogate, surs, n_sur, xv, x_row_stride,
                           x_col_stride, x_rows)


@inner
def _median_subset_map(codes_f, nbf, idx, wi, y, n_left):
    """``node.subset_map`` of an absolute-error split: the first ``n_left`` categories by
    weighted median (``ae_category_order``) left (0), the others right (1), those absent
    from the node -1."""
    order = ae_category_order(codes_f, nbf, idx, wi, y)
    cat_map = np.full(nbf, -1, dtype=np.int64)
    for j in range(order.shape[0]):
        cat_map[order[j]] = 0 if j < n_left else 1
    return cat_map


@inner
def _presorted_threshold(codes_f, idx, order, split_bin, xv, x_row_stride, x_col_stride,
                         x_rows, f):
    """:func:`resolve_threshold` for a presorted feature: the node's samples in code order
    (``order``, missing last) put the two values around the split next to each other, found
    by a binary search instead of a pass over the node."""
    lo, hi = 0, order.shape[0]  # the first position whose code is above split_bin
    while lo < hi:
        mid = (lo + hi) >> 1
        if codes_f[idx[order[mid]]] <= split_bin:
            lo = mid + 1
        else:
            hi = mid
    return midpoint_of_rows(xv, x_row_stride, x_col_stride, x_rows, idx[order[lo - 1]],
                            idx[order[lo]], f)


@inner
def _split_sorted(srt, start, buf, branch, n_children, scratch):
    """Each presorted feature's order of a node (columns ``start .. start + m`` of
    ``srt``) split stably, in place, into its children's (every sample goes to exactly
    one child): child ``c`` takes the columns after those of children ``0 .. c - 1``, as
    positions in the child. ``buf``: scratch of at least ``m`` positions; ``scratch``:
    (at least ``m`` int32, ``n_children + 1`` and ``n_children`` int64 slots)."""
    m = branch.shape[0]
    pos_buf, count_buf, ptr_buf = scratch
    count = count_buf[:n_children + 1]
    for c in range(n_children + 1):
        count[c] = 0
    child_pos = pos_buf[:m]
    for i in range(m):
        child_pos[i] = count[branch[i] + 1]
        count[branch[i] + 1] += 1
    for c in range(n_children):  # count[c]: the first column of child c, from start
        count[c + 1] += count[c]
    ptr = ptr_buf[:n_children]
    for s in range(srt.shape[0]):
        row = srt[s, start:start + m]
        for k in range(m):
            buf[k] = row[k]
        if n_children == 2:  # the common case, without a look-up per element
            # (Branch-free: where a sample goes is a coin toss to the branch predictor.)
            n_left = np.int64(0)
            n_right = count[1]
            for k in range(m):
                i = buf[k]
                r = np.int64(branch[i])
                row[n_left + r * (n_right - n_left)] = child_pos[i]
                n_left += 1 - r
                n_right += r
            continue
        for c in range(n_children):
            ptr[c] = count[c]
        for k in range(m):
            i = buf[k]
            b = branch[i]
            row[ptr[b]] = child_pos[i]
            ptr[b] += 1
