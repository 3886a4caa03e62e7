"""Read-only views of a fitted tree's nodes, shared by every exporter.

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

from ._kernels.splits import CAT_BINARY, CAT_SUBSET, LEAF, MULTIWAY, NUMERIC
from ._tree import KIND_NAMES, MISSING_NAMES


@dataclass
class NodeView:
    """One node in human terms.

    ``conditions`` holds, for each child in order, the test a sample passes to reach it
    (for example ``"= 清晰"``, ``"<= 0.382"``, ``"!= 清晰"``).
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
    missing: str | None = None  # how a missing value of ``feature`` is routed


def _fmt_number(x, decimals):
    return f"{x:.{decimals}f}".rstrip("0").rstrip(".") if decimals else f"{x:.0f}"


def _plain(v):
    return v.item() if isinstance(v, np.generic) else v


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
    check_is_fitted(est, "tree_")
    return _node_view(est, node, decimals)


def _node_view(est, node, decimals):
    t = est.tree_
    schema = est.schema_
    k = int(t.kind[node])
    children = t.children(node)
    feature = threshold = category = None
    conditions = []
    if k != LEAF:
        f = int(t.feature[node])
        feature = schema.feature_names[f]
        if k == NUMERIC:
            threshold = float(t.threshold[node])
            s = _fmt_number(threshold, decimals)
            # LEARNED's "every known value | the missing ones" split has threshold inf.
            conditions = ([f"<= {s}", f"> {s}"] if np.isfinite(threshold)
                          else ["is known", "is missing"])
        elif k == CAT_BINARY:
            category = _plain(schema.categories[f][t.category[node]])
            conditions = [f"= {category}", f"!= {category}"]
        elif k == MULTIWAY:
            conditions = [f"= {_plain(c)}" for c in schema.categories[f]]
        elif k == CAT_SUBSET:
            cats = schema.categories[f]
            start = int(t.cat_map_start[node])
            side = t.cat_map[start:start + len(cats)]
            left = "{" + ", ".join(str(_plain(c)) for c, s in zip(cats, side) if s == 0) + "}"
            conditions = [f"in {left}", f"not in {left}"]
    value = t.value[node]
    if getattr(est, "_is_regressor", False):
        dist = None
        predicted = float(value[0])
    else:
        classes = est.classes_
        dist = {_plain(c): float(v) for c, v in zip(classes, value)}
        # Every node's class, worked out once per tree with the tie order predict uses.
        predicted = _plain(classes[est._routing()[2][node]])
    return NodeView(node=node, depth=int(t.depth[node]), kind=KIND_NAMES[k], feature=feature,
                    threshold=threshold, category=category, children=children,
                    conditions=conditions, n_samples=int(t.n_node_samples[node]),
                    weighted_n_samples=float(t.weighted_n_node_samples[node]),
                    impurity=float(t.impurity[node]), distribution=dist, predicted=predicted,
                    missing=_missing_text(est, node, conditions, decimals) if k else None)


def _missing_text(est, node, conditions, decimals):
    """How the node routes a sample missing its attribute, in words."""
    t = est.tree_
    mode = MISSING_NAMES[int(t.missing_mode[node])]
    if mode == "fractional":
        return f"fractional: every branch, weighted (rho = {t.rho[node]:.3g})"
    parts = []
    if mode == "surrogate":
        names = est.schema_.feature_names
        for s in range(t.sur_start[node], t.sur_start[node] + t.sur_count[node]):
            g = int(t.sur_feature[s])
            if t.sur_kind[s] == NUMERIC:
                test = f"{names[g]} <= {_fmt_number(float(t.sur_threshold[s]), decimals)}"
            else:
                test = f"{names[g]} = {_plain(est.schema_.categories[g][t.sur_category[s]])}"
            side = "right" if t.sur_flip[s] else "left"
            parts.append(f"{test} goes {side} (agreement {t.sur_agreement[s]:.2f})")
    mc = int(t.missing_child[node])
    fallback = f"else {conditions[mc]}" if 0 <= mc < len(conditions) else "else stop here"
    if mode == "learned":
        return f"learned: {conditions[mc]}" if 0 <= mc < len(conditions) else "learned"
    return "surrogate: " + "; ".join(parts + [fallback])


def iter_nodes(est, decimals=3):
    """Every node's :class:`NodeView` in depth-first order, children in branch order.

    Examples
    --------
    >>> from quercus import ID3Classifier
    >>> from quercus.datasets import load_watermelon
    >>> from quercus.inspect import iter_nodes
    >>> clf = ID3Classifier().fit(*load_watermelon("2.0"))
    >>> [v.feature for v in iter_nodes(clf) if v.children]
    ['纹理', '根蒂', '色泽', '触感', '触感']
    """
    # Checked here, at the call, not when the first node is asked for: every exporter
    # then raises scikit-learn's NotFittedError for an unfitted estimator.
    check_is_fitted(est, "tree_")
    return _walk(est, decimals)


def _walk(est, decimals):
    stack = [0]
    while stack:
        v = _node_view(est, stack.pop(), decimals)
        yield v
        stack.extend(reversed(v.children))


# Re-exported so exporters need not reach into private modules.
__all__ = ["NodeView", "node_view", "iter_nodes", "LEAF", "MULTIWAY", "NUMERIC", "CAT_BINARY"]
