"""Estimators: a thin validated layer over the grower and the kernels."""

from contextlib import contextmanager
from functools import cache

import numba
import numpy as np
import pandas as pd
from scipy.sparse import csr_matrix
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.model_selection import train_test_split
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _prepare
from ._binning import bin_features
from ._memory import check_fit_memory, trimmed_after
from ._grower import MISSING_CODES, BinnedData, GrowConfig, Validation, criterion_code, grow
from ._kernels._jit import read_only
from ._kernels.predict import (apply_tree, path_lengths_and_nodes, predict_tree,
                               route_table)
from ._kernels.splits import CAT_MULTIWAY, CAT_ONE_VS_REST, CAT_ORDERED, FRACTIONAL, LEAF
from ._params import REGRESSOR_PARAMS, TREE_PARAMS, resolve_counts, resolve_n_jobs

# Training data kept for ``explain()`` without arguments only up to this many cells, so a
# large fit does not hold a second copy of X alive.
_EXPLAIN_CACHE_CELLS = 5_000_000

_CAT_MODES = {"multiway": CAT_MULTIWAY, "binary": CAT_ONE_VS_REST,
              "one_vs_rest": CAT_ONE_VS_REST, "ordered": CAT_ORDERED}

_COMMON_PARAMS_DOC = """    splitter : {"best", "random"}, default="best"
        "best" scans every candidate; "random" draws one candidate per feature (a uniform
        threshold between the node's minimum and maximum, or a random category) and keeps
        the best of those. With ``max_features=1`` it is the seeds' random attribute choice.
    max_depth : int or None, default=None
        Maximum depth; None grows until the leaves are pure or cannot be split.
    min_samples_split : int or float, default=2
        Minimum samples at a node to split it (a float is a fraction of the samples).
    min_samples_leaf : int or float, default=1
        Minimum samples in each non-empty child.
    min_weight_fraction_leaf : float, default=0.0
        Minimum share of the total sample weight in each non-empty child.
    min_objects : float or None, default=None
        C4.5's minimum number of cases (Weka J48's ``-M``): a node with less weight than
        twice this is a leaf, a multiway split needs two branches with at least this much
        weight, and each side of a binary split needs
        ``min(max(0.1 * weight / n_classes, min_objects), 25)``. None: 2 with
        ``pruning="pessimistic"`` (J48's default), else 0 (off).
    min_impurity_decrease : float, default=0.0
        Split only if ``N_t / N * (impurity - weighted child impurity)`` reaches this
        (the threshold epsilon of the seeds' CART algorithm).
    max_features : int, float, "sqrt", "log2" or None, default=None
        Number of features drawn at random at each node.
    max_bins : int in [2, 65535] or None, default=255
        A numeric attribute with more distinct values than this is cut into ``max_bins``
        bins of about equal counts (histogram mode, fast); one with fewer keeps every
        distinct value (exact mode: every midpoint is a candidate, as in the book and
        scikit-learn). Thresholds are always midpoints of two observed values. None: exact
        everywhere (what agreement with scikit-learn, Weka's J48 and rpart needs).
    categorical_features : array-like of str, int or bool, default=None
        Which columns are categorical. None: object, string, category and bool columns.
    missing_strategy : {"learned", "fractional", "surrogate"}, default="learned"
        How missing values (NaN, None, pd.NA) are handled. "fractional": C4.5's rule, the
        gain scaled by the known fraction rho and a sample missing the split attribute sent
        down every branch with a share of its weight; "surrogate": rpart's surrogate splits,
        then the majority branch; "learned": scikit-learn's rule, missing values join the
        branch that scores best.
    max_surrogate : int, default=5
        Surrogate splits kept per node (rpart's maxsurrogate), for
        ``missing_strategy="surrogate"``.
    surrogates : {"where_missing", "always"}, default="where_missing"
        Where ``missing_strategy="surrogate"`` searches surrogate splits: "where_missing",
        only at the nodes whose training samples include some missing the split attribute
        (elsewhere a sample missing it at prediction goes to the heavier child, as rpart
        does when every surrogate is missing too); "always": at every split node, as rpart
        does (a slower fit; surrogates then also route future missing values at nodes
        that saw none). The tree itself is the same either way.
    n_jobs : int or None, default=None
        Threads for the split search and for prediction: None or -1 all cores, -2 all but
        one. The tree does not depend on it: each feature is searched by one thread.
    random_state : int, RandomState or None, default=None
        Seeds ``max_features`` and ``splitter="random"``.
"""


@contextmanager
def numba_threads(n_jobs):
    """Run the kernels inside on ``n_jobs`` threads (numba's setting is per thread)."""
    old = numba.get_num_threads()
    numba.set_num_threads(resolve_n_jobs(n_jobs))
    try:
        yield
    finally:
        numba.set_num_threads(old)


@cache
def _param_names(cls):
    return tuple(BaseEstimator._get_param_names.__func__(cls))


class _BaseTree(BaseEstimator):
    """Fitting, routing and inspection shared by classifiers and regressors."""

    _is_regressor = False

    @classmethod
    def _get_param_names(cls):
        # scikit-learn reads __init__'s signature on every get_params (clone, validation,
        # repr), several times per fit and per cross-validation fold. It does not change, so
        # it is read once per class.
        return list(_param_names(cls))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.allow_nan = True
        return tags

    def _fit(self, X, y, sample_weight, eval_set=None):
        self._validate_params()
        X = _prepare.as_2d(X, min_samples=2)
        with trimmed_after(X.shape[0] * X.shape[1]):
            return self._fit_2d(X, y, sample_weight, eval_set)

    def _fit_2d(self, X, y, sample_weight, eval_set):
        validate_data(self, X, reset=True, skip_check_array=True)
        from_columns = self._reads_only_bins(eval_set)
        check_fit_memory(X, self.max_bins, lazy=self._lazy_ok(), from_columns=from_columns)
        if from_columns:
            # Binned straight from the columns: no float64 copy of X (8 bytes a cell) for
            # a DataFrame with categorical columns.
            schema, bins = _prepare.fit_schema_and_bin(X, self.categorical_features,
                                                       self.max_bins, lazy=self._lazy_ok())
            return self._fit_encoded(schema, [None], y, sample_weight, eval_set, bins=bins)
        schema, X_enc = _prepare.fit_schema_and_encode(X, self.categorical_features)
        # Long continuous columns need no value table: their thresholds are read from the
        # float64 matrix (the caller's own, or the encoded copy, held for the fit).
        source = (_prepare.readable_source(X_enc)
                  if self._lazy_ok() and not schema.is_categorical.any() else None)
        lazy = source is not None
        if lazy:
            X_enc = source  # the same memory, writable (the kernels take one array type)
        del source
        box = [X_enc]
        del X_enc
        return self._fit_encoded(schema, box, y, sample_weight, eval_set, lazy=lazy)

    def _lazy_ok(self):
        """Whether growth may read thresholds from the training matrix instead of value
        tables: not for the random splitter (its draws need every feature's range) nor for
        the cost-complexity folds (grown on their own rows' codes)."""
        return self.splitter != "random" and not self._cross_validates()

    def _reads_only_bins(self, eval_set):
        """Whether the fit reads the training rows only through their bins: no pruning
        that routes them (C4.5's; cost complexity's folds) and no hold-out taken from them
        (validation pruning without ``eval_set``)."""
        if self.pruning == "pessimistic" or self._cross_validates():
            return False
        return eval_set is not None or self.pruning not in ("pre", "reduced_error")

    def _cross_validates(self):
        """Whether the pruning chooses its subtree by cross-validation (cost complexity
        without a given ``ccp_alpha``)."""
        return self.pruning == "cost_complexity" and float(self.ccp_alpha) == 0.0

    def _fit_encoded(self, schema, X_box, y, sample_weight, eval_set=None, bins=None,
                     labels=None, lazy=False):
        """The fit from the columns' schema and the encoded matrix (cross-validation folds
        start here with the whole data's: no re-encoding, the same categories).

        ``X_box`` is a one-element list holding the matrix: taken out here, the fit holds
        the only reference to an encoded copy and can free it once binned. It holds None
        when ``bins`` are given: the rows' bins already made (a fit that reads no more,
        or a fold's rows of the whole data's exact bins). ``labels``: a classifier's
        ``(classes, codes)``, ``y`` already encoded (a fold's, from the whole data's).
        ``lazy``: the matrix is the caller's and may be read for thresholds (see
        :func:`quercus._binning.bin_features`)."""
        X_enc = X_box.pop()
        X_all = X_enc
        n, p = (X_enc if bins is None else bins.codes).shape
        if self._is_regressor:
            y_enc = _prepare.encode_regression_target(y, n, self.criterion)
            classes = None
        else:
            if labels is None:
                classes, y_enc, _ = _prepare.encode_target(y, n)
            else:
                classes, y_enc = labels
            self.classes_ = classes
            self.n_classes_ = len(classes)
            if self.categorical_split == "ordered" and len(classes) > 2:
                raise ValueError(
                    f"categorical_split='ordered' orders the categories by the proportion of "
                    f"one class, which finds the best two-subset split only for two classes; "
                    f"got {len(classes)} classes. Use 'binary' or 'multiway'.")
        self.schema_ = schema
        w_user = _prepare.check_weights(sample_weight, n)
        w = w_user
        if not self._is_regressor and self.class_weight is not None:
            w = w * compute_sample_weight(self.class_weight, classes[y_enc])
        w_all = w
        needs_validation = self.pruning in ("pre", "reduced_error")
        if eval_set is not None and not needs_validation:
            raise ValueError(f"eval_set is used by pruning='pre' and 'reduced_error'; "
                             f"got pruning={self.pruning!r}.")
        val = None
        if needs_validation:
            if eval_set is not None:
                val = self._encode_eval_set(eval_set)
            else:
                X_enc, y_enc, w, val = self._hold_out(X_enc, y_enc, w)
        positive = w > 0
        # As in scikit-learn, a sample of weight zero is dropped before growing: it takes no
        # part in the thresholds, the class counts or the min_samples_* counts, so a zero
        # weight is exactly the same as removing the row (and an integer weight k the same as
        # k copies of it). classes_ and the schema still come from all rows; the class
        # tie-break order (first appearance) from the rows kept.
        all_rows = bool(positive.all())
        if not all_rows:  # (indexing copies X: only when a row goes)
            y_enc, w = y_enc[positive], w[positive]
            if bins is None:
                X_enc = X_enc[positive]
            else:
                bins = bins.take_rows(np.flatnonzero(positive))
        if not self._is_regressor:
            self._class_priority = _prepare.class_priority(y_enc, len(classes))
        del positive
        mss, msl, mf = resolve_counts(self, n, p)
        if bins is None:
            bins = bin_features(X_enc, schema.is_categorical, schema.categories,
                                self.max_bins, lazy=lazy and X_enc is X_all)
        data = self._binned(bins, y_enc, w, schema)
        cv_folds = self._cross_validates()
        # The folds grow on their rows of these bins when they are every row's exact bins:
        # the same trees as binning each fold's rows (Bins.take_rows), in a fraction of the
        # time and without a float copy of each fold's rows.
        fold_bins = bins if cv_folds and all_rows and bins.exact else None
        del bins
        if not (self.pruning == "pessimistic" or cv_folds):
            # Growing reads the bins; only C4.5's pruning and the cost-complexity folds read
            # the matrix. An encoded copy (a DataFrame with categories: 8 bytes a cell) is
            # released here; a caller's float64 array is not copied in the first place.
            # So are the label codes (the bins' targets are their float copy).
            X_enc = X_all = None
            y_enc = None
        cfg = GrowConfig(
            criterion=criterion_code(self.criterion),
            gain_ratio=self.criterion == "gain_ratio",
            cat_mode=_CAT_MODES[self.categorical_split],
            missing_mode=MISSING_CODES[self.missing_strategy],
            max_surrogate=int(self.max_surrogate),
            surrogates_always=self.surrogates == "always",
            random_splitter=self.splitter == "random",
            max_depth=self.max_depth if self.max_depth is not None else np.iinfo(np.int32).max,
            min_samples_split=mss, min_samples_leaf=msl,
            min_weight_leaf=float(self.min_weight_fraction_leaf) * float(w.sum()),
            min_impurity_decrease=float(self.min_impurity_decrease), max_features=mf,
            min_objects=float(self._min_objects()),
            pre_prune=self.pruning == "pre", strict=bool(self.strict_improvement),
            priority=None if self._is_regressor else self._class_priority)
        rng = None
        if cfg.random_splitter or cfg.max_features < p or isinstance(
                self.random_state, np.random.RandomState):
            # A generator is made only when growth draws from it (seeding one is a noticeable
            # part of a small cross-validation fold's fit); a caller's RandomState
            # advances as it always has.
            rng = np.random.default_rng(check_random_state(self.random_state).randint(2**31))
        with numba_threads(self.n_jobs):
            self.tree_, pre_log = grow(data, cfg, rng, val)
            self._explain_data = data if n * p <= _EXPLAIN_CACHE_CELLS else None
            # Pruning needs no bins but the folds' codes: on big data their memory goes
            # before the pruning's.
            del data
            self._post_prune(X_all, y, X_enc, y_enc, w, val, (w_user, w_all), pre_log,
                             fold_bins)
        return self

    def cost_complexity_pruning_path(self, X, y, sample_weight=None):
        """The weakest-link pruning path, with scikit-learn's meaning.

        Grows the tree on ``X, y`` with this estimator's parameters but no pruning, and
        returns the effective alphas of the nested subtrees and the total leaf risk of each
        (``ccp_loss``: by default the criterion's impurity weighted by the leaves' share of
        the weight, as scikit-learn's ``impurities``). ``ccp_alpha`` set to a value between
        two consecutive alphas gives the corresponding subtree.

        Returns
        -------
        sklearn.utils.Bunch with ``ccp_alphas`` and ``impurities``

        Examples
        --------
        >>> from quercus import CARTClassifier
        >>> from quercus.datasets import load_golf
        >>> path = CARTClassifier().cost_complexity_pruning_path(*load_golf())
        >>> float(path.ccp_alphas[0]), bool((path.impurities[1:] >= path.impurities[:-1]).all())
        (0.0, True)
        """
        from sklearn.base import clone
        from sklearn.utils import Bunch

        from . import _pruning
        est = clone(self).set_params(pruning=None, ccp_alpha=0.0)
        est.fit(X, y, sample_weight=sample_weight)
        alphas, risks, _ = _pruning.weakest_link_path(est, est.tree_, self.ccp_loss)
        return Bunch(ccp_alphas=alphas, impurities=risks)

    def save(self, path):
        """Write the fitted model to ``path`` as plain JSON (never pickle).

        The file holds the estimator's class and parameters, the feature names, which
        columns are categorical and their categories, the classes and the tree's arrays;
        ``quercus.load(path)`` reads it back and checks every field.

        Examples
        --------
        >>> import os, tempfile, quercus
        >>> from quercus.datasets import load_golf
        >>> X, y = load_golf()
        >>> clf = quercus.C45Classifier().fit(X, y)
        >>> path = os.path.join(tempfile.mkdtemp(), "golf.json")
        >>> clf.save(path)
        >>> (quercus.load(path).predict(X) == clf.predict(X)).all()
        np.True_
        """
        from ._persist import save
        check_is_fitted(self, "tree_")
        save(self, path)

    def _min_objects(self):
        if self.min_objects is not None:
            return self.min_objects
        return 2.0 if self.pruning == "pessimistic" else 0.0

    def pruning_report(self):
        """What pruning removed and why: one row per pruned (or not split) node.

        Columns: node (its index in the pruned tree; -1 if a later step removed it too),
        feature, leaves_removed, error_before / error_after (validation error, estimated
        errors, or training errors, as the method defines them) and reason.

        Examples
        --------
        >>> from quercus import ID3Classifier
        >>> from quercus.datasets import watermelon_train_validation_split
        >>> X_tr, X_va, y_tr, y_va = watermelon_train_validation_split()
        >>> cols = ["脐部", "色泽", "根蒂", "敲声", "纹理", "触感"]
        >>> clf = ID3Classifier(pruning="reduced_error").fit(
        ...     X_tr[cols], y_tr, eval_set=(X_va[cols], y_va))
        >>> clf.pruning_report()[["feature", "error_before", "error_after"]].values.tolist()
        [['纹理', 2.0, 1.0], ['色泽', 2.0, 1.0]]
        """
        check_is_fitted(self, "tree_")
        return pd.DataFrame(self.pruning_report_, columns=[
            "node", "feature", "leaves_removed", "error_before", "error_after", "reason"])

    def _binned(self, bins, y_enc, w, schema):
        y_f = np.asarray(y_enc, dtype=np.float64)
        if self._is_regressor:
            y2 = _prepare.second_statistic(y_f, self.criterion)
            n_stats, n_out = 3, 1
        else:
            y2 = y_f
            n_stats = n_out = len(self.classes_)
        return BinnedData.from_bins(bins, schema.is_categorical.copy(), y_f, y2, w, n_stats,
                                    n_out)

    def _encode_targets(self, y, n, what="eval_set"):
        if self._is_regressor:
            return _prepare.encode_regression_target(y, n, self.criterion)
        y = np.asarray(y, dtype=object).ravel()
        codes = pd.Index(self.classes_).get_indexer(y)
        if (codes < 0).any():
            bad = y[np.flatnonzero(codes < 0)[0]]
            raise ValueError(f"{what}: label {bad!r} is not one of the training classes "
                             f"{list(self.classes_)}.")
        return codes

    def _encode_eval_set(self, eval_set):
        """(X_val, y_val) or (X_val, y_val, w_val) -> Validation."""
        if not isinstance(eval_set, (tuple, list)) or len(eval_set) not in (2, 3):
            raise ValueError("eval_set must be a tuple (X_val, y_val) or "
                             "(X_val, y_val, sample_weight_val).")
        X_val = _prepare.as_2d(eval_set[0], what="eval_set X")
        X_val_enc = _prepare.encode(X_val, self.schema_)
        y_val = self._encode_targets(eval_set[1], X_val_enc.shape[0])
        if len(y_val) != X_val_enc.shape[0]:
            raise ValueError(f"eval_set: X has {X_val_enc.shape[0]} rows but y has "
                             f"{len(y_val)}.")
        w_val = _prepare.check_weights(eval_set[2] if len(eval_set) == 3 else None,
                                       X_val_enc.shape[0])
        return Validation(X_val_enc, np.asarray(y_val, dtype=np.float64), w_val)

    def _hold_out(self, X_enc, y_enc, w):
        """An internal validation split of ``validation_fraction`` (seeded by
        ``random_state``; stratified for classifiers when every class allows it)."""
        n = X_enc.shape[0]
        strat = None
        if not self._is_regressor and np.bincount(y_enc).min() >= 2:
            strat = y_enc
        train, test = train_test_split(np.arange(n), test_size=self.validation_fraction,
                                       random_state=check_random_state(self.random_state)
                                       .randint(2**31), stratify=strat)
        if train.size < 2 or test.size < 1:
            raise ValueError(f"validation_fraction={self.validation_fraction} leaves too "
                             f"few rows to train ({train.size}) or validate ({test.size}).")
        val = Validation(X_enc[test], np.asarray(y_enc[test], dtype=np.float64), w[test])
        return X_enc[train], y_enc[train], w[train], val

    def _post_prune(self, X_all, y, X_enc, y_enc, w, val, all_weights, pre_log,
                    fold_bins=None):
        """``X_all``: every row encoded (the folds of cost-complexity pruning split it,
        and grow on their rows of ``fold_bins`` when given: every row's exact bins);
        ``X_enc``, ``y_enc``, ``w``: the rows the tree grew on."""
        from . import _pruning
        method = self.pruning
        tree = self.tree_
        report = [dict(r, feature=self.schema_.feature_names[r["feature"]])
                  for r in pre_log]
        if method == "reduced_error":
            stats = _pruning.node_stats(self, tree, val.X, val.y, val.w)
            tree, report = _pruning.reduced_error(self, tree, stats,
                                                  bool(self.strict_improvement))
        elif method == "pessimistic":
            if self._is_regressor:
                raise ValueError("pruning='pessimistic' is C4.5's error-based pruning of "
                                 "classifiers; for a regressor use 'cost_complexity' or "
                                 "'reduced_error'.")
            tree, report = _pruning.pessimistic(self, tree, X_enc, y_enc, w,
                                                float(self.confidence_factor),
                                                bool(self.subtree_raising), in_place=True)
        alpha = float(self.ccp_alpha)
        if self._cross_validates():
            # The codes of the labels the tree grew on are every row's when no row was
            # dropped (a zero weight).
            codes = (None if self._is_regressor or len(y_enc) != len(all_weights[0])
                     else y_enc)
            self.cp_table_ = _pruning.complexity_table(
                self, tree, X_all, y, *all_weights, self.ccp_loss, self.cv,
                check_random_state(self.random_state).randint(2**31), fold_bins, codes)
            row = _pruning.choose_row(self.cp_table_, self.cv_rule)
            self.ccp_alpha_ = float(self.cp_table_["alpha"].iloc[row])
            tree, more = _pruning.prune_to_row(self, tree, row, self.ccp_loss)
            report += more
        elif alpha > 0.0:
            tree, more = _pruning.prune_at_alpha(self, tree, alpha, self.ccp_loss)
            report += more
            self.ccp_alpha_ = alpha
        self.tree_, self.pruning_report_ = _pruning.finish(tree, report)

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_explain_data", None)  # training data is not part of the model
        return state

    # ------------------------------------------------------------------ routing
    def _encode(self, X, any_order=False, inf_checked_later=False):
        check_is_fitted(self, "tree_")
        X = _prepare.as_2d(X)
        validate_data(self, X, reset=False, skip_check_array=True)
        return _prepare.encode(X, self.schema_, any_order, inf_checked_later)

    def _node_outputs(self):
        """Per-node prediction: class probabilities, or the regression value."""
        value = self.tree_.value
        if self._is_regressor:
            return value
        total = value.sum(axis=1, keepdims=True)
        return np.divide(value, total, out=np.zeros_like(value), where=total > 0)

    def _spreads_rows(self):
        """Whether a row can end in several nodes (C4.5's fractional missing values)."""
        t = self.tree_
        return bool(np.any((t.kind != LEAF) & (t.missing_mode == FRACTIONAL)))

    def _routing(self):
        """What every prediction of the fitted tree reads besides X: (route table, node
        outputs, each node's class (None for a regressor), whether rows spread), made once
        per tree and kept with it (:meth:`TreeArrays.cached`). Remade per call, they were
        most of a small prediction's time."""
        tree = self.tree_
        priority = None if self._is_regressor else np.asarray(self._class_priority)

        def make():
            outputs = self._node_outputs()
            classes = None if priority is None else self._majority(outputs)
            return (route_table(tree.kernel_args()), outputs, classes, self._spreads_rows())

        # The classes' tie order is part of the key: another estimator may be given the tree.
        return tree.cached(("routing", None if priority is None else priority.tobytes()),
                           make)

    def _predict_outputs(self, X):
        check_is_fitted(self, "tree_")
        _, outputs, _, spreads = self._routing()
        if not spreads:
            # Every row ends in one node: the node's output, taken from apply's kernel,
            # which routes several rows at once.
            return outputs[self.apply(X)]
        X_enc = self._encode(X, any_order=True)
        t = self.tree_
        with numba_threads(self.n_jobs):
            return predict_tree(X_enc, t.kernel_args(), t.weighted_n_node_samples, outputs)

    def apply(self, X):
        """Index of the node each sample ends in.

        That is a leaf, except for a sample that stops early: one whose category was never
        seen at fit time at a multiway or subset node, or (``missing_strategy="fractional"``)
        one missing the split attribute, which C4.5 sends down every branch; ``apply`` then
        returns the node where that happened.

        Examples
        --------
        >>> from quercus import ID3Classifier
        >>> from quercus.datasets import load_watermelon
        >>> X, y = load_watermelon("2.0")
        >>> clf = ID3Classifier().fit(X, y)
        >>> int(clf.apply(X.iloc[:1])[0]) > 0
        True
        """
        X_enc = self._encode(X, any_order=True, inf_checked_later=True)
        rt = self._routing()[0]
        with numba_threads(self.n_jobs):
            nodes, has_inf = apply_tree(X_enc, self.tree_.kernel_args(), rt, check_inf=True)
        if has_inf:
            self._encode(X)  # raises the error that names the column and the row
            raise ValueError("Input X contains an infinite value.")
        return nodes

    def decision_path(self, X):
        """Sparse indicator matrix (n_samples, n_nodes) of the nodes each sample visits.

        Examples
        --------
        >>> from quercus import CARTClassifier
        >>> from quercus.datasets import load_golf
        >>> X, y = load_golf()
        >>> clf = CARTClassifier().fit(X, y)
        >>> clf.decision_path(X).shape[1] == clf.tree_.node_count
        True
        """
        X_enc = self._encode(X)
        t = self.tree_
        indptr, indices = path_lengths_and_nodes(read_only(X_enc), t.kernel_args(),
                                                 t.max_depth + 1)
        data = np.ones(indices.shape[0], dtype=np.int64)
        return csr_matrix((data, indices, indptr), shape=(X_enc.shape[0], t.node_count))

    # ------------------------------------------------------------------ inspection
    def get_depth(self):
        """Depth of the tree (a single leaf has depth 0).

        Examples
        --------
        >>> from quercus import ID3Classifier
        >>> from quercus.datasets import load_watermelon
        >>> ID3Classifier().fit(*load_watermelon("2.0")).get_depth()
        4
        """
        check_is_fitted(self, "tree_")
        return self.tree_.max_depth

    def get_n_leaves(self):
        """Number of leaves (empty multiway branches included).

        Examples
        --------
        >>> from quercus import ID3Classifier
        >>> from quercus.datasets import load_watermelon
        >>> ID3Classifier().fit(*load_watermelon("2.0")).get_n_leaves()
        9
        """
        check_is_fitted(self, "tree_")
        return self.tree_.n_leaves

    @property
    def feature_importances_(self):
        """Normalised total impurity decrease brought by each feature (weighted by the
        node's share of the training weight), as in scikit-learn.

        Examples
        --------
        >>> from quercus import CARTClassifier
        >>> from quercus.datasets import load_watermelon
        >>> clf = CARTClassifier(max_depth=1).fit(*load_watermelon("2.0"))
        >>> dict(zip(clf.feature_names_in_, clf.feature_importances_.round(2)))["纹理"]
        np.float64(1.0)
        """
        check_is_fitted(self, "tree_")
        t = self.tree_
        imp = np.zeros(self.n_features_in_)
        for node in np.flatnonzero(t.kind != LEAF):
            kids = t.children(node)
            dec = t.weighted_n_node_samples[node] * t.impurity[node] - sum(
                t.weighted_n_node_samples[c] * t.impurity[c] for c in kids)
            imp[t.feature[node]] += dec
        total = imp.sum()
        return imp / total if total > 0 else imp

    def explain(self, node=0, X=None, y=None, sample_weight=None):
        """Every candidate split at ``node`` with the numbers a student computes by hand.

        One row per candidate: the feature, the split (a multiway attribute, ``a == v`` or a
        threshold), the entropy after the split, information gain, intrinsic value, gain
        ratio, Gini index and Gini decrease, and which candidate won and why.

        Parameters
        ----------
        node : int, default=0
            Node index (0 is the root).
        X, y, sample_weight : optional
            Training data; by default the data of the last ``fit`` (kept for data sets up to
            five million cells).

        Returns
        -------
        pandas.DataFrame
            Every column; printed, it shows the columns checked by hand, lined up
            (:class:`quercus._explain.ExplainTable`).

        Examples
        --------
        >>> from quercus import ID3Classifier
        >>> from quercus.datasets import load_watermelon
        >>> clf = ID3Classifier().fit(*load_watermelon("2.0"))
        >>> table = clf.explain()
        >>> table.loc[table["chosen"], "feature"].tolist()
        ['纹理']
        """
        from ._explain import explain_node
        check_is_fitted(self, "tree_")
        return explain_node(self, node, X, y, sample_weight)


class DecisionTreeClassifier(ClassifierMixin, _BaseTree):
    __doc__ = ("""A decision tree classifier for numeric and categorical attributes.

    The general learner behind :class:`ID3Classifier`, :class:`C45Classifier` and
    :class:`CARTClassifier`. Numeric attributes split in two at the midpoint of two adjacent
    observed values; categorical attributes split multiway (one branch per category, the
    attribute is not reused below) or binary (``a == v`` against ``a != v``).

    Parameters
    ----------
    criterion : {"gini", "entropy", "gain_ratio"}, default="gini"
        Split quality: Gini decrease, information gain, or C4.5's gain ratio among the
        candidates whose information gain is at least the average.
    categorical_split : {"binary", "ordered", "multiway"}, default="binary"
        How categorical attributes split: ``"binary"`` is ``a == v`` against ``a != v``;
        ``"ordered"`` the best split of the categories into two subsets (two classes only:
        the categories sorted by the proportion of the second class, then scanned, which
        is exact for Gini and entropy, as rpart does); ``"multiway"`` one branch per
        category.
"""
               + _COMMON_PARAMS_DOC + """    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, multiplied into ``sample_weight`` (scikit-learn's meaning).

    Attributes
    ----------
    tree_ : TreeArrays
        The fitted tree as parallel arrays.
    classes_ : ndarray
        Class labels, sorted.
    n_features_in_, feature_names_in_ : as in scikit-learn.

    Examples
    --------
    >>> from quercus import DecisionTreeClassifier
    >>> from quercus.datasets import load_watermelon
    >>> X, y = load_watermelon("2.0")
    >>> clf = DecisionTreeClassifier(criterion="entropy").fit(X, y)
    >>> clf.predict(X.iloc[:2]).tolist()
    ['是', '是']
""")

    _parameter_constraints = TREE_PARAMS

    def __init__(self, criterion="gini", categorical_split="binary", splitter="best",
                 max_depth=None, min_samples_split=2, min_samples_leaf=1,
                 min_weight_fraction_leaf=0.0, min_impurity_decrease=0.0, min_objects=None,
                 max_features=None, max_bins=255,
                 categorical_features=None,
                 missing_strategy="learned", max_surrogate=5, surrogates="where_missing",
                 class_weight=None,
                 pruning=None, validation_fraction=0.25, strict_improvement=True,
                 confidence_factor=0.25, subtree_raising=True, ccp_alpha=0.0,
                 ccp_loss="impurity", cv=10, cv_rule="1se", n_jobs=None, random_state=None):
        self.criterion = criterion
        self.categorical_split = categorical_split
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.min_objects = min_objects
        self.min_impurity_decrease = min_impurity_decrease
        self.max_features = max_features
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.missing_strategy = missing_strategy
        self.max_surrogate = max_surrogate
        self.surrogates = surrogates
        self.class_weight = class_weight
        self.pruning = pruning
        self.validation_fraction = validation_fraction
        self.strict_improvement = strict_improvement
        self.confidence_factor = confidence_factor
        self.subtree_raising = subtree_raising
        self.ccp_alpha = ccp_alpha
        self.ccp_loss = ccp_loss
        self.cv = cv
        self.cv_rule = cv_rule
        self.n_jobs = n_jobs
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None, eval_set=None):
        """Grow the tree on ``X`` (array or DataFrame) and labels ``y``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Missing values (NaN, None, pd.NA) are allowed in any attribute.
        y : array-like of shape (n_samples,), strings or numbers
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; a weight of 2 counts as two copies of the sample, and a
            weight of 0 is the same as leaving the sample out.
        eval_set : tuple (X_val, y_val) or (X_val, y_val, sample_weight_val), default=None
            Validation data for ``pruning="pre"`` and ``"reduced_error"``; without it a
            ``validation_fraction`` of the training rows is held out.

        Returns
        -------
        self

        Examples
        --------
        >>> from quercus import CARTClassifier
        >>> from quercus.datasets import load_golf
        >>> X, y = load_golf()
        >>> CARTClassifier().fit(X, y).get_n_leaves()
        6
        """
        return self._fit(X, y, sample_weight, eval_set)

    def predict_proba(self, X):
        """Class probabilities: the weighted class distribution of the node reached.

        A sample spread over several branches by a missing value (C4.5's rule) gets the
        average of the distributions it reaches, weighted by the branches' training weight.

        Examples
        --------
        >>> from quercus import ID3Classifier
        >>> from quercus.datasets import load_watermelon
        >>> X, y = load_watermelon("2.0")
        >>> ID3Classifier().fit(X, y).predict_proba(X.iloc[:1]).round(2).tolist()
        [[0.0, 1.0]]
        """
        return self._predict_outputs(X)

    def predict_log_proba(self, X):
        """Log of :meth:`predict_proba`, as scikit-learn's trees: ``-inf`` for a class
        the node reached has no weight of (no warning about the log of zero).

        Examples
        --------
        >>> from quercus import ID3Classifier
        >>> from quercus.datasets import load_watermelon
        >>> X, y = load_watermelon("2.0")
        >>> ID3Classifier().fit(X, y).predict_log_proba(X.iloc[:1]).tolist()
        [[-inf, 0.0]]
        """
        proba = self.predict_proba(X)
        with np.errstate(divide="ignore"):
            return np.log(proba)

    def predict(self, X):
        """Predicted class of each sample.

        A tied class distribution goes to the class that appears first in the training
        labels (the textbook's convention), whatever the sorted order of ``classes_``.

        Examples
        --------
        >>> from quercus import C45Classifier
        >>> from quercus.datasets import load_golf
        >>> X, y = load_golf()
        >>> C45Classifier().fit(X, y).predict(X.iloc[:3]).tolist()
        ['yes', 'no', 'no']
        """
        check_is_fitted(self, "tree_")
        _, _, node_class, spreads = self._routing()
        if not spreads:
            # Every row ends in one node (none is spread over branches): its class is that
            # node's, decided once per tree rather than once per row.
            return self.classes_[node_class[self.apply(X)]]
        proba = self.predict_proba(X)
        return self.classes_[self._majority(proba)]

    def _majority(self, dist):
        """Argmax of each row with ties to the earliest-seen class."""
        # The classes in priority order: the first tied column is the earliest-seen class.
        perm = np.argsort(self._class_priority, kind="stable")
        dist = np.atleast_2d(dist)[:, perm]
        top = dist.max(axis=1, keepdims=True)
        return perm[(dist >= top - 1e-12 * np.maximum(top, 1.0)).argmax(axis=1)]



class DecisionTreeRegressor(RegressorMixin, _BaseTree):
    __doc__ = ("""A regression tree (CART) for numeric and categorical attributes.

    Binary splits: thresholds at midpoints for numeric attributes; for categorical ones the
    best two-subset split, found by sorting the categories by mean target and scanning
    (Breiman et al.'s ordering, exact for squared error), or one-vs-rest, or multiway.

    Parameters
    ----------
    criterion : {"squared_error", "absolute_error", "poisson"}, default="squared_error"
        Variance reduction with the mean as leaf value; mean absolute deviation with the
        weighted median as leaf value; half Poisson deviance (counts, y >= 0) with the
        mean as leaf value.
    categorical_split : {"ordered", "one_vs_rest", "multiway"}, default="ordered"
        How categorical attributes split.
"""
               + _COMMON_PARAMS_DOC + """
    Attributes
    ----------
    tree_ : TreeArrays
        The fitted tree as parallel arrays; ``tree_.value[:, 0]`` is each node's prediction.
    n_features_in_, feature_names_in_ : as in scikit-learn.

    Examples
    --------
    >>> from quercus import DecisionTreeRegressor
    >>> from quercus.datasets import load_watermelon
    >>> X, _ = load_watermelon("3.0")
    >>> reg = DecisionTreeRegressor(max_depth=1).fit(X[["密度"]], X["含糖率"])
    >>> round(float(reg.tree_.threshold[0]), 4)
    0.6815
""")

    _is_regressor = True
    _parameter_constraints = REGRESSOR_PARAMS

    def __init__(self, criterion="squared_error", categorical_split="ordered",
                 splitter="best", max_depth=None, min_samples_split=2, min_samples_leaf=1,
                 min_weight_fraction_leaf=0.0, min_impurity_decrease=0.0, min_objects=None,
                 max_features=None, max_bins=255,
                 categorical_features=None,
                 missing_strategy="learned", max_surrogate=5, surrogates="where_missing",
                 pruning=None,
                 validation_fraction=0.25, strict_improvement=True, confidence_factor=0.25,
                 subtree_raising=True, ccp_alpha=0.0, ccp_loss="impurity", cv=10,
                 cv_rule="1se", n_jobs=None, random_state=None):
        self.criterion = criterion
        self.categorical_split = categorical_split
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.min_objects = min_objects
        self.min_impurity_decrease = min_impurity_decrease
        self.max_features = max_features
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.missing_strategy = missing_strategy
        self.max_surrogate = max_surrogate
        self.surrogates = surrogates
        self.pruning = pruning
        self.validation_fraction = validation_fraction
        self.strict_improvement = strict_improvement
        self.confidence_factor = confidence_factor
        self.subtree_raising = subtree_raising
        self.ccp_alpha = ccp_alpha
        self.ccp_loss = ccp_loss
        self.cv = cv
        self.cv_rule = cv_rule
        self.n_jobs = n_jobs
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None, eval_set=None):
        """Grow the regression tree on ``X`` and numeric targets ``y``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Missing values (NaN, None, pd.NA) are allowed in any attribute.
        y : array-like of shape (n_samples,), finite numbers (>= 0 for "poisson")
        sample_weight : array-like of shape (n_samples,), default=None
        eval_set : tuple (X_val, y_val) or (X_val, y_val, sample_weight_val), default=None
            Validation data for ``pruning="pre"`` and ``"reduced_error"``.

        Returns
        -------
        self

        Examples
        --------
        >>> from quercus import CARTRegressor
        >>> from quercus.datasets import load_watermelon
        >>> X, _ = load_watermelon("3.0")
        >>> CARTRegressor(max_depth=2).fit(X[["密度"]], X["含糖率"]).get_n_leaves()
        4
        """
        return self._fit(X, y, sample_weight, eval_set)

    def predict(self, X):
        """Predicted target: the value (mean or median) of the leaf reached.

        A sample spread over several branches by a missing value (C4.5's rule) gets the
        average of the values it reaches, weighted by the branches' training weight.

        Examples
        --------
        >>> from quercus import CARTRegressor
        >>> from quercus.datasets import load_watermelon
        >>> X, _ = load_watermelon("3.0")
        >>> reg = CARTRegressor(max_depth=1).fit(X[["密度"]], X["含糖率"])
        >>> reg.predict(X[["密度"]].iloc[:1]).round(3).tolist()
        [0.313]
        """
        return self._predict_outputs(X)[:, 0]


def _preset(base, name, summary, defaults):
    """A preset: ``base`` with other defaults, its own ``__init__`` (for get_params)."""
    import inspect

    sig = inspect.signature(base.__init__)
    params = [p.replace(default=defaults.get(p.name, p.default))
              for p in sig.parameters.values()]
    args = ", ".join(f"{p.name}={p.default!r}" for p in params[1:])
    body = "\n".join(f"    self.{p.name} = {p.name}" for p in params[1:])
    ns = {}
    exec(f"def __init__(self, *, {args}):\n{body}\n", ns)  # noqa: S102 - fixed template
    init = ns["__init__"]
    init.__qualname__ = f"{name}.__init__"
    doc = f"""{summary}

    Same parameters, attributes and methods as :class:`{base.__name__}`; only the
    defaults differ: {", ".join(f"``{k}={v!r}``" for k, v in defaults.items())}.

    Examples
    --------
    >>> from quercus import {name}
    >>> from quercus.datasets import load_watermelon
    >>> X, y = load_watermelon("3.0")
    >>> est = {name}().fit(X, {"X['含糖率']" if base is DecisionTreeRegressor else "y"})
    >>> est.tree_.node_count > 1
    True
    """
    return type(name, (base,), {"__init__": init, "__doc__": doc, "__module__": __name__})


ID3Classifier = _preset(
    DecisionTreeClassifier, "ID3Classifier",
    "ID3: information gain, one branch per category (the book's section 4.2.1); missing "
    "values by C4.5's fractional rule (the book's section 4.4.2).",
    {"criterion": "entropy", "categorical_split": "multiway",
     "missing_strategy": "fractional"})
C45Classifier = _preset(
    DecisionTreeClassifier, "C45Classifier",
    "C4.5: gain ratio among the attributes with at least average gain, multiway "
    "categorical splits, binary numeric thresholds, fractional missing values, and C4.5's "
    "pessimistic (error-based) pruning as in Weka's J48; ``pruning=None`` gives the book's "
    "unpruned tree.",
    {"criterion": "gain_ratio", "categorical_split": "multiway",
     "missing_strategy": "fractional", "pruning": "pessimistic"})
CARTClassifier = _preset(
    DecisionTreeClassifier, "CARTClassifier",
    "CART: Gini index, binary splits (``a == v`` / ``a != v`` for categorical attributes, "
    "thresholds for numeric ones), rpart's surrogate splits for missing values.",
    {"criterion": "gini", "categorical_split": "binary", "missing_strategy": "surrogate"})
CARTRegressor = _preset(
    DecisionTreeRegressor, "CARTRegressor",
    "CART regression: squared error, binary splits (ordered categorical subsets), rpart's "
    "surrogate splits for missing values.",
    {"criterion": "squared_error", "categorical_split": "ordered",
     "missing_strategy": "surrogate"})
