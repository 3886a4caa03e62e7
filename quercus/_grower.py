"""Tree growth: the frontier, the stopping rules, kernel calls, and the frozen tree.

Python orchestrates one node at a time; every per-sample loop runs in a kernel
(``search_node`` and ``partition``). A node's samples are a contiguous segment of one
index array, reordered in place as nodes split.
"""

from dataclasses import dataclass

import numpy as np

from ._kernels.criteria import ENTROPY, GINI, impurity
from ._kernels.partition import partition
from ._kernels.splits import CAT_BINARY, MULTIWAY, TIE_EPS, search_node
from ._selection import choose_split
from ._tree import TreeBuilder


@dataclass
class GrowConfig:
    """Resolved growth settings (integers and flags, no strings)."""

    criterion: int
    gain_ratio: bool
    multiway: bool
    random_splitter: bool
    max_depth: int
    min_samples_split: int
    min_samples_leaf: int
    min_impurity_decrease: float
    max_features: int


def criterion_code(name):
    """'entropy' and 'gain_ratio' score with entropy, 'gini' with the Gini index."""
    return GINI if name == "gini" else ENTROPY


@dataclass
class BinnedData:
    """Training data as the kernels want it."""

    codes: np.ndarray        # int32 (n, p), Fortran order
    n_bins: np.ndarray       # int64 (p,)
    is_cat: np.ndarray       # bool (p,)
    bin_values: np.ndarray   # float64, observed value of each numeric bin
    bin_offsets: np.ndarray  # int64 (p + 1,)
    y: np.ndarray            # int32 class codes
    w: np.ndarray            # float64 weights
    n_classes: int


def grow(data, cfg, rng):
    """Grow a tree on ``data`` with ``cfg``; ``rng`` is a numpy Generator (max_features,
    random splitter). Returns :class:`TreeArrays`."""
    n, p = data.codes.shape
    K = data.n_classes
    order = np.arange(n, dtype=np.int64)
    tree = TreeBuilder(K)
    root = tree.add(1, 0)
    tree["value"][root] = np.bincount(data.y, weights=data.w, minlength=K)
    tree["n_node_samples"][root] = n
    total_w = float(data.w.sum())
    all_features = np.arange(p, dtype=np.int64)
    stack = [(root, 0, n, np.zeros(p, dtype=bool))]
    while stack:
        node, start, end, used = stack.pop()
        value = tree["value"][node].copy()
        w_node = float(value.sum())
        m = end - start
        imp = impurity(value, cfg.criterion)
        tree["impurity"][node] = imp
        tree["weighted_n_node_samples"][node] = w_node
        depth = int(tree["depth"][node])
        if (np.count_nonzero(value > 0) <= 1 or depth >= cfg.max_depth
                or m < cfg.min_samples_split or m < 2 * cfg.min_samples_leaf):
            continue
        features = all_features[~used]
        if features.size == 0:
            continue
        if cfg.max_features < features.size:
            features = np.sort(rng.choice(features, size=cfg.max_features, replace=False))
        uniforms = (rng.random(features.size) if cfg.random_splitter
                    else np.full(features.size, -1.0))
        found, kind, _, dec, info, split_bin, thr = search_node(
            data.codes, data.n_bins, data.is_cat, data.bin_values, data.bin_offsets,
            features, order[start:end], data.y, data.w, K, cfg.criterion, cfg.multiway,
            cfg.min_samples_leaf, 0.0, uniforms)
        best = choose_split(found, dec, info, cfg.gain_ratio)
        if best < 0:
            continue
        if w_node / total_w * dec[best] + TIE_EPS < cfg.min_impurity_decrease:
            continue
        f = int(features[best])
        k = int(kind[best])
        n_children = int(data.n_bins[f]) if k == MULTIWAY else 2
        child_n, child_value = partition(order, start, end, data.codes[:, f], k,
                                         int(split_bin[best]), n_children, data.y, data.w, K)
        first = tree.add(n_children, depth + 1)
        tree["kind"][node] = k
        tree["feature"][node] = f
        tree["threshold"][node] = thr[best]
        tree["category"][node] = split_bin[best] if k == CAT_BINARY else -1
        tree["first_child"][node] = first
        tree["n_children"][node] = n_children
        child_used = used.copy()
        if k == MULTIWAY:
            child_used[f] = True
        # Children's segments follow partition's order; push them in reverse so the first
        # child is grown first (depth-first, deterministic).
        bounds = start + np.concatenate(([0], np.cumsum(child_n)))
        for c in range(n_children - 1, -1, -1):
            cid = first + c
            w_child = float(child_value[c].sum())
            tree["n_node_samples"][cid] = child_n[c]
            if w_child > 0:
                tree["value"][cid] = child_value[c]
                stack.append((cid, int(bounds[c]), int(bounds[c + 1]), child_used))
            else:
                # An empty branch (or one of zero weight) is a leaf predicting as its parent.
                tree["value"][cid] = value
    return tree.freeze()
