"""Cross-validated cost-complexity pruning against reviewed golden tables.

Each case fits with ``pruning="cost_complexity"`` (10 folds, fixed ``random_state``) and
compares the complexity table, the chosen alpha and the pruned tree with those the fit made
before the folds took their bins from the whole data's (:mod:`quercus._fold_bins`) and
their regression targets from the whole fit's: speed-ups that must not change a number
(the tree exactly, the numbers to their ninth digit: see the test).
The cases cover exact and quantile bins, categorical columns, missing values, class
weights and the Poisson criterion. They grow the whole weakest-link sequence (``cp=0``); the
default ``cp=0.01`` must give those tables from its floor up.

After an intended change of the results, regenerate with
``python tests/test_cv_tables_golden.py --regen`` and review the diff.
"""

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from quercus import CARTClassifier, CARTRegressor, export_text
from quercus.datasets import load_golf, load_watermelon

GOLDEN = Path(__file__).parent / "golden" / "cv_tables.json"


def _sklearn(name):
    from sklearn import datasets
    b = getattr(datasets, name)()
    return pd.DataFrame(b.data), b.target_names[b.target]


def _classification(n):
    from sklearn.datasets import make_classification
    X, y = make_classification(5000, 20, n_informative=10, random_state=0)
    return pd.DataFrame(X[:n]), y[:n]


def _regression(n):
    from sklearn.datasets import make_regression
    X, y = make_regression(5000, 20, n_informative=10, noise=10, random_state=0)
    return pd.DataFrame(X[:n]), y[:n]


def _mixed(n=300, missing=0.0):
    """Continuous columns of more distinct values than bins, a categorical one, and a
    regression target (positive, for Poisson)."""
    rng = np.random.default_rng(5)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.exponential(size=n).round(2),
                      "c": pd.Categorical(rng.choice(list("pqrst"), n))})
    y = np.exp(X["a"] / 2 + (X["c"] == "q") + rng.normal(size=n) * 0.3)
    if missing:
        X = X.mask(pd.DataFrame(rng.random(X.shape) < missing, columns=X.columns))
    return X, y.to_numpy()


def _cases():
    """name -> (estimator, X, y)."""
    cc = dict(pruning="cost_complexity", random_state=0, cp=0.0)  # the whole sequence
    mixed_y = _mixed()[1]
    return {
        "watermelon_2_0": (CARTClassifier(**cc), *load_watermelon("2.0")),
        "watermelon_3_0": (CARTClassifier(**cc), *load_watermelon("3.0")),
        "golf": (CARTClassifier(**cc), *load_golf()),
        "iris": (CARTClassifier(**cc), *_sklearn("load_iris")),
        "wine": (CARTClassifier(**cc), *_sklearn("load_wine")),
        "wdbc": (CARTClassifier(**cc), *_sklearn("load_breast_cancer")),
        "classification_400": (CARTClassifier(**cc), *_classification(400)),
        "classification_400_balanced_64_bins": (
            CARTClassifier(class_weight="balanced", max_bins=64, **cc), *_classification(400)),
        "regression_200": (CARTRegressor(**cc), *_regression(200)),
        "regression_400": (CARTRegressor(**cc), *_regression(400)),
        "mixed_regression_32_bins": (CARTRegressor(max_bins=32, **cc), _mixed()[0], mixed_y),
        "mixed_poisson_32_bins": (CARTRegressor(criterion="poisson", max_bins=32, **cc),
                                  _mixed()[0], mixed_y),
        "mixed_classification_missing_16_bins": (
            CARTClassifier(max_bins=16, **cc), _mixed(120, missing=0.1)[0],
            np.where(mixed_y[:120] > 1.5, "high", "low")),
    }


def _result(est, X, y):
    est.fit(X, y)
    table = est.cp_table_
    return {"table": {c: table[c].tolist() for c in table.columns},
            "ccp_alpha": est.ccp_alpha_, "tree": export_text(est)}


@pytest.fixture(scope="module")
def golden():
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(_cases()))
def test_cv_table_alpha_and_tree_match_golden(golden, name):
    est, X, y = _cases()[name]
    got = _result(est, X, y)
    want = golden[name]
    assert got["tree"] == want["tree"]
    # Numbers to 1e-9 (relative), not to the bit: numpy sums in another order on CPUs with
    # AVX-512 (NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL AVX512_SPR" gives the bits), and
    # an alpha, a difference of risks, carries that to its tenth digit.
    np.testing.assert_allclose(got["ccp_alpha"], want["ccp_alpha"], rtol=1e-9)
    assert list(got["table"]) == list(want["table"])
    for column, values in want["table"].items():
        if column in ("n_splits", "n_leaves"):
            assert got["table"][column] == values, column
        else:
            np.testing.assert_allclose(got["table"][column], values, rtol=1e-9,
                                       err_msg=column)


@pytest.mark.parametrize("name", sorted(_cases()))
def test_cp_floor_gives_the_whole_table_from_its_alpha_up(golden, name):
    # rpart's cp: the tree and the folds' trees grown only to alpha = cp * R(root). Every
    # row of the whole table whose interval reaches above that alpha is there with the same
    # numbers, but for the first row's alpha (the floor) and the point its folds are scored
    # at (the geometric mean of its interval, which now starts at the floor).
    est, X, y = _cases()[name]
    cp = 0.01
    got = est.set_params(cp=cp).fit(X, y).cp_table_
    want = pd.DataFrame(golden[name]["table"])
    floor = cp * want["alpha"].iloc[1] / want["cp"].iloc[1] if len(want) > 1 else 0.0
    upper = np.append(want["alpha"].to_numpy()[1:], np.inf)
    kept = want[upper > floor * (1 + 1e-9)].reset_index(drop=True)
    assert len(got) == len(kept) >= 1
    np.testing.assert_allclose(got["alpha"].iloc[0], max(floor, kept["alpha"].iloc[0]),
                               rtol=1e-9)
    np.testing.assert_allclose(got["alpha"].iloc[1:], kept["alpha"].iloc[1:], rtol=1e-9)
    for column in ("n_splits", "n_leaves"):
        assert got[column].tolist() == kept[column].tolist(), column
    np.testing.assert_allclose(got["rel_error"], kept["rel_error"], rtol=1e-9)
    for column in ("xerror", "xstd"):
        np.testing.assert_allclose(got[column].iloc[1:], kept[column].iloc[1:], rtol=1e-9,
                                   atol=1e-12, err_msg=column)
    if len(want) > 1 and floor > want["alpha"].iloc[1]:
        # Some rows are gone: the test would not see a floor that did not cut.
        assert len(got) < len(want)


if __name__ == "__main__" and "--regen" in sys.argv:
    GOLDEN.write_text(json.dumps({name: _result(*case) for name, case in _cases().items()},
                                 ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN}")
