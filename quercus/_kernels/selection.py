"""Cross-feature choice of the split: argmax of the decrease, or C4.5's rule.

One compiled function serves the Python grower, the subtree kernel and ``explain``, so the
split a table marks as chosen is the one the tree made.
"""

import numpy as np

from ._jit import inner, kernel
from .splits import TIE_EPS


@inner
def _tol(x):
    return TIE_EPS * max(1.0, abs(x))


@kernel
def choose_split(found, dec, info, gain_ratio):
    """Index of the winning candidate, or -1 when no candidate is valid.

    Candidates come in column order, so every tie goes to the first column.
    ``gain_ratio=False``: the largest decrease (information gain or Gini decrease).
    ``gain_ratio=True``: C4.5's heuristic from the book, among the candidates whose gain is
    at least the average gain of all valid candidates, the largest gain ratio. Values
    within ``TIE_EPS`` (relative) tie.

    Examples
    --------
    >>> import numpy as np
    >>> found = np.array([True, True, True])
    >>> gain, info = np.array([0.1, 0.3, 0.25]), np.array([1.0, 2.0, 1.0])
    >>> int(choose_split(found, gain, info, False)), int(choose_split(found, gain, info, True))
    (1, 2)
    """
    n_valid = 0
    best = -np.inf
    total = 0.0
    for i in range(found.shape[0]):
        if found[i]:
            n_valid += 1
            total += dec[i]
            if dec[i] > best:
                best = dec[i]
    if n_valid == 0:
        return -1
    if not gain_ratio:
        for i in range(found.shape[0]):
            if found[i] and dec[i] >= best - _tol(best):
                return i
        return -1
    mean = total / n_valid
    best_ratio = -np.inf
    for i in range(found.shape[0]):
        if found[i] and dec[i] >= mean - _tol(mean):
            r = _ratio(dec[i], info[i])
            if r > best_ratio:
                best_ratio = r
    for i in range(found.shape[0]):
        if found[i] and dec[i] >= mean - _tol(mean):
            if _ratio(dec[i], info[i]) >= best_ratio - _tol(best_ratio):
                return i
    return -1


@inner
def _ratio(dec, info):
    if info > 0.0:
        return dec / info
    return np.inf if dec > 0.0 else np.nan
