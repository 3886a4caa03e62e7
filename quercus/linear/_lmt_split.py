"""C4.5's choice of a split on complete data, as LMT makes it at each node.

LMT splits on the class values with C4.5's rules (Weka's ``C45ModelSelection`` with at
least 2 instances per branch): a categorical attribute splits multiway, one branch per
level, and qualifies when at least two branches hold 2 or more rows; a numeric attribute
splits in two at the best of the thresholds between distinct values (more than 1e-5 apart)
that leave at least ``min(25, max(2, 0.1 n / J))`` rows on each side, and its information
gain is reduced by ``log2(number of such thresholds) / n`` (Quinlan's MDL correction for
choosing a threshold). Among the attributes whose gain is at least the average gain of the
qualifying attributes (less 1e-3) the one of largest gain ratio is chosen. The threshold is
then moved down to the largest value of the training data that does not exceed the
midpoint, so that a printed threshold is a value that occurs. LMT imputes missing values
before growing, so no fraction of a row goes down a branch.
"""

from typing import NamedTuple

import numpy as np

_EPS = 1e-6  # Weka's tolerance when it compares gains and counts


class Split(NamedTuple):
    feature: int
    threshold: float  # NaN for a categorical (multiway) split
    n_children: int


def _entropy_bits(counts):
    """``sum c log2 c`` terms: Weka's entropies are in "count x bits"."""
    c = counts[counts > 0]
    return float(np.sum(c * np.log2(c)))


def _info_gain(branch_counts, total):
    """Information gain (bits per row) of a split with per-branch class counts, and the
    split's entropy term for the gain ratio."""
    class_tot = branch_counts.sum(axis=0)
    old = total * np.log2(total) - _entropy_bits(class_tot) if total > 0 else 0.0
    sizes = branch_counts.sum(axis=1)
    new = sum(s * np.log2(s) - _entropy_bits(b) for s, b in zip(sizes, branch_counts)
              if s > 0)
    num = old - new
    if abs(num) < _EPS:
        return 0.0
    return num / total


def _split_info(sizes, total):
    """Split information in bits (0 for a trivial split)."""
    v = total * np.log2(total) - _entropy_bits(sizes)
    return 0.0 if abs(v) < _EPS else v / total


def _numeric(x, y, n_classes, min_obj):
    """Best threshold of a numeric column: ``(gain, gain_ratio, midpoint)`` or None."""
    n = x.shape[0]
    min_split = 0.1 * n / n_classes
    min_split = min_obj if min_split <= min_obj + _EPS else min(min_split, 25.0)
    if n < 2 * min_split:
        return None
    order = np.argsort(x, kind="stable")
    xs, ys = x[order], y[order]
    onehot = np.zeros((n, n_classes))
    onehot[np.arange(n), ys] = 1.0
    left = np.cumsum(onehot, axis=0)[:-1]  # class counts of rows 0..i, for i < n - 1
    total_counts = onehot.sum(axis=0)
    cand = np.flatnonzero(xs[:-1] + 1e-5 < xs[1:])
    n_left = cand + 1.0
    ok = (n_left >= min_split - _EPS) & (n - n_left >= min_split - _EPS)
    cand = cand[ok]
    if cand.size == 0:
        return None
    L = left[cand]
    R = total_counts[None, :] - L
    old = n * np.log2(n) - _entropy_bits(total_counts)

    def ent(M):
        with np.errstate(divide="ignore", invalid="ignore"):
            s = M.sum(axis=1)
            t = np.where(M > 0, M * np.log2(np.where(M > 0, M, 1.0)), 0.0).sum(axis=1)
            return np.where(s > 0, s * np.log2(np.where(s > 0, s, 1.0)), 0.0) - t

    num = old - (ent(L) + ent(R))
    gains = np.where(np.abs(num) < _EPS, 0.0, num / n)
    best_gain, best = 0.0, -1
    for k in range(gains.shape[0]):  # Weka: strictly better by more than 1e-6, first wins
        if gains[k] - best_gain > _EPS:
            best_gain, best = gains[k], k
    if best < 0:
        return None
    gain = best_gain - np.log2(cand.size) / n
    if gain <= _EPS:
        return None
    i = cand[best]
    mid = (xs[i] + xs[i + 1]) / 2.0
    if mid == xs[i + 1]:
        mid = xs[i]
    sizes = np.array([i + 1.0, n - i - 1.0])
    si = _split_info(sizes, n)
    return gain, (gain / si if si > 0 else 0.0), mid


def best_split(S, y, n_classes, n_levels, all_values, min_obj=2, n_all=None):
    """C4.5's split of the rows of ``S`` (imputed: no NaN), or None.

    Parameters
    ----------
    S : ndarray (n, p)
        Numeric values, and category codes for the columns with ``n_levels[j] > 0``.
    y : ndarray (n,) of int class codes in ``[0, n_classes)``.
    n_levels : ndarray (p,)
        0 for a numeric column, else its number of levels (one branch each).
    all_values : list of sorted ndarrays
        Each numeric column's values on all the training data (to move the threshold to
        an observed value), None for a categorical column.
    min_obj : int
        At least this many rows in two branches.
    n_all : int
        Rows of all the training data (a categorical attribute with at least 0.3 n_all
        levels is left out of the average gain, unless every attribute is one).

    Examples
    --------
    >>> import numpy as np
    >>> S = np.array([[1.0, 0.0], [2.0, 1.0], [3.0, 0.0], [4.0, 1.0], [5.0, 0.0],
    ...               [6.0, 1.0]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> best_split(S, y, 2, np.array([0, 2]), [np.arange(1.0, 7.0), None])
    Split(feature=0, threshold=3.0, n_children=2)
    """
    n, p = S.shape
    n_all = n if n_all is None else n_all
    counts = np.bincount(y, minlength=n_classes).astype(float)
    if n < 2 * min_obj or abs(n - counts.max()) < _EPS:
        return None
    multival = all(n_levels[j] > 0 and n_levels[j] >= 0.3 * n_all for j in range(p))
    results = {}
    total_gain, valid = 0.0, 0
    for j in range(p):
        if n_levels[j] > 0:
            k = int(n_levels[j])
            bc = np.zeros((k, n_classes))
            np.add.at(bc, (S[:, j].astype(np.int64), y), 1.0)
            sizes = bc.sum(axis=1)
            if np.sum(sizes >= min_obj - _EPS) < 2:
                continue
            gain = _info_gain(bc, n)
            si = _split_info(sizes, n)
            results[j] = (gain, gain / si if si > 0 else 0.0, np.nan, k)
            if multival or k < 0.3 * n_all:
                total_gain += gain
                valid += 1
        else:
            r = _numeric(S[:, j], y, n_classes, min_obj)
            if r is None:
                continue
            results[j] = (r[0], r[1], r[2], 2)
            total_gain += r[0]
            valid += 1
    if valid == 0:
        return None
    avg = total_gain / valid
    best, best_ratio = None, 0.0
    for j in range(p):
        if j in results:
            gain, ratio, _, _ = results[j]
            if gain >= avg - 1e-3 and ratio - best_ratio > _EPS:
                best, best_ratio = j, ratio
    if best is None or abs(best_ratio) < _EPS:
        return None
    gain, ratio, mid, k = results[best]
    if n_levels[best] == 0:
        vals = all_values[best]
        # the largest training value at most the midpoint (Weka's 1e-6 slack)
        i = int(np.searchsorted(vals, mid + _EPS, side="left")) - 1
        if i >= 0:
            mid = float(vals[i])
    return Split(int(best), float(mid), int(k))
