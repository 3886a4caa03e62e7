"""Routing samples through a fitted tree."""

import numpy as np
from numba import njit

from .splits import CAT_BINARY, LEAF, NUMERIC


@njit(cache=True, nogil=True)
def _next_node(x, node, kind, feature, threshold, category, first_child, n_children):
    """Child of ``node`` that ``x`` goes to, or -1 when it stops here.

    A sample stops at a multiway node whose branch for its category does not exist
    (a category unseen at fit time, code -1).
    """
    k = kind[node]
    v = x[feature[node]]
    if k == NUMERIC:
        return first_child[node] + (1 if v > threshold[node] else 0)
    c = np.int64(v)
    if k == CAT_BINARY:
        return first_child[node] + (0 if c == category[node] else 1)
    if c < 0 or c >= n_children[node]:
        return -1
    return first_child[node] + c


@njit(cache=True, nogil=True)
def apply_tree(X, kind, feature, threshold, category, first_child, n_children):
    """Index of the node where each row of ``X`` ends (a leaf, or an internal node
    for a category unseen at fit time). ``X`` holds numeric values and category codes."""
    n = X.shape[0]
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        node = 0
        while kind[node] != LEAF:
            nxt = _next_node(X[i], node, kind, feature, threshold, category, first_child,
                             n_children)
            if nxt < 0:
                break
            node = nxt
        out[i] = node
    return out


@njit(cache=True, nogil=True)
def path_lengths_and_nodes(X, kind, feature, threshold, category, first_child, n_children,
                           max_len):
    """Nodes visited by each row, root first, as a CSR (indptr, indices) pair."""
    n = X.shape[0]
    indptr = np.zeros(n + 1, dtype=np.int64)
    buf = np.empty(n * max_len, dtype=np.int64)
    pos = 0
    for i in range(n):
        node = 0
        buf[pos] = 0
        pos += 1
        while kind[node] != LEAF:
            nxt = _next_node(X[i], node, kind, feature, threshold, category, first_child,
                             n_children)
            if nxt < 0:
                break
            node = nxt
            buf[pos] = node
            pos += 1
        indptr[i + 1] = pos
    return indptr, buf[:pos]
