"""Finding (quasi-)complete separation, and the attributes that cause it.

The maximum-likelihood estimate of a logistic regression does not exist when some linear
combination ``b`` of the model-matrix columns has ``s_i x_i b >= 0`` for every sample, with
``s_i = +1`` for the event and ``-1`` otherwise, and ``> 0`` for at least one: moving the
coefficients along ``b`` raises the likelihood forever. One linear programme finds such a
direction (the approach of Konis's safeBinaryRegression and of detectseparation):
maximise ``sum_i s_i x_i b`` subject to ``s_i x_i b >= 0`` and ``-1 <= b <= 1``; the
optimum is 0 exactly when there is no separation.
"""

from typing import NamedTuple

import numpy as np
from scipy.optimize import linprog


class Separation(NamedTuple):
    direction: np.ndarray  # b over the model-matrix columns (0 where not involved)
    separated_rows: np.ndarray  # bool: rows with s_i x_i b > 0 (predicted perfectly)
    complete: bool  # every row is separated


def find_separation(M, y, columns=None, tol=1e-7):
    """A separating direction for the rows of ``M`` (positive weights only) and 0/1
    labels ``y``, using only ``columns`` (all by default), or None when there is none.

    Examples
    --------
    >>> import numpy as np
    >>> M = np.column_stack([np.ones(4), [1.0, 2.0, 3.0, 4.0]])
    >>> find_separation(M, np.array([0.0, 0.0, 1.0, 1.0])).complete
    True
    >>> find_separation(M, np.array([0.0, 1.0, 0.0, 1.0])) is None
    True
    """
    cols = np.arange(M.shape[1]) if columns is None else np.asarray(columns)
    A = M[:, cols] * np.where(y > 0, 1.0, -1.0)[:, None]
    # The box bounds b; scaling each column to unit size makes it the same box whatever
    # the units of the attributes.
    scale = np.abs(A).max(axis=0)
    scale[scale == 0] = 1.0
    A = A / scale
    res = linprog(-A.sum(axis=0), A_ub=-A, b_ub=np.zeros(A.shape[0]),
                  bounds=[(-1.0, 1.0)] * A.shape[1], method="highs")
    if res.status != 0 or -res.fun <= tol * A.shape[0]:
        return None
    b = np.where(np.abs(res.x) > 1e-9, res.x, 0.0)
    margin = A @ b
    full = np.zeros(M.shape[1])
    full[cols] = b / scale
    return Separation(full, margin > tol, _complete(A, tol))


def _complete(A, tol):
    """Whether some direction separates every row strictly: maximise the smallest margin
    ``t`` (``A b >= t``, ``t <= 1``, ``-1 <= b <= 1``); complete separation when ``t > 0``."""
    n, p = A.shape
    c = np.zeros(p + 1)
    c[-1] = -1.0
    res = linprog(c, A_ub=np.column_stack([-A, np.ones(n)]), b_ub=np.zeros(n),
                  bounds=[(-1.0, 1.0)] * p + [(None, 1.0)], method="highs")
    return bool(res.status == 0 and -res.fun > tol)
