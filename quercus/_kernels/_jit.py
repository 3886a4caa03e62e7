"""How the kernels are compiled, and when they run as Python instead.

Most of a cold first fit is numba compiling, and part of every compiled function's cost is
fixed: the wrappers that let Python (``cpython``) and C (``cfunc``) call it, and its own
entry in the on-disk cache, each built, optimised by LLVM and emitted to machine code.

- :func:`kernel`: a function Python calls (or a test does). Cached on disk, releases the
  GIL, and without the C wrapper, which only first-class function values use (quercus
  passes none).
- :func:`inner`: a function only other kernels call. numba's ``register_jitable``: it is
  compiled into its callers, and their cache entries hold it, without wrappers or a cache
  entry of its own; called from Python it runs as plain Python.

**Small work runs uncompiled.** Compiling the kernels a fit needs costs far more than
running their Python source on a few hundred rows, so a kernel that is neither compiled in
this process nor found in the disk cache, called on small arrays, runs its own Python
source (see :mod:`quercus._kernels._interpret`): the same code, the same arithmetic, so the
same tree. ``QUERCUS_JIT=compile`` always compiles, ``QUERCUS_JIT=interpret`` never does;
:func:`quercus.set_config` sets the same per process.
"""

import functools
import hashlib
import importlib
import os
import pkgutil
import sys
from pathlib import Path

import numba
from numba import njit
from numba.core.caching import (CompileResultCacheImpl, FunctionCache,
                                IndexDataCacheFile, UserProvidedCacheLocator)
from numba.core.registry import CPUDispatcher
from numba.extending import register_jitable

from . import _interpret, _prebuilt


def cache_root():
    """Where quercus keeps its compiled kernels: ``QUERCUS_CACHE_DIR``, else the user's
    cache folder (``$XDG_CACHE_HOME/quercus`` or ``~/.cache/quercus``; ``%LOCALAPPDATA%``
    on Windows). Not next to the sources, as numba's default is: files left in an
    installed package's folder survive ``pip uninstall`` and turn the folder into a
    namespace package that hides a later editable install. numba's own
    ``NUMBA_CACHE_DIR``, when set, wins over both.

    Examples
    --------
    >>> import os
    >>> own = os.environ.get("QUERCUS_CACHE_DIR")
    >>> cache_root() == own if own else os.path.basename(cache_root()) == "quercus"
    True
    """
    own = os.environ.get("QUERCUS_CACHE_DIR")
    if own:
        return own
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        base = os.environ["LOCALAPPDATA"]
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"),
                                                                 ".cache")
    return os.path.join(base, "quercus")


# The one module outside this package that defines kernels (see :func:`kernels`).
_OUTSIDE = "_binning"


@functools.lru_cache(maxsize=None)
def sources_hash():
    """SHA-256 (hex) of the source of every module that defines kernels (this package's
    and ``quercus/_binning.py``): what the cached kernels were compiled from.

    numba keys a cached kernel by its own file's modification time only, so that editing
    one kernel module left stale the cached kernels of other files that call into it, and
    a second install of the very same sources (another environment, a fresh checkout)
    compiled everything again. Keyed by this hash instead, any change to any kernel source
    compiles them all again, and identical sources share one cache wherever they lie.

    Examples
    --------
    >>> len(sources_hash()), sources_hash() == sources_hash()
    (64, True)
    """
    here = Path(__file__).resolve().parent
    files = sorted(here.glob("*.py")) + [here.parent / f"{_OUTSIDE}.py"]
    digest = hashlib.sha256()
    for path in files:
        digest.update(f"{path.parent.name}/{path.name}\0".encode())
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def cache_subfolder():
    """The folder, below a cache root, of the kernels of this numba and these sources.

    Examples
    --------
    >>> cache_subfolder().startswith(os.path.join("numba-" + numba.__version__, "kernels-"))
    True
    """
    return os.path.join("numba-" + numba.__version__, "kernels-" + sources_hash()[:20])


class _UserCacheLocator(UserProvidedCacheLocator):
    """numba's locator for a user-given folder, pointed at :func:`cache_root`: a folder
    per :func:`sources_hash`, which is also every entry's stamp (numba's own stamp is the
    file's modification time)."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = os.path.join(cache_root(), cache_subfolder())

    def get_source_stamp(self):
        return sources_hash()

    @classmethod
    def from_function(cls, py_func, py_file):
        if numba.config.CACHE_DIR:
            return None  # NUMBA_CACHE_DIR: numba's own locator takes it
        # (An unwritable folder gives None: numba's next locators are tried.)
        return super(UserProvidedCacheLocator, cls).from_function(py_func, py_file)


class _CacheImpl(CompileResultCacheImpl):
    _locator_classes = [_UserCacheLocator] + list(CompileResultCacheImpl._locator_classes)


class _Codegen:
    """Stands for a code generator whose code the shipped kernels were built with: numba
    keys a cache entry by its code generator's ``magic_tuple``."""

    def __init__(self, magic):
        self._magic = magic

    def magic_tuple(self):
        return self._magic


class _KernelCache(FunctionCache):
    """numba's cache of one kernel, in the user's cache folder; an entry missing there is
    looked for among the kernels shipped in the package (:mod:`._prebuilt`)."""

    _impl_class = _CacheImpl

    def __init__(self, py_func):
        super().__init__(py_func)
        self._shipped = None   # the shipped kernels' index and data file, once looked for
        self._indexes = {}     # id(index file) -> its index, read once for entry_bytes

    def _places(self, sig, codegen):
        """(index and data file, entry key) where this kernel's entry for ``sig`` may be:
        the user's cache, then the shipped kernels (keyed by the codegen they were built
        for) when this process can run them."""
        yield self._cache_file, self._index_key(sig, codegen)
        built_for = _prebuilt.shipped(sources_hash())
        if built_for is not None:
            if self._shipped is None:
                self._shipped = IndexDataCacheFile(
                    cache_path=str(_prebuilt.FOLDER / cache_subfolder()),
                    filename_base=self._impl.filename_base, source_stamp=sources_hash())
            yield self._shipped, self._index_key(sig, _Codegen(built_for))

    def _load_overload(self, sig, target_context):
        if not self._enabled:
            return None
        for place, key in self._places(sig, target_context.codegen()):
            data = place.load(key)
            if data is not None:
                return self._impl.rebuild(target_context, data)
        return None

    def entry_bytes(self, sig, codegen):
        """Size of the entry that :meth:`load_overload` would load for ``sig``, 0 when
        there is none (it would compile): how :mod:`._interpret` weighs loading against
        running the kernel as Python.

        Examples
        --------
        >>> from numba import types
        >>> from quercus._kernels.thresholds import midpoint
        >>> codegen = midpoint.targetctx.codegen()
        >>> midpoint._cache.entry_bytes((types.unicode_type,), codegen)  # never compiled
        0
        """
        for place, key in self._places(sig, codegen):
            index = self._indexes.get(id(place))
            if index is None:
                index = self._indexes[id(place)] = place._load_index()
            name = index.get(key)
            if name is not None:
                return max(os.path.getsize(place._data_path(name)), 1)
        return 0


class Kernel(CPUDispatcher):
    """A numba dispatcher that runs its Python source instead of compiling when
    :func:`quercus._kernels._interpret.should_interpret` says so for this call."""

    def __call__(self, *args, **kwargs):
        if _interpret.should_interpret(self, args, bool(kwargs)):
            return _interpret.run(self, args, kwargs)
        if self.overloads or not _interpret.notice_pending():
            return super().__call__(*args, **kwargs)
        with _interpret.compile_notice():
            return super().__call__(*args, **kwargs)


# (forceinline set, not left to numba: a function compiled inside a caller inherits the
# caller's, so that everything below a ``hot`` helper would be forced inline too.)
_OPTIONS = dict(cache=True, nogil=True, no_cfunc_wrapper=True, forceinline=False)


def kernel(func=None, **options):
    """``numba.njit`` with the kernels' options; ``@kernel`` or ``@kernel(...)``.

    Examples
    --------
    >>> from quercus._kernels.thresholds import midpoint
    >>> midpoint.targetoptions["no_cfunc_wrapper"], float(midpoint(1.0, 2.0))
    (True, 1.5)
    """
    def wrap(f):
        dispatcher = njit(**{**_OPTIONS, **options})(f)
        dispatcher.__class__ = Kernel
        dispatcher._cache = _KernelCache(f)
        return dispatcher
    return wrap if func is None else wrap(func)


def _inner_options():
    """The ``register_jitable`` options of an ``inner`` helper: no C wrapper, and, where
    this numba has the internals it needs (:func:`_inner_compiler`), a pipeline that leaves
    the helper's own code unoptimised."""
    try:
        compiler = _inner_compiler()
    except (ImportError, AttributeError):  # another numba's internals: numba's default
        return dict(no_cfunc_wrapper=True)
    return dict(no_cfunc_wrapper=True, pipeline_class=compiler)


def _inner_compiler():
    """numba's nopython pipeline whose lowering marks the function's code library as an
    ``inner`` helper's, and numba's finishing of a code library patched so that such a
    library is neither optimised nor loaded into the JIT.

    numba optimises each compiled function's LLVM module, which links in a copy of every
    function it calls, and optimises that whole module again in each caller: a helper's
    code was optimised once on its own and once more at each level of callers above it.
    Only the callers' copies of an ``inner`` helper run (from Python it is the plain
    function): the kernel that calls it optimises its copy with the rest of its module, at
    numba's full level, as before.

    The helper's own module is not loaded into the JIT either, which saves emitting its
    machine code and is what makes a kernel run its own copy: numba links the copy as
    ``linkonce_odr``, and the JIT binds a call that LLVM left (a helper too big to inline)
    to the first definition of that name it loaded. With the helper's module loaded, that
    was its unoptimised code, whose own calls are calls again, in every process that
    compiled its kernels rather than loading them from the disk cache.
    """
    from numba.core import codegen
    from numba.core.compiler import Compiler, DefaultPassBuilder
    from numba.core.compiler_machinery import register_pass
    from numba.core.typed_passes import NativeLowering

    library_class = codegen.CPUCodeLibrary
    optimize = library_class._optimize_final_module
    if not getattr(optimize, "_quercus", False):  # (the three are patched together)
        finish = library_class._finalize_final_module
        set_env = codegen.JITCPUCodegen.set_env

        def _optimize_final_module(self):
            if not getattr(self, "_quercus_inner", False):
                optimize(self)

        def _finalize_final_module(self):
            if not getattr(self, "_quercus_inner", False):
                return finish(self)
            # numba's checks, without adding the module to the JIT: its callers link it in.
            self._finalize_dynamic_globals()
            self._verify_declare_only_symbols()
            self._finalized = True

        def _set_env(self, env_name, env):
            # An inner helper's environment global is in no loaded module (as with kernels
            # loaded from the disk cache, whose helpers' copies leave theirs unset).
            if self._engine.is_symbol_defined(env_name):
                set_env(self, env_name, env)

        _optimize_final_module._quercus = True
        library_class._optimize_final_module = _optimize_final_module
        library_class._finalize_final_module = _finalize_final_module
        codegen.JITCPUCodegen.set_env = _set_env

    @register_pass(mutates_CFG=True, analysis_only=False)
    class InnerLowering(NativeLowering):
        _name = "quercus_inner_lowering"

        def run_pass(self, state):
            if state.library is None:
                state.library = state.targetctx.codegen().create_library(
                    state.func_id.func_qualname)
                state.library.enable_object_caching()  # (as numba's own lowering does)
                state.library._quercus_inner = True
            return super().run_pass(state)

    class InnerCompiler(Compiler):
        def define_pipelines(self):
            pm = DefaultPassBuilder.define_nopython_pipeline(self.state)
            passes = [(InnerLowering if p is NativeLowering else p, what)
                      for p, what in pm.passes]
            if passes == pm.passes:
                raise AttributeError("no NativeLowering pass in numba's pipeline")
            pm.passes = passes
            pm.finalize()
            return [pm]

    return InnerCompiler


# (One pipeline for both decorators: each call of _inner_options makes and registers one.)
_INNER_OPTIONS = _inner_options()
inner = register_jitable(**_INNER_OPTIONS, forceinline=False)
inner.__doc__ = """``numba.extending.register_jitable`` without the C wrapper: ``@inner``.
Compiled only into the kernels that call it, where it is optimised with them (not on its
own as well: see :func:`_inner_compiler`).

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
hot = register_jitable(**_INNER_OPTIONS, forceinline=True)
hot.__doc__ = """``inner`` with numba's ``forceinline``: ``@hot``. LLVM inlines the helper
into every caller, however big, before numba's pass that removes pairs of reference
counts runs: an array argument is then counted neither on entry nor on exit. For the
helpers called once per feature and node of a split search, and the search itself (a
kernel can ask the same with ``@kernel(forceinline=True)``: ``all_surrogates``); each
makes the kernels that call it take longer to compile. What the helper calls is not
forced inline with it: every ``kernel`` and ``inner`` sets ``forceinline=False`` rather
than inherit its caller's.

Examples
--------
>>> import numba
>>> from quercus._kernels.splits import search_at
>>> isinstance(search_at, numba.core.dispatcher.Dispatcher)  # from Python: the function
False
"""


def read_only(X):
    """X, or a read-only view of it: how kernels that only read an input matrix are given
    it (routing, and coding the bins). numba compiles a kernel once per array type, a
    writable and a read-only array apart, and ``DataFrame.to_numpy()`` is read-only under
    pandas 3's copy-on-write: a DataFrame's first prediction after ``quercus warmup``
    (which predicts writable arrays) compiled the routing kernels again, and a process
    given both kinds compiled both. A read-only view can always be made.

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
    for module in map(importlib.import_module, names + [f"quercus.{_OUTSIDE}"]):
        for name, obj in vars(module).items():
            if isinstance(obj, Dispatcher) and obj.py_func.__module__ == module.__name__:
                found.append((f"{module.__name__}.{name}", obj))
    return found


# The examples above are strings on objects that doctest does not collect by themselves.
__test__ = {"inner": inner.__doc__, "hot": hot.__doc__}
