"""``quercus warmup``: compile every kernel into numba's on-disk cache; and what a package
build compiles into the package (:func:`build_shipped`)."""


def _warmup(args):
    """Compile every kernel once so later processes load them from numba's disk cache."""
    import time

    import numpy as np

    from .. import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier
    from ..datasets import load_golf, load_watermelon

    from .. import config_context

    t0 = time.perf_counter()
    # Small fits would run the kernels' Python source (see quercus/_kernels/_interpret.py):
    # here every kernel must compile, into the cache.
    with config_context(jit="compile"):
        _fit_everything(np, C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier,
                        load_golf, load_watermelon)
    print(f"quercus kernels ready ({time.perf_counter() - t0:.1f} s)")
    return 0


def _fit_everything(np, C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier,
                    load_golf, load_watermelon):
    for data in (load_watermelon("3.0"), load_golf()):
        for cls in (ID3Classifier, C45Classifier, CARTClassifier):
            est = cls().fit(*data)
            est.predict(data[0])
            est.decision_path(data[0])
            est.explain(0)
            cls(splitter="random", random_state=0).fit(*data)
    # Large enough for the parallel kernels, the histograms and the wider codes.
    X = np.random.default_rng(0).normal(size=(6000, 40))
    for max_bins in (255, None):
        CARTClassifier(max_bins=max_bins).fit(X, X[:, 0] > 0).predict(X)
        CARTRegressor(max_bins=max_bins).fit(X, X[:, 1]).predict(X)
        # rpart's surrogates at every node (the default searches them only where values
        # are missing, and these data have none): the subtree kernel's surrogate search,
        # for a classifier and a regressor, as data with missing values need.
        CARTClassifier(max_bins=max_bins, surrogates="always").fit(X, X[:, 0] > 0)
        CARTRegressor(max_bins=max_bins, surrogates="always").fit(X, X[:, 1])
        # The subtree kernel (no surrogates), presorted in exact mode; column-ordered
        # prediction; C4.5's pruning and the cost-complexity sequence.
        CARTClassifier(max_bins=max_bins, max_surrogate=0).fit(X, X[:, 0] > 0).predict(
            np.asfortranarray(X))
        CARTRegressor(max_bins=max_bins, max_surrogate=0).fit(X, X[:, 1])
        c45 = C45Classifier(max_bins=max_bins).fit(X, X[:, 0] > 0)
        # C4.5's prediction, which may spread a row over branches: another set of kernels.
        c45.predict(X)
        c45.predict(np.asfortranarray(X))
    CARTClassifier(max_surrogate=0, pruning="cost_complexity", cv=3).fit(X[:2000],
                                                                         X[:2000, 0] > 0)
    # The streamed split search of big exact nodes, made to run here by narrow slices, and
    # the parallel coding of quantile bins cut from a sample of a long column (above
    # 200,000 rows), made to run by a small sample.
    from .. import _binning, _grower
    wide, sample = _grower.STREAM_BYTES, _binning._EDGE_SAMPLE
    try:
        _grower.STREAM_BYTES = 1 << 14
        CARTClassifier(max_bins=None).fit(X, X[:, 0] > 0)
        _binning._EDGE_SAMPLE = 1000
        long = np.random.default_rng(1).normal(size=(2 * _binning._ROWS, 2))
        for order in ("C", "F"):
            CARTClassifier(max_depth=1).fit(np.asarray(long, order=order), long[:, 0] > 0)
    finally:
        _grower.STREAM_BYTES, _binning._EDGE_SAMPLE = wide, sample


def compile_first_use(rows=6000):
    """Compile (or load) the kernels of a first default CART fit: classification and
    regression, with prediction, on float64 and float32 numbers large enough for the
    threaded and subtree kernels (``rows`` x 40); classification with cross-validated
    cost-complexity pruning (on those rows, and on 300 of them: folds scored in one kernel
    call), of a table of such numbers and categories, and of such numbers with missing
    values (the surrogate kernels). What a package build ships compiled
    (:func:`build_shipped`).

    Examples
    --------
    >>> from quercus import config_context
    >>> with config_context(jit="interpret"):  # the same calls, as Python: quick
    ...     compile_first_use(rows=40)
    """
    import numpy as np
    import pandas as pd

    from .. import CARTClassifier, CARTRegressor

    rng = np.random.default_rng(0)
    for dtype in (np.float64, np.float32):
        X = rng.normal(size=(rows, 40)).astype(dtype)
        est = CARTClassifier().fit(X, X[:, 0] > 0)
        est.predict(X)
        est.predict_proba(X)
        CARTRegressor().fit(X, X[:, 1]).predict(X)
    y = X[:, 0] > 0
    X = X.astype(np.float64)
    CARTClassifier(pruning="cost_complexity").fit(X, y)
    # (A few hundred rows: folds grown whole and scored from the kernel's tables.)
    CARTClassifier(pruning="cost_complexity").fit(X[:300], y[:300])
    frame = pd.DataFrame(X[:, :10], columns=[f"x{j}" for j in range(10)])
    for j in range(3):
        frame[f"c{j}"] = pd.Categorical(rng.choice(list("abcdefgh"), size=rows))
    CARTClassifier().fit(frame, y).predict_proba(frame)
    X[rng.random(X.shape) < 0.05] = np.nan
    CARTClassifier().fit(X, y).predict_proba(X)


def build_shipped(warm=compile_first_use):
    """Compile ``warm``'s kernels into the kernel cache folder (``QUERCUS_CACHE_DIR``, set
    before quercus is imported: the kernels' cache locators read it as they are defined)
    and write its manifest (:mod:`quercus._kernels._prebuilt`). What a package build runs
    on its built copy, in a process of its own (``build_support/backend.py``), with
    ``NUMBA_CPU_NAME=generic`` for code that runs on any processor. Returns the manifest.
    """
    from .. import config_context
    from .._kernels import _prebuilt
    from .._kernels._jit import cache_root, sources_hash

    with config_context(jit="compile"):
        warm()
    return _prebuilt.write_manifest(cache_root(), sources_hash())
