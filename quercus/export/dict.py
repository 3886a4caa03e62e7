"""The tree as nested plain dicts (JSON-serialisable)."""

from ..inspect import iter_nodes, model_columns


def export_dict(estimator, *, decimals=None):
    """Return the fitted tree as nested dicts of plain Python values.

    Every node has ``node``, ``depth``, ``kind``, ``n_samples``, ``weighted_n_samples``,
    ``impurity``, and ``distribution`` (class -> weight) and ``class`` for a classifier or
    ``value`` for a regressor; an internal node also has ``feature``, ``threshold`` or
    ``category`` where they apply, ``missing`` (how a missing value is routed, in words) and
    ``children``: a list of ``{"condition": ..., "node": {...}}``.

    A :class:`quercus.LogisticModelTree`'s leaves also have ``model_name`` (``LM_3``),
    ``model`` (the logistic model as text) and ``coefficients`` (class -> column ->
    coefficient, ``(Intercept)`` first; ``P(class j)`` is the softmax of the classes'
    linear functions); its ``class`` is the majority of the node's training classes and
    its ``missing`` says which imputed value decides.

    Parameters
    ----------
    estimator : fitted quercus classifier
    decimals : int or None
        Digits of thresholds in the condition strings (the ``threshold`` value itself is
        always exact). None uses 3.

    Returns
    -------
    dict

    Raises
    ------
    sklearn.exceptions.NotFittedError
        If the estimator is not fitted.

    Examples
    --------
    >>> import json
    >>> from quercus import CARTClassifier, export_dict
    >>> from quercus.datasets import load_golf
    >>> tree = export_dict(CARTClassifier(max_depth=1).fit(*load_golf()))
    >>> tree["feature"], [b["condition"] for b in tree["children"]]
    ('outlook', ['= overcast', '!= overcast'])
    >>> json.loads(json.dumps(tree, ensure_ascii=False)) == tree
    True
    """
    views = {v.node: v for v in iter_nodes(estimator, 3 if decimals is None else decimals)}
    out = {}
    # Build bottom-up: children have larger indices than their parent.
    for node in sorted(views, reverse=True):
        v = views[node]
        d = {
            "node": v.node,
            "depth": v.depth,
            "kind": v.kind,
            "n_samples": v.n_samples,
            "weighted_n_samples": v.weighted_n_samples,
            "impurity": v.impurity,
        }
        if v.distribution is None:
            d["value"] = v.predicted
        else:
            d["distribution"] = v.distribution
            d["class"] = v.predicted
        if v.model is not None:
            cols = ["(Intercept)"] + [c[0] for c in model_columns(estimator)]
            d["model_name"] = v.model_name
            d["model"] = v.model
            d["coefficients"] = {c: dict(zip(cols, coef)) for c, coef in v.model_coef.items()}
        if v.children:
            d["feature"] = v.feature
            if v.threshold is not None:
                d["threshold"] = v.threshold
            if v.category is not None:
                d["category"] = v.category
            d["missing"] = v.missing
            d["children"] = [{"condition": cond, "node": out.pop(c)}
                             for c, cond in zip(v.children, v.conditions)]
        out[node] = d
    return out[0]
