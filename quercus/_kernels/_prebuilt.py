"""Kernels compiled when the package is built, shipped inside it.

A cold first fit is mostly numba compiling (``python -m benchmarks.compile_times``). A
package built from source compiles the kernels of a first fit once, at build time, as a
package with C extensions compiles them, into ``quercus/_kernels/prebuilt``; the wheel
carries them and every environment it is installed in loads them instead of compiling.

- What is built: :func:`compile_first_use`, the kernels of default CART fits and
  predictions on float64 and float32 numbers (the textbook's small fits run as Python
  and need none). Anything else (C4.5 and ID3 on large data, other parameters) compiles
  at first use into the user's cache, as without a build.
- For which processor: the build machine's by default, so that a ``pip install .``
  loads exactly the code it would have compiled. ``QUERCUS_KERNEL_CPU=generic`` builds
  code for any processor of the architecture, for a wheel meant for other machines
  (it runs slower than code for the processor at hand).
- When it is used: the folder's ``manifest.json`` names the numba version, the Python
  and the processor the kernels were built for, and the kernel sources' hash; a process
  uses them only if all four match it (a ``generic`` build matches any processor of its
  architecture). Otherwise kernels compile as they would without a build.
- ``QUERCUS_BUILD_KERNELS=0`` builds the package without them; an editable install never
  has them.

The user's own cache (:func:`quercus._kernels._jit.cache_root`) is read first and is
where new kernels go: the shipped folder is never written after the build.
"""

import functools
import json
import sys
from pathlib import Path

FOLDER = Path(__file__).resolve().parent / "prebuilt"
MANIFEST = "manifest.json"


def codegen_tuple():
    """numba's description of the code this process generates: (target triple, processor
    name, processor features), the tuple numba's cache keys every entry by.

    Examples
    --------
    >>> triple, cpu, features = codegen_tuple()
    >>> isinstance(triple, str) and isinstance(features, str)
    True
    """
    from numba.core.registry import cpu_target
    return tuple(cpu_target.target_context.codegen().magic_tuple())


def _runtime():
    import numba

    from ._jit import sources_hash
    return {"numba": numba.__version__, "python": sys.implementation.cache_tag,
            "sources": sources_hash()}


def compatible(manifest, runtime, codegen):
    """Whether kernels described by ``manifest`` (a dict read from ``manifest.json``) run
    in a process with this ``runtime`` (numba version, Python cache tag, sources hash)
    and this ``codegen`` tuple (:func:`codegen_tuple`).

    Examples
    --------
    >>> run = {"numba": "0.60.0", "python": "cpython-311", "sources": "ab"}
    >>> here = ("x86_64-unknown-linux-gnu", "znver3", "+avx2")
    >>> built = dict(run, codegen=list(here))
    >>> compatible(built, run, here)
    True
    >>> compatible(dict(built, codegen=[here[0], "generic", ""]), run, here)
    True
    >>> compatible(dict(built, codegen=[here[0], "skylake", "+avx2"]), run, here)
    False
    >>> compatible(dict(built, numba="0.59.1"), run, here)
    False
    """
    if any(manifest.get(k) != v for k, v in runtime.items()):
        return False
    built = tuple(manifest.get("codegen", ()))
    if len(built) != 3 or built[0] != codegen[0]:
        return False
    return built == tuple(codegen) or (built[1] == "generic" and built[2] == "")


@functools.lru_cache(maxsize=None)
def shipped():
    """The codegen tuple the shipped kernels are keyed by, or ``None`` when this package
    has none that this process can run (none built, or built for another numba, Python,
    processor or source).

    Examples
    --------
    >>> found = shipped()
    >>> found is None or len(found) == 3
    True
    """
    try:
        manifest = json.loads((FOLDER / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not compatible(manifest, _runtime(), codegen_tuple()):
        return None
    return tuple(manifest["codegen"])


def compile_first_use(rows=6000):
    """Compile (or load) the kernels of a first default CART fit: classification and
    regression, with prediction, on float64 and float32 numbers large enough for the
    threaded and subtree kernels (``rows`` x 40), and classification of a table with a
    category.

    Examples
    --------
    >>> from quercus import config_context
    >>> with config_context(jit="interpret"):  # the same calls, as Python: quick
    ...     compile_first_use(rows=40)
    """
    import numpy as np
    import pandas as pd

    from .. import CARTClassifier, CARTRegressor

    rng = np.random.default_rng(0)
    for dtype in (np.float64, np.float32):
        X = rng.normal(size=(rows, 40)).astype(dtype)
        est = CARTClassifier().fit(X, X[:, 0] > 0)
        est.predict(X)
        est.predict_proba(X)
        CARTRegressor().fit(X, X[:, 1]).predict(X)
    small = max(rows // 10, 10)
    frame = pd.DataFrame({"x": rng.normal(size=small),
                          "c": pd.Categorical(rng.choice(list("abc"), size=small))})
    CARTClassifier().fit(frame, frame["x"] > 0).predict(frame)


def build(warm=compile_first_use):
    """Compile ``warm``'s kernels (:func:`compile_first_use`) into the kernel cache folder
    (``QUERCUS_CACHE_DIR``, set before quercus is imported: the kernels' cache locators
    read it as they are defined) and write its manifest. What a package build runs, in a
    process of its own (``build_support/backend.py``), with ``NUMBA_CPU_NAME=generic``
    for code that runs on any processor. Returns the manifest.
    """
    from .. import config_context
    from ._jit import cache_root

    with config_context(jit="compile"):
        warm()
    manifest = dict(_runtime(), codegen=list(codegen_tuple()))
    path = Path(cache_root()) / MANIFEST
    path.write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    return manifest

