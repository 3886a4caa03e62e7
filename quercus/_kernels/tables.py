"""Growing the arrays and 2-D tables the kernels fill entry by entry."""

import numpy as np

from ._jit import inner


@inner
def grown(table, n_rows, keep):
    """A table of ``n_rows`` rows like ``table``, its first ``keep`` rows copied and the
    others left uninitialised (the callers write every row they hand out, and rows never
    written stay out of memory).

    Element loops, not ``out[:keep] = table[:keep]``: an array-to-array slice assignment
    compiles numba's shape-mismatch error message, string formatting included (a long
    part of a cold first fit's compile).

    Examples
    --------
    >>> import numpy as np
    >>> t = grown(np.array([[1, 2], [3, 4]]), 3, 1)
    >>> t.shape, t[0].tolist()
    ((3, 2), [1, 2])
    """
    out = np.empty((n_rows, table.shape[1]), dtype=table.dtype)
    for r in range(keep):
        for c in range(table.shape[1]):
            out[r, c] = table[r, c]
    return out


@inner
def grown_vector(a, n, keep):
    """:func:`grown` of a 1-d array: ``n`` entries like ``a``, its first ``keep`` copied.

    Examples
    --------
    >>> import numpy as np
    >>> v = grown_vector(np.array([1, 2, 3], dtype=np.int8), 5, 2)
    >>> v.shape, v.dtype.name, v[:2].tolist()
    ((5,), 'int8', [1, 2])
    """
    out = np.empty(n, dtype=a.dtype)
    for i in range(keep):
        out[i] = a[i]
    return out


@inner
def ordered_sum(a):
    """The sum of a 1-d float array in index order, as a compiled ``a.sum()`` adds it.
    NumPy's own ``sum`` adds by pairs, which can differ in the last bit: the kernels' Python
    twins (:mod:`quercus._kernels._interpret`) must add as compiled code does.

    Examples
    --------
    >>> import numpy as np
    >>> float(ordered_sum(np.array([0.1] * 10))) == sum([0.1] * 10)
    True
    """
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
    return s

