"""``n_jobs=None`` uses the cores a process is given, not every core of the machine."""


def test_default_threads_follow_the_limits_a_parent_process_sets(monkeypatch):
    """joblib's loky workers (scikit-learn's ``n_jobs``) are told their share of the cores
    through OMP_NUM_THREADS; a default fit inside one uses no more."""
    from quercus._params import available_cores, resolve_n_jobs
    for name in ("QUERCUS_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                 "MKL_NUM_THREADS"):
        monkeypatch.delenv(name, raising=False)
    assert resolve_n_jobs(None) == available_cores()
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert resolve_n_jobs(None) == 1
    assert resolve_n_jobs(-1) == available_cores()  # an explicit request is kept
    monkeypatch.setenv("OMP_NUM_THREADS", "not a number")
    assert resolve_n_jobs(None) == available_cores()
