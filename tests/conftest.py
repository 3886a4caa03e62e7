"""Test configuration: hypothesis runs derandomized under CI, so a CI run is reproducible;
locally every run explores new examples."""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
