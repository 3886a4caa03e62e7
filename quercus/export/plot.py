"""Drawing a fitted tree with matplotlib, in the vocabulary of R's rpart.plot.

matplotlib is imported only when :func:`plot_tree` is called (``pip install
"quercus[plot]"``). Text is measured with matplotlib's own renderer before anything is
placed, boxes are laid out level by level with :func:`quercus.export.layout.tidy_x`
(so nothing overlaps, whatever the number of branches), and the figure's font size is
chosen so the drawing fits. Chinese labels get an installed CJK font per text object; the
user's matplotlib settings are left alone.
"""

import warnings
from dataclasses import dataclass, field

from ..inspect import iter_shape
from ._fonts import cjk_font_family
from ._style import (DrawingContext, check_extra, check_fitted, check_param, count_leaves, ink,
                     is_int, missing_short, subtree_views)
from .layout import tidy_x

__all__ = ["plot_tree", "TreePlot", "TruncatedTreeWarning"]

# Layout units are points of text at _REF points; the figure's scale maps them to the
# chosen font size.
_REF = 10.0
_LINE = 1.3 * _REF          # pitch between lines of text
_PADX, _PADY = 0.45 * _REF, 0.3 * _REF
_HGAP = 0.8 * _REF          # least space between two things side by side
_VGAP = 1.8 * _REF          # room for the branches between two levels
_MAX_FIG_INCHES = 40.0


class TruncatedTreeWarning(UserWarning):
    """The tree has more leaves than ``max_leaves``; only its top levels were drawn."""


@dataclass
class TreePlot:
    """What :func:`plot_tree` drew, with the layout's own coordinates (data units).

    Attributes
    ----------
    ax : matplotlib.axes.Axes
    fontsize : float
        The font size used, in points.
    font : list of str
        The font families given to every text object (a fallback list).
    boxes : dict
        ``node id -> (x0, y0, x1, y1)`` of each node's box.
    labels : list of (str, int, tuple)
        ``(kind, node id, (x0, y0, x1, y1))`` of every split label (``"split"``),
        branch label (``"edge"``), text under a box (``"under"``) and line of a leaf's
        logistic model under the tree (``"model"``, a LogisticModelTree).
    texts : list of (matplotlib.text.Text, tuple)
        Every text object and the box reserved for it, for checking the rendering.
    truncated : bool
        True when ``max_leaves`` cut the tree.
    depth : int or None
        Levels below the drawn root that are shown (None: all).
    n_leaves, shown_leaves : int
        Leaves of the whole (sub)tree, and leaves or cut-off nodes drawn.
    """

    ax: object
    fontsize: float
    font: list
    boxes: dict = field(default_factory=dict)
    labels: list = field(default_factory=list)
    texts: list = field(default_factory=list)
    truncated: bool = False
    depth: int | None = None
    n_leaves: int = 0
    shown_leaves: int = 0

    def all_boxes(self):
        """Every reserved rectangle: node boxes, then labels, as ``(x0, y0, x1, y1)``."""
        return list(self.boxes.values()) + [b for _, _, b in self.labels]


def _import_matplotlib():
    try:
        import matplotlib  # noqa: F401
        from matplotlib.backends.backend_agg import RendererAgg
        from matplotlib.font_manager import FontProperties
    except ImportError as e:  # pragma: no cover - exercised without matplotlib only
        raise ImportError('plot_tree needs matplotlib: pip install "quercus[plot]"') from e
    return RendererAgg, FontProperties


def _leaves_by_depth(est, node, limit):
    """``counts[k]``: leaves drawn if the tree under ``node`` is cut ``k`` levels down."""
    cut_at = {}   # depth k -> nodes at depth k that have children (become cut leaves)
    leaf_at = {}  # depth k -> leaves at depth k
    deepest = 0
    base = None
    for _, depth, kids in iter_shape(est, node, limit):
        if base is None:
            base = depth
        k = depth - base
        deepest = max(deepest, k)
        if not kids:
            leaf_at[k] = leaf_at.get(k, 0) + 1
        else:
            cut_at[k] = cut_at.get(k, 0) + 1
    counts, leaves_above = [], 0
    for k in range(deepest + 1):
        leaves_above += leaf_at.get(k, 0)
        counts.append(leaves_above + cut_at.get(k, 0))
    return counts


def plot_tree(estimator, ax=None, *, type=2, extra="auto", under=False, fallen_leaves=True,
              branch=None, digits=2, varlen=0, faclen=0, fontsize=None, font=None,
              max_depth=None, node=0, max_leaves=64, yesno=1, filled=True,
              show_missing=False, show_models=True):
    """Draw a fitted tree with matplotlib, as R's rpart.plot does.

    Parameters
    ----------
    estimator : fitted quercus estimator
        Any classifier or regressor: multiway (ID3/C4.5) nodes get one branch per category.
    ax : matplotlib Axes, optional
        Where to draw; by default a new figure sized to the tree.
    type : int, default=2
        Where split labels go (rpart.plot's ``type``):

        - 0: a split label at each internal node, a box at each leaf only.
        - 1: as 0, and a box at internal nodes too, the split label above it.
        - 2: as 1, the split label below the box (the CART book's figures).
        - 3: no split label at the node; each branch carries its own test
          (``密度 <= 0.382`` / ``密度 > 0.382``), boxes at leaves only.
        - 4: as 3, boxes at every node.
        - 5: internal boxes show the split's attribute name, branches its values.

        For binary splits with types 0-2 the branches say ``yes`` / ``no`` (see
        ``yesno``); multiway branches always show their category.
    extra : int or "auto", default="auto"
        What a box shows under the prediction (rpart.plot's numbering): 0 nothing; 1 the
        count of each class; 2 correct / total; 3 misclassified / total; 4 each class's
        probability; 5 as 4 without the class; 6 the second class's probability; 7 as 6
        without the class; 8 the predicted class's probability; 9 probabilities of all
        samples; 10 as 9 for the second class; 11 as 10 without the class; add 100 for the
        percent of samples in the node. Regression: 0 the mean only, 1 adds ``n``, 100 adds
        the percent. ``"auto"``: 106 for two classes, 104 for more, 100 for regression.
    under : bool, default=False
        Put the ``extra`` numbers under the box instead of in it.
    fallen_leaves : bool, default=True
        Put every leaf on the bottom row.
    branch : float in [0, 1], optional
        Branch shape: 1 square-shouldered, 0 V-shaped, in between a blend. Default 1 with
        ``fallen_leaves``, else 0.2 (rpart.plot's defaults).
    digits : int, default=2
        Significant digits (decimals for probabilities); thresholds keep at least three.
    varlen, faclen : int, default=0
        Abbreviate attribute names / category labels: 0 whole; ``n > 0`` the first ``n``
        characters; ``n < 0`` the shortest length (at least ``-n``) that keeps them distinct.
    fontsize : float, optional
        Font size in points. Default: fit the drawing to ``ax`` (at most 12), or 9 for a
        new figure (smaller if the figure would be wider than 40 inches).
    font : str, optional
        Font family. Default: the matplotlib default, plus an installed CJK font as a
        per-glyph fallback when labels hold Chinese (or other CJK) characters. A
        :class:`~quercus.export._fonts.MissingFontWarning` names a package to install when
        there is none.
    max_depth : int, optional
        Levels below ``node`` to draw; deeper subtrees become dashed boxes.
    node : int, default=0
        Draw the subtree under this node id.
    max_leaves : int or None, default=64
        A tree with more leaves than this is cut at the deepest level that keeps within it,
        with a note on the figure and a :class:`TruncatedTreeWarning`; None draws everything.
    yesno : {0, 1, 2}, default=1
        ``yes`` / ``no`` on binary branches with types 0-2: 0 never, 1 at the top split, 2
        at every split.
    filled : bool, default=True
        Colour boxes: by class (Okabe-Ito hues, paler when impure), or by value
        (regression, light to dark blue).
    show_missing : bool, default=False
        Add a line to internal boxes saying where a missing value goes (C4.5's fractional
        weights, rpart's first surrogate, or the learned branch).
    show_models : bool, default=True
        A :class:`quercus.LogisticModelTree`: write the drawn leaves' logistic models
        under the tree (its leaf boxes show the model's name, ``LM_3``, and ``n=``).
        Other trees have no leaf models.

    Returns
    -------
    TreePlot
        ``.ax`` the Axes; ``.boxes`` and ``.labels`` the layout's rectangles in data units.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from quercus import ID3Classifier, plot_tree
    >>> from quercus.datasets import load_watermelon
    >>> clf = ID3Classifier().fit(*load_watermelon("2.0"))
    >>> result = plot_tree(clf, extra=104)
    >>> len(result.boxes), result.truncated
    (14, False)
    >>> import matplotlib.pyplot as plt; plt.close(result.ax.figure)
    """
    caller = "plot_tree"
    check_fitted(estimator, caller)
    check_param(caller, "type", type, is_int(type) and 0 <= type <= 5, "an int in 0..5")
    extra = check_extra(extra, estimator, caller)
    check_param(caller, "under", under, isinstance(under, bool), "a bool")
    check_param(caller, "fallen_leaves", fallen_leaves, isinstance(fallen_leaves, bool),
                "a bool")
    if branch is None:
        branch = 1.0 if fallen_leaves else 0.2
    check_param(caller, "branch", branch,
                isinstance(branch, (int, float)) and not isinstance(branch, bool)
                and 0 <= branch <= 1, "a number in [0, 1] or None")
    check_param(caller, "digits", digits, is_int(digits) and 0 <= digits <= 15,
                "an int in [0, 15]")
    check_param(caller, "varlen", varlen, is_int(varlen), "an int")
    check_param(caller, "faclen", faclen, is_int(faclen), "an int")
    check_param(caller, "fontsize", fontsize,
                fontsize is None or (isinstance(fontsize, (int, float))
                                     and not isinstance(fontsize, bool) and fontsize > 0),
                "a positive number or None")
    check_param(caller, "font", font, font is None or isinstance(font, str),
                "a font family name (str) or None")
    check_param(caller, "max_leaves", max_leaves,
                max_leaves is None or (is_int(max_leaves) and max_leaves >= 1),
                "an int >= 1 or None")
    check_param(caller, "yesno", yesno, is_int(yesno) and 0 <= yesno <= 2, "0, 1 or 2")
    check_param(caller, "show_models", show_models, isinstance(show_models, bool), "a bool")
    RendererAgg, FontProperties = _import_matplotlib()

    # Validates node / max_depth and checks the estimator is fitted.
    subtree_views(estimator, node, 0, caller)
    counts = _leaves_by_depth(estimator, node, max_depth)
    n_leaves = count_leaves(estimator, node)
    depth, truncated = max_depth, False
    if max_leaves is not None and counts[-1] > max_leaves:
        fits = [k for k, c in enumerate(counts) if c <= max_leaves and k >= 1]
        depth = fits[-1] if fits else 1
        truncated = True
    views = subtree_views(estimator, node, depth, caller)
    ctx = DrawingContext(estimator, views, varlen, faclen)
    shown = ctx.shown
    root = views[0]
    by_id = {v.node: v for v in views}
    base_depth = root.depth


    # What each node shows: a stack of blocks ("box", lines) / ("split", [line]) /
    # ("under", lines), and a label for each branch to a child.
    blocks, edge_label, is_cut = {}, {}, set()
    for v in views:
        lines = ctx.lines(v, extra, digits)
        stack = []
        open_ = bool(v.children) and all(c in shown for c in v.children)
        if v.children and not open_:
            is_cut.add(v.node)
            lines = lines + [f"... {count_leaves(estimator, v.node)} leaves"]
        if open_:
            name, conds = ctx.split(v, digits)
            binary = v.kind != "multiway"
            if type in (0, 1, 2):
                split = f"{name} {conds[0]}" if binary else f"{name} = ?"
                stack.append(("split", [split]))
                if type == 1:
                    stack.append(("box", lines))
                elif type == 2:
                    stack.insert(0, ("box", lines))
                if binary:
                    say = yesno == 2 or (yesno == 1 and v.node == root.node)
                    labels = ["yes", "no"] if say and len(conds) == 2 else [None] * len(conds)
                else:
                    labels = [c[2:] if c.startswith("= ") else c for c in conds]
            elif type in (3, 4):
                labels = [f"{name} {c}" for c in conds]
                if type == 4:
                    stack.append(("box", lines))
            else:  # type 5
                labels = [c[2:] if not binary and c.startswith("= ") else c for c in conds]
                stack.append(("box", [name]))
            if show_missing and v.missing:
                where = next((i for i, b in enumerate(stack) if b[0] == "box"), None)
                if where is None:
                    stack.append(("under", [missing_short(v)]))
                else:
                    stack[where] = ("box", stack[where][1] + [missing_short(v)])
            for c, lab in zip(v.children, labels):
                edge_label[c] = lab
        else:
            stack.append(("box", lines))
        if under:
            for i, (kind, ls) in enumerate(stack):
                if kind == "box" and len(ls) > 1:
                    stack[i:i + 1] = [("box", ls[:1]), ("under", ls[1:])]
                    break
        blocks[v.node] = stack

    # A LogisticModelTree's leaf models, written under the tree: (node, line, indented).
    model_lines = []
    if show_models:
        for v in sorted((v for v in views if v.model is not None),
                        key=lambda v: int(v.model_name[3:])):
            model_lines += [(v.node, s, i > 0) for i, s in enumerate(v.model.split("\n"))]

    # The font: the user's, or matplotlib's default with a CJK fallback where needed.
    all_text = [s for st in blocks.values() for _, ls in st for s in ls]
    all_text += [s for _, s, _ in model_lines]
    all_text += [s for s in edge_label.values() if s]
    if font is not None:
        families = [font]
    else:
        import matplotlib
        cjk = cjk_font_family(all_text)
        families = list(matplotlib.rcParams["font.family"]) + ([cjk] if cjk else [])

    # Measure every line at the reference size.
    renderer = RendererAgg(8, 8, 72)
    # Measured large, where hinting does not distort advances; at small pixel sizes each
    # glyph's advance can round up, hence a little room per character.
    ref_props = {wt: FontProperties(family=families, size=10 * _REF, weight=wt)
                 for wt in ("normal", "bold")}
    widths = {}

    def wid(s, weight="normal"):
        if (s, weight) not in widths:
            with warnings.catch_warnings():
                # Missing glyphs are reported once, by cjk_font_family, not per character.
                warnings.filterwarnings("ignore", "Glyph .* missing from font")
                w, _, _ = renderer.get_text_width_height_descent(s, ref_props[weight],
                                                                 ismath=False)
            widths[s, weight] = w / 10 + 0.06 * _REF * len(s)
        return widths[s, weight]

    def block_size(kind, ls):
        weight = "bold" if kind == "split" else "normal"
        w = (max(wid(s, weight) for s in ls)
             + (2 * _PADX if kind == "box" else 0.3 * _REF))
        h = len(ls) * _LINE + (2 * _PADY if kind == "box" else 0)
        return w, h

    foot_w, foot_h = {}, {}
    for v in views:
        sizes = [block_size(k, ls) for k, ls in blocks[v.node]]
        lab = edge_label.get(v.node)
        lw = wid(lab) + 0.3 * _REF if lab else 0.0
        foot_w[v.node] = max([lw, 0.3 * _REF] + [w for w, _ in sizes])
        foot_h[v.node] = sum(h for _, h in sizes)
    band = _LINE if any(edge_label.values()) else 0.0
    content_h = max(foot_h.values())

    # Levels; with fallen leaves each leaf keeps its column down to the bottom row
    # through a chain of placeholders, so no deeper box can slide under it.
    children = {v.node: [c for c in v.children if c in shown] for v in views}
    level = {v.node: v.depth - base_depth for v in views}
    bottom = max(level.values())
    lay_children, lay_width = dict(children), dict(foot_w)
    row_of = dict(level)
    if fallen_leaves:
        for v in views:
            if not children[v.node] and level[v.node] < bottom:
                prev = v.node
                for k in range(level[v.node] + 1, bottom + 1):
                    ghost = ("ghost", v.node, k)
                    lay_children[prev] = [ghost]
                    lay_width[ghost] = foot_w[v.node]
                    prev = ghost
                lay_children[prev] = []
                row_of[v.node] = bottom
    x = tidy_x(lay_children, root.node, lay_width, gap=_HGAP)

    pitch = band + content_h + _VGAP

    def row_top(r):
        return -r * pitch

    # Place blocks: (node, kind, lines, x0, y0, x1, y1).
    placed, top_of, bottom_of = [], {}, {}
    for v in views:
        n = v.node
        y = row_top(row_of[n]) - band
        top_of[n] = y
        for kind, ls in blocks[n]:
            w, h = block_size(kind, ls)
            placed.append((n, kind, ls, x[n] - w / 2, y - h, x[n] + w / 2, y))
            y -= h
        bottom_of[n] = y
    edge_boxes = []
    for v in views:
        for c in children[v.node]:
            lab = edge_label.get(c)
            if lab:
                yc = row_top(level[v.node] + 1) - band / 2
                w = wid(lab) + 0.3 * _REF
                edge_boxes.append((c, lab, x[c] - w / 2, yc - _LINE / 2, x[c] + w / 2,
                                   yc + _LINE / 2))

    x_max = max([p[5] for p in placed] + [e[4] for e in edge_boxes] + [1.0])
    y_min = min([p[4] for p in placed] + [e[3] for e in edge_boxes] + [-1.0])
    model_boxes = []
    if model_lines:
        y = y_min - _VGAP / 2
        for n, s, indented in model_lines:
            mx0 = 2 * _REF if indented else 0.0
            model_boxes.append((n, s, mx0, y - _LINE, mx0 + wid(s) + 0.3 * _REF, y))
            y -= _LINE
        x_max = max([x_max] + [b[4] for b in model_boxes])
        y_min = y
    note = None
    if truncated:
        note = (f"Only the top {depth} levels are drawn: {counts[depth]} of {n_leaves} leaves "
                f"(max_leaves={max_leaves}); use max_depth= or node= to draw a part.")
        warnings.warn(f"plot_tree: the tree has {n_leaves} leaves, more than max_leaves="
                      f"{max_leaves}; drawing the top {depth} levels. Pass max_depth=, node= "
                      "or max_leaves=None.", TruncatedTreeWarning, stacklevel=2)
    note_h = 1.8 * _LINE if note else 0.0
    x_max = max(x_max, wid(note) if note else 0.0)
    W = x_max + 2 * _PADX
    H = -y_min + note_h + 2 * _PADY

    # Scale: layout units per point of the drawing.
    if ax is None:
        import matplotlib.pyplot as plt
        fs = 9.0 if fontsize is None else float(fontsize)
        if fontsize is None and W * fs / _REF / 72 > _MAX_FIG_INCHES:
            fs = max(5.0, _MAX_FIG_INCHES * 72 * _REF / W)
        fig = plt.figure(figsize=(max(W * fs / _REF / 72, 1.0), max(H * fs / _REF / 72, 1.0)))
        ax = fig.add_axes([0, 0, 1, 1])
    else:
        fig = ax.figure
        pos = ax.get_position()
        aw = pos.width * fig.get_figwidth() * 72
        ah = pos.height * fig.get_figheight() * 72
        fit = _REF * min(aw / W, ah / H)
        fs = min(fit, 12.0) if fontsize is None else float(fontsize)
        if fs > fit * 1.0001:
            warnings.warn(f"plot_tree: fontsize={fs:g} does not fit these axes (at most "
                          f"{fit:.3g}); boxes will overlap. Use a larger figure, max_depth= "
                          "or fontsize=None.", stacklevel=2)
    fig_w = ax.get_position().width * fig.get_figwidth() * 72
    fig_h = ax.get_position().height * fig.get_figheight() * 72
    per_pt = _REF / fs
    span_w, span_h = fig_w * per_pt, fig_h * per_pt
    x0 = -_PADX - max(0.0, (span_w - W) / 2)
    y1 = _PADY
    ax.set_xlim(x0, x0 + span_w)
    ax.set_ylim(y1 - span_h, y1)
    ax.set_axis_off()

    props = {wt: FontProperties(family=families, size=fs, weight=wt)
             for wt in ("normal", "bold")}
    result = TreePlot(ax=ax, fontsize=fs, font=families, truncated=truncated,
                      depth=depth, n_leaves=n_leaves,
                      shown_leaves=sum(1 for v in views if not children[v.node]))

    def put_text(s, xc, yc, color="#000000", weight="normal", bg=None, ha="center"):
        t = ax.text(xc, yc, s, ha=ha, va="center", fontproperties=props[weight],
                    color=color, parse_math=False, zorder=4,
                    bbox=None if bg is None else dict(boxstyle="square,pad=0.05", fc=bg,
                                                      ec="none"))
        return t

    from matplotlib.patches import FancyBboxPatch

    face = ax.get_facecolor()
    for n, kind, ls, bx0, by0, bx1, by1 in placed:
        v_fill, v_ink = "#ffffff", "#000000"
        if kind == "box":
            v = by_id[n]
            if filled:
                v_fill = ctx.fill(v)
                v_ink = ink(v_fill)
            patch = FancyBboxPatch((bx0, by0), bx1 - bx0, by1 - by0,
                                   boxstyle=f"round,pad=0,rounding_size={0.35 * _REF}",
                                   fc=v_fill, ec="#444444", lw=0.8, zorder=3,
                                   ls="--" if n in is_cut else "-")
            ax.add_patch(patch)
            result.boxes[n] = (bx0, by0, bx1, by1)
        else:
            result.labels.append((kind, n, (bx0, by0, bx1, by1)))
        for i, s in enumerate(ls):
            yc = by1 - (_PADY if kind == "box" else 0) - (i + 0.5) * _LINE
            t = put_text(s, (bx0 + bx1) / 2, yc, v_ink if kind == "box" else "#000000",
                         weight="bold" if kind == "split" else "normal",
                         bg=None if kind == "box" else face)
            result.texts.append((t, (bx0, by0, bx1, by1)))
    for c, lab, ex0, ey0, ex1, ey1 in edge_boxes:
        t = put_text(lab, (ex0 + ex1) / 2, (ey0 + ey1) / 2, bg=face)
        result.labels.append(("edge", c, (ex0, ey0, ex1, ey1)))
        result.texts.append((t, (ex0, ey0, ex1, ey1)))
    for n, s, mx0, my0, mx1, my1 in model_boxes:
        t = put_text(s, mx0 + 0.15 * _REF, (my0 + my1) / 2, ha="left")
        result.labels.append(("model", n, (mx0, my0, mx1, my1)))
        result.texts.append((t, (mx0, my0, mx1, my1)))

    # Branches: from the parent's last block down to a shoulder, across, down to the child.
    segs = []
    for v in views:
        kids = children[v.node]
        if not kids:
            continue
        px, pb = x[v.node], bottom_of[v.node]
        ys = row_top(level[v.node]) - band - content_h - _VGAP / 2
        for c in kids:
            cx, ct = x[c], top_of[c]
            if abs(pb - ct) < 1e-9:
                segs.append([(px, pb), (cx, ct)])
                continue
            xs = px + (cx - px) * (pb - ys) / (pb - ct)
            segs.append([(px, pb), (xs + branch * (px - xs), ys), (xs + branch * (cx - xs), ys),
                         (cx, ct)])
    from matplotlib.collections import LineCollection
    ax.add_collection(LineCollection(segs, colors="#555555", linewidths=0.9, zorder=1))

    if note:
        put_text(note, W / 2 - _PADX, y_min - note_h / 2, color="#aa3300")
    return result

