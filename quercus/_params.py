"""Parameter rules in one table, checked by scikit-learn's declarative validator.

Messages read "The 'max_depth' parameter of DecisionTreeClassifier must be an int in the
range [1, inf) or None. Got 0 instead."
"""

from numbers import Integral, Real

from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions

from ._kernels.criteria import CLASSIFICATION, REGRESSION, names

CRITERIA = names(CLASSIFICATION)  # (the criterion registry's)

# RealNotInt: the int 1 is a count, never "a fraction of 1.0" (scikit-learn's rule).

REGRESSION_CRITERIA = names(REGRESSION)

TREE_PARAMS = {
    "criterion": [StrOptions(set(CRITERIA))],
    "categorical_split": [StrOptions({"multiway", "binary", "ordered"})],
    "missing_strategy": [StrOptions({"fractional", "surrogate", "learned"})],
    "max_surrogate": [Interval(Integral, 0, None, closed="left")],
    "surrogates": [StrOptions({"where_missing", "always"})],
    "class_weight": [dict, StrOptions({"balanced"}), None],
    "pruning": [StrOptions({"pre", "reduced_error", "pessimistic", "cost_complexity"}), None],
    "validation_fraction": [Interval(RealNotInt, 0.0, 1.0, closed="neither")],
    "strict_improvement": ["boolean"],
    "confidence_factor": [Interval(Real, 0.0, 0.5, closed="right")],
    "subtree_raising": ["boolean"],
    "ccp_alpha": [Interval(Real, 0.0, None, closed="left")],
    "ccp_loss": [StrOptions({"impurity", "error", "entropy"})],
    "cv": ["cv_object"],
    "cv_rule": [StrOptions({"min", "1se"})],
    "cp": [Interval(Real, 0.0, None, closed="left")],
    "splitter": [StrOptions({"best", "random"})],
    "max_depth": [Interval(Integral, 1, None, closed="left"), None],
    "min_samples_split": [
        Interval(Integral, 2, None, closed="left"),
        Interval(RealNotInt, 0.0, 1.0, closed="right"),
    ],
    "min_samples_leaf": [
        Interval(Integral, 1, None, closed="left"),
        Interval(RealNotInt, 0.0, 1.0, closed="neither"),
    ],
    "min_weight_fraction_leaf": [Interval(Real, 0.0, 0.5, closed="both")],
    "min_impurity_decrease": [Interval(Real, 0.0, None, closed="left")],
    "min_objects": [Interval(Real, 0.0, None, closed="left"), None],
    "max_features": [
        Interval(Integral, 1, None, closed="left"),
        Interval(RealNotInt, 0.0, 1.0, closed="right"),
        StrOptions({"sqrt", "log2"}),
        None,
    ],
    "categorical_features": ["array-like", None],
    "max_bins": [Interval(Integral, 2, 65535, closed="both"), None],
    "n_jobs": [Interval(Integral, 1, None, closed="left"),
               Interval(Integral, None, -1, closed="right"), None],
    "random_state": ["random_state"],
}


def resolve_counts(est, n_samples, n_features):
    """Turn fractional / named size parameters into integers, as scikit-learn does."""
    mss = est.min_samples_split
    if isinstance(mss, Real) and not isinstance(mss, Integral):
        mss = max(2, int(-(-mss * n_samples // 1)))
    msl = est.min_samples_leaf
    if isinstance(msl, Real) and not isinstance(msl, Integral):
        msl = max(1, int(-(-msl * n_samples // 1)))
    mf = est.max_features
    if mf is None:
        mf = n_features
    elif mf == "sqrt":
        mf = max(1, int(n_features ** 0.5))
    elif mf == "log2":
        import math
        mf = max(1, int(math.log2(n_features)))
    elif isinstance(mf, Real) and not isinstance(mf, Integral):
        mf = max(1, int(mf * n_features))
    elif mf > n_features:
        raise ValueError(f"The 'max_features' parameter of {type(est).__name__} must be at "
                         f"most the number of features ({n_features}). Got {mf} instead.")
    return int(mss), int(msl), int(mf)


REGRESSOR_PARAMS = {
    **{k: v for k, v in TREE_PARAMS.items() if k != "class_weight"},
    "criterion": [StrOptions(set(REGRESSION_CRITERIA))],
    "categorical_split": [StrOptions({"multiway", "ordered", "one_vs_rest"})],
}


# Variables through which a parent process tells its workers how many threads each may
# use: joblib's loky workers (scikit-learn's ``n_jobs``) get OMP_NUM_THREADS and the BLAS
# ones set to their share of the cores; users set them to share a machine.
THREAD_LIMIT_VARIABLES = ("QUERCUS_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                          "MKL_NUM_THREADS")


def available_cores():
    """The cores this process may use: numba's threads, within the CPU affinity mask.

    Examples
    --------
    >>> available_cores() >= 1
    True
    """
    import os

    import numba
    cores = numba.config.NUMBA_NUM_THREADS
    if hasattr(os, "sched_getaffinity"):
        cores = min(cores, len(os.sched_getaffinity(0)))
    return max(1, cores)


def thread_limit():
    """The smallest positive integer among :data:`THREAD_LIMIT_VARIABLES`, or None.

    Examples
    --------
    >>> import os
    >>> old = os.environ.get("OMP_NUM_THREADS")
    >>> os.environ["OMP_NUM_THREADS"] = "1"
    >>> thread_limit()
    1
    >>> _ = os.environ.pop("OMP_NUM_THREADS") if old is None else os.environ.update(
    ...     OMP_NUM_THREADS=old)
    """
    import os
    limits = []
    for name in THREAD_LIMIT_VARIABLES:
        value = os.environ.get(name, "").strip()
        if value.isdigit() and int(value) > 0:
            limits.append(int(value))
    return min(limits) if limits else None


def resolve_n_jobs(n_jobs):
    """Threads for numba: None every core the process may use (within its affinity mask
    and the thread limits a parent process or the user set: :func:`thread_limit`), -1 every
    core it may use, -2 all but one, k at most that many.

    Examples
    --------
    >>> resolve_n_jobs(1)
    1
    >>> resolve_n_jobs(None) <= available_cores()
    True
    """
    cores = available_cores()
    if n_jobs is None:
        limit = thread_limit()
        return cores if limit is None else min(cores, limit)
    if n_jobs < 0:
        return max(1, cores + 1 + n_jobs)
    return min(n_jobs, cores)
