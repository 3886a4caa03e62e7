"""``quercus.prune``: prune an already fitted tree into a new estimator."""

import copy

import numpy as np

from . import _prepare, _pruning
from ._explain import cached_training_data
from ._target import Target

METHODS = ("reduced_error", "pessimistic", "cost_complexity")


def _training_matrix(est):
    """The encoded training X kept from fit, rebuilt from its bins (NaN where missing)."""
    data = cached_training_data(est)
    if data is None:
        raise ValueError("this model no longer holds its training data (it was loaded, "
                         "unpickled or fitted on more than five million cells): pass X_val "
                         "and y_val.")
    n, p = data.codes.shape
    X = np.empty((n, p))
    for j in range(p):
        codes = data.codes[:, j].astype(np.int64)
        miss = codes == data.n_bins[j]
        if data.is_cat[j]:
            X[:, j] = np.where(miss, np.nan, codes)
        else:
            values = data.bin_hi[data.bin_offsets[j]:data.bin_offsets[j + 1]]
            X[:, j] = np.where(miss, np.nan, values[np.minimum(codes, len(values) - 1)])
    return X, data.y, data.w


def prune(estimator, method, X_val=None, y_val=None, *, sample_weight=None, **params):
    """Prune a fitted tree and return a new estimator; the original is untouched.

    Parameters
    ----------
    estimator : fitted quercus estimator
    method : {"reduced_error", "pessimistic", "cost_complexity"}
        "reduced_error": bottom-up, replace a subtree by a leaf when the error on
        ``X_val, y_val`` does not grow (``strict_improvement=False``) or falls (``True``,
        the default, as in the book's figures). "pessimistic": C4.5's error-based pruning
        (``confidence_factor``, ``subtree_raising``) on the data given, by default the
        training data kept from fit. "cost_complexity": the weakest-link subtree for
        ``ccp_alpha`` (with ``ccp_loss``).
    X_val, y_val : validation data (reduced_error), or the data for the pessimistic
        estimates.
    sample_weight : weights of ``X_val``.
    **params : the method's parameters, defaulting to the estimator's.

    Returns
    -------
    estimator
        A copy with the pruned ``tree_``; its ``pruning_report()`` lists what was removed.

    Examples
    --------
    >>> import quercus
    >>> from quercus.datasets import watermelon_train_validation_split
    >>> X_tr, X_va, y_tr, y_va = watermelon_train_validation_split()
    >>> full = quercus.ID3Classifier().fit(X_tr, y_tr)
    >>> small = quercus.prune(full, "reduced_error", X_va, y_va)
    >>> small.get_n_leaves() <= full.get_n_leaves(), full.pruning_report().empty
    (True, True)
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}; got {method!r}.")
    allowed = {"reduced_error": {"strict_improvement"},
               "pessimistic": {"confidence_factor", "subtree_raising"},
               "cost_complexity": {"ccp_alpha", "ccp_loss"}}[method]
    unknown = set(params) - allowed
    if unknown:
        raise ValueError(f"prune(method={method!r}) takes {sorted(allowed)}; got "
                         f"{sorted(unknown)}.")
    est = copy.deepcopy(estimator)
    est.set_params(**params)  # validated below with the estimator's own rules
    est._validate_params()
    tree = est.tree_
    target = Target.of(est)
    if method == "cost_complexity":
        if est.ccp_alpha <= 0:
            raise ValueError("prune(method='cost_complexity') needs ccp_alpha > 0.")
        tree, report = _pruning.prune_at_alpha(target, tree, float(est.ccp_alpha),
                                               est.ccp_loss)
    else:
        if X_val is None and method == "pessimistic":
            X_enc, y_enc, w = _training_matrix(estimator)
        else:
            if X_val is None or y_val is None:
                raise ValueError(f"prune(method={method!r}) needs X_val and y_val.")
            X_enc = _prepare.encode(_prepare.as_2d(X_val, what="X_val"), est.schema_)
            y_enc = target.encode(y_val, X_enc.shape[0], "y_val")
            w = _prepare.check_weights(sample_weight, X_enc.shape[0])
        if method == "reduced_error":
            stats = _pruning.node_stats(target, tree, X_enc, y_enc, w)
            tree, report = _pruning.reduced_error(target, tree, stats,
                                                  bool(est.strict_improvement))
        else:
            if target.regression:
                raise ValueError("pessimistic pruning is for classifiers.")
            tree, report = _pruning.pessimistic(target, tree, X_enc, y_enc, w,
                                                float(est.confidence_factor),
                                                bool(est.subtree_raising))
    est.tree_, new_report = _pruning.finish(tree, report, est.schema_.feature_names,
                                            renumber=method == "cost_complexity")
    est.pruning_report_ = list(getattr(estimator, "pruning_report_", [])) + new_report
    est.pruning = method
    return est
