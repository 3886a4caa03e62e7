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

import importlib
import pkgutil
from functools import partial

from numba import njit
from numba.extending import register_jitable

kernel = partial(njit, cache=True, nogil=True, no_cfunc_wrapper=True)
kernel.__doc__ = """``numba.njit`` with the kernels' options; ``@kernel`` or ``@kernel(...)``.

Examples
--------
>>> from quercus._kernels.splits import midpoint
>>> midpoint.targetoptions["no_cfunc_wrapper"], float(midpoint(1.0, 2.0))
(True, 1.5)
"""

inner = register_jitable(no_cfunc_wrapper=True)
inner.__doc__ = """``numba.extending.register_jitable`` without the C wrapper: ``@inner``.

Examples
--------
>>> import numpy as np
>>> from quercus._kernels.criteria import GINI, impurity, stats_weight
>>> counts = np.array([1.0, 3.0])
>>> float(stats_weight(counts, GINI))  # from Python: the plain function
4.0
>>> float(impurity(counts, GINI))  # a kernel calling it: compiled into it
0.375
"""



def read_only(X):
    """X, or a read-only view of it: how kernels that only read an input matrix are given
    it (routing, and coding the bins). numba compiles a kernel once per array type, a
    writable and a read-only array apart, and ``DataFrame.to_numpy()`` is read-only under
    pandas 3's copy-on-write: a DataFrame's first prediction after ``quercus warmup``
    (which predicts writable arrays) compiled the routing kernels again (10 s), and a
    process given both kinds compiled both. A read-only view can always be made.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.zeros((2, 3))
    >>> view = read_only(X)
    >>> view.flags.writeable, X.flags.writeable, np.shares_memory(view, X)
    (False, True, True)
    """
    if X.flags.writeable:
        X = X.view()
        X.flags.writeable = False
    return X


def kernels():
    """Every ``kernel`` of quercus: (qualified name, dispatcher) for each numba dispatcher
    defined in a kernel module or in ``quercus._binning`` (imported names skipped). For
    the compilation tests and ``benchmarks/profile_kernels.py``; nothing at run time.

    Examples
    --------
    >>> names = [name for name, _ in kernels()]
    >>> "quercus._kernels.subtree.grow_subtree" in names, len(names) == len(set(names))
    (True, True)
    """
    from numba.core.dispatcher import Dispatcher

    import quercus._kernels as package
    names = [f"quercus._kernels.{m.name}" for m in pkgutil.iter_modules(package.__path__)]
    found = []
    for module in map(importlib.import_module, names + ["quercus._binning"]):
        for name, obj in vars(module).items():
            if isinstance(obj, Dispatcher) and obj.py_func.__module__ == module.__name__:
                found.append((f"{module.__name__}.{name}", obj))
    return found


# The examples above are strings on objects that doctest does not collect by themselves.
__test__ = {"kernel": kernel.__doc__, "inner": inner.__doc__}
