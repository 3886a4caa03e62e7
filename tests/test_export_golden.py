"""Exports against reviewed golden files.

After an intended change of an export, regenerate with
``python tests/test_export_golden.py --regen`` and review the diff.
"""

import json
import sys
from pathlib import Path

import pytest

from quercus import (C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier, export_dict,
                     export_text)
from quercus.datasets import load_golf, load_watermelon

GOLDEN = Path(__file__).parent / "golden"

# The CART cases search rpart's surrogates at every node (``surrogates="always"``), as these
# files were first made; ``cart_default_*`` pins the default, which searches them only where
# training values are missing (the same trees, fewer surrogates).
CASES = {
    "id3_watermelon_2_0": lambda: ID3Classifier().fit(*load_watermelon("2.0")),
    "cart_watermelon_2_0": lambda: CARTClassifier(surrogates="always").fit(
        *load_watermelon("2.0")),
    "cart_default_watermelon_2_0": lambda: CARTClassifier().fit(*load_watermelon("2.0")),
    "cart_default_watermelon_2_0alpha": lambda: CARTClassifier().fit(
        *load_watermelon("2.0alpha")),
    "c45_watermelon_3_0": lambda: C45Classifier(pruning=None).fit(*load_watermelon("3.0")),
    "c45_pruned_golf": lambda: C45Classifier().fit(*load_golf()),
    "cart_golf": lambda: CARTClassifier(surrogates="always").fit(*load_golf()),
    # Missing values: C4.5's fractional rule (the book's figure 4.9) and rpart's surrogates.
    "id3_watermelon_2_0alpha": lambda: ID3Classifier().fit(*load_watermelon("2.0alpha")),
    "cart_watermelon_2_0alpha": lambda: CARTClassifier(surrogates="always").fit(
        *load_watermelon("2.0alpha")),
    # Regression with an ordered categorical split: 含糖率 from the other attributes.
    "cart_regressor_watermelon_3_0": lambda: CARTRegressor(max_depth=3, surrogates="always").fit(
        load_watermelon("3.0")[0].drop(columns="含糖率"), load_watermelon("3.0")[0]["含糖率"]),
}


def render(name):
    est = CASES[name]()
    return export_text(est) + "\n", json.dumps(export_dict(est), ensure_ascii=False, indent=1) + "\n"


@pytest.mark.parametrize("name", sorted(CASES))
def test_export_text_matches_golden(name):
    text, _ = render(name)
    assert text == (GOLDEN / f"{name}.txt").read_text(encoding="utf-8")


def _rounded(obj):
    """Floats to 12 significant digits: the last bits of a sum depend on the machine's
    numpy (pairwise and SIMD summation), not on quercus."""
    if isinstance(obj, float):
        return float(f"{obj:.12g}")
    if isinstance(obj, dict):
        return {k: _rounded(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_rounded(v) for v in obj]
    return obj


@pytest.mark.parametrize("name", sorted(CASES))
def test_export_dict_matches_golden(name):
    _, js = render(name)
    golden = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
    assert _rounded(json.loads(js)) == _rounded(golden)


def test_export_text_without_distribution_has_no_brackets():
    text = export_text(ID3Classifier().fit(*load_watermelon("2.0")), show_distribution=False)
    assert "[" not in text and "纹理 = 模糊: 否" in text


def test_export_text_of_a_single_leaf():
    X, y = load_watermelon("2.0")
    est = ID3Classifier(max_depth=1, min_samples_split=100).fit(X, y)
    assert export_text(est) == "root: 否  [否: 9, 是: 8]"  # a leaf line, named: no test


if __name__ == "__main__" and "--regen" in sys.argv:
    GOLDEN.mkdir(exist_ok=True)
    for case in CASES:
        text, js = render(case)
        (GOLDEN / f"{case}.txt").write_text(text, encoding="utf-8")
        (GOLDEN / f"{case}.json").write_text(js, encoding="utf-8")
    print("regenerated", ", ".join(CASES))
