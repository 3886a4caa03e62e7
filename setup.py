"""quercus is described in pyproject.toml; this file adds one build step: a wheel ships
the kernels of a first fit compiled (see build_support/backend.py)."""

import os
import sys

from setuptools import setup
from setuptools.command.build_py import build_py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "build_support"))
from backend import compile_kernels  # noqa: E402


class BuildPyWithKernels(build_py):
    def run(self):
        super().run()
        if not self.editable_mode:
            compile_kernels(self.build_lib)


setup(cmdclass={"build_py": BuildPyWithKernels})
