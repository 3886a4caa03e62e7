"""Estimators: a thin validated layer over the fit pipeline (:mod:`quercus._fit`) and the
kernels that route rows through a fitted tree."""

from functools import cache

import numpy as np
import pandas as pd
from scipy.sparse import csr_matrix
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _persist, _prepare
from ._fit import fit_tree, numba_threads, reads_only_bins
from ._kernels._jit import read_only
from ._kernels.predict import (apply_tree, path_lengths_and_nodes, predict_tree,
                               route_table)
from ._kernels.schema import FRACTIONAL, LEAF
from ._memory import trimmed_after
from ._params import REGRESSOR_PARAMS, TREE_PARAMS
from ._target import Target, majority, node_outputs

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
    cp : float, default=0.01
        rpart's complexity parameter, for ``pruning="cost_complexity"`` chosen by
        cross-validation: its complexity table (``cp_table_``) starts at ``alpha = cp *
        R(root)``, and neither the tree nor the folds' trees split a node whose risk is
        below that (such a split is pruned at every alpha of the table). 0 grows and
        cross-validates the whole sequence (scikit-learn's path, rpart's ``cp = 0``).
    n_jobs : int or None, default=None
        Threads for the split search and for prediction: None or -1 all cores, -2 all but
        one. The tree does not depend on it: each feature is searched by one thread.
    random_state : int, RandomState or None, default=None
        Seeds ``max_features``, ``splitter="random"`` and the cross-validation folds. A
        node's draws depend on the seed and the node's place in the tree only, so the
        tree is the same on any number of threads.
"""


@cache
def _param_names(cls):
    return tuple(BaseEstimator._get_param_names.__func__(cls))


def _init_arguments(init_locals):
    """The arguments of an ``__init__`` from its ``locals()`` taken first thing: every
    name but ``self`` (and ``__class__``, which ``super()`` adds)."""
    return {k: v for k, v in init_locals.items() if k not in ("self", "__class__")}


def _set_fitted(est, fitted):
    """Store a :class:`quercus._fit.FittedTree` as ``est``'s fitted attributes (after a
    fit, or when a model file is read)."""
    target = fitted.target
    if not target.regression:
        est.classes_ = target.classes
        est.n_classes_ = target.n_classes
        est._class_priority = target.class_priority
    est.schema_ = fitted.schema
    est.tree_ = fitted.tree
    est._explain_data = fitted.explain_data
    if fitted.ccp_alpha is not None:
        est.ccp_alpha_ = fitted.ccp_alpha
    else:
        est.__dict__.pop("ccp_alpha_", None)  # (a refit's, not the previous fit's)
    # The complexity table's columns; the DataFrame is made when first read (cp_table_).
    est._cp_columns = fitted.cp_table
    est.__dict__.pop("_cp_frame", None)
    est.pruning_report_ = fitted.pruning_report


# Parameter sets that passed scikit-learn's validation (see _BaseTree._validate_params).
_VALID_PARAMS = set()
_VALID_PARAMS_MAX = 256


def _check_names(est, X, reset):
    """``validate_data(est, X, reset=reset, skip_check_array=True)``: ``est``'s
    ``feature_names_in_`` and ``n_features_in_`` set (``reset``) or checked against X's.
    A pandas DataFrame whose column names are all ``str`` takes a direct path (on a
    small table scikit-learn's, through narwhals, was a noticeable part of a fit or a
    prediction): set, its names as scikit-learn stores them; checked, the same names in
    the same order pass. Anything else goes to scikit-learn for its rules and messages.

    Examples
    --------
    >>> import pandas as pd
    >>> from quercus import CARTClassifier
    >>> est = CARTClassifier()
    >>> _check_names(est, pd.DataFrame({"a": [1], "b": [2]}), reset=True)
    >>> est.feature_names_in_.tolist(), est.n_features_in_
    (['a', 'b'], 2)
    """
    # (The names' own array, checked on it: iterating pandas' string Index is slower.)
    names = (X.columns.to_numpy(dtype=object, copy=True) if isinstance(X, pd.DataFrame)
             else None)
    if names is not None and all(type(c) is str for c in names):
        if reset:
            est.feature_names_in_ = names
            est.n_features_in_ = X.shape[1]
            return
        fitted = getattr(est, "feature_names_in_", None)
        if fitted is not None and len(fitted) == len(names) and (fitted == names).all():
            return
    validate_data(est, X, reset=reset, skip_check_array=True)


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

    def _validate_params(self):
        """scikit-learn's parameter validation, once per class and set of parameter values:
        a set that passed passes again without it (on a small table, validating was a
        noticeable part of a fit). Values that cannot be hashed (a ``class_weight``
        dict, a list) are validated every time.

        Examples
        --------
        >>> from quercus import CARTClassifier
        >>> CARTClassifier(max_depth=3)._validate_params()  # validated, then remembered
        >>> try:
        ...     CARTClassifier(max_depth=-1)._validate_params()
        ... except ValueError as e:
        ...     print(str(e).split(" must")[0])
        The 'max_depth' parameter of CARTClassifier
        """
        try:
            key = (type(self), tuple((name, type(value), value)
                                     for name, value in self.get_params(deep=False).items()))
            known = key in _VALID_PARAMS
        except TypeError:  # (an unhashable value)
            key, known = None, False
        if known:
            return
        super()._validate_params()
        if key is not None:
            if len(_VALID_PARAMS) >= _VALID_PARAMS_MAX:
                _VALID_PARAMS.clear()
            _VALID_PARAMS.add(key)

    def _fit(self, X, y, sample_weight, eval_set=None):
        self._validate_params()
        X = _prepare.as_2d(X, min_samples=2)
        with trimmed_after(X.shape[0] * X.shape[1]):
            _check_names(self, X, reset=True)
            fitted = fit_tree(self, X, y, sample_weight, eval_set,
                              from_columns=self._reads_only_bins(eval_set))
        _set_fitted(self, fitted)
        return self

    def _reads_only_bins(self, eval_set):
        """Whether the fit reads the training rows only through their bins (see
        :func:`quercus._fit.reads_only_bins`)."""
        return reads_only_bins(self, eval_set)

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

        from ._pruning import weakest_link_path
        est = clone(self).set_params(pruning=None, ccp_alpha=0.0)
        est.fit(X, y, sample_weight=sample_weight)
        alphas, risks, _ = weakest_link_path(Target.of(est), est.tree_, self.ccp_loss)
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
        check_is_fitted(self, "tree_")
        _persist.save(self, path)

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

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_explain_data", None)  # training data is not part of the model
        return state

    # ------------------------------------------------------------------ routing
    def _encode(self, X, any_order=False, inf_checked_later=False):
        check_is_fitted(self, "tree_")
        X = _prepare.as_2d(X)
        _check_names(self, X, reset=False)
        return _prepare.encode(X, self.schema_, any_order, inf_checked_later)

    def _node_outputs(self):
        """Per-node prediction: class probabilities, or the regression value."""
        return node_outputs(self.tree_.value, self._is_regressor)

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
            # Every row ends in one node: apply's kernel, which routes several rows at
            # once, writes that node's output as each row ends.
            return self._apply(X, outputs)
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
        return self._apply(X)

    def _apply(self, X, node_out=None):
        """Each row's node (``node_out=None``) or ``node_out`` of that node."""
        X_enc = self._encode(X, any_order=True, inf_checked_later=True)
        rt = self._routing()[0]
        with numba_threads(self.n_jobs):
            out, has_inf = apply_tree(X_enc, self.tree_.kernel_args(), rt, check_inf=True,
                                      node_out=node_out)
        if has_inf:
            self._encode(X)  # raises the error that names the column and the row
            raise ValueError("Input X contains an infinite value.")
        return out

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
    def cp_table_(self):
        """rpart's complexity table of a fit with ``pruning="cost_complexity"`` chosen by
        cross-validation (a DataFrame, one row per subtree of the weakest-link sequence,
        from the full tree to the root): ``alpha``, ``cp``, ``n_splits``, ``n_leaves``,
        ``rel_error``, ``xerror``, ``xstd``. Made when first read: a small fit does not
        pay for a DataFrame it may never show.

        Examples
        --------
        >>> from quercus import CARTClassifier
        >>> from quercus.datasets import load_watermelon
        >>> clf = CARTClassifier(pruning="cost_complexity", random_state=0)
        >>> list(clf.fit(*load_watermelon("2.0")).cp_table_.columns)
        ['alpha', 'cp', 'n_splits', 'n_leaves', 'rel_error', 'xerror', 'xstd']
        """
        columns = self.__dict__.get("_cp_columns")
        if columns is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute "
                                 "'cp_table_' (it is made by a fit with "
                                 "pruning='cost_complexity' and cross-validation)")
        frame = self.__dict__.get("_cp_frame")
        if frame is None:
            frame = self._cp_frame = pd.DataFrame(columns, copy=False)
        return frame

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
    criterion : {"gini", "entropy", "gain_ratio", "hellinger"}, default="gini"
        Split quality: Gini decrease, information gain, C4.5's gain ratio among the
        candidates whose information gain is at least the average, or the Hellinger
        distance between the two classes' distributions over the branches (two classes;
        insensitive to class imbalance).
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
                 ccp_loss="impurity", cv=10, cv_rule="1se", cp=0.01, n_jobs=None,
                 random_state=None):
        # scikit-learn's rule: __init__ stores each argument, unchanged, as the
        # attribute of its name (and does nothing else).
        vars(self).update(_init_arguments(locals()))

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
        return majority(dist, self._class_priority)


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
                 cv_rule="1se", cp=0.01, n_jobs=None, random_state=None):
        # scikit-learn's rule: __init__ stores each argument, unchanged, as the
        # attribute of its name (and does nothing else).
        vars(self).update(_init_arguments(locals()))

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


class ID3Classifier(DecisionTreeClassifier):
    """ID3: information gain, one branch per category (the book's section 4.2.1); missing
    values by C4.5's fractional rule (the book's section 4.4.2).

    Same parameters, attributes and methods as :class:`DecisionTreeClassifier`; only the
    defaults differ: ``criterion='entropy'``, ``categorical_split='multiway'``,
    ``missing_strategy='fractional'``.

    Examples
    --------
    >>> from quercus import ID3Classifier
    >>> from quercus.datasets import load_watermelon
    >>> X, y = load_watermelon("3.0")
    >>> est = ID3Classifier().fit(X, y)
    >>> est.tree_.node_count > 1
    True
    """

    def __init__(self, *, criterion="entropy", categorical_split="multiway",
                 splitter="best", max_depth=None, min_samples_split=2, min_samples_leaf=1,
                 min_weight_fraction_leaf=0.0, min_impurity_decrease=0.0, min_objects=None,
                 max_features=None, max_bins=255, categorical_features=None,
                 missing_strategy="fractional", max_surrogate=5, surrogates="where_missing",
                 class_weight=None, pruning=None, validation_fraction=0.25,
                 strict_improvement=True, confidence_factor=0.25, subtree_raising=True,
                 ccp_alpha=0.0, ccp_loss="impurity", cv=10, cv_rule="1se", cp=0.01,
                 n_jobs=None, random_state=None):
        super().__init__(**_init_arguments(locals()))


class C45Classifier(DecisionTreeClassifier):
    """C4.5: gain ratio among the attributes with at least average gain, multiway categorical
    splits, binary numeric thresholds, fractional missing values, and C4.5's pessimistic
    (error-based) pruning as in Weka's J48; ``pruning=None`` gives the book's unpruned tree.

    Same parameters, attributes and methods as :class:`DecisionTreeClassifier`; only the
    defaults differ: ``criterion='gain_ratio'``, ``categorical_split='multiway'``,
    ``missing_strategy='fractional'``, ``pruning='pessimistic'``.

    Examples
    --------
    >>> from quercus import C45Classifier
    >>> from quercus.datasets import load_watermelon
    >>> X, y = load_watermelon("3.0")
    >>> est = C45Classifier().fit(X, y)
    >>> est.tree_.node_count > 1
    True
    """

    def __init__(self, *, criterion="gain_ratio", categorical_split="multiway",
                 splitter="best", max_depth=None, min_samples_split=2, min_samples_leaf=1,
                 min_weight_fraction_leaf=0.0, min_impurity_decrease=0.0, min_objects=None,
                 max_features=None, max_bins=255, categorical_features=None,
                 missing_strategy="fractional", max_surrogate=5, surrogates="where_missing",
                 class_weight=None, pruning="pessimistic", validation_fraction=0.25,
                 strict_improvement=True, confidence_factor=0.25, subtree_raising=True,
                 ccp_alpha=0.0, ccp_loss="impurity", cv=10, cv_rule="1se", cp=0.01,
                 n_jobs=None, random_state=None):
        super().__init__(**_init_arguments(locals()))


class CARTClassifier(DecisionTreeClassifier):
    """CART: Gini index, binary splits (``a == v`` / ``a != v`` for categorical attributes,
    thresholds for numeric ones), rpart's surrogate splits for missing values.

    Same parameters, attributes and methods as :class:`DecisionTreeClassifier`; only the
    defaults differ: ``criterion='gini'``, ``categorical_split='binary'``,
    ``missing_strategy='surrogate'``.

    Examples
    --------
    >>> from quercus import CARTClassifier
    >>> from quercus.datasets import load_watermelon
    >>> X, y = load_watermelon("3.0")
    >>> est = CARTClassifier().fit(X, y)
    >>> est.tree_.node_count > 1
    True
    """

    def __init__(self, *, criterion="gini", categorical_split="binary", splitter="best",
                 max_depth=None, min_samples_split=2, min_samples_leaf=1,
                 min_weight_fraction_leaf=0.0, min_impurity_decrease=0.0, min_objects=None,
                 max_features=None, max_bins=255, categorical_features=None,
                 missing_strategy="surrogate", max_surrogate=5, surrogates="where_missing",
                 class_weight=None, pruning=None, validation_fraction=0.25,
                 strict_improvement=True, confidence_factor=0.25, subtree_raising=True,
                 ccp_alpha=0.0, ccp_loss="impurity", cv=10, cv_rule="1se", cp=0.01,
                 n_jobs=None, random_state=None):
        super().__init__(**_init_arguments(locals()))


class CARTRegressor(DecisionTreeRegressor):
    """CART regression: squared error, binary splits (ordered categorical subsets), rpart's
    surrogate splits for missing values.

    Same parameters, attributes and methods as :class:`DecisionTreeRegressor`; only the
    defaults differ: ``criterion='squared_error'``, ``categorical_split='ordered'``,
    ``missing_strategy='surrogate'``.

    Examples
    --------
    >>> from quercus import CARTRegressor
    >>> from quercus.datasets import load_watermelon
    >>> X, y = load_watermelon("3.0")
    >>> est = CARTRegressor().fit(X, X['含糖率'])
    >>> est.tree_.node_count > 1
    True
    """

    def __init__(self, *, criterion="squared_error", categorical_split="ordered",
                 splitter="best", max_depth=None, min_samples_split=2, min_samples_leaf=1,
                 min_weight_fraction_leaf=0.0, min_impurity_decrease=0.0, min_objects=None,
                 max_features=None, max_bins=255, categorical_features=None,
                 missing_strategy="surrogate", max_surrogate=5, surrogates="where_missing",
                 pruning=None, validation_fraction=0.25, strict_improvement=True,
                 confidence_factor=0.25, subtree_raising=True, ccp_alpha=0.0,
                 ccp_loss="impurity", cv=10, cv_rule="1se", cp=0.01, n_jobs=None,
                 random_state=None):
        super().__init__(**_init_arguments(locals()))


# Model files name these classes; reading one stores its tree as a fit does.
_persist.register_tree_estimators(
    (DecisionTreeClassifier, ID3Classifier, C45Classifier, CARTClassifier,
     DecisionTreeRegressor, CARTRegressor), _set_fitted)
