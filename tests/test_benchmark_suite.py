"""The benchmark suite's own plumbing (benchmarks/suite.py): where a run's results go."""

import pandas as pd
import pytest

from benchmarks import suite


def _row(learner, fit_s):
    return dict(data="golf", task=suite.CLF, shape=(14, 4), learner=learner, settings="s",
                pair="", fit_s=fit_s, predict_s=0.001, peak_mb=1.0, score=0.5, leaves=3,
                fit_ratio=float("nan"), predict_ratio=float("nan"))


def test_a_named_run_writes_its_own_files_and_leaves_the_default_ones(tmp_path, monkeypatch):
    monkeypatch.setattr(suite, "RESULTS", tmp_path)
    monkeypatch.setattr(suite, "REPO", tmp_path)
    suite.write_results([_row("quercus CART exact", 0.25)], ["header line"], [],
                        "performance_1m")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["performance_1m.csv",
                                                          "performance_1m.md"]
    frame = pd.read_csv(tmp_path / "performance_1m.csv", comment="#")
    assert frame["learner"].tolist() == ["quercus CART exact"]
    assert frame["fit_s"].tolist() == [0.25]
    assert "header line" in (tmp_path / "performance_1m.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["../elsewhere", "sub/dir", ".hidden", "table.md", ""])
def test_an_out_name_with_a_folder_is_refused_before_anything_runs(name, capsys):
    with pytest.raises(SystemExit) as exc:
        suite.main(["--out", name, "--no-write"])
    assert exc.value.code == 2
    assert "--out" in capsys.readouterr().err
