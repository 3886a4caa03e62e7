"""quercus.LogisticRegression against R's glm(..., family = binomial).

The R numbers are fixtures in tests/data/glm/, made by benchmarks/glm_fixtures.R (R 4.2.2,
MASS, mlbench) from the CSV files beside them, so R is not needed here. Every fixture is
compared at 1e-6 relative: coefficients, standard errors, z values, p-values, Wald
intervals, the covariance, deviances, AIC, degrees of freedom, iterations, fitted values
and deviance residuals; the printed summary line by line where R's rounding is not on a
knife's edge (see ``PRINT_EXACT``).
"""

import doctest
import json
import os
import pathlib
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

import quercus
from quercus import LogisticRegression, ModelFileError
from quercus.datasets import load_golf, load_watermelon
from quercus.linear import (AliasedWarning, GLMConvergenceWarning, GLMWarning,
                            SeparationWarning)
from quercus.linear._irls import qr_dqrdc2

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "glm"
FIXTURES = sorted(p.stem for p in DATA.glob("*.json"))
RTOL = 1e-6
# Fits whose separated or non-converged coefficients have standard errors in the
# thousands: R's last printed digit can fall either side of a rounding boundary there.
PRINT_EXACT = {f for f in FIXTURES if f not in {"golf", "mtcars_vs_separated",
                                                 "mtcars_complete_separation"}}


def _fixture(name):
    with open(DATA / f"{name}.json", encoding="utf-8") as fh:
        return json.load(fh)


def _r(values):
    return np.array([np.nan if v is None else v for v in values], dtype=float)


def _fit(fx, **kw):
    d = pd.read_csv(DATA / fx["data"], encoding="utf-8")
    X = d[fx["features"]]
    y = d[fx["response"]]
    w = None if fx["weights"] is None else d[fx["weights"]].to_numpy(float)
    est = LogisticRegression(fit_intercept=fx["fit_intercept"], max_iter=fx["maxit"],
                             categorical_features=fx["categorical"] or None, **kw)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X, y, sample_weight=w)
    return est, X, y, [c.message for c in caught]


def test_fixtures_present():
    # at least the data sets the issue names: golf (categorical), watermelon, Pima, mtcars
    assert {"golf", "watermelon", "watermelon_color", "pima_tr", "pima_indians_diabetes",
            "mtcars_am", "mtcars_aliased", "pima_tr_weighted"} <= set(FIXTURES)


@pytest.mark.parametrize("name", FIXTURES)
def test_matches_r_glm(name):
    fx = _fixture(name)
    est, X, y, _ = _fit(fx)
    assert est.coef_names_ == fx["coef_names"]
    assert str(est.classes_[1]) == str(fx["event"])
    table = est.summary(show=False)
    np.testing.assert_allclose(table["Estimate"], _r(fx["coefficients"]), rtol=RTOL)
    np.testing.assert_allclose(table["Std. Error"], _r(fx["std_errors"]), rtol=RTOL)
    np.testing.assert_allclose(table["z value"], _r(fx["z_values"]), rtol=RTOL)
    np.testing.assert_allclose(table["Pr(>|z|)"], _r(fx["p_values"]), rtol=RTOL)
    for attr, key in [("deviance_", "deviance"), ("null_deviance_", "null_deviance"),
                      ("aic_", "aic")]:
        np.testing.assert_allclose(getattr(est, attr), fx[key], rtol=RTOL, err_msg=attr)
    assert (est.df_null_, est.df_residual_, est.rank_, est.n_iter_, est.converged_) == (
        fx["df_null"], fx["df_residual"], fx["rank"], fx["iter"], fx["converged"])
    # R's vcov: NA rows and columns for aliased coefficients
    k = len(fx["coef_names"])
    vc = _r(fx["vcov"]).reshape(k, k, order="F")
    np.testing.assert_allclose(est.covariance_, vc, rtol=RTOL, atol=0)
    odds = est.odds_ratios()
    assert list(odds.columns) == ["OR", "2.5 %", "97.5 %"]
    with np.errstate(over="ignore"):  # a separated fit's upper limit is inf in R too
        np.testing.assert_allclose(odds["2.5 %"], np.exp(_r(fx["conf_low"])), rtol=RTOL)
        np.testing.assert_allclose(odds["97.5 %"], np.exp(_r(fx["conf_high"])), rtol=RTOL)
    np.testing.assert_allclose(odds["OR"], np.exp(_r(fx["coefficients"])), rtol=RTOL)
    np.testing.assert_allclose(est.fitted_, fx["fitted"], rtol=RTOL, atol=1e-12)
    np.testing.assert_allclose(est.deviance_residuals_, fx["deviance_residuals"],
                               rtol=RTOL, atol=1e-9)
    np.testing.assert_allclose(est.decision_function(X), fx["linear_predictor"], rtol=RTOL,
                               atol=1e-9)
    np.testing.assert_allclose(est.predict_proba(X)[:, 1], fx["fitted"], rtol=RTOL,
                               atol=1e-12)


def _after_call(lines):
    """The printout from the deviance residuals on (R's Call line shows the fixture
    script's variables), without trailing blank lines."""
    lines = lines[lines.index("Deviance Residuals: "):]
    while not lines[-1].strip():
        lines = lines[:-1]
    return lines


@pytest.mark.parametrize("name", sorted(PRINT_EXACT))
def test_summary_prints_like_r(name):
    fx = _fixture(name)
    est, *_ = _fit(fx)
    ours = est.summary_text().splitlines()
    assert ours[:2] == ["", "Call:"]
    assert [s.rstrip() for s in _after_call(ours)] == \
        [s.rstrip() for s in _after_call(fx["summary"])]


@pytest.mark.parametrize("name", ["golf", "mtcars_vs_separated",
                                  "mtcars_complete_separation"])
def test_summary_layout_of_separated_fits(name):
    # the same lines as R's but for the last digit of the huge standard errors
    fx = _fixture(name)
    est, *_ = _fit(fx)
    ours, theirs = _after_call(est.summary_text().splitlines()), _after_call(fx["summary"])
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        if a.rstrip() != b.rstrip():
            assert a.split()[0] == b.split()[0] and len(a.rstrip()) == len(b.rstrip())
            np.testing.assert_allclose([float(v) for v in a.split()[1:3]],
                                       [float(v) for v in b.split()[1:3]], rtol=1e-6)


def test_call_line_names_response_and_terms():
    X, y = load_golf()
    with pytest.warns(SeparationWarning):
        est = LogisticRegression().fit(X, y, sample_weight=np.ones(len(y)))
    assert est.summary_text().splitlines()[2] == (
        "glm(formula = play ~ outlook + temperature + humidity + windy, family = binomial, "
        "weights = sample_weight)")


# ------------------------------------------------------------------ warnings
def test_golf_separation_warns_and_names_outlook():
    # R fits golf without a warning (its fitted probabilities stop short of 1e-15), but the
    # coefficients of outlook diverge: every overcast day is a "yes".
    fx = _fixture("golf")
    assert fx["warnings"] == []
    est, X, y, caught = _fit(fx)
    seps = [w for w in caught if isinstance(w, SeparationWarning)]
    assert len(seps) == 1 and seps[0].features == ("outlook",)
    assert "outlook = overcast (4) is 'yes'" in str(seps[0])
    assert "quasi-completely" in str(seps[0])
    # the fixture's data are the bundled data set
    Xb, yb = load_golf()
    pd.testing.assert_frame_equal(X.reset_index(drop=True), Xb.reset_index(drop=True),
                                  check_dtype=False)
    assert yb.tolist() == y.tolist()


def test_cyl_separation_names_the_level():
    est, _, _, caught = _fit(_fixture("mtcars_vs_separated"))
    (sep,) = [w for w in caught if isinstance(w, SeparationWarning)]
    assert sep.features == ("cyl",) and "cyl = 8 (14) is 0" in str(sep)


def test_complete_separation_warns_like_r_and_more():
    fx = _fixture("mtcars_complete_separation")
    assert fx["warnings"] == ["glm.fit: algorithm did not converge",
                              "glm.fit: fitted probabilities numerically 0 or 1 occurred"]
    est, _, _, caught = _fit(fx)
    kinds = [type(w) for w in caught]
    assert SeparationWarning in kinds and GLMConvergenceWarning in kinds
    sep = next(w for w in caught if isinstance(w, SeparationWarning))
    assert str(sep).startswith("glm.fit: fitted probabilities numerically 0 or 1 occurred")
    assert "completely separated" in str(sep) and "quasi" not in str(sep)
    conv = next(w for w in caught if isinstance(w, GLMConvergenceWarning))
    assert "algorithm did not converge" in str(conv) and "max_iter=25" in str(conv)
    assert not est.converged_


def test_non_convergence_without_separation():
    fx = _fixture("pima_tr_maxit3")
    assert fx["warnings"] == ["glm.fit: algorithm did not converge"]
    _, _, _, caught = _fit(fx)
    assert [type(w) for w in caught] == [GLMConvergenceWarning]
    assert "Raise max_iter" in str(caught[0])


def test_aliased_column_is_named_with_what_it_equals():
    fx = _fixture("mtcars_aliased")
    est, X, _, caught = _fit(fx)
    (al,) = [w for w in caught if isinstance(w, AliasedWarning)]
    assert al.columns == ("wt2",) and "wt2 = 2*wt" in str(al)
    assert est.aliased_ == ["wt2"] and np.isnan(est.coef_[0, 2])
    assert "Coefficients: (1 not defined because of singularities)" in est.summary_text()
    # predictions leave the aliased column out, as R's predict.glm does
    ref, *_ = _fit(_fixture("mtcars_am"))
    np.testing.assert_allclose(est.predict_proba(X), ref.predict_proba(X[["wt", "hp"]]))


def test_clean_fits_do_not_warn():
    for name in ["watermelon", "pima_tr", "mtcars_am", "mtcars_cyl", "pima_tr_weighted",
                 "pima_indians_diabetes", "watermelon_color_no_intercept"]:
        *_, caught = _fit(_fixture(name))
        assert caught == [], name


def test_warnings_are_user_warnings():
    for cls in (GLMWarning, SeparationWarning, GLMConvergenceWarning, AliasedWarning):
        assert issubclass(cls, UserWarning)


# ------------------------------------------------------------------ coding and labels
def test_treatment_contrasts_and_level_order():
    X, y = load_watermelon("3.0")
    est = LogisticRegression().fit(X[["色泽", "密度", "含糖率"]], y)
    # code-point order: 乌黑 (U+4E4C) < 浅白 (U+6D45) < 青绿 (U+9752); 乌黑 is the reference
    assert est.coef_names_ == ["(Intercept)", "色泽浅白", "色泽青绿", "密度", "含糖率"]
    # a pandas Categorical keeps its order (R's factor(levels = ...)): pinyin order
    Xc = X[["色泽", "密度", "含糖率"]].copy()
    Xc["色泽"] = pd.Categorical(Xc["色泽"], categories=["浅白", "青绿", "乌黑"])
    est2 = LogisticRegression().fit(Xc, y)
    assert est2.coef_names_ == ["(Intercept)", "色泽青绿", "色泽乌黑", "密度", "含糖率"]
    # the same model, reparametrised: the same fitted probabilities and deviance
    np.testing.assert_allclose(est2.fitted_, est.fitted_, rtol=1e-10)
    np.testing.assert_allclose(est2.deviance_, est.deviance_, rtol=1e-12)


def test_unused_categorical_levels_are_dropped_like_r():
    X, y = load_watermelon("3.0")
    Xc = X[["色泽", "密度"]].copy()
    Xc["色泽"] = pd.Categorical(Xc["色泽"], categories=["乌黑", "浅白", "青绿", "紫"])
    assert LogisticRegression().fit(Xc, y).coef_names_ == [
        "(Intercept)", "色泽浅白", "色泽青绿", "密度"]


@pytest.mark.parametrize("labels,event", [(["no", "yes"], "yes"), ([0, 1], 1),
                                          ([False, True], True), (["是", "否"], "是"),
                                          ([2, -1], 2)])
def test_second_sorted_class_is_the_event(labels, event):
    X = np.array([[1.0], [2.0], [3.0], [4.0], [5.0], [6.0]])
    lab = np.array(labels, dtype=object if isinstance(labels[0], str) else None)
    y = lab[[0, 0, 1, 0, 1, 1]]
    est = LogisticRegression().fit(X, y)
    assert est.classes_[1] == event
    p_event = est.predict_proba(X)[:, 1]
    # the event's probability rises with x where the event is the later label
    assert (np.diff(p_event) > 0).all() == (labels[1] == event)


def test_no_intercept_codes_first_factor_fully():
    fx = _fixture("watermelon_color_no_intercept")
    assert fx["coef_names"][:3] == ["色泽乌黑", "色泽浅白", "色泽青绿"]
    est, *_ = _fit(fx)
    assert est.intercept_.tolist() == [0.0] and est.coef_.shape == (1, 5)


def test_zero_weights_are_left_out():
    fx = _fixture("pima_tr_weighted")
    d = pd.read_csv(DATA / fx["data"])
    keep = d["w"] > 0
    est, *_ = _fit(fx)
    X, y, w = d.loc[keep, fx["features"]], d.loc[keep, "type"], d.loc[keep, "w"]
    sub = LogisticRegression().fit(X, y, sample_weight=w.to_numpy())
    np.testing.assert_allclose(sub.coef_, est.coef_, rtol=1e-10)
    assert sub.df_residual_ == est.df_residual_


# ------------------------------------------------------------------ errors
def test_errors_name_what_is_wrong():
    X, y = load_golf()
    with pytest.raises(ValueError, match="Only binary classification is supported"):
        LogisticRegression().fit(X, np.arange(14) % 3)
    with pytest.raises(ValueError, match="single class \\('yes'\\)"):
        LogisticRegression().fit(X, ["yes"] * 14)
    with pytest.raises(ValueError, match="positive sample_weight has the class 'no'"):
        LogisticRegression().fit(X, y, sample_weight=(y == "no").astype(float))
    Xn = X.copy()
    Xn.loc[3, "humidity"] = np.nan
    with pytest.raises(ValueError, match="NaN .* column 'humidity' at row 3"):
        LogisticRegression().fit(Xn, y)
    est = LogisticRegression().fit(X[["temperature", "humidity"]], y)
    with warnings.catch_warnings(), pytest.raises(ValueError, match="expecting 2 features"):
        warnings.simplefilter("ignore", UserWarning)  # (no feature names: a numpy array)
        est.predict(X[["temperature"]].to_numpy())
    with pytest.raises(ValueError, match="'max_iter' parameter of LogisticRegression"):
        LogisticRegression(max_iter=0).fit(X, y)
    with pytest.raises(ValueError, match="level must be a number between 0 and 1"):
        est.odds_ratios(level=95)


def test_unseen_level_is_an_error_naming_it():
    X, y = load_golf()
    with pytest.warns(SeparationWarning):
        est = LogisticRegression().fit(X, y)
    Xn = X.iloc[:1].copy()
    Xn["outlook"] = "foggy"
    with pytest.raises(ValueError, match="'outlook' holds 'foggy' at row 0, a level "
                                         "not seen at fit time"):
        est.predict(Xn)


# ------------------------------------------------------------------ explain, odds
def test_explain_derives_probability_like_the_lecture(capsys):
    X, y = load_watermelon("3.0")
    Xs = X[["色泽", "密度", "含糖率"]]
    est = LogisticRegression().fit(Xs, y)
    t = est.explain(Xs.iloc[3])
    out = capsys.readouterr().out
    assert out.startswith("P(好瓜 = 是 | x):")
    logit = t.attrs["logit"]
    assert logit == pytest.approx(est.decision_function(Xs.iloc[[3]])[0], rel=1e-12)
    assert t.loc["logit", "contribution"] == pytest.approx(t["contribution"][:-1].sum())
    assert t.attrs["odds"] == pytest.approx(np.exp(logit))
    p = t.attrs["probability"]
    assert p == pytest.approx(est.predict_proba(Xs.iloc[[3]])[0, 1], rel=1e-12)
    assert p == pytest.approx(t.attrs["odds"] / (1 + t.attrs["odds"]))
    assert np.log(p / (1 - p)) == pytest.approx(logit)  # logit(p) = log odds
    # sample 4 is 青绿: an indicator of 1, the coefficient of 色泽青绿
    assert t.loc["色泽", "coefficient name"] == "色泽青绿"
    assert t.loc["密度", "contribution"] == pytest.approx(0.608 * est.coef_[0, 2])
    # a reference-level sample contributes 0 for that attribute
    t2 = est.explain(Xs.iloc[1], show=False)  # 乌黑
    assert t2.loc["色泽", "coefficient name"] == "(reference level)"
    assert t2.loc["色泽", "contribution"] == 0.0
    # a dict and a one-row frame give the same
    t3 = est.explain(dict(Xs.iloc[3]), show=False)
    assert t3.attrs["logit"] == pytest.approx(logit)


def test_odds_ratio_level():
    fx = _fixture("mtcars_am")
    est, *_ = _fit(fx)
    o90 = est.odds_ratios(level=0.9)
    assert list(o90.columns) == ["OR", "5 %", "95 %"]
    se = np.sqrt(np.diag(est.covariance_))
    np.testing.assert_allclose(np.log(o90["95 %"]),
                               np.log(o90["OR"]) + 1.6448536269514722 * se, rtol=1e-12)


# ------------------------------------------------------------------ model files
def test_save_and_load_round_trip(tmp_path):
    fx = _fixture("watermelon_color")
    est, X, _, _ = _fit(fx)
    path = tmp_path / "m.json"
    est.save(path)
    back = quercus.load(path)
    assert isinstance(back, LogisticRegression)
    np.testing.assert_array_equal(back.predict_proba(X), est.predict_proba(X))
    assert back.summary_text() == est.summary_text()
    np.testing.assert_array_equal(back.odds_ratios(), est.odds_ratios())
    # aliased (NaN) coefficients survive the JSON file
    al, Xa, _, _ = _fit(_fixture("mtcars_aliased"))
    al.save(path)
    back = quercus.load(path)
    assert back.aliased_ == ["wt2"] and np.isnan(back.coef_[0, 2])
    np.testing.assert_array_equal(back.predict(Xa), al.predict(Xa))


def test_load_checks_fields(tmp_path):
    fx = _fixture("watermelon")
    est, *_ = _fit(fx)
    d = est.to_dict()
    d["coef"] = d["coef"][:-1]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(d), encoding="utf-8")
    with pytest.raises(ModelFileError, match="coef has 2 entries, expected 3"):
        quercus.load(path)
    d = est.to_dict()
    d["params"]["max_iter"] = -1
    path.write_text(json.dumps(d), encoding="utf-8")
    with pytest.raises(ModelFileError, match="params"):
        quercus.load(path)


# ------------------------------------------------------------------ pieces
def test_qr_pivots_aliased_columns_to_the_end_like_dqrdc2():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(20, 3))
    x = np.column_stack([a[:, 0], a[:, 0] + a[:, 1], a[:, 1], a[:, 2]])  # col 2 aliased
    d = qr_dqrdc2(x, 1e-11)
    assert d.rank == 3 and d.pivot.tolist() == [0, 1, 3, 2]
    r = np.triu(d.qr[:3, :3])
    # R'R equals X'X of the kept columns
    kept = x[:, d.pivot[:3]]
    np.testing.assert_allclose(r.T @ r, kept.T @ kept, rtol=1e-10)


def test_guide_doctests():
    # docs/logistic.md is a doctested guide (pytest's --doctest-glob names only guide.md)
    result = doctest.testfile(str(ROOT / "docs" / "logistic.md"), module_relative=False,
                              optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS,
                              encoding="utf-8")
    assert result.attempted > 0 and result.failed == 0


def test_r_script_writes_these_fixtures():
    script = (ROOT / "benchmarks" / "glm_fixtures.R").read_text(encoding="utf-8")
    for name in FIXTURES:
        assert f'fixture("{name}"' in script, name


# ------------------------------------------------------------------ scikit-learn
# check_sample_weight_equivalence_on_dense_data fits 15 samples of 30 features: p > n, so
# the classes are always separated and the estimates diverge. R's starting values
# mustart = (w y + 0.5) / (w + 1) differ between a weight of 3 and three copies of a row,
# so the two fits diverge along different paths; where the estimate exists (no
# separation) they converge to the same maximum (see test_integer_weights_equal_copies).
EXPECTED_FAILED_CHECKS = {
    "check_sample_weight_equivalence_on_dense_data":
        "p > n: separated classes, no MLE; R's starting values depend on the weights",
}


@parametrize_with_checks([LogisticRegression()],
                         expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS)
def test_sklearn_compatible(estimator, check, monkeypatch):
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GLMWarning)
        check(estimator)


def test_integer_weights_equal_copies():
    fx = _fixture("pima_tr")
    d = pd.read_csv(DATA / fx["data"])
    X, y = d[fx["features"]], d["type"]
    w = np.tile([1, 2, 0, 3], 50)
    a = LogisticRegression().fit(X, y, sample_weight=w)
    b = LogisticRegression().fit(X.loc[X.index.repeat(w)], y.loc[y.index.repeat(w)])
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-7)
    np.testing.assert_allclose(a.deviance_, b.deviance_, rtol=1e-9)
    assert clone(a).get_params() == a.get_params()


def test_public_surface():
    assert quercus.LogisticRegression is LogisticRegression
    assert "LogisticRegression" in quercus.__all__
    assert os.path.exists(ROOT / "docs" / "logistic.md")
