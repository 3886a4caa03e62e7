"""benchmarks/traced_peak.py: a fit's traced peak, the memory of its own arrays."""

import numpy as np
import pytest

from benchmarks import traced_peak


def test_the_traced_peak_counts_an_array_freed_before_the_call_returns():
    peaks = traced_peak.traced_peaks(lambda: np.ones(2**20).sum(), 2)  # 8 MB, freed
    assert peaks == [pytest.approx(8.0, abs=0.1)] * 2
    assert traced_peak.traced_peaks(lambda: None, 1)[0] < 0.01


def test_each_learner_of_a_suite_data_set_gets_its_peaks_and_their_median(capsys):
    assert traced_peak.main(["watermelon", "cart-exact", "c45", "--reps", "2"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if "traced peak MB" in line]
    assert len(rows) == 2
    for row in rows:
        values = [float(v) for v in row.split(":")[1].replace("; median", "").split()]
        assert len(values) == 3 and all(v > 0 for v in values)
    with pytest.raises(SystemExit, match="no such data set"):
        traced_peak.main(["no_such_set", "cart-exact"])
