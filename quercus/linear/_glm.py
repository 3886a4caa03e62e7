"""``LogisticRegression``: R's ``glm(y ~ ., family = binomial)`` as a scikit-learn
classifier, with R's summary table, odds ratios, and a per-sample explanation."""

import json
import math
import sys
from numbers import Integral, Real

import numpy as np
import pandas as pd
from scipy.special import ndtri
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted, validate_data

from .. import _prepare
from ._design import INTERCEPT, Design, design_matrix, fit_design, level_label
from ._irls import fit_binomial, linkinv, wald_table
from ._rprint import (aic_text, coef_table_lines, deviance_lines, deviance_residual_lines,
                      display_width, format_real)
from ._separation import find_separation


class GLMWarning(UserWarning):
    """A logistic-regression fit that R's ``glm.fit`` would warn about, or worse."""


class SeparationWarning(GLMWarning):
    """The classes are (quasi-)completely separated: the maximum-likelihood estimate does
    not exist. ``features`` names the attributes that separate them."""

    def __init__(self, message, features=()):
        super().__init__(message)
        self.features = tuple(features)


class GLMConvergenceWarning(GLMWarning, ConvergenceWarning):
    """Fisher scoring stopped at ``max_iter`` before R's convergence rule was met."""


class AliasedWarning(GLMWarning):
    """Some model-matrix columns are linear combinations of earlier ones: their
    coefficients are not defined (R: NA; here NaN). ``columns`` names them."""

    def __init__(self, message, columns=()):
        super().__init__(message)
        self.columns = tuple(columns)


# Fitted probabilities this close to 0 or 1 (|logit| > 10) are checked for separation:
# with separated classes R's convergence rule stops only once they are far closer.
_SEPARATION_CHECK_ETA = 10.0

_PARAMS = {
    "fit_intercept": ["boolean"],
    "tol": [Interval(Real, 0.0, None, closed="neither")],
    "max_iter": [Interval(Integral, 1, None, closed="left")],
    "categorical_features": ["array-like", None],
}


def _warn(warning):
    import warnings
    warnings.warn(warning, stacklevel=4)


def _lab(v):
    """A label as plain Python, for messages (``'yes'``, not ``np.str_('yes')``)."""
    return v.item() if isinstance(v, np.generic) else v


def _num(x, digits=4):
    return format_real([x], digits)[0].strip()


class LogisticRegression(ClassifierMixin, BaseEstimator):
    """Logistic regression exactly as R's ``glm(..., family = binomial)``.

    The model: ``P(Y = event | x) = 1 / (1 + exp(-(b0 + b . x)))``, so the log of the odds
    ``p / (1 - p)`` is linear in ``x``. It is fitted by maximum likelihood without a
    penalty, by iteratively reweighted least squares (Fisher scoring) with R's starting
    values, convergence rule and QR decomposition: coefficients, standard errors, z values,
    p-values, deviances and AIC agree with R's to many digits. ``classes_`` are sorted and
    the second is the event (R's second factor level): for labels ``"no"``/``"yes"`` the
    model gives the probability of ``"yes"``; for 0/1 that of 1; for 否/是 (sorted by code
    point) that of 是.

    Categorical attributes (strings, booleans, a pandas Categorical, or the columns named
    in ``categorical_features``) are coded with R's treatment contrasts: the first level is
    the reference and each other level gets an indicator named like R's, column name then
    level (``outlookrain``, ``色泽浅白``, ``windyTRUE``). Levels are sorted as R sorts them
    under ``LC_COLLATE=C``: strings by Unicode code point, numbers numerically, FALSE before
    TRUE. R's default sorts strings in the session's locale instead (in a Chinese locale by
    pinyin), so a script run elsewhere may pick another reference level; to choose the
    levels' order, pass a pandas Categorical (its order is kept, as an R factor's).

    Parameters
    ----------
    fit_intercept : bool, default=True
        Include an intercept (R's formula without ``0 +``). Without it, as in R, the first
        categorical attribute gets an indicator for every level.
    tol : float, default=1e-8
        R's ``epsilon``: stop when ``|dev - dev_old| / (|dev| + 0.1) < tol``.
    max_iter : int, default=25
        R's ``maxit``: at most this many Fisher scoring iterations.
    categorical_features : array-like of column names or indices, bool mask, or None
        Columns to treat as categorical; by default strings, booleans and pandas
        Categoricals are.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The labels, sorted; ``classes_[1]`` is the event.
    coef_ : ndarray of shape (1, n_columns)
        The coefficients of the model-matrix columns (``coef_names_`` without the
        intercept); NaN for an aliased column.
    intercept_ : ndarray of shape (1,)
        The intercept (0.0 when ``fit_intercept=False``).
    coef_names_ : list of str
        R's coefficient names, ``"(Intercept)"`` first when fitted.
    covariance_ : ndarray
        The estimated covariance of the coefficients (R's ``vcov``), NaN for aliased ones.
    deviance_, null_deviance_, aic_ : float
        Residual and null deviance and AIC, as R reports them.
    df_residual_, df_null_, rank_, n_iter_ : int
        Degrees of freedom, the model matrix's rank, Fisher scoring iterations.
    converged_ : bool
    aliased_ : list of str
        Coefficients not defined because of singularities.
    deviance_residuals_, fitted_ : ndarray of shape (n_samples,)
        R's deviance residuals and fitted probabilities of the training samples.

    Examples
    --------
    >>> from quercus import LogisticRegression
    >>> from quercus.datasets import load_watermelon
    >>> X, y = load_watermelon("3.0")
    >>> clf = LogisticRegression().fit(X[["密度", "含糖率"]], y)
    >>> clf.classes_.tolist(), clf.coef_names_
    (['否', '是'], ['(Intercept)', '密度', '含糖率'])
    >>> [round(float(b), 4) for b in [*clf.intercept_, *clf.coef_[0]]]
    [-4.4289, 3.1583, 12.5212]
    >>> round(clf.deviance_, 4), round(clf.aic_, 4)
    (17.3673, 23.3673)
    """

    _parameter_constraints = _PARAMS

    def __init__(self, fit_intercept=True, tol=1e-8, max_iter=25, categorical_features=None):
        self.fit_intercept = fit_intercept
        self.tol = tol
        self.max_iter = max_iter
        self.categorical_features = categorical_features

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.classifier_tags.multi_class = False
        return tags

    # ------------------------------------------------------------ fitting
    def fit(self, X, y, sample_weight=None):
        """Fit the model by maximum likelihood (R's ``glm.fit``).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Numeric and categorical attributes; no missing values (drop those rows first,
            as R's ``na.omit`` does).
        y : array-like of shape (n_samples,)
            Two classes, strings, numbers or booleans.
        sample_weight : array-like of shape (n_samples,), default=None
            Prior weights, as ``glm``'s ``weights``: a weight of 2 counts a sample twice,
            0 leaves it out (R's ``n.ok``; its degrees of freedom are not counted).

        Returns
        -------
        self

        Warns
        -----
        SeparationWarning
            The classes are separated by some attributes (named): the estimates diverge.
        GLMConvergenceWarning
            R's "algorithm did not converge".
        AliasedWarning
            Columns not defined because of singularities (named, with what they equal).

        Examples
        --------
        >>> from quercus import LogisticRegression
        >>> from quercus.datasets import load_watermelon
        >>> X, y = load_watermelon("3.0")
        >>> LogisticRegression().fit(X[["密度", "含糖率"]], y).n_iter_
        5
        """
        self._validate_params()
        X = _prepare.as_2d(X, min_samples=1)
        validate_data(self, X, reset=True, skip_check_array=True)
        n = X.shape[0]
        if n < 2:
            raise ValueError(f"Found array with {n} sample(s) (shape={X.shape}) while a "
                             f"minimum of 2 is required: logistic regression needs samples "
                             f"of both classes, and X has only 1 sample.")
        classes, codes, _ = _prepare.encode_target(y, n)
        if len(classes) != 2:
            if len(classes) < 2:
                raise ValueError(f"y holds a single class ({_lab(classes[0])!r}); logistic "
                                 f"regression needs samples of two classes.")
            raise ValueError(f"Only binary classification is supported. The type of the "
                             f"target is multiclass: y holds {len(classes)} classes "
                             f"{[_lab(c) for c in classes[:5]]}; logistic regression models two.")
        w = _prepare.check_weights(sample_weight, n)
        yy = codes.astype(np.float64)
        if np.unique(yy[w > 0]).size < 2:
            only = classes[int(yy[w > 0][0])]
            raise ValueError(f"Every sample with a positive sample_weight has the class "
                             f"{_lab(only)!r}; logistic regression needs samples of two classes.")
        design, M = fit_design(X, self.categorical_features, self.fit_intercept)
        fit = fit_binomial(M, yy, w, intercept=bool(self.fit_intercept), tol=float(self.tol),
                           max_iter=int(self.max_iter))
        self.classes_ = classes
        self._design = design
        names = design.column_names
        self.coef_names_ = names
        coef = fit.coef
        k0 = 1 if self.fit_intercept else 0
        self.intercept_ = np.array([coef[0] if k0 else 0.0])
        self.coef_ = coef[k0:].reshape(1, -1).copy()
        self._coef = coef
        self.covariance_ = fit.cov_unscaled
        self.deviance_ = fit.deviance
        self.null_deviance_ = fit.null_deviance
        self.aic_ = fit.aic
        self.df_residual_ = fit.df_residual
        self.df_null_ = fit.df_null
        self.rank_ = fit.rank
        self.n_iter_ = fit.n_iter
        self.converged_ = fit.converged
        self.aliased_ = [nm for nm, a in zip(names, fit.aliased) if a]
        self.fitted_ = fit.mu
        from ._irls import dev_resids
        d = np.sqrt(np.maximum(dev_resids(np.where(w == 0, 0.0, yy), fit.mu, w), 0.0))
        self.deviance_residuals_ = np.where(yy > fit.mu, d, -d)
        self._response = str(y.name) if isinstance(y, pd.Series) and y.name is not None \
            else "y"
        self._weighted = sample_weight is not None
        self._report(fit, M, yy, w)
        return self

    def _report(self, fit, M, y, w):
        """The fit's warnings: R's, and what R leaves unsaid (separation, aliasing)."""
        good = w > 0
        r_extreme = "glm.fit: fitted probabilities numerically 0 or 1 occurred" in \
            fit.warnings
        for msg in fit.warnings:
            if msg.startswith("non-finite") or "boundary" in msg:
                _warn(GLMWarning(f"glm.fit: {msg}" if not msg.startswith("glm") else msg))
        if fit.aliased.any():
            _warn(AliasedWarning(self._aliased_message(fit, M, good), self.aliased_))
        sep = None
        if (not fit.converged or r_extreme
                or np.abs(fit.eta[good]).max() > _SEPARATION_CHECK_ETA):
            kept = np.flatnonzero(~fit.aliased)
            sep = find_separation(M[good], y[good], kept)
            if sep is not None:
                _warn(self._separation_warning(sep, M[good], y[good], kept, r_extreme))
            elif r_extreme:
                i = np.flatnonzero((fit.mu < 10 * np.finfo(float).eps)
                                   | (fit.mu > 1 - 10 * np.finfo(float).eps))
                _warn(GLMWarning(
                    f"glm.fit: fitted probabilities numerically 0 or 1 occurred, at rows "
                    f"{i[:10].tolist()}, though the classes are not separated: those samples "
                    f"have extreme values; check them."))
        if not fit.converged:
            _warn(GLMConvergenceWarning(
                f"glm.fit: algorithm did not converge in max_iter={self.max_iter} Fisher "
                f"scoring iterations (R's maxit); the coefficients are those of the last "
                f"iteration. " + ("The classes are separated (warned above): more "
                                  "iterations only make the estimates larger."
                                  if sep is not None else "Raise max_iter.")))

    def _aliased_message(self, fit, M, good):
        names = self.coef_names_
        kept = np.flatnonzero(~fit.aliased)
        parts = []
        for j in np.flatnonzero(fit.aliased):
            b, *_ = np.linalg.lstsq(M[good][:, kept], M[good][:, j], rcond=None)
            expr = ""
            for i, c in enumerate(b):
                if abs(c) <= 1e-8:
                    continue
                sign = "-" if c < 0 else "+"
                mag = _num(abs(c), 6)
                term = (mag if names[kept[i]] == INTERCEPT else names[kept[i]] if mag == "1"
                        else f"{mag}*{names[kept[i]]}")
                expr += (f" {sign} " if expr else ("-" if c < 0 else "")) + term
            parts.append(f"{names[j]} = {expr or '0'}")
        return (f"{len(parts)} coefficient{'s' if len(parts) > 1 else ''} not defined "
                f"because of singularities (R reports NA; here NaN, and predictions leave "
                f"the column out): {'; '.join(parts)} on the samples with positive weight. "
                f"Drop the aliased column{'s' if len(parts) > 1 else ''}.")

    def _separation_warning(self, sep, M, y, kept, r_extreme):
        design = self._design
        terms = design.terms
        feats = sorted({terms[c][1] for c in np.flatnonzero(sep.direction)
                        if terms[c][1] >= 0})
        fnames = design.schema.feature_names
        # A single attribute that separates the classes on its own names the cause best.
        intercept = [c for c in kept if terms[c][1] < 0]
        alone = []
        for f in feats:
            cols = intercept + [c for c in kept if terms[c][1] == f]
            s = find_separation(M, y, cols)
            if s is not None:
                alone.append((f, s))
        kind = "completely" if sep.complete else "quasi-completely"
        n_sep = int(sep.separated_rows.sum())
        if alone:
            f, s = alone[0]
            culprits = [f]
            who = repr(fnames[f])
            kind_alone = "completely" if s.complete else "quasi-completely"
            how = self._describe_separation(f, s, M, y)
            detail = (f"The classes are {kind} separated by {who}: {how}"
                      if kind_alone == kind else
                      f"The classes are {kind} separated (by the columns together); {who} "
                      f"alone separates them {kind_alone}: {how}")
        else:
            culprits = feats
            who = ", ".join(repr(fnames[f]) for f in culprits) or "the intercept"
            detail = (f"The classes are {kind} separated by {who} together: a linear "
                      f"combination of their columns predicts {n_sep} of {len(y)} samples "
                      f"perfectly")
        prefix = ("glm.fit: fitted probabilities numerically 0 or 1 occurred. " if r_extreme
                  else "")
        msg = (f"{prefix}{detail}. The "
               f"maximum-likelihood estimates do not exist: the coefficients involving "
               f"{who} grow without bound as Fisher scoring goes on (they stop where R's "
               f"convergence rule does), and their standard errors, z values and p-values "
               f"mean nothing. Drop {who}, merge its levels, or use a model that does not "
               f"rely on them.")
        return SeparationWarning(msg, [fnames[f] for f in culprits])

    def _describe_separation(self, f, s, M, y):
        design = self._design
        name = design.schema.feature_names[f]
        ev, non = _lab(self.classes_[1]), _lab(self.classes_[0])
        if design.schema.is_categorical[f]:
            cats = design.schema.categories[f]
            cols = {t[2]: c for c, t in enumerate(design.terms) if t[1] == f}
            codes = np.zeros(len(y), dtype=np.int64)
            for level, c in cols.items():
                codes[M[:, c] == 1] = level
            pure = []
            for k, cat in enumerate(cats):
                rows = codes == k
                if rows.any() and np.unique(y[rows]).size == 1:
                    label = ev if y[rows][0] == 1 else non
                    pure.append(f"every sample with {name} = {level_label(cat)} "
                                f"({int(rows.sum())}) is {label!r}")
            if pure:
                return "; ".join(pure)
        else:
            c = next(c for c, t in enumerate(design.terms) if t[1] == f)
            x1, x0 = M[y == 1, c], M[y == 0, c]
            if x1.min() >= x0.max():
                return (f"every {ev!r} has {name} >= {_num(x1.min(), 6)} and every {non!r} "
                        f"{name} <= {_num(x0.max(), 6)}")
            if x1.max() <= x0.min():
                return (f"every {ev!r} has {name} <= {_num(x1.max(), 6)} and every {non!r} "
                        f"{name} >= {_num(x0.min(), 6)}")
        return f"it predicts {int(s.separated_rows.sum())} of {len(y)} samples perfectly"

    # ------------------------------------------------------------ prediction
    def _matrix(self, X):
        check_is_fitted(self, "coef_")
        X = _prepare.as_2d(X, min_samples=0)
        validate_data(self, X, reset=False, skip_check_array=True)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but LogisticRegression is "
                             f"expecting {self.n_features_in_} features as input.")
        return design_matrix(self._design, X)

    def decision_function(self, X):
        """The logit (log of the odds of ``classes_[1]``) of each sample.

        Aliased columns (NaN coefficients) are left out, as R's ``predict.glm`` does.

        Examples
        --------
        >>> from quercus import LogisticRegression
        >>> from quercus.datasets import load_watermelon
        >>> X, y = load_watermelon("3.0")
        >>> clf = LogisticRegression().fit(X[["密度", "含糖率"]], y)
        >>> clf.decision_function(X[["密度", "含糖率"]].iloc[:2]).round(4).tolist()
        [3.5322, 2.7237]
        """
        return self._matrix(X) @ np.nan_to_num(self._coef)

    def predict_proba(self, X):
        """Probabilities of ``classes_[0]`` and ``classes_[1]``: ``1 - p`` and the
        sigmoid of the logit, ``p = 1 / (1 + exp(-logit))``.

        Examples
        --------
        >>> from quercus import LogisticRegression
        >>> from quercus.datasets import load_watermelon
        >>> X, y = load_watermelon("3.0")
        >>> clf = LogisticRegression().fit(X[["密度", "含糖率"]], y)
        >>> clf.predict_proba(X[["密度", "含糖率"]].iloc[:1]).round(4).tolist()
        [[0.0284, 0.9716]]
        """
        p = linkinv(self.decision_function(X))
        return np.column_stack([1.0 - p, p])

    def predict(self, X):
        """The event ``classes_[1]`` where its probability is above 1/2 (logit > 0).

        Examples
        --------
        >>> from quercus import LogisticRegression
        >>> from quercus.datasets import load_watermelon
        >>> X, y = load_watermelon("3.0")
        >>> clf = LogisticRegression().fit(X[["密度", "含糖率"]], y)
        >>> clf.predict(X[["密度", "含糖率"]].iloc[[0, 10]]).tolist()
        ['是', '否']
        """
        check_is_fitted(self, "coef_")
        return self.classes_[(self.decision_function(X) > 0).astype(np.int64)]

    # ------------------------------------------------------------ inference
    def _table(self):
        se, z, p = wald_table(self._coef, self.covariance_)
        return pd.DataFrame({"Estimate": self._coef, "Std. Error": se, "z value": z,
                             "Pr(>|z|)": p}, index=pd.Index(self.coef_names_, dtype=object))

    def _formula(self):
        rhs = " + ".join(self._design.schema.feature_names)
        return f"{self._response} ~ {'' if self.fit_intercept else '0 + '}{rhs}"

    def summary_text(self):
        """R's ``print(summary(glm(...)))``, as text (see :meth:`summary`).

        Examples
        --------
        >>> from quercus import LogisticRegression
        >>> from quercus.datasets import load_watermelon
        >>> X, y = load_watermelon("3.0")
        >>> text = LogisticRegression().fit(X[["密度", "含糖率"]], y).summary_text()
        >>> text.splitlines()[-3]
        'AIC: 23.367'
        """
        check_is_fitted(self, "coef_")
        t = self._table()
        call = f"glm(formula = {self._formula()}, family = binomial"
        call += ", weights = sample_weight)" if self._weighted else ")"
        lines = ["", "Call:", call, "", "Deviance Residuals: "]
        lines += deviance_residual_lines(self.deviance_residuals_, self.df_residual_)
        lines.append("")
        n_sing = len(self.aliased_)
        lines.append(f"Coefficients: ({n_sing} not defined because of singularities)"
                     if n_sing else "Coefficients:")
        lines += coef_table_lines(self.coef_names_, *(t[c].to_numpy() for c in t.columns))
        lines += ["", "(Dispersion parameter for binomial family taken to be 1)", ""]
        lines += deviance_lines(self.null_deviance_, self.deviance_, self.df_null_,
                                self.df_residual_)
        lines += [f"AIC: {aic_text(self.aic_)}", "",
                  f"Number of Fisher Scoring iterations: {self.n_iter_}", ""]
        return "\n".join(lines)

    def summary(self, show=True, file=None):
        """Print R's ``summary(glm)`` and return its coefficient table.

        The printout follows R's layout: the call, the deviance residuals' quantiles, the
        table of Estimate / Std. Error / z value / Pr(>|z|) with significance codes (NA
        rows for coefficients not defined because of singularities), the dispersion, the
        null and residual deviance with their degrees of freedom, the AIC and the number of
        Fisher scoring iterations. Standard errors are the Wald ones, from the inverse of
        the information matrix; ``z = Estimate / Std. Error`` and ``Pr(>|z|) = 2 Phi(-|z|)``.

        Parameters
        ----------
        show : bool, default=True
            Print the summary.
        file : file-like, default=None
            Where to print (standard output by default).

        Returns
        -------
        pandas.DataFrame
            One row per coefficient (NaN for aliased ones), R's column names.

        Examples
        --------
        >>> from quercus import LogisticRegression
        >>> from quercus.datasets import load_watermelon
        >>> X, y = load_watermelon("3.0")
        >>> table = LogisticRegression().fit(X[["密度", "含糖率"]], y).summary()
        ... # doctest: +NORMALIZE_WHITESPACE
        <BLANKLINE>
        Call:
        glm(formula = 好瓜 ~ 密度 + 含糖率, family = binomial)
        <BLANKLINE>
        Deviance Residuals:
            Min       1Q   Median       3Q      Max
        -1.7739  -0.8371  -0.3208   0.8334   1.6405
        <BLANKLINE>
        Coefficients:
                    Estimate Std. Error z value Pr(>|z|)
        (Intercept)   -4.429      2.880  -1.538   0.1242
        密度           3.158      4.053   0.779   0.4359
        含糖率        12.521      6.880   1.820   0.0688 .
        ---
        Signif. codes:  0 ‘***’ 0.001 ‘**’ 0.01 ‘*’ 0.05 ‘.’ 0.1 ‘ ’ 1
        <BLANKLINE>
        (Dispersion parameter for binomial family taken to be 1)
        <BLANKLINE>
            Null deviance: 23.508  on 16  degrees of freedom
        Residual deviance: 17.367  on 14  degrees of freedom
        AIC: 23.367
        <BLANKLINE>
        Number of Fisher Scoring iterations: 5
        <BLANKLINE>
        >>> table["Estimate"].round(4).tolist()
        [-4.4289, 3.1583, 12.5212]
        """
        text = self.summary_text()
        if show:
            print(text, file=file if file is not None else sys.stdout)
        return self._table()

    def odds_ratios(self, level=0.95):
        """Odds ratios ``exp(coef)`` with Wald confidence intervals, as R's
        ``exp(cbind(OR = coef(m), confint.default(m, level = level)))``.

        ``exp(b)`` is the factor by which the odds of the event are multiplied when the
        attribute grows by one (or, for an indicator, against the reference level).

        Examples
        --------
        >>> from quercus import LogisticRegression
        >>> from quercus.datasets import load_watermelon
        >>> X, y = load_watermelon("3.0")
        >>> odds = LogisticRegression().fit(X[["密度", "含糖率"]], y).odds_ratios()
        >>> odds.columns.tolist(), odds["2.5 %"].round(4).tolist()
        (['OR', '2.5 %', '97.5 %'], [0.0, 0.0083, 0.3815])
        """
        check_is_fitted(self, "coef_")
        if not (isinstance(level, Real) and 0.0 < level < 1.0):
            raise ValueError(f"level must be a number between 0 and 1 (exclusive); got "
                             f"{level!r}.")
        t = self._table()
        a = (1.0 - level) / 2.0
        q = float(ndtri(1.0 - a))
        est, se = t["Estimate"].to_numpy(), t["Std. Error"].to_numpy()
        low, high = [f"{format_real([100 * x], 3)[0].strip()} %" for x in (a, 1.0 - a)]
        with np.errstate(over="ignore"):  # a separated fit's interval reaches inf
            return pd.DataFrame({"OR": np.exp(est), low: np.exp(est - q * se),
                                 high: np.exp(est + q * se)}, index=t.index)

    def explain(self, x, show=True, file=None):
        """How the model reaches one sample's probability, as the lecture derives it.

        Each attribute contributes ``coefficient x value`` to the logit (an indicator's
        value is 1 for the sample's level, and the reference level contributes 0); the
        logit is their sum with the intercept; the odds are ``exp(logit)`` (the product of
        each contribution's odds factor ``exp(contribution)``); the probability of the event
        is ``odds / (1 + odds) = 1 / (1 + exp(-logit))``, the sigmoid of the logit.

        Parameters
        ----------
        x : one sample: a pandas Series, dict, one-row DataFrame, or 1-d array
        show : bool, default=True
            Print the derivation.
        file : file-like, default=None

        Returns
        -------
        pandas.DataFrame
            One row per term (the intercept, each attribute) and a final ``logit`` row:
            the sample's value, the coefficient used, the contribution to the logit and
            its odds factor. ``attrs`` holds ``logit``, ``odds``, ``probability`` and
            ``event``.

        Examples
        --------
        >>> from quercus import LogisticRegression
        >>> from quercus.datasets import load_watermelon
        >>> X, y = load_watermelon("3.0")
        >>> clf = LogisticRegression().fit(X[["密度", "含糖率"]], y)
        >>> table = clf.explain(X[["密度", "含糖率"]].iloc[0])
        ... # doctest: +NORMALIZE_WHITESPACE
        P(好瓜 = 是 | x):
          (Intercept)           -4.42886 = -4.4289
          密度 = 0.697   3.15833 * 0.697 =  2.2014
          含糖率 = 0.46   12.5212 * 0.46 =  5.7598
          logit = sum of the contributions = 3.5322
          odds = exp(logit) = 34.2005
          p = odds / (1 + odds) = 1 / (1 + exp(-logit)) = 0.9716
        >>> round(table.attrs["probability"], 4)
        0.9716
        """
        check_is_fitted(self, "coef_")
        row = self._one_row(x)
        M = self._matrix(row)[0]
        design = self._design
        terms = design.terms
        coef = np.nan_to_num(self._coef)
        rows, index = [], []
        if self.fit_intercept:
            index.append(INTERCEPT)
            rows.append(("", INTERCEPT, coef[0], coef[0]))
        for j, name in enumerate(design.schema.feature_names):
            cols = [c for c, t in enumerate(terms) if t[1] == j]
            value = row.iloc[0, j]
            if design.schema.is_categorical[j]:
                hit = [c for c in cols if M[c] == 1]
                if hit:
                    c = hit[0]
                    rows.append((value, terms[c][0], coef[c], coef[c]))
                else:
                    rows.append((value, "(reference level)", 0.0, 0.0))
            else:
                c = cols[0]
                rows.append((value, terms[c][0], coef[c], coef[c] * M[c]))
            index.append(name)
        logit = float(sum(r[3] for r in rows))
        odds = math.exp(logit) if logit < 709 else math.inf
        prob = float(linkinv(np.array(logit)))
        rows.append(("", "", np.nan, logit))
        index.append("logit")
        table = pd.DataFrame(rows, index=pd.Index(index, dtype=object),
                             columns=["value", "coefficient name", "coefficient",
                                      "contribution"])
        with np.errstate(over="ignore"):
            table["odds factor"] = np.exp(table["contribution"].to_numpy(dtype=float))
        table.attrs = {"logit": logit, "odds": odds, "probability": prob,
                       "event": self.classes_[1]}
        if show:
            print(self._explain_text(table, design), file=file if file is not None
                  else sys.stdout)
        return table

    def _one_row(self, x):
        names = list(self._design.schema.feature_names)
        if isinstance(x, pd.DataFrame):
            if x.shape[0] != 1:
                raise ValueError(f"explain takes one sample; got a DataFrame of "
                                 f"{x.shape[0]} rows.")
            return x
        if isinstance(x, pd.Series):
            return x.to_frame().T.infer_objects()
        if isinstance(x, dict):
            missing = [n for n in names if n not in x]
            if missing:
                raise ValueError(f"explain's x has no value for {missing}.")
            return pd.DataFrame({n: [x[n]] for n in names})
        arr = np.asarray(x, dtype=object)
        if arr.ndim != 1 or arr.shape[0] != len(names):
            raise ValueError(f"explain's x must be one sample of {len(names)} values; got "
                             f"an array of shape {arr.shape}.")
        if hasattr(self, "feature_names_in_"):
            return pd.DataFrame([list(arr)], columns=names).infer_objects()
        return arr.reshape(1, -1)

    def _explain_text(self, table, design):
        labels, exprs, contribs = [], [], []
        for name, r in table.iloc[:-1].iterrows():
            coef = _num(r["coefficient"], 6)
            if name == INTERCEPT:
                labels.append(INTERCEPT)
                exprs.append(coef)
            else:
                value = r["value"]
                shown = (level_label(value) if isinstance(value, (bool, np.bool_, str))
                         else _num(float(value), 7))
                labels.append(f"{name} = {shown}")
                j = design.schema.feature_names.index(name)
                if r["coefficient name"] == "(reference level)":
                    exprs.append("0 (reference level)")
                elif design.schema.is_categorical[j]:
                    exprs.append(f"{coef} ({r['coefficient name']})")
                else:
                    exprs.append(f"{coef} * {shown}")
            contribs.append(f"{r['contribution']:.4f}")
        a = table.attrs
        lw = max(display_width(s) for s in labels)
        ew = max(display_width(s) for s in exprs)
        nw = max(len(s) for s in contribs)
        lines = [f"P({self._response} = {level_label(a['event'])} | x):"]
        for lab, ex, num in zip(labels, exprs, contribs):
            lines.append(f"  {lab}{' ' * (lw - display_width(lab))}  "
                         f"{' ' * (ew - display_width(ex))}{ex} = {num.rjust(nw)}")
        lines += [f"  logit = sum of the contributions = {a['logit']:.4f}",
                  f"  odds = exp(logit) = {_num(a['odds'], 6)}",
                  f"  p = odds / (1 + odds) = 1 / (1 + exp(-logit)) = "
                  f"{a['probability']:.4f}"]
        return "\n".join(lines)

    # ------------------------------------------------------------ model files
    def save(self, path):
        """Write the fitted model to ``path`` as plain JSON (never pickle); read it back
        with :func:`quercus.load`.

        Examples
        --------
        >>> import os, tempfile, quercus
        >>> from quercus.datasets import load_golf
        >>> X, y = load_golf()
        >>> clf = quercus.LogisticRegression().fit(X[["temperature", "humidity"]], y)
        >>> path = os.path.join(tempfile.mkdtemp(), "golf.json")
        >>> clf.save(path)
        >>> back = quercus.load(path)
        >>> bool((back.predict_proba(X[["temperature", "humidity"]])
        ...       == clf.predict_proba(X[["temperature", "humidity"]])).all())
        True
        """
        check_is_fitted(self, "coef_")
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(self.to_dict(), fh, ensure_ascii=False, allow_nan=False)

    def to_dict(self):
        """The fitted model as plain data (JSON types only); see :meth:`save`.

        Examples
        --------
        >>> from quercus import LogisticRegression
        >>> from quercus.datasets import load_golf
        >>> X, y = load_golf()
        >>> d = LogisticRegression().fit(X[["humidity"]], y).to_dict()
        >>> d["estimator"], d["classes"], d["coef_names"]
        ('LogisticRegression', ['no', 'yes'], ['(Intercept)', 'humidity'])
        """
        from .._version import __version__
        from .._persist import FORMAT, FORMAT_VERSION, _floats, _plain
        check_is_fitted(self, "coef_")
        params = self.get_params()
        params["categorical_features"] = None  # the design below says which columns are
        return {
            "format": FORMAT, "format_version": FORMAT_VERSION,
            "quercus_version": __version__, "estimator": type(self).__name__,
            "params": {k: _plain(v) for k, v in params.items()},
            "design": self._design.to_dict(),
            "feature_names_in": (list(map(str, self.feature_names_in_))
                                 if hasattr(self, "feature_names_in_") else None),
            "classes": [_plain(c) for c in self.classes_],
            "coef_names": list(self.coef_names_),
            "coef": _floats(self._coef),
            "covariance": _floats(self.covariance_),
            "deviance": _plain(float(self.deviance_)),
            "null_deviance": _plain(float(self.null_deviance_)),
            "aic": _plain(float(self.aic_)),
            "df_residual": int(self.df_residual_), "df_null": int(self.df_null_),
            "rank": int(self.rank_), "n_iter": int(self.n_iter_),
            "converged": bool(self.converged_),
            "deviance_residuals": _floats(self.deviance_residuals_),
            "fitted": _floats(self.fitted_),
            "response": self._response, "weighted": bool(self._weighted),
        }

    @classmethod
    def from_dict(cls, d):
        """A fitted model from :meth:`to_dict`'s data, every field checked (a bad field
        raises :class:`quercus.ModelFileError` naming it).

        Examples
        --------
        >>> from quercus import LogisticRegression
        >>> from quercus.datasets import load_golf
        >>> X, y = load_golf()
        >>> clf = LogisticRegression().fit(X[["humidity"]], y)
        >>> LogisticRegression.from_dict(clf.to_dict()).coef_names_
        ['(Intercept)', 'humidity']
        """
        from .._persist import _fail, _label, _number, _require, _schema
        params = _require(d, "params", dict, "")
        unknown = set(params) - set(cls().get_params())
        if unknown:
            _fail("params", f"names unknown parameters {sorted(unknown)}")
        est = cls(**params)
        try:
            est._validate_params()
        except ValueError as exc:
            _fail("params", f"are invalid: {exc}")
        dd = _require(d, "design", dict, "")
        schema = _schema(_require(dd, "schema", dict, "design."))
        fi = _require(dd, "fit_intercept", bool, "design.")
        full = _require(dd, "full_dummy", int, "design.")
        if not -1 <= full < schema.n_features or (
                full >= 0 and not schema.is_categorical[full]):
            _fail("design.full_dummy", "must be -1 or the index of a categorical feature")
        design = Design(schema, fi, full)
        names = design.column_names
        k = len(names)
        if _require(d, "coef_names", list, "") != names:
            _fail("coef_names", "must match the design's columns")

        def floats(key, length):
            raw = _require(d, key, list, "")
            if len(raw) != length:
                _fail(key, f"has {len(raw)} entries, expected {length}")
            return np.asarray([_number(v, key) for v in raw], dtype=np.float64)

        def integer(key):
            v = _require(d, key, int, "")
            if isinstance(v, bool) or v < 0:
                _fail(key, "must be a non-negative integer")
            return v

        coef = floats("coef", k)
        cov = floats("covariance", k * k).reshape(k, k)
        classes = _require(d, "classes", list, "")
        if len(classes) != 2:
            _fail("classes", "must hold the two classes")
        for c in classes:
            _label(c, "classes")
        resid = _require(d, "deviance_residuals", list, "")
        n = len(resid)
        est.deviance_residuals_ = floats("deviance_residuals", n)
        est.fitted_ = floats("fitted", n)
        est._design = design
        est.coef_names_ = names
        est._coef = coef
        k0 = 1 if fi else 0
        est.intercept_ = np.array([coef[0] if k0 else 0.0])
        est.coef_ = coef[k0:].reshape(1, -1).copy()
        est.covariance_ = cov
        est.classes_ = np.asarray(classes)
        for key in ("deviance", "null_deviance", "aic"):
            setattr(est, key + "_", _number(_require(d, key, None, ""), key))
        for key in ("df_residual", "df_null", "rank", "n_iter"):
            setattr(est, key + "_", integer(key))
        est.converged_ = _require(d, "converged", bool, "")
        est.aliased_ = [nm for nm, b in zip(names, coef) if math.isnan(b)]
        est._response = _require(d, "response", str, "")
        est._weighted = _require(d, "weighted", bool, "")
        est.n_features_in_ = schema.n_features
        names_in = d.get("feature_names_in")
        if names_in is not None:
            if names_in != list(schema.feature_names):
                _fail("feature_names_in", "must equal design.schema.feature_names")
            est.feature_names_in_ = np.asarray(names_in, dtype=object)
        return est

