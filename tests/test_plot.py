"""plot_tree: layout without overlap, glyphs for Chinese labels, options, the size guard."""

import itertools
import random
import subprocess
import sys
import warnings

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from quercus import (C45Classifier, CARTClassifier, CARTRegressor,  # noqa: E402
                     DecisionTreeClassifier, DecisionTreeRegressor, ID3Classifier, plot_tree)
from quercus.datasets import load_watermelon  # noqa: E402
from quercus.export._fonts import MissingFontWarning, cjk_font_family  # noqa: E402
from quercus.export.layout import tidy_x  # noqa: E402
from quercus.export.plot import TruncatedTreeWarning  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _id3():
    return ID3Classifier().fit(*load_watermelon("2.0"))


def _cart_breast_cancer():
    from sklearn.datasets import load_breast_cancer
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    return CARTClassifier(max_depth=4).fit(X, np.array(["malignant", "benign"])[y])


def _regressor():
    X = load_watermelon("3.0")[0]
    return CARTRegressor(max_depth=3).fit(X.drop(columns="含糖率"), X["含糖率"])


ESTIMATORS = {
    "id3": _id3,
    "cart": lambda: CARTClassifier().fit(*load_watermelon("2.0")),
    "c45_missing": lambda: C45Classifier(pruning=None).fit(*load_watermelon("2.0alpha")),
    "cart_surrogate": lambda: CARTClassifier().fit(*load_watermelon("2.0alpha")),
    "cart_regressor": _regressor,
    "tree_regressor_multiway": lambda: DecisionTreeRegressor(
        categorical_split="multiway", max_depth=2).fit(
        load_watermelon("3.0")[0].drop(columns="含糖率"), load_watermelon("3.0")[0]["含糖率"]),
}


def _intersect(a, b, eps=1e-9):
    return a[0] < b[2] - eps and b[0] < a[2] - eps and a[1] < b[3] - eps and b[1] < a[3] - eps


def _assert_no_overlap(result):
    boxes = result.all_boxes()
    assert boxes, "nothing drawn"
    for a, b in itertools.combinations(boxes, 2):
        assert not _intersect(a, b), (a, b)
    # In display units too: each rendered text lies inside the rectangle reserved for it.
    fig = result.ax.figure
    renderer = fig.canvas.get_renderer()
    to_display = result.ax.transData.transform
    ax_box = result.ax.get_window_extent(renderer)
    for text, (x0, y0, x1, y1) in result.texts:
        ext = text.get_window_extent(renderer)
        (dx0, dy0), (dx1, dy1) = to_display([(x0, y0), (x1, y1)])
        tol = 1.5  # pixels: antialiasing and rounding of glyph extents
        assert dx0 - tol <= ext.x0 and ext.x1 <= dx1 + tol, (text.get_text(), ext, dx0, dx1)
        assert dy0 - tol <= ext.y0 and ext.y1 <= dy1 + tol, (text.get_text(), ext, dy0, dy1)
        assert ax_box.x0 - tol <= ext.x0 and ext.x1 <= ax_box.x1 + tol, text.get_text()


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
@pytest.mark.parametrize("type_", [0, 2, 3, 5])
def test_every_estimator_draws_without_overlap(name, type_):
    result = plot_tree(ESTIMATORS[name](), type=type_, show_missing=True)
    result.ax.figure.canvas.draw()
    _assert_no_overlap(result)


@pytest.mark.parametrize("kw", [dict(type=1), dict(type=4), dict(under=True),
                                dict(fallen_leaves=False), dict(branch=0.0),
                                dict(extra=1), dict(extra=102), dict(extra=9),
                                dict(varlen=-1, faclen=1), dict(yesno=2)])
def test_options_keep_the_layout_clean(kw):
    result = plot_tree(_cart_breast_cancer(), **kw)
    result.ax.figure.canvas.draw()
    _assert_no_overlap(result)


def test_watermelon_id3_is_the_books_figure_4_4():
    result = plot_tree(_id3(), extra=0)
    texts = [t.get_text() for t, _ in result.texts]
    # The root asks for 纹理 and has one branch per category.
    assert "纹理 = ?" in texts
    assert {"清晰", "稍糊", "模糊"} <= set(texts)
    # Parents are centred over their first and last child.
    clf = _id3()
    from quercus.inspect import iter_nodes
    for v in iter_nodes(clf):
        if v.children:
            cx = [sum(result.boxes[c][0::2]) / 2 for c in (v.children[0], v.children[-1])]
            assert sum(result.boxes[v.node][0::2]) / 2 == pytest.approx(sum(cx) / 2)


def test_fallen_leaves_share_the_bottom_row():
    result = plot_tree(_id3())
    clf = _id3()
    leaves = [n for n in result.boxes if not clf.tree_.children(n)]
    assert len({round(result.boxes[n][1], 6) for n in leaves}) == 1
    result = plot_tree(_id3(), fallen_leaves=False)
    assert len({round(result.boxes[n][1], 6) for n in leaves}) > 1


@pytest.mark.skipif(cjk_font_family(["纹理"]) is None, reason="no CJK font installed")
def test_chinese_labels_have_glyphs_and_rcparams_stay():
    before = dict(matplotlib.rcParams)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = plot_tree(_id3())
        result.ax.figure.canvas.draw()
    missing = [str(w.message) for w in caught if "missing from font" in str(w.message)]
    assert missing == []
    assert not [w for w in caught if issubclass(w.category, MissingFontWarning)]
    assert dict(matplotlib.rcParams) == before
    assert result.font[-1] == cjk_font_family(["纹理"])


def test_a_latin_only_font_shows_the_missing_glyph_warning():
    # The check above can fail: with DejaVu Sans alone matplotlib warns about 纹理.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = plot_tree(_id3(), font="DejaVu Sans")
        result.ax.figure.canvas.draw()
    assert any("missing from font" in str(w.message) for w in caught)


def test_no_cjk_font_gives_one_warning_naming_the_package(monkeypatch):
    import quercus.export._fonts as fonts
    fonts._find_family.cache_clear()
    monkeypatch.setattr(fonts, "_matplotlib_fonts", lambda: [("DejaVu Sans", "/nonexistent")])
    try:
        with pytest.warns(MissingFontWarning, match="fonts-noto-cjk") as record:
            plot_tree(_id3())
        assert len([w for w in record if issubclass(w.category, MissingFontWarning)]) == 1
    finally:
        fonts._find_family.cache_clear()


def test_import_quercus_does_not_import_matplotlib():
    code = "import sys, quercus; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_missing_matplotlib_names_the_extra(monkeypatch):
    import builtins
    real = builtins.__import__

    def fake(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError("No module named 'matplotlib'")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(ImportError, match=r'pip install "quercus\[plot\]"'):
        plot_tree(_id3())


def _big_tree():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1500, 4))
    y = rng.integers(0, 3, size=1500)
    return DecisionTreeClassifier().fit(X, y)


def test_the_guard_truncates_a_big_tree_with_a_note_and_a_warning():
    est = _big_tree()
    assert est.get_n_leaves() > 64
    with pytest.warns(TruncatedTreeWarning, match="max_leaves=64"):
        result = plot_tree(est)
    assert result.truncated and result.shown_leaves <= 64 < result.n_leaves
    assert result.depth is not None and result.depth < est.get_depth()
    notes = [t for t in result.ax.texts if t.get_text().startswith("Only the top")]
    assert len(notes) == 1
    result.ax.figure.canvas.draw()
    _assert_no_overlap(result)
    with warnings.catch_warnings():
        warnings.simplefilter("error", TruncatedTreeWarning)
        small = plot_tree(est, max_depth=2)
    assert not small.truncated


def test_node_draws_a_subtree():
    clf = _id3()
    result = plot_tree(clf, node=1)
    assert min(result.boxes) == 1 and 0 not in result.boxes


def test_max_depth_marks_cut_subtrees():
    result = plot_tree(_cart_breast_cancer(), max_depth=1)
    assert len(result.boxes) == 3
    assert any("leaves" in t.get_text() for t, _ in result.texts)


def test_draws_into_given_axes_and_fits_the_font():
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    result = plot_tree(_id3(), ax=b)
    assert result.ax is b and 0 < result.fontsize <= 12
    fig.canvas.draw()
    _assert_no_overlap(result)


@pytest.mark.parametrize("kw, match", [
    (dict(type=7), r"'type' parameter of plot_tree must be an int in 0..5. Got 7"),
    (dict(extra=12), r"'extra' parameter of plot_tree .* Got 12"),
    (dict(extra="all"), r"'extra' parameter of plot_tree .* Got 'all'"),
    (dict(branch=2), r"'branch' parameter of plot_tree .* Got 2"),
    (dict(node=99), r"'node' parameter of plot_tree must be a node id in \[0, 13\]. Got 99"),
    (dict(max_leaves=0), r"'max_leaves' parameter .* Got 0"),
    (dict(yesno=3), r"'yesno' parameter .* Got 3"),
    (dict(fontsize=-1), r"'fontsize' parameter .* Got -1"),
    (dict(digits=1.5), r"'digits' parameter .* Got 1.5"),
])
def test_bad_parameters_name_themselves(kw, match):
    with pytest.raises(ValueError, match=match):
        plot_tree(_id3(), **kw)


def test_regression_extra_must_be_a_regression_extra():
    with pytest.raises(ValueError, match=r"'extra' parameter .* regression .* Got 4"):
        plot_tree(_regressor(), extra=4)


def test_unfitted_estimator_is_refused():
    with pytest.raises(ValueError, match="fitted"):
        plot_tree(ID3Classifier())


def test_tidy_layout_never_overlaps_on_random_trees():
    for seed in range(200):
        rnd = random.Random(seed)
        children, depth = {0: []}, {0: 0}
        for n in range(1, rnd.randint(2, 60)):
            p = rnd.choice(list(children))
            children[p].append(n)
            children[n], depth[n] = [], depth[p] + 1
        widths = {v: rnd.uniform(0.2, 5.0) for v in children}
        x = tidy_x(children, 0, widths, gap=0.5)
        rows = {}
        for v in x:
            rows.setdefault(depth[v], []).append(v)
        for row in rows.values():
            row.sort(key=x.get)
            for a, b in zip(row, row[1:]):
                assert x[b] - x[a] >= (widths[a] + widths[b]) / 2 + 0.5 - 1e-9
        for v, ks in children.items():
            if ks:
                assert x[v] == pytest.approx((x[ks[0]] + x[ks[-1]]) / 2)
                assert all(x[a] < x[b] for a, b in zip(ks, ks[1:]))
