"""Impurity criteria over weighted class-count vectors.

Every split in quercus is scored from a ``branch_stats[branch, class]`` array of weighted
class counts. One function, chosen by an integer criterion code, serves ID3 (information
gain), C4.5 (gain and split information for the gain ratio) and CART (Gini decrease).
"""

import numpy as np

from ._jit import inner, kernel

# Criterion codes: kernels take integers, never functions (closures defeat caching).
# Classification criteria read ``stats[k]`` = weight of class k; regression criteria read
# ``stats = (sum w, sum w*y, sum w*y2)`` with y2 = y*y (squared error) or y*log(y) (Poisson).
ENTROPY = 0
GINI = 1
SQUARED_ERROR = 2
POISSON = 3
ABSOLUTE_ERROR = 4  # scored from sorted samples (see absolute.py); stats as squared error
N_REG_STATS = 3

_LOG2 = np.log(2.0)


@inner
def stats_weight(stats, criterion):
    """Total weight of a stats vector."""
    if criterion > GINI:
        return stats[0]
    total = 0.0
    for k in range(stats.shape[0]):
        total += stats[k]
    return total


@kernel
def impurity(counts, criterion):
    """Impurity of one stats vector.

    Entropy in bits (``-sum p log2 p``) for ``ENTROPY``, ``1 - sum p^2`` for ``GINI``, the
    weighted variance for ``SQUARED_ERROR`` (and ``ABSOLUTE_ERROR``'s histogram stand-in),
    the mean half Poisson deviance ``sum w (y log(y/mean) - y + mean) / sum w`` for
    ``POISSON``. Precondition: weights non-negative; zero weight has impurity 0.
    """
    if criterion > GINI:
        w = counts[0]
        if w <= 0.0:
            return 0.0
        mean = counts[1] / w
        if criterion == POISSON:
            if mean <= 0.0:
                return 0.0
            return max((counts[2] - counts[1] * np.log(mean)) / w, 0.0)
        return max(counts[2] / w - mean * mean, 0.0)
    total = 0.0
    for k in range(counts.shape[0]):
        total += counts[k]
    if total <= 0.0:
        return 0.0
    acc = 0.0
    if criterion == ENTROPY:
        for k in range(counts.shape[0]):
            # Test the share, not the count: a tiny count can underflow to p == 0.
            p = counts[k] / total
            if p > 0.0:
                acc -= p * np.log(p)
        return acc / _LOG2
    for k in range(counts.shape[0]):
        p = counts[k] / total
        acc += p * p
    return 1.0 - acc


@kernel
def split_scores(branch_stats, criterion):
    """Score a candidate split from its per-branch stats.

    Parameters
    ----------
    branch_stats : float64 array (n_branches, n_stats)
        Stats of each branch (class weights, or regression sums); empty branches allowed.
    criterion : int
        A criterion code other than ``ABSOLUTE_ERROR``.

    Returns
    -------
    (child_impurity, decrease, split_info) : floats
        ``child_impurity`` is the weighted mean impurity of the branches (the book's
        conditional entropy or Gini_index(D, a)), ``decrease`` the parent impurity minus
        it (information gain for entropy, variance reduction for squared error),
        ``split_info`` the intrinsic value IV(a) in bits.
    """
    n_branches, n_classes = branch_stats.shape
    parent = np.zeros(n_classes)
    for b in range(n_branches):
        for k in range(n_classes):
            parent[k] += branch_stats[b, k]
    total = stats_weight(parent, criterion)
    if total <= 0.0:
        return 0.0, 0.0, 0.0
    child = 0.0
    split_info = 0.0
    for b in range(n_branches):
        frac = stats_weight(branch_stats[b], criterion) / total
        if frac > 0.0:
            child += frac * impurity(branch_stats[b], criterion)
            split_info -= frac * np.log(frac) / _LOG2
    return child, impurity(parent, criterion) - child, split_info
