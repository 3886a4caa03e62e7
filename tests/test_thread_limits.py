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


def test_binning_runs_on_the_threads_n_jobs_gives(monkeypatch):
    """The fit's binning codes rows on numba's threads: ``n_jobs=1`` bins on one, as it
    grows on one (binning ran with the process's setting, every core, before)."""
    import numba
    import numpy as np

    from quercus import C45Classifier, CARTClassifier
    from quercus import _fit, _prepare

    seen = []

    def spy(real):
        def call(*args, **kwargs):
            seen.append(numba.get_num_threads())
            return real(*args, **kwargs)
        return call

    # Both ways in: binning straight from the columns (a CART fit that reads only bins)
    # and from the encoded matrix (C4.5, whose pruning reads the rows).
    monkeypatch.setattr(_prepare, "fit_schema_and_bin", spy(_prepare.fit_schema_and_bin))
    monkeypatch.setattr(_fit, "bin_features", spy(_fit.bin_features))
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))  # (1,200 cells: at least _pruning.FOLD_THREADS_MIN_CELLS)
    y = (X[:, 0] > 0).astype(int)
    outer = numba.get_num_threads()
    for n_jobs in (1, 2):
        seen.clear()
        CARTClassifier(n_jobs=n_jobs).fit(X, y)
        C45Classifier(n_jobs=n_jobs).fit(X, y)
        assert seen == [min(n_jobs, numba.config.NUMBA_NUM_THREADS)] * 2
    assert numba.get_num_threads() == outer  # restored after the fit


def test_a_fit_too_small_for_threads_leaves_the_setting_alone(monkeypatch):
    """Below ``_pruning.FOLD_THREADS_MIN_CELLS`` cells every step of a fit runs on one
    thread whatever ``n_jobs`` says, so the fit does not work the setting out (the
    affinity mask and the thread-limit variables) or change it; the tree is the same."""
    import numba
    import numpy as np

    from quercus import CARTClassifier, export_text
    from quercus import _fit, _params, _pruning

    calls = []
    real = _params.resolve_n_jobs
    monkeypatch.setattr(_fit, "resolve_n_jobs", lambda n: calls.append(n) or real(n))
    rng = np.random.default_rng(1)
    for rows, threaded in ((_pruning.FOLD_THREADS_MIN_CELLS // 4 - 1, False),
                           (_pruning.FOLD_THREADS_MIN_CELLS // 4, True)):
        X = rng.normal(size=(rows, 4))
        y = (X[:, 0] + X[:, 1] > 0).astype(int)
        calls.clear()
        trees = [export_text(CARTClassifier(pruning="cost_complexity", n_jobs=n_jobs,
                                            random_state=0).fit(X, y))
                 for n_jobs in (1, 2)]
        assert bool(calls) is threaded, rows
        assert trees[0] == trees[1]
    assert numba.get_num_threads() >= 1
