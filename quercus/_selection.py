"""Cross-feature choice of the split: argmax of the decrease, or C4.5's rule."""

import numpy as np

from ._kernels.splits import TIE_EPS


def choose_split(found, decrease, split_info, gain_ratio):
    """Index of the winning candidate, or -1 when no candidate is valid.

    Candidates come in column order, so every tie goes to the first column.
    ``gain_ratio=False``: the largest decrease (information gain or Gini decrease).
    ``gain_ratio=True``: C4.5's heuristic from the book, among the candidates whose gain is
    at least the average gain of all valid candidates, the largest gain ratio.
    """
    valid = np.flatnonzero(found)
    if valid.size == 0:
        return -1
    dec = decrease[valid]
    if not gain_ratio:
        return int(valid[np.flatnonzero(dec >= dec.max() - _tol(dec.max()))[0]])
    eligible = valid[dec >= dec.mean() - _tol(dec.mean())]
    ratio = decrease[eligible] / split_info[eligible]
    return int(eligible[np.flatnonzero(ratio >= ratio.max() - _tol(ratio.max()))[0]])


def _tol(x):
    """Ties within rounding, relative to the size of the numbers compared."""
    return TIE_EPS * max(1.0, abs(float(x)))
