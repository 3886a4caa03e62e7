"""How the kernels are compiled.

Most of a cold first fit is numba compiling, and part of every compiled function's cost is
fixed: the wrappers that let Python (``cpython``) and C (``cfunc``) call it, and its own
entry in the on-disk cache, each built, optimised by LLVM and emitted to machine code.

- :func:`kernel`: a function Python calls (or a test does). Cached on disk, releases the
  GIL, and without the C wrapper, which only first-class function values use (quercus
  passes none).
- :func:`inner`: a function only other kernels call. numba's ``register_jitable``: it is
  compiled into its callers, and their cache entries hold it, without wrappers or a cache
  entry of its own; called from Python it runs as plain Python.
"""

from functools import partial

from numba import njit
from numba.extending import register_jitable

kernel = partial(njit, cache=True, nogil=True, no_cfunc_wrapper=True)
kernel.__doc__ = """``numba.njit`` with the kernels' options; ``@kernel`` or ``@kernel(...)``.

Examples
--------
>>> import numpy as np
>>> @kernel
... def total(a):
...     return a.sum()
>>> float(total(np.arange(4.0)))
6.0
"""

inner = register_jitable
