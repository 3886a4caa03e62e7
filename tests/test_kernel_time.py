"""The kernel A/B's own pieces (benchmarks/kernel_time.py --ab): its summary of the two
sides' replays and its arguments. (The replays themselves compile two versions of the
kernels: a run of minutes, measured by hand, not here.)"""

import pytest

from benchmarks import kernel_time


def test_the_ab_summary_is_new_over_base_of_the_fastest_replays_and_of_each_round():
    times = {"case24:-:anova": {"base": [3.0e-3, 2.0e-3, 2.5e-3],
                                "new": [2.4e-3, 2.2e-3, 2.5e-3]}}
    (line,) = kernel_time.ab_summary(times)
    # fastest: 2.2 / 2.0; rounds: 0.8, 1.1, 1.0
    assert line == ("case24: new / base 1.100 by the fastest (base 2.000 ms, new 2.200 ms); "
                    "rounds 0.800-1.100, median 1.000")


@pytest.mark.parametrize("argv,named", [
    (["--ab"], "BASE"),
    (["--ab", "HEAD", "--rounds"], "--rounds"),
    (["--ab", "HEAD", "--rounds", "two"], "'two'"),
    (["--ab", "HEAD", "--rounds", "0"], "'0'"),
])
def test_a_bad_ab_argument_is_named_before_anything_runs(monkeypatch, argv, named):
    def no_run(*args):
        raise AssertionError("the A/B ran")

    monkeypatch.setattr(kernel_time, "ab_times", no_run)
    with pytest.raises(SystemExit, match=named):
        kernel_time.main(argv)


def test_the_ab_takes_a_new_side_and_cases_apart(monkeypatch):
    seen = []

    def record(base, new, rounds, specs):
        seen.append((base, new, rounds, specs))
        return {}

    monkeypatch.setattr(kernel_time, "ab_times", record)
    kernel_time.main(["--ab", "HEAD~2", "--rounds", "5", "case15:-:class"])
    kernel_time.main(["--ab", "HEAD~2", "/some/checkout"])
    assert seen == [("HEAD~2", None, 5, ["case15:-:class"]),
                    ("HEAD~2", "/some/checkout", 3, list(kernel_time.CASES))]
