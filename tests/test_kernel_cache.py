"""Where compiled kernels are cached: a user cache folder, never inside the installed
package, where files that ``pip uninstall`` leaves behind would hide a later editable
install (``ImportError: cannot import name ... (unknown location)``)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import quercus

CODE = ("from quercus._kernels.thresholds import midpoint; "
        "print(midpoint._cache._cache_path)")


def _python(code, *args, cwd=None, **env):
    """The stdout of ``code`` in a fresh interpreter, with no cache folder set but ``env``'s."""
    full = {k: v for k, v in os.environ.items()
            if k not in ("NUMBA_CACHE_DIR", "QUERCUS_CACHE_DIR")}
    full.update(env)
    return subprocess.run([sys.executable, "-c", code, *args], env=full, cwd=cwd,
                          capture_output=True, text=True, check=True).stdout


def _cache_path(**env):
    return Path(_python(CODE, **env).strip())


def test_kernels_are_cached_outside_the_package_folder(tmp_path):
    package = Path(quercus.__file__).resolve().parent
    path = _cache_path(XDG_CACHE_HOME=str(tmp_path))
    assert tmp_path in path.parents
    assert package not in path.resolve().parents


def test_quercus_cache_dir_is_honoured_and_numba_cache_dir_wins(tmp_path):
    own = tmp_path / "own"
    assert own in _cache_path(QUERCUS_CACHE_DIR=str(own)).parents
    numba_dir = tmp_path / "numba"
    assert numba_dir in _cache_path(QUERCUS_CACHE_DIR=str(own),
                                    NUMBA_CACHE_DIR=str(numba_dir)).parents


COMPILE_ONE = """
import sys, quercus
assert quercus.__file__.startswith(sys.argv[1]), quercus.__file__
from quercus._kernels.thresholds import midpoint
midpoint(1.0, 2.0)
print(len(midpoint.stats.cache_hits), len(midpoint.stats.cache_misses))
"""


def _copy_of_the_package(root):
    package = Path(quercus.__file__).resolve().parent
    shutil.copytree(package, root / "quercus", ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _hits_and_misses(root, cache):
    out = _python(COMPILE_ONE, str(root), cwd=root, QUERCUS_CACHE_DIR=str(cache),
                  QUERCUS_JIT="compile",
                  PYTHONPATH=str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    hits, misses = map(int, out.split())
    return hits, misses


def test_identical_sources_share_one_cache_wherever_they_lie(tmp_path):
    """A second environment or checkout of the same sources loads the kernels the first
    compiled (numba's own cache keys a kernel by its file's path and time)."""
    cache = tmp_path / "cache"
    a = _copy_of_the_package(tmp_path / "a")
    b = _copy_of_the_package(tmp_path / "b")
    assert _hits_and_misses(a, cache) == (0, 1)  # compiled
    assert _hits_and_misses(b, cache) == (1, 0)  # loaded


def test_editing_any_kernel_source_compiles_every_kernel_again(tmp_path):
    """``midpoint`` lives in thresholds.py; a change to criteria.py, another kernel module,
    must not leave thresholds.py's cached kernels in use: numba checks only a kernel's
    own file, and a stale caller of a changed kernel can crash."""
    cache = tmp_path / "cache"
    a = _copy_of_the_package(tmp_path / "a")
    assert _hits_and_misses(a, cache) == (0, 1)
    assert _hits_and_misses(a, cache) == (1, 0)
    criteria = a / "quercus" / "_kernels" / "criteria.py"
    criteria.write_text(criteria.read_text() + "\n# edited\n")
    assert _hits_and_misses(a, cache) == (0, 1)


def test_the_cache_folder_names_the_sources_not_their_folder():
    from quercus._kernels._jit import _UserCacheLocator, sources_hash
    from quercus._kernels.thresholds import midpoint
    locator = midpoint._cache._impl.locator
    if os.environ.get("NUMBA_CACHE_DIR"):  # numba's own folder and stamps
        assert not isinstance(locator, _UserCacheLocator)
    else:
        assert Path(locator.get_cache_path()).name == "kernels-" + sources_hash()[:20]
        assert locator.get_source_stamp() == sources_hash()
