"""What a node box shows and how it is coloured, shared by every drawing exporter.

The vocabulary follows R's rpart.plot: ``extra`` chooses the numbers under a node's
prediction, ``digits`` their significant digits. Colours are plain ``"#rrggbb"`` strings so
that the matplotlib plot, the DOT text and the HTML view agree without importing each other.

Examples
--------
>>> from quercus import ID3Classifier
>>> from quercus.datasets import load_watermelon
>>> from quercus.inspect import node_view
>>> from quercus.export._style import node_lines, class_color
>>> clf = ID3Classifier().fit(*load_watermelon("2.0"))
>>> root = node_view(clf, 0)
>>> node_lines(root, clf)
['否', '0.47', '100%']
>>> class_color(root, clf)   # 9 of 17: nearly white
'#fefaf2'
"""

import functools
import numbers

from ..inspect import iter_nodes, iter_shape, n_nodes, node_view

# Okabe & Ito (2008), "Color Universal Design": distinguishable with every common colour
# vision deficiency. Black is left out: it is the text colour.
PALETTE = ["#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7"]

# The strongest tint a box gets, so black text stays readable on the darkest hue.
_MAX_TINT = 0.85
# Regression: from a near-white to Okabe-Ito's blue.
_LOW, _HIGH = "#F2F7FB", "#0072B2"

_CLASS_EXTRAS = frozenset(range(12))
_REGRESSION_EXTRAS = frozenset({0, 1})


@functools.lru_cache(maxsize=4096)
def _rgb(hex_color):
    h = hex_color.lstrip("#")
    return tuple(int(h[i:i + 2], 16) for i in (0, 2, 4))


@functools.lru_cache(maxsize=65536)
def _mix(a, b, t):
    """``a`` moved a fraction ``t`` of the way to ``b``, as ``#rrggbb``."""
    ra, rb = _rgb(a), _rgb(b)
    return "#" + "".join(f"{round(x + (y - x) * t):02x}" for x, y in zip(ra, rb))


def _is_regressor(est):
    return bool(getattr(est, "_is_regressor", False))


def class_color(view, est, classes=None):
    """Fill colour of a classifier's node: hue by predicted class, saturation by purity.

    A node whose class shares are all equal is white; a pure node has its class's full
    (capped) tint. The purity is ``(p_max - 1/k) / (1 - 1/k)`` for ``k`` classes.

    Parameters
    ----------
    view : NodeView
        From :func:`quercus.inspect.node_view`.
    est : fitted quercus classifier
    classes : sequence, optional
        Class labels in palette order; default ``est.classes_``. Classes beyond the
        palette's seven colours reuse it cyclically.

    Returns
    -------
    str
        ``"#rrggbb"``.

    Examples
    --------
    >>> from quercus import CARTClassifier
    >>> from quercus.datasets import load_watermelon
    >>> from quercus.inspect import node_view
    >>> from quercus.export._style import class_color
    >>> clf = CARTClassifier().fit(*load_watermelon("2.0"))
    >>> class_color(node_view(clf, 3), clf)   # a pure leaf of the second class
    '#6fbfec'
    """
    if classes is None:
        classes = [c.item() if hasattr(c, "item") else c for c in est.classes_]
    classes = list(classes)
    dist = view.distribution or {}
    total = sum(dist.values())
    k = len(classes)
    try:
        hue = PALETTE[classes.index(view.predicted) % len(PALETTE)]
    except ValueError:
        hue = PALETTE[0]
    if total <= 0 or k < 2:
        return _mix("#FFFFFF", hue, 0.0 if total <= 0 else _MAX_TINT)
    p_max = max(dist.values()) / total
    purity = max(0.0, (p_max - 1.0 / k) / (1.0 - 1.0 / k))
    return _mix("#FFFFFF", hue, _MAX_TINT * purity)


def value_color(value, vmin, vmax):
    """Fill colour of a regression node: its prediction on a light-to-blue scale.

    Parameters
    ----------
    value : float
    vmin, vmax : float
        The range of predictions in the tree (``vmin == vmax`` gives the middle colour).

    Returns
    -------
    str
        ``"#rrggbb"``.

    Examples
    --------
    >>> from quercus.export._style import value_color
    >>> value_color(0.0, 0.0, 1.0), value_color(1.0, 0.0, 1.0)
    ('#f2f7fb', '#2486bd')
    """
    t = 0.5 if vmax <= vmin else min(1.0, max(0.0, (value - vmin) / (vmax - vmin)))
    return _mix(_LOW, _HIGH, _MAX_TINT * t)


def fmt_num(x, digits=2):
    """``x`` with ``digits`` significant digits, integers as integers.

    Examples
    --------
    >>> from quercus.export._style import fmt_num
    >>> fmt_num(0.38149, 3), fmt_num(17.0), fmt_num(1.4666, 2), fmt_num(1234.5, 2)
    ('0.381', '17', '1.5', '1234')
    """
    x = float(x)
    if x == round(x) and abs(x) < 1e15:
        return str(int(round(x)))
    if abs(x) >= 10 ** digits:
        return f"{x:.0f}"
    return f"{x:.{max(1, digits)}g}"


def _fmt_prob(p, digits):
    return f"{p:.{max(1, digits)}f}"


def check_extra(extra, est, caller="plot_tree"):
    """``extra`` resolved to an int (``"auto"`` as rpart.plot), or a ValueError naming it.

    ``"auto"`` is 106 for two classes (the second class's probability and the percent of
    samples), 104 for more classes (every class's probability), 100 for regression.

    Examples
    --------
    >>> from quercus import ID3Classifier
    >>> from quercus.datasets import load_watermelon
    >>> from quercus.export._style import check_extra
    >>> check_extra("auto", ID3Classifier().fit(*load_watermelon("2.0")))
    106
    """
    if extra == "auto":
        if _is_regressor(est):
            return 100
        return 106 if len(est.classes_) == 2 else 104
    allowed = _REGRESSION_EXTRAS if _is_regressor(est) else _CLASS_EXTRAS
    ok = (isinstance(extra, numbers.Integral) and not isinstance(extra, bool)
          and int(extra) % 100 in allowed and 0 <= int(extra) < 200)
    if not ok:
        what = ("0, 1, 100 or 101 for a regression tree" if _is_regressor(est)
                else "an int in 0..11, plus 100 to add the percent of samples")
        raise ValueError(f"The 'extra' parameter of {caller} must be \"auto\" or {what}. "
                         f"Got {extra!r} instead.")
    return int(extra)


def node_lines(view, est, extra="auto", digits=2, *, total=None, classes=None):
    """The lines of text a node box shows, following rpart.plot's ``extra`` numbering.

    The first line is the prediction (the class, or the mean for regression), except for
    ``extra`` 5, 7 and 11, which leave the class out. Then:

    ====== ==========================================================================
    extra  classification
    ====== ==========================================================================
    0      nothing more
    1      the (weighted) count of each class
    2      correct / total, e.g. ``6 / 7``
    3      misclassified / total
    4      the probability of each class
    5      as 4, without the class line
    6      the probability of the second class (for two-class problems)
    7      as 6, without the class line
    8      the probability of the predicted class
    9      each class's probability times the node's share of all samples
    10     as 9, the second class only
    11     as 10, without the class line
    +100   adds the node's percent of all (weighted) samples
    ====== ==========================================================================

    For regression ``extra`` is 0 (the mean only), 1 (adds ``n=``), plus 100 for the percent.

    A :class:`quercus.LogisticModelTree` leaf shows its model's name (``LM_3``) and
    ``n=`` in place of the class line, then the ``extra`` numbers of its training classes.

    Parameters
    ----------
    view : NodeView
    est : fitted quercus estimator
    extra : int or "auto", default="auto"
        See :func:`check_extra`.
    digits : int, default=2
        Significant digits of means and counts, decimals of probabilities.
    total : float, optional
        The weight that is 100%; default the root's weighted sample count.
    classes : sequence, optional
        Class labels; default ``est.classes_``.

    Returns
    -------
    list of str

    Examples
    --------
    >>> from quercus import CARTClassifier
    >>> from quercus.datasets import load_watermelon
    >>> from quercus.inspect import node_view
    >>> from quercus.export._style import node_lines
    >>> clf = CARTClassifier().fit(*load_watermelon("2.0"))
    >>> node_lines(node_view(clf, 1), clf, extra=2)
    ['是', '7 / 9']
    >>> node_lines(node_view(clf, 1), clf, extra=101)
    ['是', '2  7', '53%']
    """
    extra = check_extra(extra, est, "node_lines")
    base, pct = extra % 100, extra >= 100
    if total is None:
        total = node_view(est, 0).weighted_n_samples
    w = view.weighted_n_samples
    share = w / total if total > 0 else 0.0
    lines = []
    if view.distribution is None:  # regression
        lines.append(fmt_num(view.predicted, digits if digits > 0 else 4) if isinstance(
            view.predicted, float) else str(view.predicted))
        if base == 1:
            lines.append(f"n={fmt_num(w, digits + 1)}")
    else:
        if classes is None:
            classes = list(view.distribution)
        counts = [view.distribution.get(c, 0.0) for c in classes]
        s = sum(counts)
        probs = [c / s for c in counts] if s > 0 else [0.0] * len(counts)
        try:
            k = classes.index(view.predicted)
        except ValueError:
            k = 0
        second = 1 if len(classes) > 1 else 0
        if base not in (5, 7, 11):
            lines.append(str(view.predicted))
        if base == 1:
            lines.append("  ".join(fmt_num(c, digits + 1) for c in counts))
        elif base == 2:
            lines.append(f"{fmt_num(counts[k], digits + 1)} / {fmt_num(s, digits + 1)}")
        elif base == 3:
            lines.append(f"{fmt_num(s - counts[k], digits + 1)} / {fmt_num(s, digits + 1)}")
        elif base in (4, 5):
            lines.append("  ".join(_fmt_prob(p, digits) for p in probs))
        elif base in (6, 7):
            lines.append(_fmt_prob(probs[second], digits))
        elif base == 8:
            lines.append(_fmt_prob(probs[k], digits))
        elif base == 9:
            lines.append("  ".join(_fmt_prob(p * share, digits) for p in probs))
        elif base in (10, 11):
            lines.append(_fmt_prob(probs[second] * share, digits))
    if pct:
        lines.append(f"{100 * share:.0f}%")
    if view.model_name is not None:
        # A LogisticModelTree leaf predicts with its model: its name and n first, then the
        # numbers of its training classes (the majority class line left out).
        if base not in (5, 7, 11) and view.distribution is not None:
            lines = lines[1:]
        lines = [view.model_name, f"n={view.n_samples}"] + lines
    return lines


def ink(fill):
    """Text colour readable on ``fill``: black, or white on dark fills.

    Examples
    --------
    >>> from quercus.export._style import ink
    >>> ink("#ffffff"), ink("#0072B2")
    ('#000000', '#ffffff')
    """
    r, g, b = (c / 255 for c in _rgb(fill))
    return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 0.45 else "#ffffff"


def abbreviate(names, n):
    """Shortened names, as rpart.plot's ``varlen`` / ``faclen``.

    ``n == 0`` keeps names whole; ``n > 0`` truncates each to ``n`` characters; ``n < 0``
    truncates all to the shortest common length (at least ``-n``) at which they stay
    distinct.

    Parameters
    ----------
    names : iterable of str
    n : int

    Returns
    -------
    dict
        ``name -> shortened name``.

    Examples
    --------
    >>> from quercus.export._style import abbreviate
    >>> abbreviate(["mean radius", "mean texture", "worst area"], -1)
    {'mean radius': 'mean r', 'mean texture': 'mean t', 'worst area': 'worst '}
    >>> abbreviate(["mean radius", "worst area"], 4)
    {'mean radius': 'mean', 'worst area': 'wors'}
    """
    names = list(dict.fromkeys(str(s) for s in names))
    if n == 0 or not names:
        return {s: s for s in names}
    if n > 0:
        return {s: s[:n] for s in names}
    longest = max(len(s) for s in names)
    for k in range(-n, longest + 1):
        if len({s[:k] for s in names}) == len(names):
            return {s: s[:k] for s in names}
    return {s: s for s in names}


def split_parts(view, digits=2, var=None, fac=None):
    """A split in pieces: the feature's (shortened) name and each branch's test.

    Thresholds keep at least three significant digits so that neighbouring splits stay
    distinct. ``var`` and ``fac`` map names to their abbreviations (see
    :func:`abbreviate`); absent names are kept whole.

    Parameters
    ----------
    view : NodeView of an internal node
    digits : int, default=2
    var, fac : dict, optional

    Returns
    -------
    (str, list of str)
        For example ``("密度", ["<= 0.382", "> 0.382"])``, ``("纹理", ["= 清晰", ...])``.

    Examples
    --------
    >>> from quercus import C45Classifier
    >>> from quercus.datasets import load_watermelon
    >>> from quercus.inspect import node_view
    >>> from quercus.export._style import split_parts
    >>> clf = C45Classifier(pruning=None).fit(*load_watermelon("3.0"))
    >>> split_parts(node_view(clf, 0))
    ('含糖率', ['<= 0.126', '> 0.126'])
    """
    var = var or {}
    fac = fac or {}
    name = var.get(str(view.feature), str(view.feature))

    def f(c):
        return fac.get(str(c), str(c))

    kind = view.kind
    if kind == "numeric":
        t = view.threshold
        if t is None or t != t or abs(t) == float("inf"):
            return name, list(view.conditions)
        s = fmt_num(t, max(3, digits))
        return name, [f"<= {s}", f"> {s}"]
    if kind == "categorical_binary":
        return name, [f"= {f(view.category)}", f"!= {f(view.category)}"]
    if kind == "multiway":
        return name, [f"= {f(c[2:])}" for c in view.conditions]
    if kind == "categorical_subset" and view.conditions:
        inner = view.conditions[0][len("in {"):-1]
        group = "{" + ", ".join(f(c) for c in inner.split(", ")) + "}"
        return name, [f"in {group}", f"not in {group}"]
    return name, list(view.conditions)


def categories_in(views):
    """Every category label the splits of ``views`` mention, for :func:`abbreviate`.

    Examples
    --------
    >>> from quercus import ID3Classifier
    >>> from quercus.datasets import load_watermelon
    >>> from quercus.inspect import iter_nodes
    >>> from quercus.export._style import categories_in
    >>> clf = ID3Classifier().fit(*load_watermelon("2.0"))
    >>> categories_in(iter_nodes(clf))[:3]
    ['清晰', '稍糊', '模糊']
    """
    out = []
    for v in views:
        if v.kind == "categorical_binary":
            out.append(str(v.category))
        elif v.kind == "multiway":
            out.extend(c[2:] for c in v.conditions)
        elif v.kind == "categorical_subset" and v.conditions:
            out.extend(v.conditions[0][len("in {"):-1].split(", "))
    return list(dict.fromkeys(out))


def check_param(caller, name, value, ok, what):
    """Raise scikit-learn's style of ValueError unless ``ok``.

    Examples
    --------
    >>> from quercus.export._style import check_param
    >>> check_param("plot_tree", "type", 7, False, "an int in 0..5")
    Traceback (most recent call last):
    ...
    ValueError: The 'type' parameter of plot_tree must be an int in 0..5. Got 7 instead.
    """
    if not ok:
        raise ValueError(f"The {name!r} parameter of {caller} must be {what}. "
                         f"Got {value!r} instead.")


def is_int(x):
    """An int that is not a bool (numpy integers included)."""
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


def check_fitted(est, caller):
    """scikit-learn's NotFittedError (a ValueError) unless ``est`` is fitted.

    Examples
    --------
    >>> from quercus import ID3Classifier
    >>> from quercus.export._style import check_fitted
    >>> check_fitted(ID3Classifier(), "plot_tree")
    Traceback (most recent call last):
    ...
    sklearn.exceptions.NotFittedError: This ID3Classifier instance is not fitted yet...
    """
    # scikit-learn's NotFittedError (a ValueError), as every exporter raises.
    from ..inspect import _check_fitted
    _check_fitted(est)


def subtree_views(est, node=0, max_depth=None, caller="export"):
    """The views under ``node`` down to ``max_depth`` levels below it, depth first.

    Parameters
    ----------
    est : fitted quercus estimator
    node : int, default=0
        The subtree's root.
    max_depth : int or None
        Levels below ``node`` to keep; nodes at the last level keep their children ids
        but the children are not visited.

    Returns
    -------
    list of NodeView
        ``views[0]`` is ``node``; ``view.depth`` is the depth in the whole tree.

    Examples
    --------
    >>> from quercus import ID3Classifier
    >>> from quercus.datasets import load_watermelon
    >>> from quercus.export._style import subtree_views
    >>> clf = ID3Classifier().fit(*load_watermelon("2.0"))
    >>> [v.node for v in subtree_views(clf, max_depth=1)]
    [0, 1, 2, 3]
    """
    check_fitted(est, caller)
    n = n_nodes(est)
    check_param(caller, "node", node, is_int(node) and 0 <= node < n,
                f"a node id in [0, {n - 1}]")
    check_param(caller, "max_depth", max_depth,
                max_depth is None or (is_int(max_depth) and max_depth >= 0),
                "an int >= 0 or None")
    return list(iter_nodes(est, node=node, max_depth=max_depth))


def count_leaves(est, node):
    """Leaves of the full subtree under ``node`` (walking the child arrays only)."""
    return sum(1 for _, _, children in iter_shape(est, node) if not children)


def missing_short(view):
    """One short line on how ``view`` routes a missing value, or None on a leaf.

    Examples
    --------
    >>> from quercus import CARTClassifier
    >>> from quercus.datasets import load_watermelon
    >>> from quercus.inspect import node_view
    >>> from quercus.export._style import missing_short
    >>> clf = CARTClassifier().fit(*load_watermelon("2.0alpha"))
    >>> missing_short(node_view(clf, 0))
    'NA: as 脐部 = 凹陷 (left)'
    """
    text = view.missing
    if not text:
        return None
    mode, _, rest = text.partition(": ")
    if mode == "imputed":
        return f"NA: imputed, {view.conditions[view.missing_child]}"
    if mode == "fractional":
        return "NA: every branch, weighted"
    if mode == "learned":
        return f"NA: branch {rest}" if rest else "NA: learned"
    if mode == "surrogate":
        first = rest.split("; ")[0]
        if first.startswith("else "):
            return f"NA: branch {first[5:]}"
        test, _, side = first.partition(" goes ")
        return f"NA: as {test} ({side.split(' ')[0]})"
    return f"NA: {text}"


class DrawingContext:
    """What a drawing of ``views`` needs besides each node's view, worked out once: the
    abbreviated feature and category names, the class labels (None for a regressor), the
    root's training weight (for percents) and each node's fill colour.

    Examples
    --------
    >>> from quercus import ID3Classifier
    >>> from quercus.datasets import load_watermelon
    >>> from quercus.export._style import DrawingContext, subtree_views
    >>> clf = ID3Classifier().fit(*load_watermelon("2.0"))
    >>> ctx = DrawingContext(clf, subtree_views(clf), varlen=0, faclen=0)
    >>> ctx.classes, ctx.total, ctx.fill(ctx.views[0]).startswith("#")
    (['否', '是'], 17.0, True)
    """

    def __init__(self, est, views, varlen, faclen):
        self.est, self.views = est, views
        self.shown = {v.node for v in views}
        self.var = abbreviate((v.feature for v in views if v.children), varlen)
        self.fac = abbreviate(categories_in(views), faclen)
        self.regression = bool(getattr(est, "_is_regressor", False))
        self.classes = None if self.regression else [
            c.item() if hasattr(c, "item") else c for c in est.classes_]
        if self.regression:
            preds = [v.predicted for v in views]
            self.vmin, self.vmax = min(preds), max(preds)
        self.total = node_view(est, 0).weighted_n_samples

    def lines(self, view, extra, digits):
        """:func:`node_lines` of ``view`` with this drawing's totals and classes."""
        return node_lines(view, self.est, extra, digits, total=self.total,
                          classes=self.classes)

    def split(self, view, digits):
        """:func:`split_parts` of ``view`` with this drawing's abbreviations."""
        return split_parts(view, digits, self.var, self.fac)

    def fill(self, view):
        """The box colour of ``view``: by value for a regressor, else by class."""
        if self.regression:
            return value_color(view.predicted, self.vmin, self.vmax)
        return class_color(view, self.est, self.classes)
