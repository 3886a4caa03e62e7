"""Process-wide settings: how the kernels run, and whether quercus talks on stderr.

Examples
--------
>>> import quercus
>>> quercus.get_config()["jit"] in ("auto", "compile", "interpret")
True
"""

import os
from contextlib import contextmanager

_JIT_MODES = ("auto", "compile", "interpret")


def _from_environment():
    jit = os.environ.get("QUERCUS_JIT", "auto").strip().lower() or "auto"
    if jit not in _JIT_MODES:
        raise ValueError(f"The environment variable QUERCUS_JIT must be one of "
                         f"{', '.join(_JIT_MODES)}. Got {jit!r} instead.")
    verbose = os.environ.get("QUERCUS_VERBOSE", "1").strip().lower()
    return {"jit": jit, "verbose": verbose not in ("0", "false", "no", "off")}


_global = _from_environment()


def get_config():
    """The settings in force: a dict with ``jit`` and ``verbose``.

    Examples
    --------
    >>> from quercus import get_config
    >>> sorted(get_config())
    ['jit', 'verbose']
    """
    return _global


def set_config(jit=None, verbose=None):
    """Change the settings for the whole process.

    Parameters
    ----------
    jit : {"auto", "compile", "interpret"}, optional
        How the compiled kernels run. ``"auto"`` (the default, or the environment variable
        ``QUERCUS_JIT``): a kernel not yet compiled nor in numba's disk cache runs its
        Python source when its arrays are small (a textbook data set fits at once instead
        of waiting for the kernels to compile) and compiles otherwise; ``"compile"``: always
        compile (what ``quercus warmup`` uses to fill the cache); ``"interpret"``: never
        compile (slow beyond a few thousand rows). The tree is the same in every mode.
    verbose : bool, optional
        Whether quercus may say on stderr (a terminal only) that a long compile is running.
        ``QUERCUS_VERBOSE=0`` turns it off from the environment.

    Examples
    --------
    >>> import quercus
    >>> old = quercus.get_config()
    >>> quercus.set_config(jit="compile")
    >>> quercus.get_config()["jit"]
    'compile'
    >>> quercus.set_config(**old)
    """
    global _global
    new = dict(_global)
    if jit is not None:
        if jit not in _JIT_MODES:
            raise ValueError(f"The 'jit' parameter of set_config must be one of "
                             f"{', '.join(map(repr, _JIT_MODES))}. Got {jit!r} instead.")
        new["jit"] = jit
    if verbose is not None:
        new["verbose"] = bool(verbose)
    _global = new


@contextmanager
def config_context(**settings):
    """Settings for the code inside a ``with`` block (process-wide, as
    :func:`set_config`: the kernels' worker threads see them too), restored after it.

    Examples
    --------
    >>> from quercus import config_context, get_config
    >>> with config_context(jit="interpret"):
    ...     get_config()["jit"]
    'interpret'
    """
    global _global
    saved = _global
    set_config(**settings)
    try:
        yield
    finally:
        _global = saved
