"""Thresholds between observed values, and the tolerances that comparisons of sums use.

Shared by every split search (the histogram searches of splits.py and the absolute-error
search of absolute.py) and by the growers' rules.
"""

import numpy as np

from ._jit import inner, kernel

# Tolerance for "strictly better": floating sums of tied splits differ in the last bits,
# and ties must go to the first candidate (smallest threshold, first category). Relative to
# the magnitude compared, so that large targets (regression) tie as reliably as entropies.
TIE_EPS = 1e-12


@kernel(inline="always")
def lower(a, b):
    """``a`` is lower than ``b`` beyond rounding."""
    if not np.isfinite(b):
        return a < b
    return a < b - TIE_EPS * max(1.0, abs(b))


@kernel(inline="always")
def at_least(bound):
    """``bound`` lowered by rounding, for "a weight of at least ``bound``": weights summed in
    another order (the rows permuted, C4.5's fractional shares) differ in the last bits, and
    a branch of exactly ``bound`` must pass either way (as J48's tolerant comparisons do).

    Examples
    --------
    >>> at_least(2.0) < 2.0 and 0.1 + 0.2 + 1.7 >= at_least(2.0)
    True
    """
    return bound - TIE_EPS * max(1.0, abs(bound))


@kernel
def midpoint(lo, hi):
    """Threshold between two adjacent observed values, as scikit-learn computes it."""
    t = lo / 2.0 + hi / 2.0
    if t == hi or np.isinf(t):
        t = lo
    return t


@inner
def draw_boundary(bins, nb, lo, hi, u):
    """``splitter="random"``: a threshold drawn uniformly between the node's smallest and
    largest value (``u`` in [0, 1)), and the last present bin ``t`` below it."""
    vmin = lo[bins[0]]
    vmax = hi[bins[nb - 1]]
    draw = vmin + u * (vmax - vmin)
    t = 0
    while t < nb - 2 and lo[bins[t + 1]] <= draw:
        t += 1
    return t, draw


@inner
def boundary_threshold(bins, t, lo, hi, u, draw):
    """Threshold between present bins ``t`` and ``t + 1``: the midpoint of the two observed
    values around it, or a random draw (``u >= 0``) that falls between them; a draw inside a
    quantile bin would split the bin, so it snaps to the midpoint."""
    if lo.shape[0] == 0:
        return np.nan  # no value table: resolve_threshold reads the node's values
    if u >= 0.0 and hi[bins[t]] <= draw < lo[bins[t + 1]]:
        return draw
    return midpoint(hi[bins[t]], lo[bins[t + 1]])
