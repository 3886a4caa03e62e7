"""quercus is described in pyproject.toml; this file adds its build steps: a wheel ships
the kernels of a first fit compiled (see build_support/backend.py)."""

import os
import sys

from setuptools import setup

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "build_support"))
from backend import commands  # noqa: E402

setup(cmdclass=commands())
