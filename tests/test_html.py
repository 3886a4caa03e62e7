"""export_html: a self-contained page, checked as text and in a real browser (headless
Chromium, driven by playwright; skipped only where Chromium is not installed).

``python tests/test_html.py --screenshot`` rewrites docs/img/html_view.png.
"""

import functools
import json
import re
import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus import (C45Classifier, CARTClassifier, CARTRegressor, DecisionTreeClassifier,
                     ID3Classifier, export_html)
from quercus.datasets import load_golf, load_watermelon

CHROMIUM = shutil.which("chromium") or (
    "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
SCREENSHOT = Path(__file__).parent.parent / "docs" / "img" / "html_view.png"


def _data(page):
    m = re.search(r'<script type="application/json" id="quercus-data">(.*?)</script>', page,
                  re.S)
    assert m, "no data element"
    return json.loads(m.group(1))


ESTIMATORS = {
    "id3": lambda: ID3Classifier().fit(*load_watermelon("2.0")),
    "c45_missing": lambda: C45Classifier().fit(*load_watermelon("2.0alpha")),
    "cart_surrogate": lambda: CARTClassifier(surrogates="always").fit(
        *load_watermelon("2.0alpha")),
    "learned": lambda: DecisionTreeClassifier().fit(*load_watermelon("3.0")),
    "regressor": lambda: CARTRegressor(max_depth=3).fit(
        load_watermelon("3.0")[0].drop(columns="含糖率"), load_watermelon("3.0")[0]["含糖率"]),
    "golf": lambda: C45Classifier().fit(*load_golf()),
}


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_page_holds_every_node_and_is_self_contained(name):
    est = ESTIMATORS[name]()
    page = export_html(est)
    data = _data(page)
    assert len(data["nodes"]) == est.tree_.node_count
    assert [n["id"] for n in data["nodes"]] == list(range(est.tree_.node_count))
    # Nothing is fetched at view time: no external URL, stylesheet link or script source.
    assert not re.search(r"https?://|<link|\bsrc=|@import|url\(", page)
    kids = [c for n in data["nodes"] for c in n["ch"]]
    assert sorted(kids) == list(range(1, est.tree_.node_count))
    if est._is_regressor:
        assert "dist" not in data["nodes"][0]
    else:
        dist = [float(x) for x in data["nodes"][0]["dist"]]
        np.testing.assert_allclose(dist, est.tree_.value[0], rtol=1e-3)
    # A small tree gets every split table by default.
    internal = [n["id"] for n in data["nodes"] if n["ch"]]
    assert sorted(int(k) for k in data["tables"]) == internal


def test_split_table_holds_explain_numbers():
    est = ID3Classifier().fit(*load_watermelon("2.0"))
    table = _data(export_html(est))["tables"]["0"]
    want = est.explain(0)
    gain = table["columns"].index("Gain")
    got = {r[0]: float(r[gain]) for r in table["rows"]}
    for feature, g in zip(want["feature"], want["gain"]):
        assert got[feature] == pytest.approx(g, rel=1e-3)
    assert {"Ent", "IV", "Gain ratio", "Gini index"} <= set(table["columns"])


def test_sample_path_is_the_decision_path():
    X, y = load_watermelon("2.0alpha")
    est = CARTClassifier().fit(X, y)
    for i in (0, 5, 11):
        data = _data(export_html(est, sample=X.iloc[i]))
        assert data["path"] == est.decision_path(X.iloc[[i]]).indices.tolist()
        assert data["sample"]["pred"] == str(est.predict(X.iloc[[i]])[0])
    as_dict = _data(export_html(est, sample=X.iloc[3].to_dict()))
    as_list = _data(export_html(est, sample=X.iloc[3].tolist()))
    assert as_dict["path"] == as_list["path"] == est.decision_path(X.iloc[[3]]).indices.tolist()


def test_names_are_escaped():
    X = pd.DataFrame({"</script><b>x": ["<a>", "b&c", "<a>", "b&c"] * 5,
                      "q\"'\\": np.arange(20.0)})
    y = np.array(["<no>", "yes"] * 10)
    page = export_html(DecisionTreeClassifier().fit(X, y), title="<T>")
    assert "</script><b>" not in page and "<a>" not in page and "<no>" not in page
    assert "<title>&lt;T&gt;</title>" in page
    assert "</script><b>x" in json.dumps(_data(page), ensure_ascii=False)


def test_writes_the_file(tmp_path):
    est = ID3Classifier().fit(*load_watermelon("2.0"))
    out = tmp_path / "tree.html"
    page = export_html(est, out)
    assert out.read_text(encoding="utf-8") == page


def test_big_tree_keeps_split_tables_within_budget():
    est, _ = _big_tree()
    data = _data(export_html(est))
    assert len(data["nodes"]) >= 10_000
    assert len(data["tables"]) < 10 and "explain_nodes=N" in data["tableNote"]
    assert len(_data(export_html(est, explain_nodes=2))["tables"]) == 2


def test_a_loaded_model_has_no_split_tables(tmp_path):
    est = ID3Classifier().fit(*load_watermelon("2.0"))
    est.save(tmp_path / "m.quercus")
    loaded = quercus.load(tmp_path / "m.quercus")
    data = _data(export_html(loaded))
    assert data["tables"] == {} and "training data" in data["tableNote"]
    X, y = load_watermelon("2.0")
    assert "0" in _data(export_html(loaded, X=X, y=y))["tables"]


@pytest.mark.parametrize("kwargs,match", [
    ({"explain_nodes": -1}, "'explain_nodes' parameter of export_html must be an int >= 0"),
    ({"explain_nodes": "all"}, "'explain_nodes'.*'all'"),
    ({"expand_depth": 1.5}, "'expand_depth'.*1.5"),
    ({"sample": [1, 2]}, "'sample' parameter of export_html must hold 6 values"),
    ({"sample": {"色泽": "青绿"}}, "'sample' parameter of export_html lacks the feature '根蒂'"),
    ({"X": load_watermelon("2.0")[0]}, "X and y together"),
])
def test_bad_input_is_named(kwargs, match):
    est = ID3Classifier().fit(*load_watermelon("2.0"))
    with pytest.raises(ValueError, match=match):
        export_html(est, **kwargs)


def test_importable_from_both_places():
    assert quercus.export_html is quercus.export.export_html


# --------------------------------------------------------------------- in a browser
@functools.lru_cache(maxsize=1)
def _big_tree():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(18_000, 4))
    y = (X[:, 0] + X[:, 1] > 0) ^ (rng.random(18_000) < 0.4)  # noisy: a leaf per few rows
    return DecisionTreeClassifier().fit(X, y), X


def _browser():
    from playwright.sync_api import sync_playwright
    pw = sync_playwright().start()
    browser = pw.chromium.launch(
        executable_path=CHROMIUM,
        args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
              "--disable-background-networking", "--disable-component-update",
              "--disable-sync"])
    return pw, browser


def _open(browser, path, requests):
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))

    def record(route):
        requests.append(route.request.url)
        if route.request.url.startswith("file:"):
            route.continue_()
        else:
            route.abort()

    page.route("**/*", record)
    page.goto(Path(path).resolve().as_uri())
    page.wait_for_selector(".node[data-id='0']")
    return page, errors


needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed")


@needs_chromium
def test_in_browser_expand_click_and_path(tmp_path):
    X, y = load_watermelon("2.0")
    est = ID3Classifier().fit(X, y)
    sample = X.iloc[8]
    out = tmp_path / "tree.html"
    data = _data(export_html(est, out, sample=sample, expand_depth=1))
    pw, browser = _browser()
    try:
        requests = []
        page, errors = _open(browser, out, requests)
        # Only the root is open: its children are drawn, its grandchildren not yet.
        root_kids = data["nodes"][0]["ch"]
        path = set(data["path"])
        closed = next(c for c in root_kids if data["nodes"][c]["ch"] and c not in path)
        grandkids = data["nodes"][closed]["ch"]
        assert page.locator(f".node[data-id='{grandkids[0]}']").count() == 0
        # The sample's path is highlighted and open down to its leaf.
        assert sorted(int(e.get_attribute("data-id"))
                      for e in page.locator(".node.onpath").all()) == sorted(path)
        # Expanding a node draws its children with their tests.
        page.click(f".node[data-id='{closed}'] .tog")
        for c in grandkids:
            box = page.locator(f".node[data-id='{c}']")
            assert box.is_visible()
            assert data["nodes"][c]["c"] in box.inner_text()
        # Clicking it shows its numbers and its split table.
        page.click(f".node[data-id='{closed}'] .cond")
        details = page.locator("#details")
        assert f"Node {closed}: split on {data['nodes'][closed]['f']}" in details.inner_text()
        table = est.explain(closed)
        chosen = details.locator("table.split tr.chosen")
        assert chosen.count() == 1
        cells = chosen.locator("td").all_inner_texts()
        assert cells[0] == table.loc[table["chosen"], "feature"].iloc[0]
        gain_col = details.locator("table.split th").all_inner_texts().index("Gain")
        assert float(cells[gain_col]) == pytest.approx(
            float(table.loc[table["chosen"], "gain"].iloc[0]), rel=1e-3)
        # Closing hides the children again.
        page.click(f".node[data-id='{closed}'] .tog")
        assert not page.locator(f".node[data-id='{grandkids[0]}']").is_visible()
        page.screenshot(path=str(tmp_path / "view.png"))
        assert (tmp_path / "view.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert errors == []
        assert all(u.startswith("file:") for u in requests), requests
    finally:
        browser.close()
        pw.stop()


@needs_chromium
def test_in_browser_ten_thousand_nodes(tmp_path):
    est, X = _big_tree()
    out = tmp_path / "big.html"
    export_html(est, out, sample=X[0], explain_nodes=0)
    n = est.tree_.node_count
    assert n >= 10_000
    pw, browser = _browser()
    try:
        page, errors = _open(browser, out, [])
        # Collapsed below depth 3: a handful of nodes drawn, plus the sample's path.
        drawn = page.locator(".node").count()
        assert drawn < 100
        page.click("#expand-all")
        assert page.locator(".node").count() == n
        page.click("#collapse-all")  # all but the root
        assert page.locator(".node:visible").count() == 1 + len(est.tree_.children(0))
        assert errors == []
    finally:
        browser.close()
        pw.stop()


def _screenshot(path):
    """The documentation's picture: watermelon 2.0alpha, CART with surrogates, one sample's
    path and the root's split table."""
    import tempfile
    X, y = load_watermelon("2.0alpha")
    est = C45Classifier(pruning=None).fit(X, y)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "tree.html"
        export_html(est, out, sample=X.iloc[2], title="C4.5 on watermelon 2.0α")
        pw, browser = _browser()
        try:
            page, _ = _open(browser, out, [])
            page.click(".node[data-id='0'] .cond")
            page.screenshot(path=str(path))
        finally:
            browser.close()
            pw.stop()


if __name__ == "__main__" and "--screenshot" in sys.argv:
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    _screenshot(SCREENSHOT)
