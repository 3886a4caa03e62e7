"""export_rules: one rule per leaf, checked against golden files and against the tree.

Regenerate the golden files with ``python tests/test_rules.py --regen`` and review the diff.
"""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus import (C45Classifier, CARTClassifier, CARTRegressor, DecisionTreeClassifier,
                     ID3Classifier, export_rules)
from quercus.datasets import load_golf, load_watermelon
from quercus.export.text import display_width

GOLDEN = Path(__file__).parent / "golden"

CASES = {
    "id3_watermelon_2_0": lambda: ID3Classifier().fit(*load_watermelon("2.0")),
    "cart_watermelon_2_0": lambda: CARTClassifier().fit(*load_watermelon("2.0")),
    "c45_golf": lambda: C45Classifier().fit(*load_golf()),
    "c45_watermelon_2_0alpha": lambda: C45Classifier(pruning=None).fit(
        *load_watermelon("2.0alpha")),
    "cart_surrogates_watermelon_2_0alpha": lambda: CARTClassifier(surrogates="always").fit(
        *load_watermelon("2.0alpha")),
    "learned_watermelon_3_0": lambda: DecisionTreeClassifier(max_depth=3).fit(
        *load_watermelon("3.0")),
    "cart_regressor_watermelon_3_0": lambda: CARTRegressor(max_depth=3).fit(
        load_watermelon("3.0")[0].drop(columns="含糖率"), load_watermelon("3.0")[0]["含糖率"]),
}


def _render(name):
    return export_rules(CASES[name]()) + "\n"


@pytest.mark.parametrize("name", sorted(CASES))
def test_rules_match_golden(name):
    assert _render(name) == (GOLDEN / f"{name}.rules.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(CASES))
def test_one_rule_per_leaf_with_the_leaf_numbers(name):
    est = CASES[name]()
    frame = export_rules(est, as_frame=True)
    t = est.tree_
    leaves = np.flatnonzero(t.n_children == 0)
    assert sorted(frame["node"]) == leaves.tolist()
    np.testing.assert_allclose(frame["cover"], t.weighted_n_node_samples[frame["node"]])
    assert frame["cover"].sum() == pytest.approx(t.weighted_n_node_samples[0])
    if est._is_regressor:
        np.testing.assert_allclose(frame["value"], t.value[frame["node"], 0])
        return
    value = t.value[frame["node"]]
    share = value.max(axis=1) / value.sum(axis=1)
    np.testing.assert_allclose(frame["confidence"], share)
    np.testing.assert_allclose(frame["errors"], frame["cover"] * (1 - share), atol=1e-12)
    assert frame["class"].tolist() == est.classes_[
        est._majority(value / value.sum(axis=1, keepdims=True))].tolist()


def test_rules_select_the_rows_of_their_leaf():
    """Each rule, read back as a filter on the training rows without missing values, picks
    exactly the rows that reach its leaf (merged intervals included)."""
    X, y = load_watermelon("3.0")
    est = CARTClassifier().fit(X, y)
    leaf = est.apply(X)
    for _, r in export_rules(est, as_frame=True).iterrows():
        mask = np.ones(len(X), dtype=bool)
        for cond in r["conditions"]:
            cond = cond.strip("()").replace(" or missing", "")
            if " < " in cond:
                lo, rest = cond.split(" < ")
                col, hi = rest.split(" <= ")
                mask &= (X[col] > float(lo)).to_numpy() & (X[col] <= float(hi)).to_numpy()
            elif " <= " in cond:
                col, v = cond.split(" <= ")
                mask &= (X[col] <= float(v)).to_numpy()
            elif " > " in cond:
                col, v = cond.split(" > ")
                mask &= (X[col] > float(v)).to_numpy()
            elif " != " in cond:
                col, v = cond.split(" != ")
                mask &= (X[col] != v).to_numpy()
            elif " not in " in cond:
                col, v = cond.split(" not in ")
                mask &= ~X[col].isin(v.strip("{}").split(", ")).to_numpy()
            else:
                col, v = cond.split(" = ")
                mask &= (X[col] == v).to_numpy()
        assert (mask == (leaf == r["node"])).all(), r["rule"]


def test_numeric_conditions_are_merged():
    X = pd.DataFrame({"x": np.arange(40.0)})
    y = (X["x"] % 20 >= 10).astype(int)  # 0-9: 0, 10-19: 1, 20-29: 0, 30-39: 1
    text = export_rules(DecisionTreeClassifier().fit(X, y))
    assert "9.5 < x <= 19.5" in text and "19.5 < x <= 29.5" in text
    assert text.count(" x ") + text.count("x <=") >= 4
    assert "x > 9.5 AND" not in text


def test_missing_value_routing_is_stated():
    text = export_rules(CASES["learned_watermelon_3_0"]())
    assert "or missing" in text
    text = export_rules(CASES["cart_surrogates_watermelon_2_0alpha"]())
    assert "or missing and first known of" in text
    text = export_rules(CASES["c45_watermelon_2_0alpha"]())
    assert "fractional rule" in text


def test_text_columns_line_up_with_cjk():
    lines = export_rules(CASES["id3_watermelon_2_0"]()).split("\n\n")[0].splitlines()
    then = {display_width(line[:line.index("THEN")]) for line in lines[1:]}
    assert len(then) == 1
    assert len({display_width(line) for line in lines}) == 1


def test_single_leaf():
    X, y = load_watermelon("2.0")
    est = ID3Classifier(max_depth=1, min_samples_split=100).fit(X, y)
    assert "IF TRUE THEN 否" in export_rules(est)


@pytest.mark.parametrize("kwargs,match", [
    ({"as_frame": "yes"}, "'as_frame' parameter of export_rules must be True or False"),
    ({"decimals": -1}, "'decimals' parameter of export_rules must be an int >= 0; got -1"),
])
def test_bad_input_is_named(kwargs, match):
    est = ID3Classifier().fit(*load_watermelon("2.0"))
    with pytest.raises(ValueError, match=match):
        export_rules(est, **kwargs)


def test_foreign_estimator_is_refused():
    from sklearn.tree import DecisionTreeClassifier as SkTree
    with pytest.raises(TypeError, match="quercus tree estimator; got DecisionTreeClassifier"):
        export_rules(SkTree())


def test_importable_from_both_places():
    assert quercus.export_rules is quercus.export.export_rules


if __name__ == "__main__" and "--regen" in sys.argv:
    GOLDEN.mkdir(exist_ok=True)
    for case in CASES:
        (GOLDEN / f"{case}.rules.txt").write_text(_render(case), encoding="utf-8")
