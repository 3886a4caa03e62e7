"""Graphviz DOT text of a fitted tree, and rendering it with Graphviz's ``dot``.

Producing the DOT text needs nothing beyond quercus; turning it into PNG, SVG or PDF needs
the ``dot`` program of Graphviz (https://graphviz.org) on ``PATH``.
"""

import os
import shutil
import subprocess
import warnings
from pathlib import Path

from ._fonts import MissingFontWarning, cjk_font_family, needs_cjk
from ._style import (DrawingContext, check_extra, check_fitted, check_param, count_leaves, ink,
                     is_int, missing_short, subtree_views)

__all__ = ["export_graphviz", "render"]

_TEXT_SUFFIXES = {".dot", ".gv"}
# What we ask dot to write for a suffix; anything else is passed through as dot's -T value.
_FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf", ".jpg": "jpg", ".jpeg": "jpeg",
            ".ps": "ps", ".eps": "eps"}
# Used when no CJK font is installed here: the machine that renders may well have it.
_DEFAULT_CJK = "Noto Sans CJK SC"


def _q(s):
    """``s`` as a DOT quoted string: backslashes first, then quotes and line breaks.

    A lone backslash would start one of dot's escapes (``\\N`` is the node's name), so
    every backslash is doubled.
    """
    s = str(s).replace("\\", "\\\\").replace('"', '\\"')
    return '"' + s.replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\n") + '"'


def _question(view, name):
    return f"{name} ?" if view.kind == "numeric" else f"{name} = ?"


def _edge_label(view, cond):
    # A multiway branch is named by its category alone, as in the textbook's figures.
    return cond[2:] if view.kind == "multiway" and cond.startswith("= ") else cond


def export_graphviz(estimator, out_file=None, *, extra="auto", digits=2, varlen=0, faclen=0,
                    filled=True, fontname=None, max_depth=None, node=0, show_missing=False,
                    rankdir="TB"):
    """Describe a fitted tree in Graphviz's DOT language; optionally write or render it.

    Each node is a rounded box showing what :func:`quercus.plot_tree` shows (the
    prediction and rpart.plot's ``extra`` numbers), internal nodes end with the split's
    attribute, and each branch is one edge labelled with its test: one edge per category
    for multiway (ID3/C4.5) nodes, ``<= t`` / ``> t`` for thresholds. Boxes are coloured
    like the plot. Every node has a tooltip (shown by SVG viewers) with its sample count,
    impurity and how a missing value of the split's attribute is routed (C4.5's fractional
    weights, rpart's surrogates or a learned direction).

    A :class:`quercus.LogisticModelTree`'s leaf shows its model's name (``LM_3``) and
    ``n=`` instead of a class, and its tooltip holds the logistic model.

    Parameters
    ----------
    estimator : fitted quercus estimator
        Any classifier or regressor.
    out_file : str, path or file object, optional
        None: only return the text. A ``.dot``/``.gv`` path or a file object: write the
        text there. A ``.png``, ``.svg``, ``.pdf`` (or other Graphviz format) path: render
        with ``dot`` (see :func:`render`).
    extra : int or "auto", default="auto"
        What a node shows under its prediction, numbered as rpart.plot's ``extra``
        (see :func:`quercus.plot_tree`).
    digits : int, default=2
        Significant digits of numbers (thresholds keep at least three).
    varlen, faclen : int, default=0
        Abbreviate attribute names / category labels: 0 whole, ``n > 0`` the first ``n``
        characters, ``n < 0`` the shortest common length (at least ``-n``) that keeps them
        distinct.
    filled : bool, default=True
        Fill boxes by class (Okabe-Ito hues, paler when impure) or by value (regression).
    fontname : str, optional
        Graphviz font. Default: when labels hold Chinese (or other CJK) characters, an
        installed font that covers them (``"Noto Sans CJK SC"`` if none is found here);
        else Graphviz's default.
    max_depth : int, optional
        Levels below ``node`` to draw; deeper subtrees are shown as a dashed box.
    node : int, default=0
        Draw the subtree under this node id.
    show_missing : bool, default=False
        Also print the missing-value routing as a line in internal nodes.
    rankdir : {"TB", "LR"}, default="TB"
        Top to bottom, or left to right.

    Returns
    -------
    str
        The DOT text.

    Examples
    --------
    >>> from quercus import ID3Classifier, export_graphviz
    >>> from quercus.datasets import load_watermelon
    >>> clf = ID3Classifier().fit(*load_watermelon("2.0"))
    >>> dot = export_graphviz(clf, fontname="Noto Sans CJK SC")
    >>> print(dot.splitlines()[0])
    digraph tree {
    >>> [line.strip() for line in dot.splitlines() if line.strip().startswith("n0 ->")]
    ['n0 -> n1 [label="清晰"];', 'n0 -> n2 [label="稍糊"];', 'n0 -> n3 [label="模糊"];']
    """
    caller = "export_graphviz"
    check_fitted(estimator, caller)
    extra = check_extra(extra, estimator, caller)
    check_param(caller, "digits", digits, is_int(digits) and 0 <= digits <= 15,
                "an int in [0, 15]")
    check_param(caller, "varlen", varlen, is_int(varlen), "an int")
    check_param(caller, "faclen", faclen, is_int(faclen), "an int")
    check_param(caller, "rankdir", rankdir, rankdir in ("TB", "LR"), '"TB" or "LR"')
    check_param(caller, "fontname", fontname, fontname is None or isinstance(fontname, str),
                "a font family name (str) or None")
    fmt = None
    if out_file is not None and isinstance(out_file, (str, os.PathLike)):
        fmt = _format_of(out_file, caller)

    views = subtree_views(estimator, node, max_depth, caller)
    ctx = DrawingContext(estimator, views, varlen, faclen)
    shown = ctx.shown

    nodes, edges, texts = [], [], []
    for v in views:
        lines = ctx.lines(v, extra, digits)
        attrs = {}
        if v.children:
            name, conds = ctx.split(v, digits)
            if all(c in shown for c in v.children):
                lines.append(_question(v, name))
                if show_missing and v.missing:
                    lines.append(missing_short(v))
                for c, cond in zip(v.children, conds):
                    label = _edge_label(v, cond)
                    texts.append(label)
                    edges.append(f"n{v.node} -> n{c} [label={_q(label)}];")
            else:
                lines.append(f"... {count_leaves(estimator, v.node)} leaves")
                attrs["style"] = _q("rounded,filled,dashed" if filled else "rounded,dashed")
        texts.extend(lines)
        attrs["label"] = _q("\n".join(lines))
        if filled:
            fill = ctx.fill(v)
            attrs["fillcolor"] = _q(fill)
            if ink(fill) != "#000000":
                attrs["fontcolor"] = _q(ink(fill))
        tip = f"node {v.node}: n={v.n_samples}"
        if abs(v.weighted_n_samples - v.n_samples) > 1e-9:
            tip += f" (weight {v.weighted_n_samples:.4g})"
        tip += f", impurity {v.impurity:.4g}"
        if v.missing:
            tip += f"\nmissing {v.feature}: {v.missing}"
        if v.model:
            tip += f"\n{v.model}"
        attrs["tooltip"] = _q(tip)
        nodes.append(f"n{v.node} [" + ", ".join(f"{k}={a}" for k, a in attrs.items()) + "];")

    if fontname is None and needs_cjk(texts):
        with warnings.catch_warnings():
            # Only rendering here needs the font; a DOT file may be rendered elsewhere.
            if fmt is None or fmt in ("dot", "gv"):
                warnings.simplefilter("ignore", MissingFontWarning)
            fontname = cjk_font_family(texts) or _DEFAULT_CJK
    font = f", fontname={_q(fontname)}" if fontname else ""
    style = "rounded,filled" if filled else "rounded"
    out = ["digraph tree {",
           f"graph [rankdir={rankdir}, ranksep=0.3, nodesep=0.25{font}];",
           f'node [shape=box, style="{style}", color="#444444", fillcolor="#ffffff", '
           f"fontsize=11{font}];",
           f'edge [color="#444444", fontsize=10, arrowsize=0.6{font}];']
    out.extend(nodes)
    out.extend(edges)
    out.append("}")
    dot = "\n".join(out) + "\n"

    if out_file is None:
        return dot
    if fmt is None:  # a file object
        out_file.write(dot)
    elif fmt in ("dot", "gv"):
        Path(out_file).write_text(dot, encoding="utf-8")
    else:
        render(dot, out_file, format=fmt)
    return dot


def _format_of(path, caller):
    suffix = Path(path).suffix.lower()
    if suffix in _TEXT_SUFFIXES:
        return suffix[1:]
    if suffix in _FORMATS:
        return _FORMATS[suffix]
    check_param(caller, "out_file", str(path), False,
                "a path ending in .dot, .gv, " + ", ".join(sorted(_FORMATS)) +
                " (or a file object)")


def render(dot_text, path, format=None):
    """Draw DOT text to an image file with Graphviz's ``dot`` program.

    Parameters
    ----------
    dot_text : str
        From :func:`export_graphviz`.
    path : str or path
        Where to write the image.
    format : str, optional
        Graphviz output format (``"png"``, ``"svg"``, ``"pdf"``...); default from the
        suffix of ``path``.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    RuntimeError
        When ``dot`` is not installed or fails (its message is included).

    Examples
    --------
    >>> import shutil, tempfile, pathlib
    >>> from quercus import CARTClassifier, export_graphviz
    >>> from quercus.export.graphviz import render
    >>> from quercus.datasets import load_watermelon
    >>> dot = export_graphviz(CARTClassifier(max_depth=2).fit(*load_watermelon("2.0")))
    >>> if shutil.which("dot"):
    ...     out = render(dot, pathlib.Path(tempfile.mkdtemp()) / "tree.svg")
    ...     assert out.read_text(encoding="utf-8").lstrip().startswith("<?xml")
    """
    path = Path(path)
    if format is None:
        format = _format_of(path, "render")
    check_param("render", "format", format,
                isinstance(format, str) and format.replace(":", "").isalnum(),
                'a Graphviz output format such as "png", "svg" or "pdf"')
    exe = shutil.which("dot")
    if exe is None:
        raise RuntimeError(
            "Rendering DOT needs Graphviz's `dot` program, which is not on PATH: install "
            "Graphviz (`apt-get install graphviz`, `brew install graphviz` or `conda install "
            "graphviz`), or write the DOT text with out_file='tree.dot'.")
    proc = subprocess.run([exe, f"-T{format}", "-o", str(path)], input=dot_text.encode("utf-8"),
                          capture_output=True)
    if proc.returncode != 0:
        raise RuntimeError(f"Graphviz's dot failed ({proc.returncode}): "
                           f"{proc.stderr.decode('utf-8', 'replace').strip()}")
    return path
