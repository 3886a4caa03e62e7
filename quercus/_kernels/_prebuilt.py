"""Kernels compiled when the package is built, shipped inside it.

A cold first fit is mostly numba compiling (``python -m benchmarks.compile_times``). A
package built from source compiles the kernels of a first fit once, at build time, as a
package with C extensions compiles them, into ``quercus/_kernels/prebuilt``; the wheel
carries them and every environment it is installed in loads them instead of compiling.

- What is built: :func:`quercus.cli.warmup.compile_first_use`, the kernels of default
  CART fits and predictions (float64 and float32 numbers, missing values, categories,
  cost-complexity pruning; the textbook's small fits run as Python and need none), by
  :func:`quercus.cli.warmup.build_shipped`. Anything else (C4.5 and ID3 on large data,
  exact mode, other parameters) compiles at first use into the user's cache, as without
  a build.
- For which processor: the build machine's by default, so that a ``pip install .``
  loads exactly the code it would have compiled. ``QUERCUS_KERNEL_CPU=generic`` builds
  code for any processor of the architecture, for a wheel meant for other machines.
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


def runtime(sources):
    """What kernels must have been built with to run in this process, besides its codegen:
    the numba version, the Python (its cache tag) and the kernel ``sources`` hash
    (:func:`quercus._kernels._jit.sources_hash`).

    Examples
    --------
    >>> sorted(runtime("ab"))
    ['numba', 'python', 'sources']
    """
    import numba
    return {"numba": numba.__version__, "python": sys.implementation.cache_tag,
            "sources": sources}


def compatible(manifest, runtime, codegen):
    """Whether kernels described by ``manifest`` (a dict read from ``manifest.json``) run
    in a process with this ``runtime`` (numba version, Python cache tag, sources hash)
    and this ``codegen`` tuple (:func:`codegen_tuple`).

    Examples
    --------
    >>> run = {"numba": "0.60.0", "python": "cpython-311", "sources": "ab"}  # (runtime())
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
def shipped(sources):
    """The codegen tuple the shipped kernels are keyed by, or ``None`` when this package
    has none that this process can run (none built, or built for another numba, Python,
    processor or kernel ``sources`` hash).

    Examples
    --------
    >>> from quercus._kernels._jit import sources_hash
    >>> found = shipped(sources_hash())
    >>> found is None or len(found) == 3
    True
    """
    try:
        manifest = json.loads((FOLDER / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not compatible(manifest, runtime(sources), codegen_tuple()):
        return None
    return tuple(manifest["codegen"])


def write_manifest(folder, sources):
    """Write ``folder``'s ``manifest.json``: the kernels compiled there by this process
    (from kernel ``sources``) and for its codegen. Returns what it wrote.

    Examples
    --------
    >>> import json, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     written = write_manifest(folder, "ab")
    ...     read = json.loads((Path(folder) / MANIFEST).read_text(encoding="utf-8"))
    >>> read == written and compatible(read, runtime("ab"), codegen_tuple())
    True
    """
    manifest = dict(runtime(sources), codegen=list(codegen_tuple()))
    (Path(folder) / MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    return manifest
