"""``LogisticModelTree``: Landwehr, Hall and Frank's logistic model trees (2005), as Weka's
``weka.classifiers.trees.LMT`` builds them: a C4.5 tree whose every node holds a multiclass
logistic model fitted by LogitBoost, each node's model continuing its parent's, pruned by
cost-complexity with cross-validation."""

import json
import math
from numbers import Integral, Real

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted, validate_data

from .. import _prepare
from ._lmt_boost import (aic_iterations, boost, coefficients, cv_iterations, softmax,
                         weka_folds)
from ._lmt_split import best_split

LEAF, NUMERIC, NOMINAL = 0, 1, 2
_MIN_BOOST = 5  # a node with fewer rows keeps its parent's model (Weka: one per fold)

_PARAMS = {
    "min_samples_split": [Interval(Integral, 1, None, closed="left")],
    "fast_regression": ["boolean"],
    "n_iterations": [Interval(Integral, 1, None, closed="left"), None],
    "use_aic": ["boolean"],
    "error_on_probabilities": ["boolean"],
    "weight_trim_beta": [Interval(Real, 0.0, 1.0, closed="left")],
    "binary_splits": ["boolean"],
    "max_iterations": [Interval(Integral, 1, None, closed="left")],
    "heuristic_stop": [Interval(Integral, 0, None, closed="left")],
    "cv": [Interval(Integral, 2, None, closed="left")],
    "prune": ["boolean"],
    "random_state": ["random_state"],
    "categorical_features": ["array-like", None],
}


def _lab(v):
    return v.item() if isinstance(v, np.generic) else v


def _weka_number(x, decimals):
    """A number as Weka prints it: rounded, without trailing zeros (``-0.4``, ``30``)."""
    s = f"{x:.{decimals}f}"
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return "0" if s == "-0" else s


# ---------------------------------------------------------------- data preparation
class _Coding:
    """How imputed, encoded X becomes the split matrix ``S`` and the logistic model
    matrix ``N`` (Weka's ``NominalToBinary``: a categorical attribute of two levels is one
    0/1 column, "is the second level"; of more levels, one indicator per level)."""

    def __init__(self, schema, binary_splits):
        self.schema = schema
        self.binary_splits = binary_splits
        cols, names = [], []  # N's columns: (feature, level or -1)
        for j, name in enumerate(schema.feature_names):
            if not schema.is_categorical[j]:
                cols.append((j, -1))
                names.append(name)
                continue
            cats = schema.categories[j]
            levels = [1] if len(cats) == 2 else range(len(cats))
            for k in levels:
                cols.append((j, k))
                names.append(f"{name}={_lab(cats[k])}")
        self.columns = cols
        self.column_names = names

    def model_matrix(self, Xi):
        N = np.empty((Xi.shape[0], len(self.columns)))
        for c, (j, k) in enumerate(self.columns):
            N[:, c] = Xi[:, j] if k < 0 else (Xi[:, j] == k)
        return N

    def split_matrix(self, Xi, N):
        """(S, n_levels, names): the attributes the tree splits on."""
        if self.binary_splits:
            return N, np.zeros(N.shape[1], dtype=np.int64), self.column_names
        levels = np.array([len(c) if b else 0 for b, c in zip(self.schema.is_categorical,
                                                              self.schema.categories)],
                          dtype=np.int64)
        return Xi, levels, list(self.schema.feature_names)


def _impute_values(schema, X_enc):
    """Weka's ReplaceMissingValues: the mean of a numeric column, the most frequent level
    of a categorical one (the first level on a tie)."""
    fill = np.empty(X_enc.shape[1])
    for j in range(X_enc.shape[1]):
        col = X_enc[:, j]
        known = col[~np.isnan(col)]
        if schema.is_categorical[j]:
            counts = np.bincount(known.astype(np.int64), minlength=len(schema.categories[j]))
            fill[j] = float(np.argmax(counts))
        else:
            fill[j] = float(known.mean())
    return fill


def _impute(X_enc, fill, schema):
    Xi = np.array(X_enc, dtype=np.float64, order="C", copy=True)
    for j in range(Xi.shape[1]):
        bad = np.isnan(Xi[:, j])
        if schema.is_categorical[j]:
            bad |= Xi[:, j] < 0  # a level not seen in training: treated as missing
        Xi[bad, j] = fill[j]
    return Xi


# ---------------------------------------------------------------- growing
class _Grown:
    """A grown (unpruned) tree as lists, one entry per node, parents before children."""

    def __init__(self):
        self.kind, self.feature, self.threshold, self.children = [], [], [], []
        self.parent, self.coef, self.own_iter, self.total_iter = [], [], [], []
        self.rows, self.counts = [], []


class _Config:
    def __init__(self, est, n_classes, n_all, all_values, fixed):
        self.min_split = int(est.min_samples_split)
        self.use_aic = bool(est.use_aic)
        self.on_prob = bool(est.error_on_probabilities)
        self.beta = float(est.weight_trim_beta)
        self.max_iter = int(est.max_iterations)
        self.stop = int(est.heuristic_stop)
        self.folds = int(est.cv)
        self.rng_seed = est.random_state
        self.J = n_classes
        self.n_all = n_all
        self.all_values = all_values
        self.fixed = fixed  # iterations at every node (0: choose at each node)

    def folds_of(self, y):
        rng = None if self.rng_seed is None else check_random_state(self.rng_seed)
        return weka_folds(y, self.folds, rng)


def _usable(N, rows):
    sub = N[rows]
    return sub.max(axis=0) > sub.min(axis=0) if len(rows) else np.zeros(N.shape[1], bool)


def _own_model(N, Y, y, rows, F0, n_params, cfg):
    """The node's own LogitBoost iterations (Weka's LMTNode): a fixed number, or chosen by
    AIC or by cross-validation on the node's rows."""
    usable = _usable(N, rows)
    Nr, Yr = N[rows], Y[rows]
    if cfg.fixed > 0:
        n = cfg.fixed
    elif cfg.use_aic:
        n = aic_iterations(Nr, Yr, F0, cfg.max_iter, cfg.stop, usable, n_params, cfg.beta)
    else:
        folds = cfg.folds_of(y[rows])
        n = cv_iterations(Nr, Yr, F0, folds, cfg.max_iter, cfg.stop,
                          lambda r: _usable(Nr, r), cfg.on_prob, cfg.beta)
    return boost(Nr, Yr, F0, n, usable, cfg.beta)


def _grow_tree(S, n_levels, N, Y, y, rows, cfg):
    """Depth-first growth with the parent links filled in."""
    J, q = cfg.J, N.shape[1]
    Naug = np.column_stack([np.ones(N.shape[0]), N])
    t = _Grown()
    stack = [(rows, None, np.zeros((J, q + 1)), 0)]
    while stack:
        r, link, committee, n_params = stack.pop()
        node = len(t.kind)
        if link is None:
            t.parent.append(-1)
        else:
            parent, i = link
            t.parent.append(parent)
            t.children[parent][i] = node
        own = None
        if len(r) >= _MIN_BOOST:
            own = _own_model(N, Y, y, r, Naug[r] @ committee.T, n_params, cfg)
        n_own = 0 if own is None else own.n_iter
        coef = committee + coefficients(own, q) if n_own else committee
        t.coef.append(coef)
        t.own_iter.append(n_own)
        t.total_iter.append(n_params + n_own)
        t.rows.append(r)
        t.counts.append(np.bincount(y[r], minlength=J).astype(np.float64))
        split = None
        if len(r) > cfg.min_split:
            split = best_split(S[r], y[r], J, n_levels, cfg.all_values, 2, cfg.n_all)
        if split is None:
            t.kind.append(LEAF)
            t.feature.append(-1)
            t.threshold.append(np.nan)
            t.children.append([])
            continue
        f = split.feature
        if n_levels[f] > 0:
            t.kind.append(NOMINAL)
            t.threshold.append(np.nan)
            parts = [r[S[r, f] == k] for k in range(split.n_children)]
        else:
            t.kind.append(NUMERIC)
            t.threshold.append(split.threshold)
            left = S[r, f] <= split.threshold
            parts = [r[left], r[~left]]
        t.feature.append(f)
        t.children.append([-1] * len(parts))
        for i in reversed(range(len(parts))):
            stack.append((parts[i], (node, i), coef, n_params + n_own))
    return t


def _route(t, S, rows):
    """The node path of each row: a list of node arrays, one per row, root first."""
    paths = [[] for _ in rows]
    pos = {0: np.arange(len(rows))}
    stack = [0]
    while stack:
        node = stack.pop()
        idx = pos.pop(node)
        for i in idx:
            paths[i].append(node)
        if t.kind[node] == LEAF or idx.size == 0:
            continue
        vals = S[rows[idx], t.feature[node]]
        if t.kind[node] == NUMERIC:
            branch = (vals > t.threshold[node]).astype(np.int64)
        else:
            branch = vals.astype(np.int64)
        for i, ch in enumerate(t.children[node]):
            pos[ch] = idx[branch == i]
            stack.append(ch)
    return paths


# ---------------------------------------------------------------- pruning
class _Pruner:
    """CART's cost-complexity pruning of a grown tree, with the training errors of each
    node's logistic model (Weka's LMTNode.prune): a node's alpha is the training errors
    its subtree saves over its own model, per row and per extra leaf; a node whose subtree
    does not save any is cut at once, for good."""

    def __init__(self, t, model_err, total):
        self.t = t
        self.model_err = np.asarray(model_err, dtype=np.float64)
        self.total = float(total)
        n = len(t.kind)
        self.struct_leaf = np.array([k == LEAF for k in t.kind])
        self.cut = np.zeros(n, dtype=bool)
        self.leaf = self.struct_leaf.copy()
        self.order = self._preorder()

    def _preorder(self):
        out, stack = [], [0]
        while stack:
            node = stack.pop()
            out.append(node)
            stack.extend(reversed(self.t.children[node]))
        return out

    def unprune(self):
        self.leaf = self.struct_leaf | self.cut

    def _alphas(self):
        t, leaf = self.t, self.leaf
        n = len(t.kind)
        tree_err = np.zeros(n)
        n_leaves = np.zeros(n)
        for node in reversed(self.order):  # children before parents
            if leaf[node]:
                tree_err[node] = self.model_err[node]
                n_leaves[node] = 1
            else:
                ch = t.children[node]
                tree_err[node] = tree_err[ch].sum()
                n_leaves[node] = n_leaves[ch].sum()
        alpha = np.full(n, np.inf)
        stack = [0]
        while stack:
            node = stack.pop()
            if leaf[node]:
                continue
            diff = self.model_err[node] - tree_err[node]
            if diff <= 0:
                leaf[node] = True
                self.cut[node] = True
                continue
            alpha[node] = diff / self.total / (n_leaves[node] - 1)
            stack.extend(reversed(t.children[node]))
        return alpha

    def inner(self):
        out, stack = [], [0]
        while stack:
            node = stack.pop()
            if self.leaf[node]:
                continue
            out.append(node)
            stack.extend(reversed(self.t.children[node]))
        return out

    def sequence(self, test_error=None):
        """Prune to the root, weakest link first: the alphas (0 first, 1 last) and, with
        ``test_error(leaf)``, the held-out error after each step."""
        alphas, errors = [0.0], []
        if test_error is not None:
            errors.append(test_error(self.leaf))
        alpha = self._alphas()
        nodes = self.inner()
        while nodes:
            a = alpha[nodes]
            node = nodes[int(np.argmin(a))]
            self.leaf[node] = True
            alphas.append(float(alpha[node]))
            if test_error is not None:
                errors.append(test_error(self.leaf))
            alpha = self._alphas()
            nodes = self.inner()
        alphas.append(1.0)
        return np.array(alphas), np.array(errors)

    def prune_to(self, best_alpha):
        alpha = self._alphas()
        nodes = self.inner()
        while nodes:
            a = alpha[nodes]
            k = int(np.argmin(a))
            if a[k] > best_alpha:
                break
            self.leaf[nodes[k]] = True
            self.cut[nodes[k]] = True
            alpha = self._alphas()
            nodes = self.inner()


def _model_errors(t, Naug, y):
    return [float(np.sum(np.argmax(Naug[r] @ c.T, axis=1) != y[r])) if len(r) else 0.0
            for r, c in zip(t.rows, t.coef)]


def _test_error_fn(t, S, Naug, y, test):
    """The held-out error of the tree cut at ``leaf``: each test row is classified by the
    first node on its path that is a leaf."""
    paths = _route(t, S, test)
    wrong = {}
    for i, path in enumerate(paths):
        row = test[i]
        for node in path:
            key = (i, node)
            wrong[key] = int(np.argmax(Naug[row] @ t.coef[node].T)) != y[row]
    n = len(test)

    def error(leaf):
        bad = 0
        for i, path in enumerate(paths):
            for node in path:
                if leaf[node]:
                    bad += wrong[(i, node)]
                    break
        return bad / n
    return error


# ---------------------------------------------------------------- the estimator
class LogisticModelTree(ClassifierMixin, BaseEstimator):
    """Logistic model tree (LMT), as Landwehr, Hall and Frank (2005) define it and Weka's
    ``weka.classifiers.trees.LMT`` builds it.

    A decision tree whose every node holds a multiclass logistic model, fitted by
    LogitBoost (Friedman, Hastie and Tibshirani 2000) with one simple linear regression on
    one attribute per class and iteration; a sample is classified by the model of its leaf,
    ``P(class j | x) = exp(F_j(x)) / sum_k exp(F_k(x))`` with ``F_j`` linear in x.

    * **Models refined down the tree.** The root's model is boosted from zero; a child's
      boosting continues from its parent's committee on the child's rows, so a leaf's
      model is the sum of the iterations of every node on its path ("18/25" iterations:
      18 at the leaf, 25 with its ancestors'). A node with fewer than 5 rows keeps its
      parent's model.
    * **How many iterations.** By default (Weka's default, the "fast" heuristic) the number
      is chosen once, by ``cv``-fold cross-validation of LogitBoost on all the training
      data (at most ``max_iterations`` iterations, a fold stopping when the held-out error
      has not reached a new minimum for ``heuristic_stop`` iterations), and every node then
      runs that many. ``fast_regression=False`` (Weka's ``-C``) cross-validates at every
      node; ``use_aic=True`` (``-A``) takes the minimum of Akaike's criterion on the
      training rows instead; ``n_iterations`` (``-I``) fixes the number.
    * **Splits.** C4.5's: gain ratio among attributes of at least average gain, multiway on
      categorical attributes (``binary_splits=True``, Weka's ``-B``: split on the 0/1
      indicators instead), binary on numeric ones; a node is split only when it holds more
      than ``min_samples_split`` rows (``-M``, 15).
    * **Pruning.** CART's cost-complexity pruning on the models' training errors, alpha
      chosen by ``cv``-fold cross-validation of the whole tree (Weka: 5 folds).
    * **Categorical attributes** enter the logistic models as 0/1 indicators, as Weka's
      ``NominalToBinary`` makes them: one column "is level b" for a two-level attribute,
      one per level otherwise (``attribute=level``).
    * **Missing values** are imputed before anything else, as Weka's
      ``ReplaceMissingValues`` does: a numeric attribute's mean and a categorical
      attribute's most frequent level (the first in ``categories`` order on a tie) over
      the training data. Splits and models then see complete data; at prediction a missing
      value (and a level not seen in training) gets the same training mean or mode.

    Cross-validation folds are made as Weka makes them (stratified by class, from the rows
    in their order), so with ``random_state=None`` the fit is deterministic and equals
    Weka's on the same data in the same order; an int ``random_state`` shuffles the rows
    before each fold assignment (the same int, the same tree).

    Parameters
    ----------
    min_samples_split : int, default=15
        Split a node only if it has more rows than this (Weka's ``-M``).
    fast_regression : bool, default=True
        Choose the number of LogitBoost iterations once, at the root, and use it at every
        node (False: cross-validate at every node, Weka's ``-C``).
    n_iterations : int or None, default=None
        A fixed number of iterations at every node (Weka's ``-I``).
    use_aic : bool, default=False
        Choose the iterations by AIC on the training rows (Weka's ``-A``).
    error_on_probabilities : bool, default=False
        Cross-validate on the mean absolute error of the probabilities rather than the
        misclassification rate (Weka's ``-P``).
    weight_trim_beta : float in [0, 1), default=0.0
        Friedman et al.'s weight trimming: each regression uses only the rows holding the
        top ``1 - beta`` share of the LogitBoost weight (Weka's ``-W``).
    binary_splits : bool, default=False
        Split on the 0/1 indicators of categorical attributes (Weka's ``-B``).
    max_iterations : int, default=200
        At most this many iterations when choosing by CV or AIC.
    heuristic_stop : int, default=50
        Stop a CV fold (or the AIC search) when the error has not reached a new minimum
        for this many iterations.
    cv : int, default=5
        Folds of the cross-validations (iterations and pruning).
    prune : bool, default=True
        Cost-complexity pruning (False: keep the grown tree).
    random_state : int, RandomState or None, default=None
        None: Weka's folds, from the rows in their order; otherwise the rows are shuffled
        with it before each fold assignment.
    categorical_features : array-like or None
        Columns to treat as categorical; by default strings, booleans and pandas
        Categoricals are.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_iterations_ : int
        The iterations chosen at the root by the fast heuristic (or ``n_iterations``;
        0 when each node chooses its own).
    alpha_ : float
        The complexity parameter chosen by cross-validation (NaN without pruning).
    model_columns_ : list of str
        The columns of the logistic models: numeric attributes and categorical indicators.
    n_leaves_, node_count_ : int
        The tree's leaves and nodes (Weka's "Number of Leaves" and "Size of the Tree").

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from quercus import LogisticModelTree
    >>> X, y = load_iris(return_X_y=True, as_frame=True)
    >>> clf = LogisticModelTree().fit(X, y)
    >>> clf.n_leaves_, clf.n_iterations_, round(clf.score(X, y), 3)
    (1, 18, 0.987)
    >>> print(clf.export_text().splitlines()[0])
    : LM_1:18/18 (150)
    """

    _parameter_constraints = _PARAMS

    def __init__(self, min_samples_split=15, fast_regression=True, n_iterations=None,
                 use_aic=False, error_on_probabilities=False, weight_trim_beta=0.0,
                 binary_splits=False, max_iterations=200, heuristic_stop=50, cv=5,
                 prune=True, random_state=None, categorical_features=None):
        self.min_samples_split = min_samples_split
        self.fast_regression = fast_regression
        self.n_iterations = n_iterations
        self.use_aic = use_aic
        self.error_on_probabilities = error_on_probabilities
        self.weight_trim_beta = weight_trim_beta
        self.binary_splits = binary_splits
        self.max_iterations = max_iterations
        self.heuristic_stop = heuristic_stop
        self.cv = cv
        self.prune = prune
        self.random_state = random_state
        self.categorical_features = categorical_features

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.allow_nan = True
        return tags

    # ------------------------------------------------------------ fitting
    def fit(self, X, y):
        """Grow, prune and fit the logistic models.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Numeric and categorical attributes; missing values (NaN, None) are imputed.
        y : array-like of shape (n_samples,)
            Two or more classes.

        Returns
        -------
        self

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from quercus import LogisticModelTree
        >>> X, y = load_iris(return_X_y=True)
        >>> LogisticModelTree(n_iterations=5, prune=False).fit(X, y).node_count_
        11
        """
        self._validate_params()
        X = _prepare.as_2d(X, min_samples=2)
        validate_data(self, X, reset=True, skip_check_array=True)
        n = X.shape[0]
        schema, X_enc = _prepare.fit_schema_and_encode(X, self.categorical_features)
        classes, codes, _ = _prepare.encode_target(y, n)
        if len(classes) < 2:
            raise ValueError(f"y holds a single class ({_lab(classes[0])!r}); a logistic "
                             f"model tree needs samples of two or more classes.")
        fill = _impute_values(schema, X_enc)
        coding = _Coding(schema, bool(self.binary_splits))
        Xi = _impute(X_enc, fill, schema)
        N = coding.model_matrix(Xi)
        S, n_levels, split_names = coding.split_matrix(Xi, N)
        yc = codes.astype(np.int64)
        J = len(classes)
        Y = np.eye(J)[yc]
        all_values = [np.unique(S[:, j]) if n_levels[j] == 0 else None
                      for j in range(S.shape[1])]
        rows = np.arange(n)
        fixed = int(self.n_iterations) if self.n_iterations is not None else 0
        probe = _Config(self, J, n, all_values, 0)
        if fixed == 0 and self.fast_regression:
            # Weka's heuristic: one LogitBoost on all the data, its CV choice everywhere.
            if self.use_aic:
                fixed = aic_iterations(N, Y, np.zeros((n, J)), probe.max_iter, probe.stop,
                                       _usable(N, rows), 0, probe.beta)
            else:
                fixed = cv_iterations(N, Y, np.zeros((n, J)), probe.folds_of(yc),
                                      probe.max_iter, probe.stop, lambda r: _usable(N, r),
                                      probe.on_prob, probe.beta)
        cfg = _Config(self, J, n, all_values, fixed)
        Naug = np.column_stack([np.ones(n), N])
        alpha = np.nan
        if self.prune:
            fold_alphas, fold_errors = [], []
            for train, test in cfg.folds_of(yc):
                t = _grow_tree(S, n_levels, N, Y, yc, train, cfg)
                pr = _Pruner(t, _model_errors(t, Naug, yc), len(train))
                a, e = pr.sequence(_test_error_fn(t, S, Naug, yc, test))
                fold_alphas.append(a)
                fold_errors.append(e)
        t = _grow_tree(S, n_levels, N, Y, yc, rows, cfg)
        if self.prune:
            pr = _Pruner(t, _model_errors(t, Naug, yc), n)
            tree_alphas, _ = pr.sequence()
            alpha = _choose_alpha(tree_alphas, fold_alphas, fold_errors)
            pr.unprune()
            pr.prune_to(alpha)
            leaf = pr.leaf
        else:
            leaf = np.array([k == LEAF for k in t.kind])
        self._store(t, leaf, classes, schema, fill, coding, split_names, n_levels)
        self.n_iterations_ = int(fixed)
        self.alpha_ = float(alpha)
        self._response = str(y.name) if isinstance(y, pd.Series) and y.name is not None \
            else "y"
        return self

    def _store(self, t, leaf, classes, schema, fill, coding, split_names, n_levels):
        """Keep the pruned tree as parallel arrays, nodes renumbered breadth first so that
        siblings are contiguous."""
        order, first, queue = [], {}, [0]
        while queue:
            nxt = []
            for node in queue:
                order.append(node)
                if not leaf[node]:
                    nxt.extend(t.children[node])
            queue = nxt
        new = {old: i for i, old in enumerate(order)}
        m = len(order)
        kind = np.zeros(m, np.int64)
        feature = np.full(m, -1, np.int64)
        threshold = np.full(m, np.nan)
        first_child = np.full(m, -1, np.int64)
        n_children = np.zeros(m, np.int64)
        for i, old in enumerate(order):
            if not leaf[old]:
                kind[i] = t.kind[old]
                feature[i] = t.feature[old]
                threshold[i] = t.threshold[old]
                first_child[i] = new[t.children[old][0]]
                n_children[i] = len(t.children[old])
        self.classes_ = classes
        self._schema = schema
        self._fill = fill
        self._coding = coding
        self._split_names = list(split_names)
        self._n_levels = np.asarray(n_levels, dtype=np.int64)
        self._kind, self._feature, self._threshold = kind, feature, threshold
        self._first_child, self._n_children = first_child, n_children
        self._coef = np.array([t.coef[o] for o in order])
        self._own_iter = np.array([t.own_iter[o] for o in order], np.int64)
        self._total_iter = np.array([t.total_iter[o] for o in order], np.int64)
        self._counts = np.array([t.counts[o] for o in order])
        self._finish()

    def _finish(self):
        self.model_columns_ = list(self._coding.column_names)
        self.n_leaves_ = int(np.sum(self._kind == LEAF))
        self.node_count_ = int(self._kind.shape[0])

    # ------------------------------------------------------------ prediction
    def _matrices(self, X):
        check_is_fitted(self, "_coef")
        X = _prepare.as_2d(X, min_samples=0)
        validate_data(self, X, reset=False, skip_check_array=True)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but LogisticModelTree is "
                             f"expecting {self.n_features_in_} features as input.")
        Xi = _impute(_prepare.encode(X, self._schema), self._fill, self._schema)
        N = self._coding.model_matrix(Xi)
        S = N if self._coding.binary_splits else Xi
        return S, N

    def _leaves(self, S):
        node = np.zeros(S.shape[0], np.int64)
        active = np.flatnonzero(self._kind[node] != LEAF)
        while active.size:
            nd = node[active]
            vals = S[active, self._feature[nd]]
            branch = np.where(self._kind[nd] == NUMERIC,
                              (vals > self._threshold[nd]).astype(np.int64),
                              np.nan_to_num(vals).astype(np.int64))
            node[active] = self._first_child[nd] + branch
            active = active[self._kind[node[active]] != LEAF]
        return node

    def apply(self, X):
        """The index of the leaf each sample reaches (nodes numbered breadth first).

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from quercus import LogisticModelTree
        >>> X, y = load_iris(return_X_y=True)
        >>> LogisticModelTree(n_iterations=5).fit(X, y).apply(X[:2]).tolist()
        [1, 1]
        """
        S, _ = self._matrices(X)
        return self._leaves(S)

    def _committee(self, X):
        S, N = self._matrices(X)
        leaf = self._leaves(S)
        Naug = np.column_stack([np.ones(N.shape[0]), N])
        return np.einsum("ik,ijk->ij", Naug, self._coef[leaf])

    def decision_function(self, X):
        """The committee values ``F_j(x)`` of each sample's leaf model (the log of the
        class probabilities up to a common constant), shape (n_samples, n_classes); with
        two classes, as scikit-learn's classifiers, ``F_1 - F_0`` (the log of the odds
        of ``classes_[1]``), shape (n_samples,).

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from quercus import LogisticModelTree
        >>> X, y = load_iris(return_X_y=True)
        >>> LogisticModelTree(n_iterations=5).fit(X, y).decision_function(X[:1]).shape
        (1, 3)
        """
        F = self._committee(X)
        return F[:, 1] - F[:, 0] if F.shape[1] == 2 else F

    def predict_proba(self, X):
        """Class probabilities from each sample's leaf model (the softmax of
        :meth:`decision_function`).

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from quercus import LogisticModelTree
        >>> X, y = load_iris(return_X_y=True)
        >>> p = LogisticModelTree(n_iterations=5).fit(X, y).predict_proba(X[:1])
        >>> p.shape, bool(abs(p.sum() - 1) < 1e-12)
        ((1, 3), True)
        """
        return softmax(self._committee(X))

    def predict(self, X):
        """The most probable class (the first in ``classes_`` on a tie).

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from quercus import LogisticModelTree
        >>> X, y = load_iris(return_X_y=True)
        >>> LogisticModelTree(n_iterations=5).fit(X, y).predict(X[:2]).tolist()
        [0, 0]
        """
        F = self._committee(X)
        return self.classes_[np.argmax(F, axis=1)]

    # ------------------------------------------------------------ text
    def _leaf_order(self):
        """The leaves in depth-first order, first branch first: Weka's LM_1, LM_2, ..."""
        out, stack = [], [0]
        while stack:
            node = stack.pop()
            if self._kind[node] == LEAF:
                out.append(int(node))
            else:
                first = self._first_child[node]
                stack.extend(range(first + self._n_children[node] - 1, first - 1, -1))
        return out

    def leaf_models(self):
        """Each leaf's logistic model as a DataFrame: one row per class, the intercept and
        every model column's coefficient (Weka's numbers: ``(J - 1) / J`` times the sum of
        the simple regressions on the leaf's path).

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from quercus import LogisticModelTree
        >>> X, y = load_iris(return_X_y=True, as_frame=True)
        >>> m = LogisticModelTree().fit(X, y).leaf_models()
        >>> list(m), m["LM_1"].columns[:2].tolist()
        (['LM_1'], ['(Intercept)', 'sepal length (cm)'])
        """
        check_is_fitted(self, "_coef")
        out = {}
        cols = ["(Intercept)", *self.model_columns_]
        for k, node in enumerate(self._leaf_order()):
            out[f"LM_{k + 1}"] = pd.DataFrame(self._coef[node], columns=cols,
                                              index=[_lab(c) for c in self.classes_])
        return out

    def export_text(self, decimals=2):
        """The tree and its leaf models as text, in Weka's layout: one line per branch, a
        leaf ending with ``LM_k:own/total (rows)`` (the leaf's own LogitBoost iterations,
        with its ancestors', and its training rows), then each model, per class, as its
        intercept and the nonzero coefficients.

        Parameters
        ----------
        decimals : int, default=2
            Digits of the coefficients (Weka prints 2).

        Returns
        -------
        str

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from quercus import LogisticModelTree
        >>> X, y = load_iris(return_X_y=True, as_frame=True)
        >>> print(LogisticModelTree().fit(X, y).export_text())  # doctest: +ELLIPSIS
        : LM_1:18/18 (150)
        <BLANKLINE>
        Number of Leaves  : 1
        Size of the Tree  : 1
        <BLANKLINE>
        LM_1:
        Class 0 :
        30 +
        [petal length (cm)] * -9.96 +
        [petal width (cm)] * -5.73
        ...
        """
        check_is_fitted(self, "_coef")
        leaf_id = {node: k + 1 for k, node in enumerate(self._leaf_order())}

        def label(node):
            return (f"LM_{leaf_id[node]}:{self._own_iter[node]}/{self._total_iter[node]} "
                    f"({int(self._counts[node].sum())})")

        lines = []
        if self._kind[0] == LEAF:
            lines.append(f": {label(0)}")
        stack = [(0, i, 0) for i in reversed(range(self._n_children[0]))]
        while stack:
            parent, i, level = stack.pop()
            child = self._first_child[parent] + i
            f = self._feature[parent]
            name = self._split_names[f]
            if self._kind[parent] == NUMERIC:
                thr = f"{self._threshold[parent]:.6g}"
                cond = f"<= {thr}" if i == 0 else f"> {thr}"
            else:
                cond = f"= {_lab(self._schema.categories[f][i])}"
            line = "|   " * level + f"{name} {cond}"
            if self._kind[child] == LEAF:
                lines.append(f"{line}: {label(child)}")
            else:
                lines.append(line)
                stack.extend((child, j, level + 1)
                             for j in reversed(range(self._n_children[child])))
        lines += ["", f"Number of Leaves  : {self.n_leaves_}",
                  f"Size of the Tree  : {self.node_count_}"]
        cols = self.model_columns_
        for node, k in leaf_id.items():
            lines += ["", f"LM_{k}:"]
            for j, c in enumerate(self.classes_):
                coef = self._coef[node, j]
                terms = [_weka_number(coef[0], decimals)]
                terms += [f"[{cols[i - 1]}] * {_weka_number(coef[i], decimals)}"
                          for i in range(1, coef.shape[0]) if coef[i] != 0.0]
                lines.append(f"Class {_lab(c)} :")
                lines += [s + " +" for s in terms[:-1]] + [terms[-1]]
                lines.append("")
            lines.pop()
        return "\n".join(lines)

    # ------------------------------------------------------------ model files
    def save(self, path):
        """Write the fitted model to ``path`` as plain JSON (never pickle); read it back
        with :func:`quercus.load`.

        Examples
        --------
        >>> import os, tempfile, quercus
        >>> from sklearn.datasets import load_iris
        >>> X, y = load_iris(return_X_y=True)
        >>> clf = quercus.LogisticModelTree(n_iterations=3).fit(X, y)
        >>> path = os.path.join(tempfile.mkdtemp(), "lmt.json")
        >>> clf.save(path)
        >>> bool((quercus.load(path).predict_proba(X) == clf.predict_proba(X)).all())
        True
        """
        check_is_fitted(self, "_coef")
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(self.to_dict(), fh, ensure_ascii=False, allow_nan=False)

    def to_dict(self):
        """The fitted model as plain data (JSON types only); see :meth:`save`.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from quercus import LogisticModelTree
        >>> X, y = load_iris(return_X_y=True)
        >>> d = LogisticModelTree(n_iterations=3).fit(X, y).to_dict()
        >>> d["estimator"], d["classes"], len(d["tree"]["kind"])
        ('LogisticModelTree', [0, 1, 2], 3)
        """
        from .._version import __version__
        from .._persist import FORMAT, FORMAT_VERSION, _floats, _plain
        check_is_fitted(self, "_coef")
        params = self.get_params()
        params["categorical_features"] = None  # the schema says which columns are
        rs = params["random_state"]
        params["random_state"] = rs if rs is None or isinstance(rs, Integral) else None
        return {
            "format": FORMAT, "format_version": FORMAT_VERSION,
            "quercus_version": __version__, "estimator": type(self).__name__,
            "params": {k: _plain(v) for k, v in params.items()},
            "schema": self._schema.to_dict(),
            "feature_names_in": (list(map(str, self.feature_names_in_))
                                 if hasattr(self, "feature_names_in_") else None),
            "classes": [_plain(c) for c in self.classes_],
            "impute": _floats(self._fill),
            "n_iterations": int(self.n_iterations_),
            "alpha": _plain(float(self.alpha_)),
            "response": self._response,
            "tree": {
                "kind": self._kind.tolist(), "feature": self._feature.tolist(),
                "threshold": _floats(self._threshold),
                "first_child": self._first_child.tolist(),
                "n_children": self._n_children.tolist(),
                "own_iterations": self._own_iter.tolist(),
                "total_iterations": self._total_iter.tolist(),
                "class_counts": _floats(self._counts),
                "coef": _floats(self._coef),
            },
        }

    @classmethod
    def from_dict(cls, d):
        """A fitted model from :meth:`to_dict`'s data, every field checked (a bad field
        raises :class:`quercus.ModelFileError` naming it).

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from quercus import LogisticModelTree
        >>> X, y = load_iris(return_X_y=True)
        >>> clf = LogisticModelTree(n_iterations=3).fit(X, y)
        >>> LogisticModelTree.from_dict(clf.to_dict()).node_count_ == clf.node_count_
        True
        """
        from .._persist import MAX_NODES, _fail, _label, _number, _require, _schema
        params = _require(d, "params", dict, "")
        unknown = set(params) - set(cls().get_params())
        if unknown:
            _fail("params", f"names unknown parameters {sorted(unknown)}")
        est = cls(**params)
        try:
            est._validate_params()
        except ValueError as exc:
            _fail("params", f"are invalid: {exc}")
        schema = _schema(_require(d, "schema", dict, ""))
        p = schema.n_features
        classes = _require(d, "classes", list, "")
        if len(classes) < 2:
            _fail("classes", "must hold two or more classes")
        for c in classes:
            _label(c, "classes")
        J = len(classes)
        coding = _Coding(schema, bool(est.binary_splits))
        q = len(coding.columns)
        fill = _require(d, "impute", list, "")
        if len(fill) != p:
            _fail("impute", f"has {len(fill)} entries, expected {p}")
        fill = np.array([_number(v, "impute") for v in fill])
        for j in range(p):
            if not math.isfinite(fill[j]) or (schema.is_categorical[j] and not (
                    fill[j] == int(fill[j]) and 0 <= fill[j] < len(schema.categories[j]))):
                _fail(f"impute[{j}]", "must be a finite mean or a level's index")
        tree = _require(d, "tree", dict, "")
        kind_raw = _require(tree, "kind", list, "tree.")
        m = len(kind_raw)
        if not 1 <= m <= MAX_NODES:
            _fail("tree.kind", f"has {m} nodes; a model has between 1 and {MAX_NODES}")

        def ints(key):
            raw = _require(tree, key, list, "tree.")
            if len(raw) != m:
                _fail(f"tree.{key}", f"has {len(raw)} entries, expected {m}")
            for v in raw:
                if isinstance(v, bool) or not isinstance(v, Integral) or abs(v) > 2**62:
                    _fail(f"tree.{key}", f"holds {v!r}, not an integer")
            return np.asarray(raw, dtype=np.int64)

        def floats(key, length):
            raw = _require(tree, key, list, "tree.")
            if len(raw) != length:
                _fail(f"tree.{key}", f"has {len(raw)} entries, expected {length}")
            return np.asarray([_number(v, f"tree.{key}") for v in raw], dtype=np.float64)

        kind = ints("kind")
        feature, first, nch = ints("feature"), ints("first_child"), ints("n_children")
        own, total = ints("own_iterations"), ints("total_iterations")
        threshold = floats("threshold", m)
        counts = floats("class_counts", m * J).reshape(m, J)
        coef = floats("coef", m * J * (q + 1)).reshape(m, J, q + 1)
        if not np.isin(kind, [LEAF, NUMERIC, NOMINAL]).all():
            _fail("tree.kind", "holds an unknown node kind")
        if not np.isfinite(coef).all():
            _fail("tree.coef", "must be finite")
        if not np.isfinite(counts).all() or (counts < 0).any():
            _fail("tree.class_counts", "must be finite and non-negative")
        if (own < 0).any() or (own > total).any():
            _fail("tree.own_iterations", "must be between 0 and total_iterations")
        n_levels = (np.zeros(q, np.int64) if est.binary_splits else np.array(
            [len(c) if b else 0 for b, c in zip(schema.is_categorical, schema.categories)],
            dtype=np.int64))
        n_split = q if est.binary_splits else p
        parents = np.zeros(m, np.int64)
        for node in range(m):
            if kind[node] == LEAF:
                if nch[node] != 0:
                    _fail(f"tree.n_children[{node}]", "must be 0 on a leaf")
                continue
            f = feature[node]
            if not 0 <= f < n_split:
                _fail(f"tree.feature[{node}]", "names a feature out of range")
            if (kind[node] == NOMINAL) != (n_levels[f] > 0):
                _fail(f"tree.kind[{node}]", "does not match the feature's type")
            want = n_levels[f] if kind[node] == NOMINAL else 2
            if nch[node] != want:
                _fail(f"tree.n_children[{node}]", f"must be {want}")
            if kind[node] == NUMERIC and not math.isfinite(threshold[node]):
                _fail(f"tree.threshold[{node}]", "must be finite")
            if first[node] <= node or first[node] + nch[node] > m:
                _fail(f"tree.first_child[{node}]", "must point after the node, inside the "
                      "tree")
            parents[first[node]:first[node] + nch[node]] += 1
        if parents[0] != 0 or (parents[1:] != 1).any():
            _fail("tree", "is not a tree: every node but the root needs exactly one parent")
        split_names = coding.column_names if est.binary_splits else list(
            schema.feature_names)
        est.classes_ = np.asarray(classes)
        est._schema, est._fill, est._coding = schema, fill, coding
        est._split_names, est._n_levels = split_names, n_levels
        est._kind, est._feature, est._threshold = kind, feature, threshold
        est._first_child, est._n_children = first, nch
        est._coef, est._own_iter, est._total_iter, est._counts = coef, own, total, counts
        n_it = _require(d, "n_iterations", int, "")
        est.n_iterations_ = int(n_it)
        est.alpha_ = _number(_require(d, "alpha", None, ""), "alpha")
        est._response = _require(d, "response", str, "")
        est.n_features_in_ = p
        names_in = d.get("feature_names_in")
        if names_in is not None:
            if names_in != list(schema.feature_names):
                _fail("feature_names_in", "must equal schema.feature_names")
            est.feature_names_in_ = np.asarray(names_in, dtype=object)
        est._finish()
        return est


def _choose_alpha(tree_alphas, fold_alphas, fold_errors):
    """Weka's choice of alpha: for each subtree of the full tree's sequence, the geometric
    mean of its alpha interval; its CV error is the sum over folds of the error of each
    fold's subtree for that alpha; the smallest error wins, the most pruned on a tie."""
    last = len(tree_alphas) - 2
    errs = np.zeros(last + 1)
    for i in range(last + 1):
        a = math.sqrt(tree_alphas[i] * tree_alphas[i + 1])
        for fa, fe in zip(fold_alphas, fold_errors):
            k = int(np.searchsorted(fa, a, side="right"))  # entries <= a
            errs[i] += fe[min(k, len(fe)) - 1]
    best = last - int(np.argmin(errs[::-1]))
    return math.sqrt(tree_alphas[best] * tree_alphas[best + 1])
