"""Read-only views of a fitted tree's nodes, shared by every exporter.

This module is the one place that reads a fitted estimator's ``tree_`` (and its
``schema_``): exporters, the command line and user code see the tree through
:class:`NodeView` and the functions below.

Examples
--------
>>> from quercus import ID3Classifier
>>> from quercus.datasets import load_watermelon
>>> from quercus.inspect import iter_nodes
>>> clf = ID3Classifier().fit(*load_watermelon("2.0"))
>>> root = next(iter_nodes(clf))
>>> root.feature, root.n_samples
('纹理', 17)
"""

from dataclasses import dataclass

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ._kernels.schema import (CAT_BINARY, CAT_SUBSET, KIND_NAMES, LEAF, MISSING_NAMES,
                              MULTIWAY, NUMERIC)


@dataclass(frozen=True)
class Surrogate:
    """One surrogate split of a node (rpart's rule for a missing value): a test on another
    feature that stands in for the node's own when the row lacks the node's feature.

    The test is ``value <= threshold`` (``kind == "numeric"``) or ``value == category``
    (``kind == "category"``). A row passing it takes branch ``branch`` of the node, any
    other known value branch ``1 - branch`` (a category unseen at fit time fails the
    test). A row missing this feature too tries the next surrogate.

    ``flip`` is ``branch == 1``: the surrogate sends the rows that pass its test right.
    ``agreement`` is the share of the node's training weight with the node's feature
    known that the surrogate sends the same way as the primary split (a sample missing
    the surrogate's feature counts as a disagreement).

    Examples
    --------
    >>> from quercus import CARTClassifier
    >>> from quercus.datasets import load_watermelon
    >>> from quercus.inspect import node_view
    >>> clf = CARTClassifier(surrogates="always").fit(*load_watermelon("2.0alpha"))
    >>> s = node_view(clf, 0).surrogates[0]
    >>> s.feature, s.kind, s.category, s.branch, s.flip, round(s.agreement, 2)
    ('脐部', 'category', '凹陷', 0, False, 0.73)
    """

    feature: object          # the surrogate's feature name
    feature_index: int       # its column in X
    kind: str                # "numeric" or "category"
    threshold: float | None  # numeric: the test is value <= threshold; None otherwise
    category: object         # category: the test is value == category; None otherwise
    branch: int              # the branch (0 or 1) of a value that passes the test
    agreement: float

    @property
    def flip(self):
        """Whether a value passing the test goes to the second branch (right)."""
        return self.branch == 1


@dataclass
class NodeView:
    """One node in human terms.

    ``conditions`` holds, for each child in order, the test a sample passes to reach it
    (for example ``"= 清晰"``, ``"<= 0.382"``, ``"!= clear"``); ``missing`` says in words
    how a sample missing ``feature`` is routed.

    The same routing, as values (every one ``None``, empty or 1.0 on a leaf):

    - ``feature_index``: the column of ``feature`` in X.
    - ``missing_mode``: ``"imputed"`` (a LogisticModelTree: see below), ``"fractional"`` (C4.5: a sample missing ``feature`` goes down
      every branch of non-zero weight, with the share ``child_weights[i] /
      sum(child_weights)`` of its weight), ``"surrogate"`` (rpart: the ``surrogates`` are
      tried in order, the first whose feature the sample has decides; with none known,
      ``missing_child``) or ``"learned"`` (``missing_child``, the branch chosen at fit
      time).
    - ``missing_child``: the branch index (into ``children``) a missing value takes when
      no surrogate decides; ``None`` if the sample stops at this node (it then predicts
      this node's ``distribution``), and always ``None`` for ``"fractional"``.
    - ``rho``: the share of the node's training weight that had ``feature`` known.
    - ``surrogates``: a tuple of the :class:`Surrogate` splits tried, in order
      (``"surrogate"`` mode only; empty otherwise).
    - ``child_weights``: a tuple of each child's training weight, in branch order (what
      C4.5 shares a missing value by). They add up to ``weighted_n_samples``: every
      training sample reaching the node went down the branches (one missing ``feature``
      under C4.5's rule in shares of its weight).
    - ``category_branch``: for a categorical split, category -> branch index: every
      category the split names, in the model's category order (``{v: 0}`` for an
      ``a == v`` split; every category seen at fit time for a subset or multiway split).
      A known category not in it takes ``other_child``.
    - ``branch_categories``: the same per branch, ``branch_categories[i]`` the categories
      that take branch ``i``, or ``None`` for "every category not listed", as on the
      ``!=`` side of an ``a == v`` split: ``[[v], None]``.
    - ``other_child``: the branch a category not in ``category_branch`` takes (a category
      unseen at fit time included): 1 at an ``a == v`` split, ``None`` at a multiway or
      subset split, where such a sample stops at this node (and predicts its
      ``distribution``). ``None`` on a numeric split.

    ``category_branch``, ``branch_categories`` and ``other_child`` are ``None`` on a
    numeric split.

    Examples
    --------
    C4.5 shares a missing value by the branches' weights:

    >>> from quercus import C45Classifier, CARTClassifier, ID3Classifier
    >>> from quercus.datasets import load_watermelon
    >>> from quercus.inspect import node_view
    >>> X, y = load_watermelon("2.0alpha")
    >>> v = node_view(C45Classifier().fit(X, y), 0)
    >>> v.feature, v.feature_index, v.missing_mode, v.missing_child, round(v.rho, 3)
    ('纹理', 3, 'fractional', None, 0.882)
    >>> v.branch_categories, v.other_child
    ([['清晰'], ['稍糊'], ['模糊']], None)
    >>> [round(w, 3) for w in v.child_weights]
    [7.933, 5.667, 3.4]

    CART with surrogates, an ``a == v`` split:

    >>> v = node_view(CARTClassifier(surrogates="always").fit(X, y), 0)
    >>> v.conditions, v.category_branch, v.branch_categories, v.other_child
    (['= 清晰', '!= 清晰'], {'清晰': 0}, [['清晰'], None], 1)
    >>> v.missing_mode, [s.feature for s in v.surrogates], v.missing_child
    ('surrogate', ['脐部', '色泽', '根蒂'], 1)

    A leaf:

    >>> leaf = node_view(ID3Classifier().fit(*load_watermelon("2.0")), 3)
    >>> leaf.children, leaf.missing_mode, leaf.surrogates, leaf.child_weights
    ([], None, (), ())

    A :class:`quercus.LogisticModelTree` is read the same way (see
    :class:`_LMTReader`): its leaves also carry their logistic model, ``model_name``
    (Weka's ``LM_1``, ``LM_2``... in depth-first order), ``model`` (the model as text)
    and ``model_coef`` (class -> the intercept then the coefficients of
    :func:`model_columns`, in order; ``P(class j) = exp(F_j) / sum_k exp(F_k)`` with
    ``F_j = coef[0] + sum_i coef[i] * column_i``). Those three are ``None`` on other
    trees and on an LMT's internal nodes.
    """

    node: int
    depth: int
    kind: str
    feature: object            # feature name, None on a leaf
    threshold: float | None
    category: object           # the v of an ``a == v`` split
    children: list
    conditions: list
    n_samples: int
    weighted_n_samples: float
    impurity: float
    distribution: dict | None  # class label -> weight (classifiers)
    predicted: object          # the class, or the value (regressors), the node predicts
    missing: str | None = None  # how a missing value of ``feature`` is routed, in words
    feature_index: int | None = None
    missing_mode: str | None = None     # "fractional", "surrogate" or "learned"
    missing_child: int | None = None    # branch of a missing value; None: every / stop
    rho: float = 1.0                    # known-weight share of ``feature`` at the node
    surrogates: tuple = ()              # of Surrogate, in the order they are tried
    child_weights: tuple = ()           # training weight of each child, in branch order
    category_branch: dict | None = None     # category -> branch (categorical splits)
    branch_categories: list | None = None   # per branch: its categories, None: the rest
    other_child: int | None = None          # branch of an unlisted category; None: stop
    model_name: str | None = None   # LogisticModelTree leaves: Weka's name, "LM_3"
    model: str | None = None        # ... and the leaf's logistic model as text
    model_coef: dict | None = None  # ... as numbers: class -> (intercept, *coefficients)


def _fmt_number(x, decimals):
    return f"{x:.{decimals}f}".rstrip("0").rstrip(".") if decimals else f"{x:.0f}"


def _plain(v):
    return v.item() if isinstance(v, np.generic) else v


class _Reader:
    """Builds node views of one fitted estimator; what every node shares (the class
    labels as plain values, the node classes predict gives, a feature's categories) is
    read once, here, not at each node."""

    def __init__(self, est, decimals):
        self.t = est.tree_
        self.schema = est.schema_
        self.decimals = decimals
        self.regressor = bool(getattr(est, "_is_regressor", False))
        if not self.regressor:
            self.classes = [_plain(c) for c in est.classes_]
            # Every node's class, worked out once per tree with the tie order predict uses.
            self.node_class = est._routing()[2]
        self._categories = {}

    def categories(self, f):
        """Feature ``f``'s categories as plain values (made once per reader)."""
        cats = self._categories.get(f)
        if cats is None:
            cats = self._categories[f] = [_plain(c) for c in self.schema.categories[f]]
        return cats

    def view(self, node):
        t = self.t
        k = t.kind.item(node)
        first, n_kids = t.first_child.item(node), t.n_children.item(node)
        children = list(range(first, first + n_kids))
        value = t.value[node].tolist()
        if self.regressor:
            dist = None
            predicted = value[0]
        else:
            dist = dict(zip(self.classes, value))
            predicted = self.classes[self.node_class[node]]
        v = NodeView(node=node, depth=t.depth.item(node), kind=KIND_NAMES[k], feature=None,
                     threshold=None, category=None, children=children, conditions=[],
                     n_samples=t.n_node_samples.item(node),
                     weighted_n_samples=t.weighted_n_node_samples.item(node),
                     impurity=t.impurity.item(node), distribution=dist, predicted=predicted)
        if k != LEAF:
            self._split(v, k, first, n_kids)
        return v

    def _split(self, v, k, first, n_kids):
        """Fill in the split and missing-value routing of internal node ``v``."""
        t, node = self.t, v.node
        f = t.feature.item(node)
        v.feature_index = f
        v.feature = self.schema.feature_names[f]
        if k == NUMERIC:
            v.threshold = t.threshold.item(node)
            s = _fmt_number(v.threshold, self.decimals)
            # LEARNED's "every known value | the missing ones" split has threshold inf.
            v.conditions = ([f"<= {s}", f"> {s}"] if np.isfinite(v.threshold)
                            else ["is known", "is missing"])
        elif k == CAT_BINARY:
            v.category = _plain(self.schema.categories[f][t.category.item(node)])
            v.conditions = [f"= {v.category}", f"!= {v.category}"]
            v.category_branch = {v.category: 0}
            v.branch_categories = [[v.category], None]
            v.other_child = 1
        elif k == MULTIWAY:
            cats = self.categories(f)
            v.conditions = [f"= {c}" for c in cats]
            # A category without a branch (past the last child) stops here, as unseen ones.
            v.category_branch = {c: i for i, c in enumerate(cats[:n_kids])}
            v.branch_categories = [[c] for c in cats[:n_kids]]
        elif k == CAT_SUBSET:
            cats = self.categories(f)
            start = t.cat_map_start.item(node)
            side = t.cat_map[start:start + len(cats)].tolist()
            v.category_branch = dict(zip(cats, side))
            v.branch_categories = [[c for c, b in zip(cats, side) if b == i]
                                   for i in range(n_kids)]
            left = "{" + ", ".join(str(c) for c in v.branch_categories[0]) + "}"
            v.conditions = [f"in {left}", f"not in {left}"]
        v.child_weights = tuple(t.weighted_n_node_samples[first:first + n_kids].tolist())
        v.rho = t.rho.item(node)
        mode = v.missing_mode = MISSING_NAMES[t.missing_mode.item(node)]
        if mode != "fractional":
            mc = t.missing_child.item(node)
            v.missing_child = mc if mc >= 0 else None
        if mode == "surrogate":
            v.surrogates = self._surrogates(node)
        v.missing = _missing_text(v, self.decimals)

    def _surrogates(self, node):
        t = self.t
        out = []
        start = t.sur_start.item(node)
        for s in range(start, start + t.sur_count.item(node)):
            g = t.sur_feature.item(s)
            numeric = t.sur_kind.item(s) == NUMERIC
            out.append(Surrogate(
                feature=self.schema.feature_names[g], feature_index=g,
                kind="numeric" if numeric else "category",
                threshold=t.sur_threshold.item(s) if numeric else None,
                category=(None if numeric
                          else _plain(self.schema.categories[g][t.sur_category.item(s)])),
                branch=1 if t.sur_flip.item(s) else 0,
                agreement=t.sur_agreement.item(s)))
        return tuple(out)


def _missing_text(v, decimals):
    """How internal node ``v`` routes a sample missing its attribute, in words."""
    if v.missing_mode == "fractional":
        return f"fractional: every branch, weighted (rho = {v.rho:.3g})"
    mc = -1 if v.missing_child is None else v.missing_child
    if v.missing_mode == "learned":
        return f"learned: {v.conditions[mc]}" if 0 <= mc < len(v.conditions) else "learned"
    parts = []
    for s in v.surrogates:
        test = (f"{s.feature} <= {_fmt_number(s.threshold, decimals)}" if s.kind == "numeric"
                else f"{s.feature} = {s.category}")
        side = "right" if s.flip else "left"
        parts.append(f"{test} goes {side} (agreement {s.agreement:.2f})")
    fallback = f"else {v.conditions[mc]}" if 0 <= mc < len(v.conditions) else "else stop here"
    return "surrogate: " + "; ".join(parts + [fallback])

# ---------------------------------------------------------------- LogisticModelTree
def _is_lmt(est):
    from .linear._lmt import LogisticModelTree
    return isinstance(est, LogisticModelTree)


def _check_fitted(est):
    """scikit-learn's NotFittedError unless ``est`` (a tree estimator or an LMT) is fitted."""
    check_is_fitted(est, "_coef" if _is_lmt(est) else "tree_")


def _schema(est):
    return est._schema if _is_lmt(est) else est.schema_


def _reader(est, decimals):
    return _LMTReader(est, decimals) if _is_lmt(est) else _Reader(est, decimals)


def _lmt_depths(est):
    kind, first, n_kids = est._kind, est._first_child, est._n_children
    depth = np.zeros(kind.shape[0], dtype=np.int64)
    for node in range(kind.shape[0]):  # breadth first: a parent before its children
        if n_kids[node]:
            depth[first[node]:first[node] + n_kids[node]] = depth[node] + 1
    return depth


class _LMTShape:
    """An LMT's node arrays under the names :func:`_walk_shape` reads."""

    def __init__(self, est):
        self.first_child, self.n_children = est._first_child, est._n_children
        self.depth = _lmt_depths(est)


def model_columns(est):
    """The columns of a fitted :class:`quercus.LogisticModelTree`'s logistic models, in
    the order of ``NodeView.model_coef``: ``(name, feature, level)``, ``level`` None for a
    numeric feature, else the category the 0/1 indicator column tests (Weka's
    ``NominalToBinary``).

    Examples
    --------
    >>> from quercus import LogisticModelTree
    >>> from quercus.datasets import load_golf
    >>> model_columns(LogisticModelTree().fit(*load_golf()))[:2]
    [('outlook=sunny', 'outlook', 'sunny'), ('outlook=overcast', 'outlook', 'overcast')]
    """
    check_is_fitted(est, "_coef")
    schema = est._schema
    return [(name, _plain(schema.feature_names[j]),
             None if k < 0 else _plain(schema.categories[j][k]))
            for name, (j, k) in zip(est._coding.column_names, est._coding.columns)]


def imputed_values(est):
    """What a fitted :class:`quercus.LogisticModelTree` puts in place of a missing value
    (and of a category not seen at fit time), per feature: the training mean of a numeric
    feature, the most frequent category of a categorical one (Weka's
    ``ReplaceMissingValues``).

    Examples
    --------
    >>> from quercus import LogisticModelTree
    >>> from quercus.datasets import load_golf
    >>> imputed_values(LogisticModelTree().fit(*load_golf()))["outlook"]  # 5 sunny, 5 rain
    'sunny'
    """
    check_is_fitted(est, "_coef")
    schema = est._schema
    return {_plain(name): (_plain(schema.categories[j][int(est._fill[j])])
                           if schema.is_categorical[j] else float(est._fill[j]))
            for j, name in enumerate(schema.feature_names)}


def _model_name_text(name):
    name = str(name)
    return name if name.isidentifier() else f"[{name}]"


def _linear_text(coef, columns, decimals):
    """``1.2 + 0.8*x - 0.5*[a=b]``: the intercept, then every coefficient not printed as 0."""
    out = _fmt_number(coef[0], decimals)
    out = "0" if out == "-0" else out
    for c, name in zip(coef[1:], columns):
        t = _fmt_number(abs(c), decimals)
        if c == 0.0 or t == "0":
            continue
        out += f" {'-' if c < 0 else '+'} {t}*{_model_name_text(name)}"
    return out


def lmt_model_text(name, classes, coef, columns, decimals=3):
    """A leaf model as text: ``LM_1: logit P(yes) = ...`` with two classes (``F_yes -
    F_no``), else one line ``F(class) = ...`` per class under ``LM_1: P(class) =
    softmax(F)``."""
    classes = [_plain(c) for c in classes]
    if len(classes) == 2:
        return (f"{name}: logit P({classes[1]}) = "
                + _linear_text(np.asarray(coef[1]) - np.asarray(coef[0]), columns, decimals))
    lines = [f"{name}: P(class) = softmax(F)"]
    lines += [f"F({c}) = " + _linear_text(coef[j], columns, decimals)
              for j, c in enumerate(classes)]
    return "\n".join(lines)


class _LMTReader:
    """Node views of a fitted :class:`quercus.LogisticModelTree`.

    The LMT's own tree (C4.5's splits: ``<= t`` / ``> t`` on numeric attributes, one
    branch per category, or with ``binary_splits`` a ``<= 0`` / ``> 0`` test of a 0/1
    indicator ``attribute=level``) read as :class:`NodeView`: ``distribution`` holds the
    node's training class counts and ``predicted`` their majority (the first class on a
    tie). A leaf predicts with its logistic model, not that class: ``model_name``,
    ``model`` and ``model_coef`` hold it. ``impurity`` is the entropy of the class counts
    in bits. A missing value (and a category unseen at fit time) is imputed before the
    tree is walked, with the training mean or most frequent category: ``missing_mode`` is
    ``"imputed"`` and ``missing_child`` (and ``other_child`` at a categorical split) the
    branch the imputed value takes. There are no sample weights: ``weighted_n_samples``
    is the count.
    """

    def __init__(self, est, decimals):
        from .linear._lmt import LEAF as L_LEAF, NUMERIC as L_NUMERIC
        self.est, self.decimals = est, decimals
        self.leaf_code, self.numeric_code = L_LEAF, L_NUMERIC
        self.classes = [_plain(c) for c in est.classes_]
        self.depth = _lmt_depths(est)
        self.leaf_id = {node: k + 1 for k, node in enumerate(est._leaf_order())}
        self.columns = list(est._coding.column_names)
        self.binary = bool(est._coding.binary_splits)
        fill = np.asarray(est._fill, dtype=np.float64)[None, :]
        N = est._coding.model_matrix(fill)
        self.fill_split = (N if self.binary else fill)[0]  # the imputed row, split matrix
        self.imputed = imputed_values(est)

    def view(self, node):
        est = self.est
        counts = est._counts[node]
        k = int(est._kind[node])
        first, n_kids = int(est._first_child[node]), int(est._n_children[node])
        children = list(range(first, first + n_kids)) if n_kids else []
        total = float(counts.sum())
        p = counts[counts > 0] / total if total > 0 else np.zeros(0)
        v = NodeView(node=node, depth=int(self.depth[node]),
                     kind="leaf" if k == self.leaf_code else (
                         "numeric" if k == self.numeric_code else "multiway"),
                     feature=None, threshold=None, category=None, children=children,
                     conditions=[], n_samples=int(round(total)), weighted_n_samples=total,
                     impurity=float(-(p * np.log2(p)).sum()) + 0.0,
                     distribution=dict(zip(self.classes, counts.tolist())),
                     predicted=self.classes[int(np.argmax(counts))])
        if not children:
            name = f"LM_{self.leaf_id[node]}"
            v.model_name = name
            v.model_coef = {c: tuple(est._coef[node, j].tolist())
                            for j, c in enumerate(self.classes)}
            v.model = lmt_model_text(name, self.classes, est._coef[node], self.columns,
                                     self.decimals)
            return v
        f = int(est._feature[node])
        schema = est._schema
        v.feature = est._split_names[f]
        j = est._coding.columns[f][0] if self.binary else f
        v.feature_index = j
        imputed = self.fill_split[f]
        if v.kind == "numeric":
            v.threshold = float(est._threshold[node])
            s = _fmt_number(v.threshold, self.decimals)
            v.conditions = [f"<= {s}", f"> {s}"]
            branch = int(imputed > v.threshold)
        else:
            cats = [_plain(c) for c in schema.categories[f]]
            v.conditions = [f"= {c}" for c in cats[:n_kids]]
            v.category_branch = {c: i for i, c in enumerate(cats[:n_kids])}
            v.branch_categories = [[c] for c in cats[:n_kids]]
            branch = int(imputed)
            v.other_child = branch  # an unseen category is imputed too
        v.missing_mode = "imputed"
        v.missing_child = branch
        v.child_weights = tuple(float(est._counts[c].sum()) for c in children)
        xname = _plain(schema.feature_names[j])
        value = self.imputed[xname]
        what = (f"{xname} = {value} (most frequent)" if schema.is_categorical[j]
                else f"{xname} = {value:.6g} (training mean)")
        v.missing = f"imputed: {what}, so {v.feature} {v.conditions[branch]}"
        return v


def node_view(est, node, decimals=3):
    """The :class:`NodeView` of ``node`` of a fitted estimator.

    Examples
    --------
    >>> from quercus import CARTClassifier
    >>> from quercus.datasets import load_watermelon
    >>> from quercus.inspect import node_view
    >>> clf = CARTClassifier().fit(*load_watermelon("2.0"))
    >>> node_view(clf, 0).conditions
    ['= 清晰', '!= 清晰']
    """
    _check_fitted(est)
    return _reader(est, decimals).view(node)


def iter_nodes(est, decimals=3, *, node=0, max_depth=None):
    """Every node's :class:`NodeView` in depth-first order, children in branch order.

    With ``node``, the subtree under that node only; with ``max_depth``, down to that many
    levels below ``node`` (the nodes at the last level keep their ``children`` ids, but the
    children are not visited).

    Examples
    --------
    >>> from quercus import ID3Classifier
    >>> from quercus.datasets import load_watermelon
    >>> from quercus.inspect import iter_nodes
    >>> clf = ID3Classifier().fit(*load_watermelon("2.0"))
    >>> [v.feature for v in iter_nodes(clf) if v.children]
    ['纹理', '根蒂', '色泽', '触感', '触感']
    >>> [v.node for v in iter_nodes(clf, node=1, max_depth=1)]
    [1, 4, 5, 6]
    """
    # Checked here, at the call, not when the first node is asked for: every exporter
    # then raises scikit-learn's NotFittedError for an unfitted estimator.
    _check_fitted(est)
    return _walk(est, decimals, int(node), max_depth)


def _walk(est, decimals, node, max_depth):
    reader = _reader(est, decimals)
    stack = [node]
    base = None
    while stack:
        v = reader.view(stack.pop())
        yield v
        if base is None:
            base = v.depth
        if max_depth is None or v.depth - base < max_depth:
            stack.extend(reversed(v.children))


def iter_shape(est, node=0, max_depth=None):
    """``(node, depth, children)`` of every node under ``node``, depth first, as
    :func:`iter_nodes` visits them (``max_depth`` alike), without building views: the
    shape of a tree, quick to count on.

    Examples
    --------
    >>> from quercus import ID3Classifier
    >>> from quercus.datasets import load_watermelon
    >>> from quercus.inspect import iter_shape
    >>> clf = ID3Classifier().fit(*load_watermelon("2.0"))
    >>> next(iter_shape(clf))
    (0, 0, [1, 2, 3])
    >>> sum(1 for _, _, children in iter_shape(clf) if not children) == clf.get_n_leaves()
    True
    """
    _check_fitted(est)
    if _is_lmt(est):
        return _walk_shape(_LMTShape(est), int(node), max_depth)
    return _walk_shape(est.tree_, int(node), max_depth)


def _walk_shape(t, node, max_depth):
    first, n_kids, depth = t.first_child, t.n_children, t.depth
    base = depth.item(node)
    stack = [node]
    while stack:
        v = stack.pop()
        s = first.item(v)
        kids = list(range(s, s + n_kids.item(v)))
        d = depth.item(v)
        yield v, d, kids
        if max_depth is None or d - base < max_depth:
            stack.extend(reversed(kids))


def n_nodes(est):
    """The number of nodes of a fitted estimator's tree (ids ``0 .. n_nodes - 1``).

    Examples
    --------
    >>> from quercus import ID3Classifier
    >>> from quercus.datasets import load_watermelon
    >>> from quercus.inspect import n_nodes
    >>> n_nodes(ID3Classifier().fit(*load_watermelon("2.0")))
    14
    """
    _check_fitted(est)
    return est.node_count_ if _is_lmt(est) else est.tree_.node_count


def feature_names(est):
    """The names of the features the estimator was fitted on, in column order (``x0``,
    ``x1``, ... for an array without names).

    Examples
    --------
    >>> from quercus import ID3Classifier
    >>> from quercus.datasets import load_watermelon
    >>> from quercus.inspect import feature_names
    >>> feature_names(ID3Classifier().fit(*load_watermelon("2.0")))[:2]
    ['色泽', '根蒂']
    """
    _check_fitted(est)
    return list(_schema(est).feature_names)


def categorical_mask(est):
    """Whether each feature, in column order, is categorical (bools).

    Examples
    --------
    >>> from quercus import CARTClassifier
    >>> from quercus.datasets import load_watermelon
    >>> from quercus.inspect import categorical_mask
    >>> categorical_mask(CARTClassifier().fit(*load_watermelon("3.0")))[-3:]
    [True, False, False]
    """
    _check_fitted(est)
    return [bool(b) for b in _schema(est).is_categorical]


# Re-exported so exporters need not reach into private modules.
__all__ = ["NodeView", "Surrogate", "node_view", "iter_nodes", "iter_shape", "n_nodes",
           "feature_names", "categorical_mask", "model_columns", "imputed_values", "LEAF", "MULTIWAY", "NUMERIC", "CAT_BINARY"]
