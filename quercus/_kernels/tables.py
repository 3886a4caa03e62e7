"""Growing the 2-D tables the kernels fill row by row."""

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def grown(table, n_rows, keep):
    """A zeroed table of ``n_rows`` rows like ``table``, its first ``keep`` rows copied.

    Element loops, not ``out[:keep] = table[:keep]``: an array-to-array slice assignment
    compiles numba's shape-mismatch error message, string formatting included (~2 s of a
    cold first fit).

    Examples
    --------
    >>> import numpy as np
    >>> grown(np.array([[1, 2], [3, 4]]), 3, 1).tolist()
    [[1, 2], [0, 0], [0, 0]]
    """
    out = np.zeros((n_rows, table.shape[1]), dtype=table.dtype)
    for r in range(keep):
        for c in range(table.shape[1]):
            out[r, c] = table[r, c]
    return out
