"""Test configuration: hypothesis runs derandomized under CI, so a CI run is reproducible;
locally every run explores new examples. Fixtures several test modules share."""

import os

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture
def subtree_roots(monkeypatch):
    """The number of roots of each ``subtree_blocks`` call that grows cross-validation
    folds together (``quercus._small_cv.Grown``), in call order."""
    from quercus import _small_cv
    roots = []
    real = _small_cv.subtree_blocks

    def spy(data, cfg, layout, idx, w, starts, *args, **kwargs):
        roots.append(len(starts) - 1)
        return real(data, cfg, layout, idx, w, starts, *args, **kwargs)

    monkeypatch.setattr(_small_cv, "subtree_blocks", spy)
    return roots
