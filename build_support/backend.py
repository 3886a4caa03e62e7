"""quercus's build backend: setuptools', with one more step for wheels, which ship the
kernels of a first fit compiled (``quercus/_kernels/_prebuilt.py``):

- building a wheel installs what compiling them needs, the package's own dependencies
  (an editable install or an sdist needs setuptools only);
- ``setup.py``'s commands (:func:`commands`): ``build_py`` calls :func:`compile_kernels`
  on the built copy, and a wheel that holds them is tagged for its Python and platform
  (``cp311-none-linux_x86_64``), not ``py3-none-any``.

``QUERCUS_BUILD_KERNELS=0`` builds without them; ``QUERCUS_KERNEL_CPU=generic`` compiles
them for any processor of the architecture instead of the build machine's.
"""

import os
import shutil
import subprocess
import sys

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F401,F403 (every other hook as setuptools')

# pyproject.toml's [project] dependencies (tests/test_prebuilt_kernels.py compares them).
RUNTIME = ["numpy>=1.24", "numba>=0.59", "pandas>=2.0", "scikit-learn>=1.6", "scipy>=1.10"]
CPUS = ("host", "generic")
# What the compiling process runs, from the built copy of the package.
BUILD = "from quercus.cli.warmup import build_shipped; build_shipped()"


def builds_kernels():
    """Whether a wheel build compiles the kernels: unless ``QUERCUS_BUILD_KERNELS=0``."""
    return os.environ.get("QUERCUS_BUILD_KERNELS", "1").strip() != "0"


def get_requires_for_build_wheel(config_settings=None):
    extra = RUNTIME if builds_kernels() else []
    return _setuptools.get_requires_for_build_wheel(config_settings) + extra


def kernel_folder(build_lib):
    """Where a build of the package in ``build_lib`` holds its compiled kernels (the
    package's ``quercus._kernels._prebuilt.FOLDER``)."""
    return os.path.join(build_lib, "quercus", "_kernels", "prebuilt")


def compile_kernels(build_lib):
    """Compile the first fit's kernels from the copy of quercus in ``build_lib`` into its
    ``quercus/_kernels/prebuilt`` folder, in a process of its own. Returns whether they
    were built. A failed compile leaves the package without them (it compiles its
    kernels at first use, as an editable install does) and says so on stderr."""
    build_lib = os.path.abspath(build_lib)
    folder = kernel_folder(build_lib)
    shutil.rmtree(folder, ignore_errors=True)  # (a stale build's kernels)
    if not builds_kernels():
        return False
    cpu = os.environ.get("QUERCUS_KERNEL_CPU", "host").strip() or "host"
    if cpu not in CPUS:
        raise SystemExit(f"QUERCUS_KERNEL_CPU={cpu!r}: expected one of {', '.join(CPUS)}")
    env = dict(os.environ, QUERCUS_CACHE_DIR=folder,
               PYTHONPATH=os.pathsep.join(filter(None, [build_lib,
                                                        os.environ.get("PYTHONPATH")])))
    for name in ("NUMBA_CACHE_DIR", "NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES", "QUERCUS_JIT"):
        env.pop(name, None)  # (each would change where or for what they compile)
    if cpu == "generic":
        env["NUMBA_CPU_NAME"] = "generic"
    print(f"quercus: compiling the kernels of a first fit for the {cpu} processor "
          "(QUERCUS_BUILD_KERNELS=0 skips this)", file=sys.stderr, flush=True)
    done = subprocess.run([sys.executable, "-c", BUILD], cwd=build_lib, env=env)
    if done.returncode:
        shutil.rmtree(folder, ignore_errors=True)
        print("quercus: compiling the kernels failed; the package is built without them "
              "and compiles them at first use", file=sys.stderr)
        return False
    return True


def commands():
    """``setup.py``'s command classes: ``build_py`` that compiles the kernels into a
    non-editable build, ``bdist_wheel`` that tags a wheel holding them for the Python
    (their cache entries are keyed by its bytecode) and the platform they run on."""
    from setuptools.command.bdist_wheel import bdist_wheel
    from setuptools.command.build_py import build_py

    class BuildPyWithKernels(build_py):
        def run(self):
            super().run()
            if not self.editable_mode:
                compile_kernels(self.build_lib)

    class WheelTaggedForKernels(bdist_wheel):
        def get_tag(self):
            build_lib = self.get_finalized_command("build_py").build_lib
            if not os.path.isdir(kernel_folder(build_lib)):
                return super().get_tag()
            pure, self.root_is_pure = self.root_is_pure, False
            try:
                python, _, platform = super().get_tag()
            finally:
                self.root_is_pure = pure
            return python, "none", platform

    return {"build_py": BuildPyWithKernels, "bdist_wheel": WheelTaggedForKernels}
