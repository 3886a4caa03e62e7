"""A big fit hands the memory it freed back to the system when it ends (glibc's
malloc_trim), a small one does not pay for the call, and an error still releases it."""

import numpy as np
import pytest

from quercus import CARTClassifier, _memory


@pytest.fixture
def releases(monkeypatch):
    calls = []
    monkeypatch.setattr(_memory, "release_free_memory", lambda: calls.append(1) or True)
    return calls


def test_a_fit_of_many_cells_releases_freed_memory_at_its_end(monkeypatch, releases):
    X = np.random.default_rng(0).normal(size=(400, 5))
    y = X[:, 0] > 0
    CARTClassifier().fit(X, y)
    assert releases == []  # 2,000 cells: below the bound
    monkeypatch.setattr(_memory, "TRIM_MIN_CELLS", 2_000)
    CARTClassifier().fit(X, y)
    assert releases == [1]


def test_a_failed_big_fit_still_releases(monkeypatch, releases):
    monkeypatch.setattr(_memory, "TRIM_MIN_CELLS", 10)
    X = np.random.default_rng(0).normal(size=(50, 3))
    with pytest.raises(ValueError, match="max_depth"):
        CARTClassifier(max_depth=-3).fit(X, X[:, 0] > 0)
    assert releases == []  # rejected before any work: nothing allocated to give back
    with pytest.raises(ValueError):
        CARTClassifier().fit(X, np.r_[X[:49, 0] > 0, np.nan])
    assert releases == [1]


def test_release_reports_whether_the_allocator_can_trim():
    assert _memory.release_free_memory() is bool(_memory._glibc())
