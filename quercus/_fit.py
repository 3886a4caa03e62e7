"""The fit pipeline: a tree from training rows, in plain functions of the parameters.

Encode the targets, weigh the rows (sample and class weights), set a validation set aside
(``eval_set`` or a hold-out), drop the rows of weight zero, bin, grow, post-prune.
:func:`fit_tree` runs it on a validated 2-d X and returns a :class:`FittedTree`, which the
estimator stores; the cost-complexity folds run :func:`fit_encoded` on their rows.

``params`` is the estimator's parameters, read only: the estimator itself, whose public
parameters (``criterion``, ``max_depth``, ...) are all this module reads of it.
"""

import copy
import functools
import inspect
import numbers
from contextlib import contextmanager
from dataclasses import replace
from typing import NamedTuple

import numba
import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.model_selection import train_test_split
from sklearn.utils.class_weight import compute_sample_weight

from . import _prepare, _pruning, _small_cv
from ._binning import Bins, bin_features
from ._fold_bins import FoldBins
from ._grower import (MISSING_CODES, BinnedData, GrowConfig, Validation, grow, root_risk,
                      subtree_limit, whole_tree_tables)
from ._kernels.complexity import RISK_ENTROPY, RISK_ERROR, RISK_IMPURITY
from ._kernels.criteria import check_classes, criterion_code
from ._kernels.folds import MAX_CLASSES, table_moments
from ._kernels.schema import CAT_MULTIWAY, CAT_ONE_VS_REST, CAT_ORDERED
from ._memory import check_fit_memory
from ._params import resolve_counts, resolve_n_jobs
from ._prepare import Schema
from ._pruning import (choose_row, complexity_table, finish, node_stats, pessimistic,
                       prune_at_alpha, prune_to_row, reduced_error, rng_of)
from ._target import Target, is_regressor
from ._tree import TreeArrays

# Training data kept for ``explain()`` without arguments only up to this many cells, so a
# large fit does not hold a second copy of X alive.
EXPLAIN_CACHE_CELLS = 5_000_000

_CAT_MODES = {"multiway": CAT_MULTIWAY, "binary": CAT_ONE_VS_REST,
              "one_vs_rest": CAT_ONE_VS_REST, "ordered": CAT_ORDERED}


class FittedTree(NamedTuple):
    """What a fit makes, and an estimator stores as its fitted attributes."""

    tree: TreeArrays
    target: Target
    schema: Schema
    pruning_report: list
    explain_data: BinnedData = None  # the binned training rows kept for explain()
    ccp_alpha: float = None       # the alpha cost-complexity pruning applied, if it did
    cp_table: dict = None  # the cross-validated complexity table's columns, if one was made


@contextmanager
def numba_threads(n_jobs, cells=None):
    """Run the kernels inside on ``n_jobs`` threads (numba's setting is per thread).
    ``cells``: the fit's rows times columns; fewer than any step shares out to threads
    (``_pruning.FOLD_THREADS_MIN_CELLS``, the smallest such size) leave the setting as it
    is, since everything runs on one thread then (and working it out costs more than such
    a fit's binning).

    Examples
    --------
    >>> import numba
    >>> with numba_threads(1):
    ...     numba.get_num_threads()
    1
    >>> before = numba.get_num_threads()
    >>> with numba_threads(1, cells=10):
    ...     numba.get_num_threads() == before
    True
    """
    if cells is not None and cells < _pruning.FOLD_THREADS_MIN_CELLS:
        yield
        return
    old = numba.get_num_threads()
    new = resolve_n_jobs(n_jobs)
    if new == old:  # (setting it checks numba's thread pool each time: not for nothing)
        yield
        return
    numba.set_num_threads(new)
    try:
        yield
    finally:
        numba.set_num_threads(old)


# ---------------------------------------------------------------- what the parameters imply
def cross_validates(params):
    """Whether the pruning chooses its subtree by cross-validation (cost complexity
    without a given ``ccp_alpha``).

    Examples
    --------
    >>> from quercus import CARTClassifier
    >>> cross_validates(CARTClassifier(pruning="cost_complexity"))
    True
    >>> cross_validates(CARTClassifier(pruning="cost_complexity", ccp_alpha=0.01))
    False
    """
    return params.pruning == "cost_complexity" and float(params.ccp_alpha) == 0.0


def lazy_ok(params):
    """Whether growth may read thresholds from the training matrix instead of value
    tables: not for the random splitter (its draws need every feature's range) nor for
    the cost-complexity folds (grown on their own rows' codes).

    Examples
    --------
    >>> from quercus import CARTClassifier
    >>> lazy_ok(CARTClassifier()), lazy_ok(CARTClassifier(splitter="random"))
    (True, False)
    """
    return params.splitter != "random" and not cross_validates(params)


def reads_only_bins(params, eval_set):
    """Whether the fit reads the training rows only through their bins: no pruning
    that routes them (C4.5's; cost complexity's folds) and no hold-out taken from them
    (validation pruning without ``eval_set``).

    Examples
    --------
    >>> from quercus import C45Classifier, CARTClassifier
    >>> reads_only_bins(CARTClassifier(), None), reads_only_bins(C45Classifier(), None)
    (True, False)
    """
    if params.pruning == "pessimistic" or cross_validates(params):
        return False
    return eval_set is not None or params.pruning not in ("pre", "reduced_error")


def min_objects(params):
    """C4.5's minimum number of cases: ``min_objects``, or by default 2 with pessimistic
    pruning (J48's) and 0 (off) otherwise.

    Examples
    --------
    >>> from quercus import C45Classifier, ID3Classifier
    >>> min_objects(C45Classifier()), min_objects(ID3Classifier())
    (2.0, 0.0)
    """
    if params.min_objects is not None:
        return params.min_objects
    return 2.0 if params.pruning == "pessimistic" else 0.0


# ---------------------------------------------------------------- the pipeline
def fit_tree(params, X, y, sample_weight, eval_set, from_columns):
    """Fit a tree on ``X`` (a validated 2-d array or DataFrame) and targets ``y``.

    ``from_columns``: bin X straight from its columns, with no float64 copy of it (8 bytes
    a cell), for a fit that reads the rows only through their bins
    (:func:`reads_only_bins`).

    Examples
    --------
    >>> from quercus import ID3Classifier
    >>> from quercus.datasets import load_watermelon
    >>> X, y = load_watermelon("2.0")
    >>> fitted = fit_tree(ID3Classifier(), X, y, None, None, from_columns=True)
    >>> fitted.tree.n_leaves, fitted.target.classes.tolist()
    (9, ['否', '是'])
    """
    lazy = lazy_ok(params)
    check_fit_memory(X, params.max_bins, lazy=lazy, from_columns=from_columns)
    if from_columns:
        with numba_threads(params.n_jobs):  # (binning codes rows in parallel)
            schema, bins = _prepare.fit_schema_and_bin(X, params.categorical_features,
                                                       params.max_bins, lazy=lazy)
        return fit_encoded(params, schema, [None], y, sample_weight, eval_set, bins=bins)
    schema, X_enc = _prepare.fit_schema_and_encode(X, params.categorical_features)
    # Long continuous columns need no value table: their thresholds are read from the
    # float64 matrix (the caller's own, or the encoded copy, held for the fit).
    source = (_prepare.readable_source(X_enc)
              if lazy and not schema.is_categorical.any() else None)
    lazy = source is not None
    if lazy:
        X_enc = source  # the same memory, writable (the kernels take one array type)
    del source
    box = [X_enc]
    del X_enc
    return fit_encoded(params, schema, box, y, sample_weight, eval_set, lazy=lazy)


def fit_encoded(params, schema, X_box, y, sample_weight, eval_set=None, bins=None,
                labels=None, lazy=False, risk_floor=None):
    """The fit from the columns' schema and the encoded matrix (cross-validation folds
    start here with the whole data's: no re-encoding, the same categories).

    ``X_box`` is a one-element list holding the matrix: taken out here, the fit holds
    the only reference to an encoded copy and can free it once binned. It holds None
    when ``bins`` are given: the rows' bins already made (a fit that reads no more,
    or a fold's bins, from the whole data's). ``labels``: a classifier's ``(classes,
    codes)`` or a regressor's coded values, ``y`` already encoded (a fold's, from the whole
    data's).
    ``lazy``: the matrix is the caller's and may be read for thresholds (see
    :func:`quercus._binning.bin_features`). ``risk_floor``: a cross-validation fold's
    cost-complexity floor (:func:`growth_floor`'s of the whole fit; None: the fit's own).
    Returns a :class:`FittedTree`."""
    X_enc = X_box.pop()
    X_all = X_enc
    n, p = (X_enc if bins is None else bins.codes).shape
    target, y_enc = encode_targets(params, y, n, labels)
    w_user, w = sample_weights(params, target, y_enc, sample_weight, n)
    w_all = w
    X_enc, y_enc, w, val = validation_rows(params, schema, target, X_enc, y_enc, w, eval_set)
    # As in scikit-learn, a sample of weight zero is dropped before growing: it takes no
    # part in the thresholds, the class counts or the min_samples_* counts, so a zero
    # weight is exactly the same as removing the row (and an integer weight k the same as
    # k copies of it). classes_ and the schema still come from all rows; the class
    # tie-break order (first appearance) from the rows kept.
    positive = w > 0
    all_rows = bool(positive.all())
    if not all_rows:
        X_enc, y_enc, w, bins = _rows_of(positive, X_enc, y_enc, w, bins)
    del positive
    if not target.regression:
        target = replace(target, class_priority=_prepare.class_priority(y_enc,
                                                                        target.n_classes))
    counts = resolve_counts(params, n, p)
    with numba_threads(params.n_jobs, n * p):  # (binning codes rows in parallel too)
        cv_folds = cross_validates(params)
        fold_bins = None
        if bins is None and cv_folds and all_rows:
            fold_bins, bins = _fold_binning(params, schema, X_enc)
        if bins is None:
            bins = bin_features(X_enc, schema.is_categorical, schema.categories,
                                params.max_bins, lazy=lazy and X_enc is X_all)
        if (cv_folds and all_rows and fold_bins is None and bins.exact
                and _pruning.REUSE_FOLD_BINS):
            fold_bins = bins  # (exact bins: the folds' own, see _fold_binning)
        data = target.binned_data(bins, schema.is_categorical.copy(), y_enc, w)
        del bins
        if not (params.pruning == "pessimistic" or cv_folds):
            # Growing reads the bins; only C4.5's pruning and the cost-complexity folds
            # read the matrix. An encoded copy (a DataFrame with categories: 8 bytes a
            # cell) is released here; a caller's float64 array is not copied in the first
            # place. So are the label codes (the bins' targets are their float copy).
            X_enc = X_all = None
            y_enc = None
        cfg = grow_config(params, target, counts, w)
        # (A regressor's "error" is its squared error: the impurity.)
        cfg.risk_loss = RISK_IMPURITY if target.regression else RISK_CODES[params.ccp_loss]
        cfg.risk_floor = (growth_floor(params, target, data, cfg) if risk_floor is None
                          else risk_floor)
        splits, grown = (_small_table_folds(params, target, data, cfg, w_user, fold_bins,
                                            y_enc)
                         if cv_folds and all_rows and val is None else (None, None))
        if grown is not None:
            tree, pre_log = grown.whole_tree(), []
            every_fold = grown.scorer(X_all, data.y, w_all, cfg.risk_loss)
        else:
            every_fold = None
            tree, pre_log = grow(data, cfg, growth_seed(params, cfg, p), val)
        del grown
        explain_data = data if n * p <= EXPLAIN_CACHE_CELLS else None
        # Pruning needs no bins but the folds' codes: on big data their memory goes
        # before the pruning's.
        del data
        tree, report, ccp_alpha, cp_table = post_prune(
            params, schema, target, tree, pre_log, X_enc=X_enc, y_enc=y_enc, w=w, val=val,
            X_all=X_all, y=y, w_user=w_user, w_all=w_all, fold_bins=fold_bins,
            floor=cfg.risk_floor, splits=splits, every_fold=every_fold)
    return FittedTree(tree, target, schema, report, explain_data, ccp_alpha, cp_table)


RISK_CODES = {"impurity": RISK_IMPURITY, "error": RISK_ERROR, "entropy": RISK_ENTROPY}


def _small_table_folds(params, target, data, cfg, w_user, fold_bins, y_enc):
    """(the folds' splits, :class:`quercus._small_cv.Grown`) of a cross-validated fit
    whose tree and folds one kernel call grows (:func:`quercus._small_cv.eligible`); (the
    splits, None) when a fold lacks a class (the folds dealt, grown the two-call way);
    (None, None) when the fit is not one of them."""
    codes = None if target.regression else y_enc
    n, p = data.codes.shape
    if not (kernels_score_folds(params, target, fold_bins,
                                draws_at_random(params, cfg.max_features, p))
            and _small_cv.eligible(params, target, data, cfg, w_user, fold_bins, codes)):
        return None, None
    splits = _pruning.default_splits(params.cv, n, codes, fold_seed(params.random_state))
    grown = _small_cv.Grown(data, cfg, splits, codes, _fold_threads(n * p))
    return splits, (grown if grown.ok else None)


def kernels_score_folds(params, target, fold_bins, draws):
    """Whether the kernels can grow and score this fit's cross-validation folds from
    their tables (``grow_subtree``, then ``table_moments``): bins to take the folds' from
    (``fold_bins``), no random ``draws`` in growth, and none of absolute error, Poisson
    deviance, C4.5's fractional rule, entropy as the pruning's loss, class weights or more
    than ``MAX_CLASSES`` classes (``KERNEL_FOLDS`` and ``REUSE_FOLD_BINS`` on).

    Examples
    --------
    >>> from quercus import CARTClassifier
    >>> from quercus._target import Target
    >>> target = Target(False, "gini", np.array(["a", "b"]))
    >>> kernels_score_folds(CARTClassifier(), target, fold_bins=object(), draws=False)
    True
    >>> kernels_score_folds(CARTClassifier(ccp_loss="entropy"), target, object(), False)
    False
    """
    return (KERNEL_FOLDS and fold_bins is not None and _pruning.REUSE_FOLD_BINS
            and not draws and params.criterion not in ("absolute_error", "poisson")
            and params.missing_strategy != "fractional" and params.ccp_loss != "entropy"
            and (target.regression or (params.class_weight is None
                                       and target.n_classes <= MAX_CLASSES)))


def _fold_threads(cells):
    """The threads the folds of a table of ``cells`` are shared out to: one below
    ``_pruning.FOLD_THREADS_MIN_CELLS``, where waking a thread costs more than it saves."""
    if cells < _pruning.FOLD_THREADS_MIN_CELLS:
        return 1
    return numba.get_num_threads()


def growth_floor(params, target, data, cfg):
    """The cost-complexity floor of a fit (``GrowConfig.risk_floor``): the smallest alpha
    its pruning looks at, so that no node of smaller risk is split. Cross-validated
    pruning: ``cp`` times the root's risk (rpart's ``cp``: the complexity table starts
    there); ``ccp_alpha`` when the tree is pruned at it and no other pruning comes
    first; else 0. A regressor's ``ccp_loss="entropy"`` (of its means) gets no floor.

    Examples
    --------
    >>> from quercus import CARTClassifier
    >>> growth_floor(CARTClassifier(ccp_alpha=0.02), None, None, None)
    0.02
    >>> growth_floor(CARTClassifier(pruning="pessimistic", ccp_alpha=0.02), None, None, None)
    0.0
    """
    if target is not None and target.regression and params.ccp_loss == "entropy":
        return 0.0
    if cross_validates(params):
        return float(params.cp) * root_risk(data, cfg) if float(params.cp) > 0 else 0.0
    if params.pruning in (None, "pre", "cost_complexity") and float(params.ccp_alpha) > 0:
        return float(params.ccp_alpha)
    return 0.0


def _fold_binning(params, schema, X_enc):
    """(what the cost-complexity folds take their bins from, the bins of every training
    row ``X_enc``) of a cross-validated fit, before it bins its rows.

    With quantile bins that is a :class:`~quercus._fold_bins.FoldBins` of the rows, which
    gives the very bins of a fold's rows (``take_rows``), and of every row too: the data
    is binned once, and no fold bins its rows again (nor takes a float copy of them).
    When every bin is exact, the bins themselves: a fold grows on its rows of them
    (:meth:`quercus._binning.Bins.take_rows`) to the same tree as binning its rows.
    Either element may be None: no FoldBins (exact mode, no more rows than bins, long
    columns, -0.0: then the fit's exact bins serve, else each fold bins its rows), or
    every row's bins still to make (``bin_features``)."""
    if not _pruning.REUSE_FOLD_BINS or params.max_bins is None:  # (the tests' switch)
        return None, None
    if X_enc.shape[0] <= params.max_bins:
        # No column has more distinct values than bins: every bin is exact, and the fit's
        # own bins serve the folds (the very bins a FoldBins would give, without its
        # binning of every row into ranks first).
        return None, None
    binner = FoldBins.of(X_enc, schema.is_categorical, schema.categories, params.max_bins)
    if binner is None:
        return None, None
    bins = binner.take_rows(np.arange(X_enc.shape[0]))
    if bins is None:
        return binner, None
    return (bins if bins.exact else binner), bins


def encode_targets(params, y, n, labels=None):
    """The :class:`~quercus._target.Target` (without its tie order, which comes from the
    rows kept) and the targets coded: float64 values, or class indices. ``labels``: a
    classifier's ``(classes, codes)`` already made, or a regressor's values already
    checked and coded (a fold's, by the whole fit; Poisson's are checked again, as a fold
    of them may sum to zero).

    Examples
    --------
    >>> from quercus import CARTClassifier
    >>> target, codes = encode_targets(CARTClassifier(), ["b", "a", "b"], 3)
    >>> target.classes.tolist(), codes.tolist()
    (['a', 'b'], [1, 0, 1])
    """
    if is_regressor(params):
        if labels is not None and params.criterion != "poisson":
            return Target(True, params.criterion), labels
        return (Target(True, params.criterion),
                _prepare.encode_regression_target(y, n, params.criterion))
    if labels is None:
        classes, y_enc, _ = _prepare.encode_target(y, n, priority=False)
    else:
        classes, y_enc = labels
    if params.categorical_split == "ordered" and len(classes) > 2:
        raise ValueError(
            f"categorical_split='ordered' orders the categories by the proportion of "
            f"one class, which finds the best two-subset split only for two classes; "
            f"got {len(classes)} classes. Use 'binary' or 'multiway'.")
    check_classes(params.criterion, len(classes))
    return Target(False, params.criterion, classes), y_enc


def sample_weights(params, target, y_enc, sample_weight, n):
    """The user's weights checked, and the weights of the fit: those times the class
    weights (a classifier's ``class_weight``).

    Examples
    --------
    >>> import numpy as np
    >>> from quercus import CARTClassifier
    >>> params = CARTClassifier(class_weight={0: 1.0, 1: 3.0})
    >>> target, codes = encode_targets(params, [0, 1, 1], 3)
    >>> [w.tolist() for w in sample_weights(params, target, codes, None, 3)]
    [[1.0, 1.0, 1.0], [1.0, 3.0, 3.0]]
    """
    w_user = _prepare.check_weights(sample_weight, n)
    if target.regression or params.class_weight is None:
        return w_user, w_user
    return w_user, w_user * compute_sample_weight(params.class_weight,
                                                  target.classes[y_enc])


def validation_rows(params, schema, target, X_enc, y_enc, w, eval_set):
    """The rows to grow on and the :class:`~quercus._grower.Validation` rows of
    ``pruning="pre"`` and ``"reduced_error"``: ``eval_set``, or a hold-out of the
    training rows. Returns (X_enc, y_enc, w, validation or None)."""
    needs_validation = params.pruning in ("pre", "reduced_error")
    if eval_set is not None and not needs_validation:
        raise ValueError(f"eval_set is used by pruning='pre' and 'reduced_error'; "
                         f"got pruning={params.pruning!r}.")
    if not needs_validation:
        return X_enc, y_enc, w, None
    if eval_set is not None:
        return X_enc, y_enc, w, encode_eval_set(schema, target, eval_set)
    return hold_out(params, target, X_enc, y_enc, w)


def encode_eval_set(schema, target, eval_set):
    """(X_val, y_val) or (X_val, y_val, w_val) -> :class:`~quercus._grower.Validation`."""
    if not isinstance(eval_set, (tuple, list)) or len(eval_set) not in (2, 3):
        raise ValueError("eval_set must be a tuple (X_val, y_val) or "
                         "(X_val, y_val, sample_weight_val).")
    X_val = _prepare.as_2d(eval_set[0], what="eval_set X")
    X_val_enc = _prepare.encode(X_val, schema)
    y_val = target.encode(eval_set[1], X_val_enc.shape[0])
    if len(y_val) != X_val_enc.shape[0]:
        raise ValueError(f"eval_set: X has {X_val_enc.shape[0]} rows but y has "
                         f"{len(y_val)}.")
    w_val = _prepare.check_weights(eval_set[2] if len(eval_set) == 3 else None,
                                   X_val_enc.shape[0])
    return Validation(X_val_enc, np.asarray(y_val, dtype=np.float64), w_val)


def hold_out(params, target, X_enc, y_enc, w):
    """An internal validation split of ``validation_fraction`` (seeded by
    ``random_state``; stratified for classifiers when every class allows it). Returns
    (X_enc, y_enc, w) of the rows to grow on and the held-out rows' Validation."""
    n = X_enc.shape[0]
    strat = None
    if not target.regression and np.bincount(y_enc).min() >= 2:
        strat = y_enc
    train, test = train_test_split(np.arange(n), test_size=params.validation_fraction,
                                   random_state=rng_of(params.random_state).randint(2**31),
                                   stratify=strat)
    if train.size < 2 or test.size < 1:
        raise ValueError(f"validation_fraction={params.validation_fraction} leaves too "
                         f"few rows to train ({train.size}) or validate ({test.size}).")
    val = Validation(X_enc[test], np.asarray(y_enc[test], dtype=np.float64), w[test])
    return X_enc[train], y_enc[train], w[train], val


def _rows_of(keep, X_enc, y_enc, w, bins):
    """The (X_enc, y_enc, w, bins) of the rows where ``keep`` is True. Only the matrix or
    the bins are given (the other is None); indexing copies them."""
    if bins is None:
        X_enc = X_enc[keep]
    else:
        bins = bins.take_rows(np.flatnonzero(keep))
    return X_enc, y_enc[keep], w[keep], bins


def grow_config(params, target, counts, w):
    """The grower's settings: ``params`` resolved to integers and flags, with the
    sample counts ``counts`` (:func:`quercus._params.resolve_counts`) and the weights
    ``w`` of the rows grown on."""
    mss, msl, mf = counts
    return GrowConfig(
        criterion=criterion_code(params.criterion),
        gain_ratio=params.criterion == "gain_ratio",
        cat_mode=_CAT_MODES[params.categorical_split],
        missing_mode=MISSING_CODES[params.missing_strategy],
        max_surrogate=int(params.max_surrogate),
        surrogates_always=params.surrogates == "always",
        random_splitter=params.splitter == "random",
        max_depth=params.max_depth if params.max_depth is not None else np.iinfo(np.int32).max,
        min_samples_split=mss, min_samples_leaf=msl,
        min_weight_leaf=float(params.min_weight_fraction_leaf) * float(w.sum()),
        min_impurity_decrease=float(params.min_impurity_decrease), max_features=mf,
        min_objects=float(min_objects(params)),
        pre_prune=params.pruning == "pre", strict=bool(params.strict_improvement),
        priority=None if target.regression else target.class_priority)


def draws_at_random(params, max_features, n_features):
    """Whether growth draws from a generator: the random splitter, ``max_features``
    (resolved) below ``n_features``, or a caller's RandomState, which advances as it
    always has.

    Examples
    --------
    >>> from quercus import CARTClassifier
    >>> draws_at_random(CARTClassifier(), 4, 4), draws_at_random(CARTClassifier(), 2, 4)
    (False, True)
    """
    return (params.splitter == "random" or max_features < n_features
            or isinstance(params.random_state, np.random.RandomState))


def growth_seed(params, cfg, n_features):
    """The seed the nodes' random draws are keyed from (``max_features``, the random
    splitter: :mod:`quercus._kernels.draws`), drawn from ``random_state``; None when
    growth draws nothing (:func:`draws_at_random`).

    Examples
    --------
    >>> import types
    >>> from quercus import CARTClassifier
    >>> cfg = types.SimpleNamespace(max_features=4)  # (of 4 features: no draw of them)
    >>> est = CARTClassifier(splitter="random", random_state=0)
    >>> growth_seed(est, cfg, 4) == growth_seed(est, cfg, 4)
    True
    >>> growth_seed(CARTClassifier(), cfg, 4) is None
    True
    """
    if draws_at_random(params, cfg.max_features, n_features):
        # Drawn only when growth draws (a RandomState is a noticeable part of a small
        # cross-validation fold's fit).
        return int(rng_of(params.random_state).randint(2**31))
    return None


# ---------------------------------------------------------------- post-pruning
def post_prune(params, schema, target, tree, pre_log, *, X_enc, y_enc, w, val, X_all, y,
               w_user, w_all, fold_bins=None, floor=0.0, splits=None, every_fold=None):
    """Prune the grown ``tree`` as ``params.pruning`` and ``ccp_alpha`` say.

    ``X_enc``, ``y_enc``, ``w``: the rows the tree grew on (C4.5's pruning routes them);
    ``val``: the validation rows; ``X_all``, ``y``, ``w_user`` (the user's weights),
    ``w_all`` (the fit's): every training row, which the cost-complexity folds split (and
    take their bins from ``fold_bins`` when given: :func:`_fold_binning`); ``floor``: the
    tree's cost-complexity floor (:func:`growth_floor`); ``splits``: the folds when
    already dealt, and ``every_fold`` their scores when already grown
    (:mod:`quercus._small_cv`). Returns (tree,
    report, the alpha applied or None, the complexity table or None)."""
    report = list(pre_log)
    if params.pruning == "reduced_error":
        stats = node_stats(target, tree, val.X, val.y, val.w)
        tree, report = reduced_error(target, tree, stats, bool(params.strict_improvement))
    elif params.pruning == "pessimistic":
        if target.regression:
            raise ValueError("pruning='pessimistic' is C4.5's error-based pruning of "
                             "classifiers; for a regressor use 'cost_complexity' or "
                             "'reduced_error'.")
        tree, report = pessimistic(target, tree, X_enc, y_enc, w,
                                   float(params.confidence_factor),
                                   bool(params.subtree_raising), in_place=True)
    ccp_alpha = cp_table = None
    if cross_validates(params):
        # The codes of the labels the tree grew on are every row's when no row was
        # dropped (a zero weight).
        codes = None if target.regression or len(y_enc) != len(w_user) else y_enc
        # (The tree is the fit's own from here: pruned in place, not copied.)
        # Its weakest links, for the table and the chosen row's pruning alike.
        links = _pruning.weakest_links_of(target, tree, params.ccp_loss)
        if floor > 0.0:
            # The table starts at the floor's subtree (rpart's tree grown to ``cp``).
            tree, more = prune_at_alpha(target, tree, floor, params.ccp_loss,
                                        path=(links[0], links[1], links[4]), in_place=True)
            report += more
            if more:  # (else, as on the textbook's trees, they are the tree's already)
                links = _pruning.weakest_links_of(target, tree, params.ccp_loss)
        cp_table = cross_validated_table(params, schema, target, tree, X_all, y, w_user,
                                         w_all, fold_bins, codes, floor, links, splits,
                                         every_fold)
        row = choose_row(cp_table, params.cv_rule)
        ccp_alpha = float(cp_table["alpha"][row])
        tree, more = prune_to_row(target, tree, row, params.ccp_loss,
                                  path=(links[0], links[1], links[4]), in_place=True)
        report += more
    elif float(params.ccp_alpha) > 0.0:
        ccp_alpha = float(params.ccp_alpha)
        tree, more = prune_at_alpha(target, tree, ccp_alpha, params.ccp_loss)
        report += more
    # A cost-complexity-pruned tree is numbered breadth-first (compacted) even when nothing
    # was cut: the same tree whether grown whole or only to its floor.
    tree, report = finish(tree, report, schema.feature_names, renumber=ccp_alpha is not None)
    return tree, report, ccp_alpha, cp_table


def cross_validated_table(params, schema, target, tree, X_all, y, w_user, w_all, fold_bins,
                          codes, floor=0.0, links=None, splits=None, every_fold=None):
    """rpart's complexity table of ``tree`` (:func:`quercus._pruning.complexity_table`),
    its folds grown by :func:`fit_encoded` with ``params`` unpruned. ``codes``: a
    classifier's labels of every row as class indices (None: coded from ``y``).
    ``floor``: the table's smallest alpha, to which the folds grow; ``links``: the
    tree's weakest links (:func:`quercus._pruning.weakest_links_of`; None: made there).
    ``splits``: the folds, when dealt already (else dealt here); ``every_fold``: their
    scores, when they are grown already (:mod:`quercus._small_cv`).
    Returns the table's columns (a dict of arrays)."""
    y = np.asarray(y)  # (once: a Series' values are a copy to make, for the folds and table)
    if every_fold is not None:  # (every fold grown: none is fitted here)
        return complexity_table(target, tree, X_all, y, w_all, params.ccp_loss, params.cv,
                                None, None, fold_bins, codes, alpha_floor=floor,
                                every_fold=every_fold, links=links, splits=splits)
    seed = None if splits is not None else fold_seed(params.random_state)
    fit_fold, scorer = _fold_fitter(params, schema, target, X_all, y, w_user, w_all,
                                    fold_bins)
    return complexity_table(target, tree, X_all, y, w_all, params.ccp_loss, params.cv, seed,
                            fit_fold, fold_bins, codes, alpha_floor=floor,
                            fold_moments=scorer,
                            every_fold=getattr(scorer, "every_fold", None), links=links,
                            splits=splits)


def fold_seed(random_state):
    """What the cross-validation folds are dealt with (``default_splits``' random_state):
    a seed drawn from ``random_state`` (by :func:`~quercus._pruning.rng_of`), or for None
    the global RandomState itself, which the seed would have been drawn from (a fit
    without a seed is not repeatable anyway).

    Examples
    --------
    >>> fold_seed(0) == fold_seed(0) == np.random.RandomState(0).randint(2**31)
    True
    >>> fold_seed(None) is np.random.mtrand._rand
    True
    """
    if random_state is None:
        return np.random.mtrand._rand
    return int(rng_of(random_state).randint(2**31))


# Parameter values whose deep copy (scikit-learn's clone of a parameter) is themselves.
_ATOMS = frozenset({type(None), bool, int, float, str})
# The module of quercus's estimator classes.
_OWN_ESTIMATORS = __name__.rsplit(".", 1)[0] + "._estimators"
# What scikit-learn's clone copies or keeps beyond the parameters.
_CLONE_EXTRAS = ("_metadata_request", "_sklearn_output_config", "_skl_callbacks")


@functools.cache
def _init_order(cls):
    """The names of ``cls.__init__``'s parameters, in order."""
    return tuple(name for name in inspect.signature(cls.__init__).parameters
                 if name != "self")


def _params_copy(params, **changes):
    """``clone(params).set_params(**changes)``, made directly for an estimator that has
    nothing for clone to handle but its parameters: clone's copy of every parameter and
    check of the copy were a noticeable part of a small fit. The parameters that are not
    atoms (a dict, a list, a RandomState, a splitter) are cloned as clone clones them.

    Examples
    --------
    >>> from quercus import CARTClassifier
    >>> est = CARTClassifier(class_weight={0: 1.0, 1: 2.0})
    >>> copy = _params_copy(est, pruning=None)
    >>> copy.class_weight == est.class_weight, copy.class_weight is est.class_weight
    (True, False)
    """
    cls = type(params)
    if (cls.__sklearn_clone__ is not BaseEstimator.__sklearn_clone__
            or any(hasattr(params, name) for name in _CLONE_EXTRAS)):
        return clone(params).set_params(**changes)
    values = params.get_params(deep=False)
    for name, value in values.items():
        if type(value) not in _ATOMS:
            values[name] = clone(value, safe=False)
    values.update(changes)
    if cls.__module__ == _OWN_ESTIMATORS:
        # (quercus's own __init__ stores each argument, in its order, and does nothing
        # else: not called)
        order = _init_order(cls)
        if len(values) != len(order):  # a change that names no parameter: set_params' error
            return clone(params).set_params(**changes)
        fold = cls.__new__(cls)
        vars(fold).update((name, values[name]) for name in order)
        return fold
    return cls(**values)


def _fold_fitter(params, schema, target, X_all, y, w_user, w_err, fold_bins):
    """``(fit_fold, moments)`` for :func:`quercus._pruning.complexity_table`.

    ``fit_fold(train, bins, labels, floor)``: the fit of a fold's rows ``train`` of every
    training row ``X_all`` (or of ``bins``, its bins from the whole data's) with the
    user's weights ``w_user`` (the fold applies the class weights itself) and no pruning,
    grown to the cost-complexity ``floor`` (the folds are scored at alphas from it up).
    ``moments``: :func:`_fold_scorer`'s (errors counted with ``w_err``), or None."""
    threads = numba.get_num_threads()
    # One thread a fold when the folds run side by side. (Valid by construction: the
    # estimator's validated parameters, and these.)
    changes = dict(pruning=None, ccp_alpha=0.0, n_jobs=1 if threads > 1 else params.n_jobs)
    if params.max_surrogate > 0 and not np.isnan(np.sum(X_all)):
        # With no missing value among the rows, surrogates route none of them: the folds'
        # trees and held-out errors are the same without them, and are grown in one kernel
        # call instead of node by node. (A NaN makes the sum NaN, and summing holds no n x p
        # mask; a sum overflowing to both infinities would only keep the surrogates.)
        changes["max_surrogate"] = 0
    fold_params = _params_copy(params, **changes)
    y = np.asarray(y)
    # A regressor's targets are checked and coded once, not again in every fold (but for
    # Poisson's, which encode_targets checks per fold: a fold of them may sum to zero).
    values = (_prepare.encode_regression_target(y, len(y), params.criterion)
              if is_regressor(params) and params.criterion != "poisson" else None)

    def fit_fold(train, bins, labels, floor):
        X_box = [None] if bins is not None else [X_all[train]]
        if values is not None:
            labels = values[train]
        if bins is not None and labels is not None:
            fold = _fit_fold_bins(fold_params, schema, bins, labels, w_user[train], floor)
            if fold is not None:
                return fold
        return fit_encoded(fold_params, schema, X_box, y[train], w_user[train], bins=bins,
                           labels=labels, risk_floor=floor)

    return fit_fold, _fold_scorer(fold_params, schema, target, X_all, values, w_user,
                                  w_err, fold_bins)


# Cross-validation folds are grown and scored by two kernel calls each (_fold_scorer) when
# they can be; False: every fold through fit_fold and the Python scoring (the tests'
# switch, to compare the two).
KERNEL_FOLDS = True


def _fold_scorer(params, schema, target, X_all, values, w_user, w_err, fold_bins):
    """``moments(train, test, floor, thresholds, labels, codes)`` for
    :func:`quercus._pruning.complexity_table`: a fold's held-out moments from two kernel
    calls, the fold of :func:`_fit_fold_bins` grown whole (``whole_tree_tables``) from its
    rows of ``fold_bins`` and its tables scored by ``table_moments`` as
    :func:`quercus._pruning._errors_along_path` scores a tree (no tree object, no Python
    per node); None where that fold needs the Python path. ``labels``, ``codes``: a
    classifier fold's (classes, training label codes) and held-out label codes, as
    ``fit_fold`` takes them; a regressor's are ``values`` (its coded targets).

    None when no fold can take it: growth drawing at random, absolute error or Poisson
    deviance (no ``values``), class weights, C4.5's fractional rule, entropy as the
    pruning's loss, more than ``MAX_CLASSES`` classes, or no bins to take. ``params`` are
    the folds' own (:func:`_fold_fitter`'s)."""
    n, p = X_all.shape
    counts = resolve_counts(params, n, p)
    regression = target.regression
    if not kernels_score_folds(params, target, fold_bins,
                               draws_at_random(params, counts[2], p)):
        return None
    cfg = grow_config(params, target, counts, w_user)
    cfg.risk_loss = RISK_IMPURITY if regression else RISK_CODES[params.ccp_loss]
    fixed_counts = all(isinstance(v, numbers.Integral)
                       for v in (params.min_samples_split, params.min_samples_leaf))
    frac_w = float(params.min_weight_fraction_leaf)
    fold_cfgs = {}  # (sizes, weight, floor) -> the folds' config: most folds share one
    # (Every fold's weights are positive when every row's is: not checked fold by fold.)
    all_positive = bool((w_user > 0).all())
    # The target of a fold with every class (its classes are the whole data's), made once.
    every_class = None if regression else Target(False, params.criterion, target.classes)

    def moments(train, test, floor, thresholds, labels, codes):
        m = train.size
        if m > subtree_limit(m, regression):
            return None  # (grown node by node)
        w = w_user[train]
        if not (all_positive or (w > 0).all()):
            return None  # (fit_encoded drops the rows of weight zero)
        bins = fold_bins.take_rows(train)
        if bins is None:
            return None
        if regression:
            fold_target, y_fold, held_out = target, values[train], values[test]
        else:
            (classes, y_fold), held_out = labels, codes.astype(np.float64)
            fold_target = (every_class if classes is target.classes
                           else Target(False, params.criterion, classes))
        data = fold_target.binned_data(bins, schema.is_categorical.copy(), y_fold, w)
        # grow_config's settings of this fold: its sizes and its weight.
        mss, msl = ((cfg.min_samples_split, cfg.min_samples_leaf) if fixed_counts
                    else resolve_counts(params, m, p)[:2])
        key = (mss, msl, frac_w * float(w.sum()) if frac_w else 0.0, floor)
        fold_cfg = fold_cfgs.get(key)
        if fold_cfg is None:
            fold_cfg = fold_cfgs[key] = replace(cfg, min_samples_split=mss,
                                                min_samples_leaf=msl, min_weight_leaf=key[2],
                                                risk_floor=floor)
        nodes, count, cat_map, surs, _ = whole_tree_tables(data, fold_cfg)
        one = np.array([0, count])
        mean, m2 = table_moments(
            nodes, one, cat_map, np.array([0, cat_map.size]), surs,
            np.array([0, surs.sur_feature.shape[0]]), data.y, np.arange(m), np.array([0, m]),
            data.n_stats, regression, cfg.risk_loss, X_all[test], held_out, w_err[test],
            np.array([0, test.size]), thresholds)
        return test.size, mean[0], m2[0]

    def every_fold(splits, floor, thresholds, y_codes):
        """Every fold's (count, mean, m2) as :func:`moments` gives them, in fold order,
        from one grow and one scoring call (a call per thread): each fold a root of
        ``grow_subtree`` on its rows of the whole data's exact bins (``take_rows`` is
        then a copy of them, and the fold's tree the same). None when a fold needs its
        own: its classes are not all of them, its settings differ (fractional sizes),
        or the folds are bigger than ``_small_cv.EVERY_FOLD_MAX_ROWS`` rows."""
        if not (isinstance(fold_bins, Bins) and fixed_counts and not frac_w
                and all_positive):
            return None
        # (A fold is too big for one call past a size: the biggest fold says.)
        biggest = max(train.size for train, _ in splits)
        if biggest > min(_small_cv.EVERY_FOLD_MAX_ROWS,
                         subtree_limit(biggest, regression)):
            return None
        data = (target if regression else every_class).binned_data(
            fold_bins, schema.is_categorical.copy(), values if regression else y_codes,
            w_user)
        fold_cfg = copy.copy(cfg)  # (dataclasses.replace checks every field: slower)
        fold_cfg.min_weight_leaf, fold_cfg.risk_floor = 0.0, floor
        grown = _small_cv.Grown(data, fold_cfg, splits, None if regression else y_codes,
                                _fold_threads(X_all.size), whole=False)
        if not grown.ok:
            return None
        return grown.scorer(X_all, data.y, w_err, cfg.risk_loss)(splits, floor, thresholds,
                                                                y_codes)

    moments.every_fold = every_fold
    return moments


def _fit_fold_bins(params, schema, bins, labels, w_user, floor):
    """:func:`fit_encoded`'s fit of a cross-validation fold from its rows' ``bins``, coded
    ``labels`` and (checked) weights ``w_user``, unpruned, grown to the cost-complexity
    ``floor``: the same steps with none of what a fold does not need (a hold-out, the
    thread setting, binning, pruning), since a fit on a few dozen rows costs little more
    than those. None when the fold needs more: a row of weight zero, or a fold too big to
    grow in one kernel call. A fold that draws at random draws its seed as
    :func:`fit_encoded` does, once."""
    n, p = bins.codes.shape
    counts = resolve_counts(params, n, p)
    target, y_enc = encode_targets(params, None, n, labels)
    w = w_user
    if not target.regression and params.class_weight is not None:
        w = w_user * compute_sample_weight(params.class_weight, target.classes[y_enc])
    if not (w > 0).all():
        return None
    if not target.regression:
        target = replace(target, class_priority=_prepare.class_priority(y_enc,
                                                                        target.n_classes))
    data = target.binned_data(bins, schema.is_categorical.copy(), y_enc, w)
    cfg = grow_config(params, target, counts, w)
    cfg.risk_loss = RISK_IMPURITY if target.regression else RISK_CODES[params.ccp_loss]
    cfg.risk_floor = floor
    if n > subtree_limit(n, target.regression):
        return None  # (grown node by node, on the threads numba_threads sets)
    tree, _ = grow(data, cfg, growth_seed(params, cfg, p))
    return FittedTree(tree, target, schema, [])
