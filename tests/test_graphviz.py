"""export_graphviz: golden DOT files, escaping, one edge per category, rendering.

After an intended change of the DOT output, regenerate with
``python tests/test_graphviz.py --regen`` and review the diff.
"""

import io
import re
import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from quercus import (C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier,
                     export_graphviz)
from quercus.datasets import load_watermelon
from quercus.export.graphviz import render
from quercus.inspect import iter_nodes

GOLDEN = Path(__file__).parent / "golden"
FONT = "Noto Sans CJK SC"  # fixed, so the golden files do not depend on installed fonts
HAVE_DOT = shutil.which("dot") is not None

CASES = {
    "id3_watermelon_2_0": lambda: ID3Classifier().fit(*load_watermelon("2.0")),
    "cart_watermelon_2_0": lambda: CARTClassifier().fit(*load_watermelon("2.0")),
    # Missing values: C4.5's fractional rule and rpart's surrogates, shown as a line.
    "c45_watermelon_2_0alpha": lambda: C45Classifier(pruning=None).fit(
        *load_watermelon("2.0alpha")),
    "cart_watermelon_2_0alpha": lambda: CARTClassifier().fit(*load_watermelon("2.0alpha")),
    "cart_regressor_watermelon_3_0": lambda: CARTRegressor(max_depth=3).fit(
        load_watermelon("3.0")[0].drop(columns="含糖率"), load_watermelon("3.0")[0]["含糖率"]),
}
OPTIONS = {"c45_watermelon_2_0alpha": dict(show_missing=True),
           "cart_watermelon_2_0alpha": dict(show_missing=True, extra=101)}


def _dot(name):
    return export_graphviz(CASES[name](), fontname=FONT, **OPTIONS.get(name, {}))


@pytest.mark.parametrize("name", sorted(CASES))
def test_dot_matches_golden(name):
    assert _dot(name) == (GOLDEN / f"{name}.dot").read_text(encoding="utf-8")


def test_one_edge_per_category_and_per_node():
    clf = ID3Classifier().fit(*load_watermelon("2.0"))
    dot = export_graphviz(clf, fontname=FONT)
    views = list(iter_nodes(clf))
    edges = re.findall(r"^n(\d+) -> n(\d+) ", dot, flags=re.M)
    assert len(edges) == sum(len(v.children) for v in views)
    assert len(re.findall(r"^n\d+ \[label=", dot, flags=re.M)) == len(views)
    root_edges = re.findall(r'^n0 -> n\d+ \[label="([^"]*)"\]', dot, flags=re.M)
    assert root_edges == ["清晰", "稍糊", "模糊"]


def _awkward():
    names = ['say "hi"', "a<b>", "back\\slash"]
    rng = np.random.default_rng(1)
    X = pd.DataFrame({names[0]: rng.choice(['x"y', "<p>", "c\\d"], 60),
                      names[1]: rng.normal(size=60), names[2]: rng.normal(size=60)})
    y = np.where((X[names[0]] == "<p>") | (X[names[1]] > 0.5), 'yes"', "no\\")
    return names, CARTClassifier(max_depth=3).fit(X, y)


def test_quotes_angle_brackets_and_backslashes_are_escaped():
    names, est = _awkward()
    dot = export_graphviz(est, fontname="DejaVu Sans")
    # Every quoted string is closed: no unescaped quote inside labels.
    for line in dot.splitlines():
        unescaped = re.sub(r'\\.', "", line)
        assert unescaped.count('"') % 2 == 0, line
    used = {v.feature for v in iter_nodes(est) if v.feature}
    assert used & set(names)
    for name in used:
        esc = name.replace("\\", "\\\\").replace('"', '\\"')
        assert esc in dot


@pytest.mark.skipif(not HAVE_DOT, reason="Graphviz's dot is not installed")
def test_escaped_names_survive_dot():
    names, est = _awkward()
    svg = render(export_graphviz(est, fontname="DejaVu Sans"),
                 Path(pytest.importorskip("tempfile").mkdtemp()) / "t.svg")
    text = svg.read_text(encoding="utf-8")
    used = {v.feature for v in iter_nodes(est) if v.feature}
    for name in used:
        html = name.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") \
                   .replace('"', "&quot;")
        assert html in text, name


@pytest.mark.skipif(not HAVE_DOT, reason="Graphviz's dot is not installed")
@pytest.mark.parametrize("suffix, magic", [(".png", b"\x89PNG"), (".svg", b"<?xml"),
                                           (".pdf", b"%PDF")])
def test_out_file_renders_by_suffix(tmp_path, suffix, magic):
    clf = ID3Classifier().fit(*load_watermelon("2.0"))
    out = tmp_path / f"tree{suffix}"
    dot = export_graphviz(clf, out_file=out)
    assert dot.startswith("digraph")
    assert out.read_bytes()[:len(magic)] == magic


def test_out_file_dot_and_file_object(tmp_path):
    clf = ID3Classifier().fit(*load_watermelon("2.0"))
    dot = export_graphviz(clf, out_file=tmp_path / "t.dot", fontname=FONT)
    assert (tmp_path / "t.dot").read_text(encoding="utf-8") == dot
    buf = io.StringIO()
    export_graphviz(clf, out_file=buf, fontname=FONT)
    assert buf.getvalue() == dot


def test_missing_dot_gives_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    clf = ID3Classifier().fit(*load_watermelon("2.0"))
    with pytest.raises(RuntimeError, match="Graphviz's `dot` program"):
        export_graphviz(clf, out_file=tmp_path / "t.png")


def test_default_fontname_covers_chinese_labels():
    dot = export_graphviz(ID3Classifier().fit(*load_watermelon("2.0")))
    assert re.search(r'fontname="[^"]+"', dot)
    from sklearn.datasets import load_iris
    X, y = load_iris(return_X_y=True)
    assert "fontname" not in export_graphviz(CARTClassifier(max_depth=2).fit(X, y))


def test_max_depth_and_node_draw_a_part():
    clf = ID3Classifier().fit(*load_watermelon("2.0"))
    dot = export_graphviz(clf, max_depth=1, fontname=FONT)
    assert "dashed" in dot and "leaves" in dot
    sub = export_graphviz(clf, node=1, fontname=FONT)
    inside = _subtree(clf, 1)
    assert "n0 " not in sub
    assert sub.count(" -> ") == sum(len(v.children) for v in iter_nodes(clf) if v.node in inside)


def _subtree(clf, node):
    out, stack = set(), [node]
    while stack:
        n = stack.pop()
        out.add(n)
        stack.extend(clf.tree_.children(n))
    return out


@pytest.mark.parametrize("kw, match", [
    (dict(extra=13), r"'extra' parameter of export_graphviz .* Got 13"),
    (dict(rankdir="BT"), r"'rankdir' parameter of export_graphviz .* Got 'BT'"),
    (dict(node=-1), r"'node' parameter of export_graphviz .* Got -1"),
    (dict(out_file="tree.xyz"), r"'out_file' parameter of export_graphviz .* Got 'tree.xyz'"),
])
def test_bad_parameters_name_themselves(kw, match):
    with pytest.raises(ValueError, match=match):
        export_graphviz(ID3Classifier().fit(*load_watermelon("2.0")), **kw)


if __name__ == "__main__" and "--regen" in sys.argv:
    GOLDEN.mkdir(exist_ok=True)
    for case in CASES:
        (GOLDEN / f"{case}.dot").write_text(_dot(case), encoding="utf-8")
