"""Running the kernels' own Python source instead of compiling it.

A kernel's first call compiles it, and compiling the kernels a first fit needs takes numba
far longer than running their Python source on a textbook data set.
:class:`quercus._kernels._jit.Kernel` asks :func:`should_interpret` at every call; in the
default ``"auto"`` mode a kernel runs as Python when it is not compiled in this process
and its array arguments are small (:data:`SMALL_CELLS`), until the process has spent
:data:`BUDGET` seconds in interpreted kernels: from then on it compiles them. A kernel
found in the disk cache is loaded instead, unless the call is tiny (:data:`TINY_CELLS`):
loading the kernels a textbook fit calls takes longer than running them on its rows. Even
then, once a kernel has run as Python as long as loading it takes (:func:`load_seconds`),
it is loaded, so that a process that keeps fitting tiny data pays at most twice what
loading would have cost.

The Python runs the same source under numba's semantics where they differ from NumPy's
scalars:

- integers: numba computes with 64-bit integers, NumPy keeps a small integer array's
  type (``uint8(255) + 1 == 0``), so integer arrays narrower than 64 bits are widened for
  the call and written back after it;
- ``np.log`` and ``np.sqrt`` of a scalar call the C library as compiled code does (NumPy's
  own vectorised logarithm may differ in the last bit);
- floating-point warnings are off, as in compiled code;
- sums of arrays: the kernels add with :func:`quercus._kernels.tables.ordered_sum`, in
  index order as compiled code does, never with NumPy's pairwise ``ndarray.sum``;
- a kernel's calls to other kernels and helpers stay in Python: every function of the
  kernel modules gets a twin whose globals hold the other twins.

The trees are identical either way (``tests/test_interpreted_kernels.py`` fits the same
data both ways and compares the exported trees and the numbers).
"""

import math
import sys
import threading
import time
import types

import numpy as np

from .. import _config

# The largest array argument, in elements, for which an uncompiled kernel runs as Python.
SMALL_CELLS = 20_000
# Seconds of interpreted kernels after which a process compiles them instead (many small
# fits in one process, as a grid search makes, then pay for the compile once).
BUDGET = 10.0
# The largest array argument, in elements, for which a kernel in the disk cache runs as
# Python rather than being loaded (the book's data sets: watermelon is 17 x 8); on a few
# hundred rows (iris, 150 x 4) a first fit's kernels cost more as Python than loaded.
TINY_CELLS = 500
# What loading a cached kernel costs (see :func:`load_seconds`): numba reads its machine
# code at about this many bytes a second, and sets up its code generator at the first load
# or compile of a process.
LOAD_BYTES_PER_SECOND = 12e6
LOAD_SETUP_SECONDS = 0.2
_set_up = False        # whether a kernel was compiled or loaded in this process
_spent = 0.0
_spent_on = {}         # id(dispatcher) -> seconds it ran as Python

_lock = threading.RLock()
_twins = None          # id(original function or dispatcher) -> its Python twin
_on_disk = {}          # (id(dispatcher), argument types) -> bytes of its cache entry, or 0


def _largest(args):
    big = 0
    for a in args:
        if isinstance(a, np.ndarray):
            big = max(big, a.size)
        elif isinstance(a, tuple):
            big = max(big, _largest(a))
    return big


def _entry_bytes(dispatcher, args):
    """Size of numba's disk cache entry of this kernel compiled for these arguments' types;
    0 when there is none (an entry for other types, or for an older source, would compile
    all the same)."""
    try:
        argtypes = tuple(dispatcher.typeof_pyval(a) for a in args)
        found = _on_disk.get((id(dispatcher), argtypes))
        if found is None:
            found = dispatcher._cache.entry_bytes(argtypes, dispatcher.targetctx.codegen())
            _on_disk[(id(dispatcher), argtypes)] = found
        return found
    except Exception:  # numba's private layout changed: assume it must compile
        return 0


def load_seconds(entry_bytes):
    """About how long loading a cached kernel of ``entry_bytes`` takes here: its machine
    code read, plus numba's code generator set up when this process has neither compiled
    nor loaded a kernel yet.

    Examples
    --------
    >>> 0.0 < load_seconds(40_000) < load_seconds(1_200_000)
    True
    """
    return entry_bytes / LOAD_BYTES_PER_SECOND + (0.0 if _set_up else LOAD_SETUP_SECONDS)


def should_interpret(dispatcher, args, kwargs_given=False):
    """Whether this call of ``dispatcher`` runs its Python source.

    Examples
    --------
    >>> import numpy as np
    >>> from quercus import config_context
    >>> from quercus._kernels.thresholds import midpoint
    >>> with config_context(jit="interpret"):
    ...     should_interpret(midpoint, (1.0, 2.0))
    True
    """
    mode = _config.get_config()["jit"]
    if mode == "compile":
        return False
    if mode == "interpret":
        return True
    global _set_up
    if dispatcher.overloads:  # (every call of a compiled kernel: the cheap test first)
        return False
    largest = _largest(args)
    if not (_spent > BUDGET or largest > SMALL_CELLS or kwargs_given):
        size = _entry_bytes(dispatcher, args)
        if size == 0 or (largest <= TINY_CELLS
                         and _spent_on.get(id(dispatcher), 0.0) < load_seconds(size)):
            return True
    _set_up = True  # (compiled or loaded now)
    return False


def _log(x):
    if isinstance(x, np.ndarray):
        return np.log(x)
    x = float(x)
    if x > 0.0:
        return math.log(x)
    return -math.inf if x == 0.0 else math.nan


def _sqrt(x):
    if isinstance(x, np.ndarray):
        return np.sqrt(x)
    x = float(x)
    return math.sqrt(x) if x >= 0.0 else math.nan


class _NumpyAsCompiled(types.ModuleType):
    """``numpy`` as the kernels' twins see it: NumPy, but with the scalar functions whose
    results must match compiled code bit for bit."""

    log = staticmethod(_log)
    sqrt = staticmethod(_sqrt)

    def __getattr__(self, name):
        value = getattr(np, name)
        setattr(self, name, value)
        return value


def _kernel_modules():
    import importlib
    import pkgutil

    from .. import _kernels
    names = [f"quercus._kernels.{m.name}" for m in pkgutil.iter_modules(_kernels.__path__)]
    return [importlib.import_module(n) for n in names + ["quercus._binning"]]


_namespaces = {}  # kernel module name -> the globals its twins run in


def _twin_of(f):
    """Function ``f`` of a kernel module run in its module's twin namespace."""
    twin = types.FunctionType(f.__code__, _namespaces[f.__module__], f.__name__,
                              f.__defaults__, f.__closure__)
    twin.__kwdefaults__ = f.__kwdefaults__
    twin.__qualname__ = f.__qualname__
    return twin


def _build_twins():
    from numba.core.dispatcher import Dispatcher

    modules = _kernel_modules()
    own = {m.__name__ for m in modules}
    namespaces = {m.__name__: {} for m in modules}
    _namespaces.update(namespaces)
    twins = {}
    for m in modules:
        for obj in vars(m).values():
            f = obj.py_func if isinstance(obj, Dispatcher) else obj
            if (isinstance(f, types.FunctionType) and f.__module__ in own
                    and id(obj) not in twins):
                twins[id(obj)] = _twin_of(f)
    numpy_twin = _NumpyAsCompiled("numpy")
    for m in modules:
        ns = namespaces[m.__name__]
        for name, obj in vars(m).items():
            ns[name] = numpy_twin if obj is np else twins.get(id(obj), obj)
    return twins


def twin(dispatcher):
    """The Python twin of a kernel: its source, calling the other kernels' twins.

    Examples
    --------
    >>> from quercus._kernels.thresholds import midpoint
    >>> float(twin(midpoint)(1.0, 2.0))
    1.5
    """
    global _twins
    if _twins is None:
        with _lock:
            if _twins is None:
                _twins = _build_twins()
    found = _twins.get(id(dispatcher))
    if found is None:  # no longer its module's attribute (a test replaced it): made now
        with _lock:
            found = _twins[id(dispatcher)] = _twin_of(dispatcher.py_func)
    return found


def _widen(a, widened):
    if isinstance(a, np.ndarray) and a.dtype.kind in "iu" and a.dtype.itemsize < 8:
        w = a.astype(np.int64)
        widened.append((a, w))
        return w
    if isinstance(a, tuple):
        items = [_widen(x, widened) for x in a]
        return a._make(items) if hasattr(a, "_make") else tuple(items)  # (named tuples stay)
    return a


def run(dispatcher, args, kwargs):
    """Call the kernel's Python twin as numba would run the kernel (see the module's
    docstring).

    Examples
    --------
    >>> import numpy as np
    >>> from quercus._kernels.thresholds import midpoint
    >>> float(run(midpoint, (np.float64(1.0), 2.0), {}))
    1.5
    """
    global _spent
    start = time.perf_counter()
    widened = []
    args = tuple(_widen(a, widened) for a in args)
    kwargs = {k: _widen(v, widened) for k, v in kwargs.items()}
    with np.errstate(all="ignore"):
        out = twin(dispatcher)(*args, **kwargs)
    for original, wide in widened:
        if original.flags.writeable:
            np.copyto(original, wide, casting="unsafe")
    took = time.perf_counter() - start
    _spent += took  # (a race between threads only blurs a budget)
    _spent_on[id(dispatcher)] = _spent_on.get(id(dispatcher), 0.0) + took
    return out


# --- the notice shown while a compile runs -----------------------------------------------

NOTICE_AFTER = 1.5  # seconds of compiling before the notice shows
_noticed = False


def _notice():
    global _noticed
    if _noticed:
        return
    _noticed = True
    print("quercus: compiling the kernels this fit needs (once: they are cached on disk "
          "for later runs; QUERCUS_VERBOSE=0 silences this) ...", file=sys.stderr, flush=True)


class compile_notice:
    """Context of a call that may compile: if it is still running after
    :data:`NOTICE_AFTER` seconds, say so once on stderr (only to a terminal, and not when
    ``verbose`` is off).

    Examples
    --------
    >>> with compile_notice():
    ...     pass
    """

    def __enter__(self):
        self.timer = None
        if _noticed or not _config.get_config()["verbose"]:
            return self
        try:
            tty = sys.stderr.isatty()
        except (AttributeError, ValueError):
            tty = False
        if tty:
            self.timer = threading.Timer(NOTICE_AFTER, _notice)
            self.timer.daemon = True
            self.timer.start()
        return self

    def __exit__(self, *exc):
        if self.timer is not None:
            self.timer.cancel()
        return False


def notice_pending():
    """Whether a compile notice may still be shown in this process."""
    return not _noticed and _config.get_config()["verbose"]


__all__ = ["should_interpret", "run", "twin", "compile_notice", "SMALL_CELLS"]

