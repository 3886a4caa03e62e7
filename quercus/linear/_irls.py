"""The binomial GLM with logit link, fitted as R's ``glm.fit`` fits it.

Iteratively reweighted least squares (Fisher scoring, which for the canonical logit link is
Newton's method): R's starting values, its convergence rule, its clamped link functions and
its QR decomposition with limited column pivoting (LINPACK ``dqrdc2``), so that the same
columns are found aliased and the same numbers come out, iteration by iteration. Arrays in,
a :class:`GLMFit` record out; no estimator, no validation (the caller validates).
"""

from typing import NamedTuple

import numpy as np
from scipy.linalg import solve_triangular
from scipy.special import gammaln, ndtr, xlog1py, xlogy

DBL_EPSILON = np.finfo(np.float64).eps
# R's logit link (src/library/stats/src/family.c): eta beyond +-30 is clamped so that
# mu stays strictly inside (0, 1) and the derivative never underflows to 0.
_THRESH = 30.0
_INVEPS = 1.0 / DBL_EPSILON


def linkinv(eta):
    """The inverse logit (sigmoid) ``1 / (1 + exp(-eta))``, clamped as R clamps it.

    Examples
    --------
    >>> import numpy as np
    >>> linkinv(np.array([0.0, np.log(3.0)])).round(12).tolist()
    [0.5, 0.75]
    """
    with np.errstate(over="ignore"):
        tmp = np.where(eta < -_THRESH, DBL_EPSILON,
                       np.where(eta > _THRESH, _INVEPS, np.exp(eta)))
    return tmp / (1.0 + tmp)


def linkfun(mu):
    """The logit ``log(mu / (1 - mu))``: the log of the odds.

    Examples
    --------
    >>> import numpy as np
    >>> float(linkfun(np.array(0.75)))  # odds 3
    1.0986122886681098
    """
    return np.log(mu / (1.0 - mu))


def mu_eta(eta):
    """d mu / d eta = mu (1 - mu), computed from eta as R does (clamped beyond +-30).

    Examples
    --------
    >>> import numpy as np
    >>> mu_eta(np.array([0.0])).tolist()
    [0.25]
    """
    with np.errstate(over="ignore"):
        opexp = 1.0 + np.exp(eta)
        out = np.exp(eta) / (opexp * opexp)
    return np.where((eta > _THRESH) | (eta < -_THRESH), DBL_EPSILON, out)


def dev_resids(y, mu, wt):
    """Each sample's binomial deviance ``2 w (y log(y/mu) + (1-y) log((1-y)/(1-mu)))``.

    Examples
    --------
    >>> import numpy as np
    >>> float(dev_resids(np.array([1.0]), np.array([0.5]), np.array([1.0]))[0])  # 2 log 2
    1.3862943611198906
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(y != 0.0, y * np.log(y / mu), 0.0)
        b = np.where(1.0 - y != 0.0, (1.0 - y) * np.log((1.0 - y) / (1.0 - mu)), 0.0)
    return 2.0 * wt * (a + b)


def binomial_aic(y, mu, wt, rank):
    """R's ``binomial()$aic(...) + 2 * rank`` for a 0/1 response with prior weights.

    R rounds ``w * y`` and ``w`` to integers inside ``dbinom``, so a fractional weight
    counts as the nearest whole number of trials here (a weight below 0.5 as none).

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([0.0, 1.0]); mu = np.array([0.5, 0.5]); w = np.ones(2)
    >>> round(float(binomial_aic(y, mu, w, 1)), 6)  # 2 * 2 log 2 + 2
    4.772589
    """
    size = np.round(wt)
    k = np.round(wt * y)
    with np.errstate(divide="ignore", invalid="ignore"):
        logpmf = (gammaln(size + 1.0) - gammaln(k + 1.0) - gammaln(size - k + 1.0)
                  + xlogy(k, mu) + xlog1py(size - k, -mu))
    logpmf = np.where(size == k, gammaln(size + 1.0) - gammaln(k + 1.0) + xlogy(k, mu),
                      logpmf)
    # R: ifelse(m > 0, wt / m, 0) * dbinom(...), with m = wt for a 0/1 response
    return -2.0 * float(np.sum(np.where(wt > 0, logpmf, 0.0))) + 2.0 * rank


# ---------------------------------------------------------------- least squares
class QR(NamedTuple):
    """A QR decomposition as LINPACK's ``dqrdc2`` leaves it (``qr``, ``qraux`` in LINPACK's
    compact form), the column permutation ``pivot`` and the numerical ``rank``."""

    qr: np.ndarray
    qraux: np.ndarray
    pivot: np.ndarray
    rank: int


def qr_dqrdc2(x, tol):
    """Householder QR with R's limited pivoting (LINPACK ``dqrdc2``, which ``lm`` and
    ``glm`` use): a column whose remaining norm falls below ``tol`` times its original norm
    is moved to the end and counts as linearly dependent on the columns before it; the other
    columns keep their order. ``x`` is not modified.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[1.0, 1.0, 2.0], [1.0, 2.0, 4.0], [1.0, 3.0, 6.0]])
    >>> d = qr_dqrdc2(x, 1e-7)
    >>> d.rank, d.pivot.tolist()     # the third column is twice the second
    (2, [0, 1, 2])
    """
    x = np.array(x, dtype=np.float64, order="F", copy=True)
    n, p = x.shape
    qraux = np.sqrt(np.einsum("ij,ij->j", x, x))
    work1 = qraux.copy()  # the norms as last recomputed
    work2 = qraux.copy()  # the original norms
    work2[work2 == 0.0] = 1.0
    pivot = np.arange(p)
    k = p  # columns 0..k-1 are not (yet) found negligible
    for col in range(min(n, p)):
        while col < k and qraux[col] < work2[col] * tol:
            # Negligible: cycle the column to the end, keeping the others' order.
            order = np.r_[np.arange(col + 1, p), col]
            x[:, col:] = x[:, order]
            for arr in (pivot, qraux, work1, work2):
                arr[col:] = arr[order]
            k -= 1
        if col == n - 1:
            break
        v = x[col:, col]
        nrmxl = float(np.sqrt(v @ v))
        if nrmxl == 0.0:
            continue
        if v[0] != 0.0:
            nrmxl = np.copysign(nrmxl, v[0])
        v /= nrmxl
        v[0] += 1.0
        if col + 1 < p:
            rest = x[col:, col + 1:]
            t = -(v @ rest) / v[0]
            rest += np.outer(v, t)
            upd = qraux[col + 1:]
            nz = upd != 0.0
            tt = np.ones_like(upd)
            tt[nz] = np.maximum(1.0 - (np.abs(rest[0, nz]) / upd[nz]) ** 2, 0.0)
            small = nz & (np.abs(tt) < 1e-6)
            grow = nz & ~small
            upd[grow] = upd[grow] * np.sqrt(tt[grow])
            for j in np.flatnonzero(small):
                # Cancellation: recompute the norm rather than update it.
                upd[j] = np.sqrt(rest[1:, j] @ rest[1:, j])
                work1[col + 1 + j] = upd[j]
        qraux[col] = v[0]
        x[col, col] = -nrmxl
    return QR(x, qraux, pivot, int(min(k, n)))


def qr_coef(d, y):
    """Least-squares coefficients from :func:`qr_dqrdc2`, in pivoted order, 0 for the
    columns beyond the rank (as LINPACK's ``dqrls`` leaves them)."""
    n = d.qr.shape[0]
    y = np.array(y, dtype=np.float64, copy=True)
    k = d.rank
    for j in range(min(k, n - 1)):
        if d.qraux[j] == 0.0:
            continue
        v = d.qr[j:, j].copy()
        v[0] = d.qraux[j]
        y[j:] += (-(v @ y[j:]) / v[0]) * v
    b = np.zeros(d.qr.shape[1])
    if k:
        b[:k] = solve_triangular(d.qr[:k, :k], y[:k], lower=False)
    return b


# ---------------------------------------------------------------- the fit
class GLMFit(NamedTuple):
    """What :func:`fit_binomial` returns (R's names in brackets)."""

    coef: np.ndarray  # [coefficients] NaN for aliased columns
    cov_unscaled: np.ndarray  # [vcov] (X'WX)^-1, NaN rows/columns for aliased columns
    rank: int
    aliased: np.ndarray  # bool per column
    eta: np.ndarray  # [linear.predictors]
    mu: np.ndarray  # [fitted.values]
    deviance: float
    null_deviance: float
    df_residual: int
    df_null: int
    aic: float
    n_iter: int  # [iter]
    converged: bool
    boundary: bool
    working_weights: np.ndarray  # [weights]: of the last iteration
    warnings: tuple  # R's warning messages, as R words them


def fit_binomial(X, y, w, *, intercept, tol=1e-8, max_iter=25):
    """Fit the logistic regression of ``y`` (0/1) on the design matrix ``X`` by IRLS.

    The steps of R's ``glm.fit`` with ``family = binomial()``: ``mustart = (w y + 1/2) /
    (w + 1)``; at each iteration a weighted least-squares fit of the working response by
    :func:`qr_dqrdc2` with tolerance ``min(1e-7, tol / 1000)``; convergence when
    ``|dev - dev_old| / (|dev| + 0.1) < tol``; at most ``max_iter`` iterations. Rows of zero
    weight take no part. ``intercept`` says whether ``X`` holds an intercept column (it
    sets the null model). Standard errors use the decomposition of the last iteration, as
    R's ``summary.glm`` does.

    Parameters
    ----------
    X : ndarray of shape (n, p), float64, finite
    y : ndarray of shape (n,), 0.0 or 1.0
    w : ndarray of shape (n,), non-negative prior weights, some positive
    intercept : bool

    Returns
    -------
    GLMFit

    Examples
    --------
    >>> import numpy as np
    >>> X = np.column_stack([np.ones(6), [1.0, 2, 3, 4, 5, 6]])
    >>> y = np.array([0.0, 0, 1, 0, 1, 1]); w = np.ones(6)
    >>> fit = fit_binomial(X, y, w, intercept=True)
    >>> fit.converged, fit.n_iter, np.round(fit.coef, 4).tolist()
    (True, 5, [-4.2491, 1.214])
    """
    n, p = X.shape
    warnings = []
    y = np.where(w == 0, 0.0, y)
    mustart = (w * y + 0.5) / (w + 1.0)
    eta = linkfun(mustart)
    mu = linkinv(eta)
    devold = float(np.sum(dev_resids(y, mu, w)))
    qr_tol = min(1e-7, tol / 1000.0)
    start = np.zeros(p)
    coefold = None
    conv = boundary = False
    d = None
    ww = None
    good = w > 0
    it = 0
    for it in range(1, max_iter + 1):
        mev = mu_eta(eta)
        good = (w > 0) & (mev != 0)
        varmu = mu[good] * (1.0 - mu[good])
        z = eta[good] + (y - mu)[good] / mev[good]
        ww = np.sqrt(w[good] * mev[good] ** 2 / varmu)
        d = qr_dqrdc2(X[good] * ww[:, None], qr_tol)
        b = qr_coef(d, z * ww)
        if not np.isfinite(b).all():
            conv = False
            warnings.append(f"non-finite coefficients at iteration {it}")
            break
        if n < d.rank:
            raise ValueError(f"X matrix has rank {d.rank}, but only {n} observations")
        start = np.empty(p)
        start[d.pivot] = b
        eta = X @ start
        mu = linkinv(eta)
        dev = float(np.sum(dev_resids(y, mu, w)))
        boundary = False
        if not np.isfinite(dev):
            if coefold is None:
                raise ValueError("no valid set of coefficients has been found: please "
                                 "supply starting values")
            ii = 1
            while not np.isfinite(dev):
                if ii > max_iter:
                    raise ValueError("inner loop 1; cannot correct step size")
                ii += 1
                start = (start + coefold) / 2.0
                eta = X @ start
                mu = linkinv(eta)
                dev = float(np.sum(dev_resids(y, mu, w)))
            boundary = True
        if abs(dev - devold) / (abs(dev) + 0.1) < tol:
            conv = True
            break
        devold = dev
        coefold = start
    if not conv:
        warnings.append("glm.fit: algorithm did not converge")
    if boundary:
        warnings.append("glm.fit: algorithm stopped at boundary value")
    eps = 10 * DBL_EPSILON
    if (mu > 1 - eps).any() or (mu < eps).any():
        warnings.append("glm.fit: fitted probabilities numerically 0 or 1 occurred")

    rank = d.rank
    aliased = np.zeros(p, dtype=bool)
    aliased[d.pivot[rank:]] = True
    coef = start.copy()
    coef[aliased] = np.nan
    cov = np.full((p, p), np.nan)
    if rank:
        r_inv = solve_triangular(d.qr[:rank, :rank], np.eye(rank), lower=False)
        keep = d.pivot[:rank]
        cov[np.ix_(keep, keep)] = r_inv @ r_inv.T
    wt = np.zeros(n)
    wt[good] = ww ** 2
    wtdmu = float(np.sum(w * y) / np.sum(w)) if intercept else 0.5
    null_dev = float(np.sum(dev_resids(y, np.full(n, wtdmu), w)))
    n_ok = n - int(np.sum(w == 0))
    dev = float(np.sum(dev_resids(y, mu, w)))
    return GLMFit(coef=coef, cov_unscaled=cov, rank=rank, aliased=aliased, eta=eta, mu=mu,
                  deviance=dev, null_deviance=null_dev, df_residual=n_ok - rank,
                  df_null=n_ok - int(intercept), aic=binomial_aic(y, mu, w, rank),
                  n_iter=it, converged=conv, boundary=boundary, working_weights=wt,
                  warnings=tuple(warnings))


def wald_table(coef, cov_unscaled):
    """Standard errors, z values and two-sided p-values ``2 Phi(-|z|)`` (dispersion 1),
    NaN for aliased coefficients.

    Examples
    --------
    >>> import numpy as np
    >>> se, z, p = wald_table(np.array([1.96]), np.array([[1.0]]))
    >>> round(float(p[0]), 4)
    0.05
    """
    se = np.sqrt(np.diag(cov_unscaled))
    z = coef / se
    return se, z, 2.0 * ndtr(-np.abs(z))
