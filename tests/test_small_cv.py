"""A small cross-validated cost-complexity fit grows its tree and its folds' trees in one
kernel call (quercus._small_cv), to the very tree and complexity table of the two calls
(the whole data's tree, then the folds)."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris
from sklearn.model_selection import KFold

from quercus import CARTClassifier, CARTRegressor, _small_cv, export_text
from quercus.datasets import load_golf, load_watermelon


def _watermelon_with_missing():
    X, y = load_watermelon("2.0")
    X = X.copy()
    rng = np.random.default_rng(4)
    for column in X.columns[:3]:
        values = X[column].astype(object)
        values[rng.random(len(X)) < 0.15] = np.nan
        X[column] = pd.Categorical(values)
    return X, y


def _regression(n=40, noise_columns=0):
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n),
                      "c": pd.Categorical(rng.choice(list("pqr"), n))})
    for j in range(noise_columns):
        X[f"noise{j}"] = rng.normal(size=n)
    y = (3.0 * X["a"].to_numpy() + X["c"].map({"p": 0.0, "q": 4.0, "r": -4.0}).to_numpy()
         + rng.normal(size=n))
    X.loc[X.index[::7], "b"] = np.nan
    return X, y


CASES = {
    "golf": (CARTClassifier, load_golf, {}),
    "watermelon with missing values": (CARTClassifier, _watermelon_with_missing, {}),
    "iris, three classes, cp=0": (CARTClassifier, lambda: load_iris(return_X_y=True),
                                  {"cp": 0.0}),
    "regression with missing values": (CARTRegressor, _regression, {}),
    "golf, five folds, the 1-SE rule": (CARTClassifier, load_golf,
                                        {"cv": 5, "cv_rule": "1se"}),
    # (under 1,000 cells the folds take turns on one thread, whatever n_jobs says)
    "golf, two threads allowed": (CARTClassifier, load_golf, {"n_jobs": 2}),
    "error as the loss, sample weights": (CARTClassifier, load_golf,
                                          {"ccp_loss": "error", "weights": True}),
    # (1,000 cells and more: the roots shared out to two threads, a call each; up to 255
    # rows, every bin exact)
    "regression of 250 rows on two threads": (
        CARTRegressor, lambda: _regression(250, noise_columns=2), {"n_jobs": 2}),
    "250 rows, sample weights, two threads": (
        CARTClassifier, lambda: load_iris(return_X_y=True),
        {"n_jobs": 2, "weights": True, "rows": 250}),
}


def _fit_both_ways(monkeypatch, roots, cls, X, y, params):
    """(fitted in one call, fitted in two, the roots of the one-call fit's calls);
    ``roots``: the ``subtree_roots`` fixture's list."""
    params = dict(params)
    weights = params.pop("weights", False)
    if "rows" in params:  # (rows repeated up to this many, with a little noise)
        rows = np.arange(params.pop("rows")) % len(y)
        X = X[rows] + np.random.default_rng(0).normal(0, 0.01, (rows.size, X.shape[1]))
        y = y[rows]
    w = np.random.default_rng(7).uniform(0.5, 2.0, len(y)) if weights else None
    fitted = {}
    for enabled in (True, False):
        monkeypatch.setattr(_small_cv, "ENABLED", enabled)
        fitted[enabled] = cls(pruning="cost_complexity", random_state=0, **params).fit(
            X, y, sample_weight=w)
        if enabled:
            one_call = list(roots)
    return fitted[True], fitted[False], one_call


@pytest.mark.parametrize("case", sorted(CASES))
def test_one_call_grows_the_tree_and_table_of_two_calls(monkeypatch, subtree_roots, case):
    cls, load, params = CASES[case]
    X, y = load()
    one, two, roots = _fit_both_ways(monkeypatch, subtree_roots, cls, X, y, params)
    # The whole data's root and every fold's: in one call, or one a thread.
    assert sum(roots) == params.get("cv", 10) + 1
    two_threads = params.get("n_jobs") == 2 and params.get("rows", len(y)) * X.shape[1] >= 1000
    assert len(roots) == (2 if two_threads else 1)
    assert export_text(one) == export_text(two)
    pd.testing.assert_frame_equal(one.cp_table_, two.cp_table_, check_exact=True)
    assert one.ccp_alpha_ == two.ccp_alpha_
    for field in ("feature", "threshold", "value", "impurity", "weighted_n_node_samples",
                  "sur_feature", "sur_threshold", "cat_map"):
        np.testing.assert_array_equal(getattr(one.tree_, field), getattr(two.tree_, field))
    assert one.pruning_report_ == two.pruning_report_
    if case.startswith("regression"):  # (a subset split: the whole tree's categories' map)
        assert one.tree_.cat_map.size > 0


def test_unseeded_folds_draw_from_the_global_generator_as_two_calls_do(monkeypatch):
    # random_state=None deals the folds from NumPy's global RandomState: one draw either
    # way, so a user's np.random.seed gives the same table and leaves the same state.
    _assert_unseeded_fits_agree(monkeypatch, *load_golf(), seed=11)


def _assert_unseeded_fits_agree(monkeypatch, X, y, seed):
    """An unseeded fit after ``np.random.seed(seed)`` gives the same table and leaves the
    global generator in the same state, in one call or two."""
    tables, states = {}, {}
    for enabled in (True, False):
        monkeypatch.setattr(_small_cv, "ENABLED", enabled)
        np.random.seed(seed)
        tables[enabled] = CARTClassifier(pruning="cost_complexity").fit(X, y).cp_table_
        states[enabled] = np.random.get_state()[1].tolist()
    pd.testing.assert_frame_equal(tables[True], tables[False], check_exact=True)
    assert states[True] == states[False]


def test_a_fold_without_every_class_is_grown_on_its_own_with_the_same_folds(monkeypatch):
    # A class of one row is missing from one fold's training rows: that fold's classes
    # are not the whole data's, so the folds already dealt go the two-call way, with no
    # second deal (the unseeded table is the same as the two-call path's).
    X, y = load_iris(return_X_y=True)
    keep = np.r_[0:50, 50:100, 100:101]
    X, y = X[keep], y[keep]
    made = []
    real = _small_cv.Grown.__init__

    def spy(self, *args, **kwargs):
        real(self, *args, **kwargs)
        if self.first:  # (the whole data's tree with the folds; not the two-call folds)
            made.append(self.ok)

    monkeypatch.setattr(_small_cv.Grown, "__init__", spy)
    _assert_unseeded_fits_agree(monkeypatch, X, y, seed=3)
    assert made == [False]


OTHER_WAY = {
    "class weights": (CARTClassifier, {"class_weight": "balanced"}),
    "absolute error": (CARTRegressor, {"criterion": "absolute_error"}),
    "entropy as the loss": (CARTClassifier, {"ccp_loss": "entropy"}),
    "fractional sizes": (CARTClassifier, {"min_samples_leaf": 0.05}),
    "surrogates always, no missing value": (CARTClassifier, {"surrogates": "always"}),
    "a splitter object": (CARTClassifier, {"cv": KFold(4, shuffle=True, random_state=0)}),
    "max_features": (CARTClassifier, {"max_features": 2}),
    "the fractional rule": (CARTClassifier, {"missing_strategy": "fractional"}),
    "quantile bins (300 distinct values)": (CARTClassifier, {"rows": 300}),
    "folds of over 512 rows": (CARTClassifier, {"rows": 600, "max_bins": None}),
}


@pytest.mark.parametrize("case", sorted(OTHER_WAY))
def test_fits_the_one_call_cannot_take_grow_in_two_calls(monkeypatch, case):
    cls, params = OTHER_WAY[case]
    params = dict(params)
    rows = params.pop("rows", 60)
    rng = np.random.default_rng(2)
    X = pd.DataFrame(rng.normal(size=(rows, 4)), columns=list("abcd"))
    y = X["a"].to_numpy() + rng.normal(size=rows)
    if cls is CARTClassifier:
        y = np.where(y > 0, "yes", "no")
    made = []
    real = _small_cv.Grown.__init__

    def spy(self, *args, **kwargs):
        real(self, *args, **kwargs)
        if self.first:  # (the whole data's tree with the folds; not the two-call folds)
            made.append(1)

    monkeypatch.setattr(_small_cv.Grown, "__init__", spy)
    cls(pruning="cost_complexity", random_state=0, **params).fit(X, y)
    assert made == []
    # (the same data with the defaults is taken: what keeps it out is the parameter)
    if rows <= 255:  # (every bin exact, folds under EVERY_FOLD_MAX_ROWS rows)
        cls(pruning="cost_complexity", random_state=0).fit(X, y)
        assert made == [1]
