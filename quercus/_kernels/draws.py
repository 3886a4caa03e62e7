"""A node's random draws (``max_features``, the random splitter) as a function of the node.

Every node has a key: the root's is made from the fit's seed, and a child's from its
parent's key and its place among the children. A node's draws are read from a stream of
uniforms that its key alone determines (a counter-based generator: murmur3's 32-bit
finaliser applied to the key and the draw's index). So the draws do not depend on the
order in which nodes are grown, on which grower grows them (the Python grower's big nodes
or the subtree kernel's small ones), or on the number of threads: the same seed gives the
same tree however the work is shared out.

Every value is below 2**32 and every product below 2**49, so the arithmetic is exact in
int64, in numba and in Python alike (a kernel run as Python draws the same numbers).
"""

from typing import NamedTuple

import numpy as np

from ._jit import inner


class Draws(NamedTuple):
    """What the subtree kernel draws with: root ``r``'s key ``keys[r]``, the number of
    features a node searches (``max_features``) and whether it draws one threshold per
    feature (``random_splitter``)."""

    keys: np.ndarray
    max_features: np.int64
    random_splitter: bool


_MASK = 0xFFFFFFFF
_GOLDEN = 0x9E3779B9  # 2**32 / golden ratio: spreads consecutive indices apart
_SCALE = 1.0 / 4294967296.0  # 2**-32


@inner
def _mul32(a, b):
    """``a * b`` modulo 2**32 for ``a``, ``b`` below 2**32, in two 16-bit halves of ``b``
    (no product reaches 2**63)."""
    return (a * (b & 0xFFFF) + (((a * (b >> 16)) & 0xFFFF) << 16)) & _MASK


@inner
def mix32(h):
    """murmur3's finaliser of a 32-bit value: every input bit flips each output bit with
    probability about one half.

    Examples
    --------
    >>> mix32(0), mix32(1)
    (0, 1364076727)
    """
    h ^= h >> 16
    h = _mul32(h, 0x85EBCA6B)
    h ^= h >> 13
    h = _mul32(h, 0xC2B2AE35)
    h ^= h >> 16
    return h


@inner
def root_key(seed):
    """The root's key from the fit's ``seed`` (a non-negative integer).

    Examples
    --------
    >>> root_key(0) != root_key(1)
    True
    """
    return mix32((seed & _MASK) ^ _GOLDEN)


@inner
def child_key(key, c):
    """The key of child ``c`` (0, 1, ...) of the node of ``key``.

    Examples
    --------
    >>> k = root_key(7)
    >>> len({child_key(k, 0), child_key(k, 1), k})
    3
    """
    return mix32(key ^ mix32(_mul32(c + 1, _GOLDEN)))


@inner
def uniform(key, i):
    """Draw ``i`` (0, 1, ...) of the node of ``key``: a float64 in [0, 1), a multiple of
    2**-32.

    Examples
    --------
    >>> u = [uniform(root_key(0), i) for i in range(1000)]
    >>> 0.0 <= min(u) and max(u) < 1.0 and abs(sum(u) / 1000 - 0.5) < 0.05
    True
    """
    return mix32(mix32(key ^ _mul32(i + 1, 0x85EBCA6B)) ^ _GOLDEN) * _SCALE


@inner
def node_draws(features, max_features, random_splitter, key):
    """The features a node searches and their random-splitter draws: ``max_features`` of
    the candidate ``features`` (int64, ascending) chosen without replacement when there
    are more (a partial Fisher-Yates shuffle of the node's uniforms), ascending; and one
    uniform each with ``random_splitter``, else -1 each (an exhaustive search).

    Examples
    --------
    >>> import numpy as np
    >>> chosen, u = node_draws(np.arange(10), 3, True, root_key(0))
    >>> chosen.size, bool((np.diff(chosen) > 0).all()), bool(((0 <= u) & (u < 1)).all())
    (3, True, True)
    >>> node_draws(np.arange(4), 5, False, root_key(0))[0].tolist()  # all of them
    [0, 1, 2, 3]
    """
    n = features.shape[0]
    chosen = features.copy()
    used = 0
    if max_features < n:
        for t in range(max_features):
            j = t + np.int64(uniform(key, t) * (n - t))
            chosen[t], chosen[j] = chosen[j], chosen[t]
        chosen = np.sort(chosen[:max_features])
        used = max_features
    uniforms = np.full(chosen.shape[0], -1.0)
    if random_splitter:
        for t in range(chosen.shape[0]):
            uniforms[t] = uniform(key, used + t)
    return chosen, uniforms
