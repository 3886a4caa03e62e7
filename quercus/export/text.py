"""Indented text rendering, aligned for CJK labels."""

import unicodedata

from ..inspect import iter_nodes


def display_width(s):
    """Terminal columns taken by ``s``: East Asian wide and full-width characters take two.

    Examples
    --------
    >>> from quercus.export.text import display_width
    >>> display_width("纹理"), display_width("abc")
    (4, 3)
    """
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in str(s))


def _fmt_prediction(p, view=None):
    if view is not None and view.model_name is not None:
        return view.model_name  # a LogisticModelTree leaf: its model, listed below
    return f"{p:.4g}" if isinstance(p, float) else str(p)


def _fmt_weight(w):
    if w == 0 or (abs(w) >= 1 and abs(w - round(w)) < 1e-9 * abs(w)):
        return str(int(round(w)))
    return f"{w:.3g}"


def _dist(view):
    if view.n_samples == 0:
        return "(no samples: parent's prediction)"
    if view.distribution is None:
        return f"[n: {view.n_samples}, weight: {_fmt_weight(view.weighted_n_samples)}]"
    return "[" + ", ".join(f"{c}: {_fmt_weight(w)}" for c, w in view.distribution.items()) + "]"


def export_text(estimator, *, decimals=3, show_distribution=True):
    """Render a fitted tree as indented text, one line per branch (Weka's J48 layout).

    Each line is a branch test; a leaf's line ends with ``: class``. A tree that is only
    its root prints as one leaf line, ``root: class``. With ``show_distribution`` the
    leaves' weighted class counts follow in one aligned column (East Asian wide characters
    count as two columns, so Chinese labels line up).

    A :class:`quercus.LogisticModelTree` is drawn the same way (the shared layout, not
    the LMT's own Weka-style :meth:`~quercus.LogisticModelTree.export_text`): a leaf's
    line ends with its model's name, ``: LM_3``, its training class counts in the
    column, and every leaf model follows the tree, one paragraph each (``decimals``
    digits).

    Parameters
    ----------
    estimator : fitted quercus classifier
    decimals : int, default=3
        Digits of numeric thresholds.
    show_distribution : bool, default=True

    Returns
    -------
    str

    Raises
    ------
    sklearn.exceptions.NotFittedError
        If the estimator is not fitted.

    Examples
    --------
    >>> from quercus import ID3Classifier, export_text
    >>> from quercus.datasets import load_watermelon
    >>> clf = ID3Classifier().fit(*load_watermelon("2.0"))
    >>> print(export_text(clf).splitlines()[0])
    纹理 = 清晰
    """
    views = {v.node: v for v in iter_nodes(estimator, decimals)}
    rows = []  # (text, leaf distribution or None)
    if not views[0].children:
        # A leaf's line is "test: prediction"; the root alone has no test, so it is named.
        rows.append((f"root: {_fmt_prediction(views[0].predicted, views[0])}",
                     _dist(views[0])))
    # Iterative depth-first walk: (parent, branch index, level), first branch on top.
    stack = [(0, i, 0) for i in reversed(range(len(views[0].children)))]
    while stack:
        parent, i, level = stack.pop()
        v = views[parent]
        child = views[v.children[i]]
        line = "|   " * level + f"{v.feature} {v.conditions[i]}"
        if child.children:
            rows.append((line, None))
            stack.extend((child.node, j, level + 1) for j in reversed(range(len(child.children))))
        else:
            rows.append((f"{line}: {_fmt_prediction(child.predicted, child)}", _dist(child)))
    models = _models_text(views)
    if not show_distribution:
        return "\n".join(text for text, _ in rows) + models
    width = max(display_width(text) for text, _ in rows)
    out = []
    for text, dist in rows:
        if dist is None:
            out.append(text)
        else:
            out.append(text + " " * (width - display_width(text) + 2) + dist)
    return "\n".join(out) + models


def _models_text(views):
    """The leaf models of a LogisticModelTree, after the tree ("" for other trees)."""
    leaves = sorted((v for v in views.values() if v.model is not None),
                    key=lambda v: int(v.model_name[3:]))
    return "".join("\n\n" + v.model for v in leaves)

