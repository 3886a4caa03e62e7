"""Where compiled kernels are cached: a user cache folder, never inside the installed
package, where files that ``pip uninstall`` leaves behind would hide a later editable
install (``ImportError: cannot import name ... (unknown location)``)."""

import os
import subprocess
import sys
from pathlib import Path

import quercus

CODE = ("from quercus._kernels.splits import midpoint; "
        "print(midpoint._cache._cache_path)")


def _cache_path(**env):
    full = {k: v for k, v in os.environ.items()
            if k not in ("NUMBA_CACHE_DIR", "QUERCUS_CACHE_DIR")}
    full.update(env)
    out = subprocess.run([sys.executable, "-c", CODE], env=full, capture_output=True,
                         text=True, check=True)
    return Path(out.stdout.strip())


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


def test_two_installs_of_the_sources_get_separate_folders(tmp_path):
    """The cache's subfolder hashes the source folder: a site-packages copy and an editable
    checkout never read each other's entries."""
    from quercus._kernels._jit import _UserCacheLocator
    a = _UserCacheLocator.get_suitable_cache_subpath("/a/quercus/_kernels/splits.py")
    b = _UserCacheLocator.get_suitable_cache_subpath("/b/quercus/_kernels/splits.py")
    assert a != b
