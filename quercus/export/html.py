"""A fitted tree as one self-contained, interactive HTML page.

Everything the page needs is inside it (inline CSS, JavaScript and data; nothing is fetched
when it is viewed). The nodes are drawn as a collapsible outline; a node's children are
created only when it is first opened, so a tree of ten thousand nodes opens at once.
"""

import html as _html
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

from ..inspect import categorical_mask, feature_names, iter_nodes
from ._fonts import cjk_font_family, needs_cjk
from ._style import class_color, value_color

__all__ = ["export_html"]

# Columns of the split table shown for a node (those ``explain`` has for the estimator).
_EXPLAIN_COLUMNS = ["feature", "split", "rho", "entropy", "gain", "intrinsic_value",
                    "gain_ratio", "gini_index", "gini_decrease", "impurity", "decrease",
                    "chosen", "note"]
_EXPLAIN_HEADS = {"entropy": "Ent", "gain": "Gain", "intrinsic_value": "IV",
                  "gain_ratio": "Gain ratio", "gini_index": "Gini index",
                  "gini_decrease": "Gini decrease", "rho": "ρ"}
# A node's table keeps every candidate up to this many rows, else the best of each feature
# (numeric attributes have a candidate per midpoint).
_MAX_TABLE_ROWS = 60
# explain_nodes="auto": split tables for the first internal nodes, breadth-first, while their
# samples times features add up to at most this (explain's work is about proportional).
_EXPLAIN_BUDGET = 100_000
# Generic CJK families after the one found installed, for a viewer on another machine.
_CJK_FALLBACK = ['"Noto Sans CJK SC"', '"Source Han Sans SC"', '"Microsoft YaHei"',
                 '"PingFang SC"', '"Hiragino Sans GB"', '"WenQuanYi Micro Hei"']


def _plain(v):
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None if math.isnan(v) else str(v)
    return v


def _num(x, digits=4):
    x = float(x)
    if x.is_integer() and abs(x) < 1e15:  # also false for NaN and infinity
        return str(int(x))
    return f"{x:.{digits}g}" if math.isfinite(x) else str(x)


def _explain_table(est, node, X, y):
    """The node's ``explain`` numbers as {"columns", "rows", "attrs"}, rounded for display."""
    t = est.explain(node) if X is None else est.explain(node, X, y)
    if len(t) > _MAX_TABLE_ROWS and "best_of_feature" in t:
        t = t[t["best_of_feature"] | t["chosen"]]
    cols = [c for c in _EXPLAIN_COLUMNS if c in t.columns]
    if "rho" in cols and bool((t["rho"] == 1.0).all()):
        cols.remove("rho")  # no missing values here: rho is 1 everywhere
    rows = []
    for rec in t[cols].itertuples(index=False):
        rows.append([_num(v) if isinstance(v, (float, np.floating)) and not isinstance(v, bool)
                     else ("✓" if v is True or v is np.True_ else "" if v is False
                           or v is np.False_ or v is None else str(_plain(v)))
                     for v in rec])
    attrs = {k: _num(v) for k, v in t.attrs.items() if isinstance(v, (int, float, np.number))}
    return {"columns": [_EXPLAIN_HEADS.get(c, c) for c in cols], "rows": rows, "attrs": attrs}


def _sample_frame(est, sample):
    """``sample`` (a Series, a one-row DataFrame, a dict, or a sequence of values) as a
    one-row DataFrame with the estimator's feature names."""
    names = feature_names(est)
    if isinstance(sample, pd.DataFrame):
        if len(sample) != 1:
            raise ValueError(f"The 'sample' parameter of export_html must be one row; got a "
                             f"DataFrame of {len(sample)} rows.")
        return sample
    if isinstance(sample, pd.Series):
        sample = sample.to_dict()
    if isinstance(sample, dict):
        missing = [n for n in names if n not in sample]
        if missing:
            raise ValueError(f"The 'sample' parameter of export_html lacks the feature "
                             f"{missing[0]!r}.")
        return pd.DataFrame([[sample[n] for n in names]], columns=names, dtype=object)
    values = list(np.asarray(sample, dtype=object).ravel())
    if len(values) != len(names):
        raise ValueError(f"The 'sample' parameter of export_html must hold {len(names)} "
                         f"values (one per feature); got {len(values)}.")
    return pd.DataFrame([values], columns=names, dtype=object)


def _check_int(name, value, low):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"The '{name}' parameter of export_html must be an int >= {low}; "
                         f"got {value!r}.")


def export_html(estimator, path=None, *, sample=None, X=None, y=None, explain_nodes="auto",
                expand_depth=3, title=None, font=None, decimals=3):
    """The fitted tree as one self-contained interactive HTML page.

    The page shows the tree as an outline of collapsible nodes, each with its test, its
    prediction, its sample count and its class distribution (or value), coloured as in
    :func:`quercus.plot_tree`. Clicking a node shows its details: the class weights, how a
    missing value is routed, and the split table of :meth:`explain` (entropy, gain,
    intrinsic value, gain ratio, Gini index) for the first internal nodes in
    breadth-first order (``explain_nodes``). A :class:`quercus.LogisticModelTree`'s leaves
    show their model's name (``LM_3``) and, on click, the logistic model (it has no split
    tables). With ``sample``, the nodes that sample visits are
    highlighted and opened. Nodes deeper than ``expand_depth`` start closed, and a
    node's children are drawn only when it is first opened, so big trees stay responsive.
    Nothing is fetched when the page is viewed: CSS, JavaScript and data are inline.

    Parameters
    ----------
    estimator : fitted quercus classifier or regressor
    path : str or path-like, optional
        Where to write the page (UTF-8).
    sample : pandas Series, one-row DataFrame, dict or sequence, optional
        One row of X whose decision path is highlighted.
    X, y : optional
        Data for the split tables (default: the training data kept by ``fit``; without
        it, the page has no split tables).
    explain_nodes : int or "auto", default="auto"
        How many internal nodes get a split table (0: none). "auto": as many as keep the
        export quick, those whose samples times features add up to 100,000 (every node
        of a small tree; none of a tree grown on a million cells).
    expand_depth : int, default=3
        Nodes at a smaller depth start open.
    title : str, optional
        The page title; default the estimator's class name.
    font : str, optional
        A font family to use first (default: an installed CJK font when labels need one).
    decimals : int, default=3
        Digits of thresholds in the node tests.

    Returns
    -------
    str
        The HTML text.

    Examples
    --------
    >>> from quercus import ID3Classifier, export_html
    >>> from quercus.datasets import load_watermelon
    >>> X, y = load_watermelon("2.0")
    >>> clf = ID3Classifier().fit(X, y)
    >>> page = export_html(clf, sample=X.iloc[0])
    >>> page.startswith("<!DOCTYPE html>"), "https://" in page
    (True, False)
    """
    from ..inspect import _check_fitted, _is_lmt
    lmt = _is_lmt(estimator)
    if lmt:
        _check_fitted(estimator)
    elif not hasattr(estimator, "_is_regressor") or not hasattr(estimator, "tree_"):
        raise TypeError(f"export_html needs a fitted quercus tree estimator; got "
                        f"{type(estimator).__name__}.")
    if explain_nodes != "auto":
        _check_int("explain_nodes", explain_nodes, 0)
    _check_int("expand_depth", expand_depth, 0)
    _check_int("decimals", decimals, 0)
    if (X is None) != (y is None):
        raise ValueError("export_html: pass X and y together (for the split tables).")
    est = estimator
    reg = bool(getattr(est, "_is_regressor", False))
    views = list(iter_nodes(est, decimals))
    by_id = {v.node: v for v in views}
    parent_cond = {}
    for v in views:
        for c, cond in zip(v.children, v.conditions):
            parent_cond[c] = f"{v.feature} {cond}"
    classes = None if reg else [_plain(c) for c in est.classes_]
    if reg:
        values = [float(v.predicted) for v in views]
        vmin, vmax = min(values), max(values)
    total = views[0].weighted_n_samples  # the root's
    nodes = []
    colors = {}  # a class colour depends only on the class and its share: most leaves repeat
    for v in sorted(views, key=lambda v: v.node):
        if reg:
            color = value_color(v.predicted, vmin, vmax)
        else:
            total_v = sum(v.distribution.values())
            key = (v.predicted, max(v.distribution.values()) / total_v if total_v > 0 else None)
            color = colors.get(key)
            if color is None:
                color = colors[key] = class_color(v, est, classes)
        rec = {"id": v.node, "d": v.depth, "c": parent_cond.get(v.node, ""),
               "f": None if v.feature is None else str(v.feature), "k": v.kind,
               "n": v.n_samples, "w": _num(v.weighted_n_samples),
               "pct": _num(100.0 * v.weighted_n_samples / total if total > 0 else 0.0, 3),
               "imp": _num(v.impurity), "col": color, "ch": list(v.children),
               "pred": _num(v.predicted) if reg else str(v.predicted)}
        if not reg:
            rec["dist"] = [_num(x) for x in v.distribution.values()]
        if v.model is not None:  # a LogisticModelTree leaf: its model predicts
            rec["pred"], rec["cls"], rec["model"] = v.model_name, str(v.predicted), v.model
        if v.missing:
            rec["miss"] = v.missing
        nodes.append(rec)

    # Split tables for the first internal nodes, breadth-first (explain costs a pass over
    # the node's samples each: the page stays quick to make for any tree size).
    tables, table_note = {}, ""
    internal = sorted((v for v in views if v.children), key=lambda v: (v.depth, v.node))
    limit = explain_nodes
    if lmt:  # LMT has no explain(): C4.5's gains are not kept
        limit = 0
        table_note = "A LogisticModelTree keeps no split tables."
    elif explain_nodes == "auto":
        limit, cost = 0, 0
        for v in internal:
            cost += v.n_samples * est.n_features_in_
            if cost > _EXPLAIN_BUDGET:
                break
            limit += 1
    for v in internal[:limit]:
        try:
            tables[v.node] = _explain_table(est, v.node, X, y)
        except ValueError as exc:  # a loaded model keeps no training data
            table_note = str(exc)
            break
    if len(internal) > limit and not table_note:
        table_note = (f"Split tables are included for the first {limit} internal nodes "
                      f"(breadth-first); export_html(..., explain_nodes=N) includes more.")

    path_nodes, sample_info = [], None
    if sample is not None:
        row = _sample_frame(est, sample)
        rows = row
        if not hasattr(est, "feature_names_in_"):  # fitted on an array: pass one
            rows = row.to_numpy(dtype=object)
            if not any(categorical_mask(est)):
                rows = rows.astype(float)
        if lmt:
            parent = {c: v.node for v in views for c in v.children}
            path_nodes = [int(est.apply(rows)[0])]
            while path_nodes[0] in parent:
                path_nodes.insert(0, parent[path_nodes[0]])
        else:
            path_nodes = [int(i) for i in est.decision_path(rows).indices]
        pred = est.predict(rows)[0]
        sample_info = {"values": [[str(k), str(_plain(v))] for k, v in row.iloc[0].items()],
                       "pred": _num(pred) if reg else str(_plain(pred))}
        if not reg:
            proba = est.predict_proba(rows)[0]
            sample_info["proba"] = [_num(p) for p in proba]

    texts = [r["c"] for r in nodes] + [str(c) for c in classes or []]
    family = font if font is not None else (
        cjk_font_family(texts) if needs_cjk(texts) else None)
    fonts = ([json.dumps(family)] if family else []) + (
        _CJK_FALLBACK if needs_cjk(texts) or family else []) + ["system-ui", "sans-serif"]

    title = title if title is not None else f"{type(est).__name__} tree"
    data = {"title": str(title), "regression": reg, "classes": [str(c) for c in classes or []],
            "nodes": nodes, "tables": {str(k): t for k, t in tables.items()},
            "tableNote": table_note, "path": path_nodes, "sample": sample_info,
            "expandDepth": int(expand_depth), "nLeaves": int(est.n_leaves_ if lmt else est.get_n_leaves())}
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    # Inside <script>, "</script>" or "<!--" in a name would end the element: escape the
    # characters HTML reads there (JSON reads the escapes back as the same text).
    payload = (payload.replace("<", "\\u003c").replace(">", "\\u003e")
               .replace("&", "\\u0026").replace("\u2028", "\\u2028")
               .replace("\u2029", "\\u2029"))
    page = (_TEMPLATE.replace("%%TITLE%%", _html.escape(str(title)))
            .replace("%%FONTS%%", ", ".join(fonts).replace("<", ""))
            .replace("%%DATA%%", payload))
    if path is not None:
        Path(path).write_text(page, encoding="utf-8")
    return page


_TEMPLATE = """<!DOCTYPE html>
<html lang="zh">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%%TITLE%%</title>
<style>
body { font-family: %%FONTS%%; margin: 0; color: #111; background: #fff; font-size: 14px; }
header { padding: 8px 14px; border-bottom: 1px solid #ddd; display: flex; gap: 12px;
  align-items: center; flex-wrap: wrap; }
header h1 { font-size: 16px; margin: 0; font-weight: 600; }
header button { font: inherit; padding: 2px 10px; }
.legend span { display: inline-block; margin-right: 10px; }
.legend i { display: inline-block; width: 12px; height: 12px; margin-right: 4px;
  vertical-align: -1px; border: 1px solid #888; }
main { display: flex; height: calc(100vh - 48px); }
#tree { flex: 1 1 60%; overflow: auto; padding: 8px 6px; }
#details { flex: 0 0 45%; overflow: auto; border-left: 1px solid #ddd; padding: 10px 14px; }
#details td { white-space: nowrap; }
ul.kids { list-style: none; margin: 0; padding-left: 22px; border-left: 1px dotted #bbb; }
ul.root { list-style: none; margin: 0; padding-left: 0; }
.node { display: inline-flex; align-items: center; gap: 6px; padding: 2px 6px; margin: 1px 0;
  border-radius: 4px; cursor: pointer; border: 1px solid transparent; white-space: nowrap; }
.node:hover { border-color: #999; }
.node.selected { border-color: #000; box-shadow: 0 0 0 1px #000; }
.node.onpath { outline: 2px solid #D55E00; outline-offset: 1px; font-weight: 600; }
.tog { width: 18px; height: 18px; padding: 0; border: 0; background: none; cursor: pointer;
  font-size: 12px; color: #333; }
.tog.leaf { visibility: hidden; }
.cond { color: #333; }
.pred { font-weight: 600; }
.meta { color: #555; font-size: 12px; }
table { border-collapse: collapse; margin: 6px 0 12px; font-size: 12px; }
th, td { border: 1px solid #ccc; padding: 2px 6px; text-align: right; }
th { background: #f4f4f4; }
td.t, th.t { text-align: left; }
tr.chosen td { background: #fff3d6; font-weight: 600; }
.note { color: #555; font-size: 12px; }
h2 { font-size: 15px; margin: 4px 0 8px; }
h3 { font-size: 13px; margin: 12px 0 4px; }
</style>
</head>
<body>
<header>
<h1 id="title"></h1>
<button type="button" id="expand-all">Expand all</button>
<button type="button" id="collapse-all">Collapse all</button>
<span class="legend" id="legend"></span>
<span class="note" id="summary"></span>
</header>
<main>
<div id="tree"><ul class="root" id="root"></ul></div>
<div id="details"><p class="note">Click a node to see its numbers and its split table.</p></div>
</main>
<script type="application/json" id="quercus-data">%%DATA%%</script>
<script>
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("quercus-data").textContent);
  const nodes = data.nodes;
  const onPath = new Set(data.path);
  const elements = new Map();  // node id -> its <li>, once drawn

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function draw(id) {
    const n = nodes[id];
    const li = el("li");
    li.dataset.id = id;
    const box = el("div", "node" + (onPath.has(id) ? " onpath" : ""));
    box.dataset.id = id;
    box.style.background = n.col;
    const tog = el("button", "tog" + (n.ch.length ? "" : " leaf"), n.ch.length ? "▸" : "");
    tog.type = "button";
    tog.setAttribute("aria-label", "open or close");
    box.appendChild(tog);
    box.appendChild(el("span", "cond", n.c || "(root)"));
    box.appendChild(el("span", "pred", n.pred));
    const meta = data.regression ? "n=" + n.n : "n=" + n.n + "  [" + n.dist.join(", ") + "]";
    box.appendChild(el("span", "meta", meta));
    if (n.ch.length) box.appendChild(el("span", "meta", "· " + n.f));
    li.appendChild(box);
    elements.set(id, li);
    return li;
  }

  function isOpen(li) { return li.classList.contains("open"); }

  function open(id) {
    const li = elements.get(id);
    const n = nodes[id];
    if (!li || !n.ch.length || isOpen(li)) return;
    let ul = li.querySelector(":scope > ul.kids");
    if (!ul) {  // children drawn on first opening only
      ul = el("ul", "kids");
      const frag = document.createDocumentFragment();
      for (const c of n.ch) frag.appendChild(draw(c));
      ul.appendChild(frag);
      li.appendChild(ul);
    }
    ul.style.display = "";
    li.classList.add("open");
    li.querySelector(":scope > .node > .tog").textContent = "▾";
  }

  function close(id) {
    const li = elements.get(id);
    if (!li || !isOpen(li)) return;
    li.querySelector(":scope > ul.kids").style.display = "none";
    li.classList.remove("open");
    li.querySelector(":scope > .node > .tog").textContent = "▸";
  }

  function table(columns, rows, chosenCol) {
    const t = el("table");
    if (columns) {
      const head = el("tr");
      columns.forEach((c, j) => head.appendChild(el("th", j < 2 ? "t" : "", c)));
      t.appendChild(head);
    }
    for (const r of rows) {
      const tr = el("tr", chosenCol >= 0 && r[chosenCol] ? "chosen" : "");
      r.forEach((v, j) => tr.appendChild(el("td", j < 2 || j === r.length - 1 ? "t" : "", v)));
      t.appendChild(tr);
    }
    return t;
  }

  function pathTo(id) {
    const parent = new Map();
    for (const n of nodes) for (const c of n.ch) parent.set(c, n.id);
    const out = [];
    for (let i = id; parent.has(i); i = parent.get(i)) out.unshift(nodes[i].c);
    return out;
  }

  function show(id) {
    const n = nodes[id];
    document.querySelectorAll(".node.selected").forEach(e => e.classList.remove("selected"));
    const li = elements.get(id);
    if (li) li.querySelector(":scope > .node").classList.add("selected");
    const d = document.getElementById("details");
    d.replaceChildren();
    d.appendChild(el("h2", "", "Node " + id + (n.ch.length ? ": split on " + n.f : ": leaf")));
    const p = pathTo(id);
    d.appendChild(el("p", "", p.length ? p.join(" AND ") : "(root: every sample)"));
    const facts = [["prediction", n.pred], ["samples", String(n.n)],
                   ["weighted samples", n.w + " (" + n.pct + "%)"], ["depth", String(n.d)],
                   ["impurity", n.imp]];
    if (n.miss) facts.push(["missing " + n.f, n.miss]);
    d.appendChild(table(null, facts, -1));
    if (n.model) {
      d.appendChild(el("h3", "", "Logistic model"));
      d.appendChild(el("pre", "model", n.model));
    }
    if (!data.regression) {
      const total = n.dist.reduce((a, b) => a + Number(b), 0);
      const rows = data.classes.map((c, k) => [c, n.dist[k],
        total > 0 ? (Number(n.dist[k]) / total).toFixed(3) : "0"]);
      d.appendChild(el("h3", "", "Class distribution"));
      d.appendChild(table(["class", "weight", "share"], rows, -1));
    }
    if (n.ch.length) {
      d.appendChild(el("h3", "", "Split table (explain)"));
      const t = data.tables[String(id)];
      if (t) {
        const chosen = t.columns.indexOf("chosen");
        const split = table(t.columns, t.rows, chosen);
        split.classList.add("split");
        d.appendChild(split);
        const a = Object.entries(t.attrs).map(([k, v]) => k + " = " + v).join(", ");
        if (a) d.appendChild(el("p", "note", a));
      } else {
        d.appendChild(el("p", "note", data.tableNote || "No split table for this node."));
      }
    }
  }

  document.getElementById("title").textContent = data.title;
  document.title = data.title;
  document.getElementById("summary").textContent =
    nodes.length + " nodes, " + data.nLeaves + " leaves" +
    (data.sample ? "; sample predicted: " + data.sample.pred : "");
  if (!data.regression) {
    const legend = document.getElementById("legend");
    const seen = new Map();
    for (const n of nodes) {
      const c = n.cls || n.pred;
      if (!seen.has(c) && !n.ch.length) seen.set(c, n.col);
    }
    for (const c of data.classes) {
      const s = el("span");
      const i = el("i");
      i.style.background = seen.get(c) || "#fff";
      s.appendChild(i);
      s.appendChild(document.createTextNode(c));
      legend.appendChild(s);
    }
  }

  const root = document.getElementById("root");
  root.appendChild(draw(0));
  // Open the top levels, then the sample's path, breadth-first.
  const queue = [0];
  while (queue.length) {
    const id = queue.shift();
    if (nodes[id].d < data.expandDepth || nodes[id].ch.some(c => onPath.has(c))) {
      open(id);
      for (const c of nodes[id].ch) queue.push(c);
    }
  }

  document.getElementById("tree").addEventListener("click", ev => {
    const box = ev.target.closest(".node");
    if (!box) return;
    const id = Number(box.dataset.id);
    if (ev.target.classList.contains("tog")) {
      const li = elements.get(id);
      isOpen(li) ? close(id) : open(id);
    } else {
      show(id);
    }
  });
  document.getElementById("expand-all").addEventListener("click", () => {
    const stack = [0];
    while (stack.length) {
      const id = stack.pop();
      open(id);
      for (const c of nodes[id].ch) stack.push(c);
    }
  });
  document.getElementById("collapse-all").addEventListener("click", () => {
    for (const id of elements.keys()) if (id !== 0) close(id);
  });
  if (data.path.length) show(data.path[data.path.length - 1]);
})();
</script>
</body>
</html>
"""
