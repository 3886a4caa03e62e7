"""LogitBoost with simple linear regression, as LMT fits the model of each node.

Friedman, Hastie and Tibshirani's J-class LogitBoost (2000, "Additive logistic regression",
algorithm 6) with one simple linear regression per class and iteration as the weak learner,
as Landwehr, Hall and Frank (2005) use it: at each iteration, for every class ``j``, the
working response ``z = (y_j - p_j) / (p_j (1 - p_j))`` (clipped to [-3, 3], Friedman et
al.'s advice, so ``w = (y_j - p_j) / z``) is regressed, weighted by ``w``, on the single
attribute that gives the smallest weighted squared error; the committee ``F_j`` grows by
``(J - 1) / J (f_j - mean_k f_k)`` and ``p = softmax(F)``. Every regression is linear in one
attribute, so the committee is a linear model per class: a node's model is its parent's
coefficients plus those of its own iterations.

Arrays in (float64 model matrix ``N``, one-hot ``Y``, committee values ``F``), records out;
no estimator, no validation (the caller validates).
"""

from typing import NamedTuple

import numpy as np

Z_MAX = 3.0  # the response clip of Friedman et al. (and Weka)


class Regressions(NamedTuple):
    """The simple regressions of some LogitBoost iterations: for iteration ``i`` and class
    ``j``, ``f_j(x) = intercept[i, j] + slope[i, j] * x[attribute[i, j]]``."""

    attribute: np.ndarray  # (n_iter, J) int64
    slope: np.ndarray  # (n_iter, J)
    intercept: np.ndarray  # (n_iter, J)

    @property
    def n_iter(self):
        return self.attribute.shape[0]


def empty_regressions(n_classes):
    """No iteration yet.

    Examples
    --------
    >>> empty_regressions(3).n_iter
    0
    """
    return Regressions(np.zeros((0, n_classes), np.int64), np.zeros((0, n_classes)),
                       np.zeros((0, n_classes)))


def softmax(F):
    """Class probabilities from committee values (the largest subtracted first).

    Examples
    --------
    >>> import numpy as np
    >>> softmax(np.array([[0.0, np.log(3.0)]])).round(6).tolist()
    [[0.25, 0.75]]
    """
    e = np.exp(F - F.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def coefficients(reg, n_columns):
    """The linear model ``(J, 1 + n_columns)`` (intercept first) that the regressions add
    to the committee, as Weka prints it: ``(J - 1) / J`` times the sum of each class's
    regressions. (The committee itself is centred over the classes at each step; that adds
    the same function to every class, which the softmax ignores.)

    Examples
    --------
    >>> import numpy as np
    >>> reg = Regressions(np.array([[0, 1]]), np.array([[2.0, -2.0]]), np.array([[1.0, 0.0]]))
    >>> coefficients(reg, 2).tolist()
    [[0.5, 1.0, 0.0], [0.0, 0.0, -1.0]]
    """
    J = reg.attribute.shape[1]
    coef = np.zeros((J, 1 + n_columns))
    for j in range(J):
        coef[j, 0] = reg.intercept[:, j].sum()
        np.add.at(coef[j], 1 + reg.attribute[:, j], reg.slope[:, j])
    return coef * (J - 1) / J


def working_response(Y, P):
    """LogitBoost's response ``z`` and weight ``w`` for one-hot ``Y`` and probabilities
    ``P`` (Weka's clipping: ``z = 1/p`` at most 3 for the class, ``-1/(1-p)`` at least -3
    for the others, and ``w = (y - p) / z``, which is ``p (1 - p)`` unclipped).

    Examples
    --------
    >>> import numpy as np
    >>> z, w = working_response(np.array([[1.0, 0.0]]), np.array([[0.5, 0.5]]))
    >>> z.tolist(), w.tolist()
    ([[2.0, -2.0]], [[0.25, 0.25]])
    """
    with np.errstate(divide="ignore", over="ignore"):
        z = np.where(Y == 1.0, np.minimum(1.0 / P, Z_MAX),
                     np.maximum(-1.0 / (1.0 - P), -Z_MAX))
    return z, (Y - P) / z


def simple_regressions(N, Z, W, usable):
    """For each class ``j``, the weighted simple linear regression of ``Z[:, j]`` on the
    one column of ``N`` with the smallest weighted squared error (the first on a tie), as
    Weka's SimpleLinearRegression chooses it. ``usable`` masks the columns that are not
    constant on the rows. Returns ``(attribute, slope, intercept, found)``; ``found[j]`` is
    False when no column is usable for class ``j`` (or its weights are all 0).

    Examples
    --------
    >>> import numpy as np
    >>> N = np.array([[0.0, 5.0], [1.0, 5.0], [2.0, 6.0]])
    >>> Z = np.array([[1.0], [3.0], [5.0]])
    >>> a, b, c, ok = simple_regressions(N, Z, np.ones((3, 1)), np.array([True, True]))
    >>> a.tolist(), b.tolist(), c.tolist(), ok.tolist()
    ([0], [2.0], [1.0], [True])
    """
    S0 = W.sum(axis=0)  # (J,)
    safe = np.where(S0 > 0, S0, 1.0)
    WZ = W * Z
    z_mean = WZ.sum(axis=0) / safe
    # Centre the columns on the rows' plain means: the sums below subtract large
    # products otherwise (the slopes do not change; the intercepts are computed back).
    center = N.mean(axis=0)
    Nc = N - center
    S1 = W.T @ Nc  # (J, q)
    x_mean = S1 / safe[:, None]
    S2 = W.T @ (Nc * Nc)
    Sxx = S2 - S1 * x_mean
    Sxy = WZ.T @ Nc - S1 * z_mean[:, None]
    Syy = (WZ * Z).sum(axis=0) - S0 * z_mean * z_mean
    # Where the weight sits on few rows the expanded sums cancel: those classes are
    # recomputed around their own weighted means, as the textbook formula does.
    shaky = np.flatnonzero((usable[None, :] & (Sxx <= 1e-8 * S2)).any(axis=1) & (S0 > 0))
    for j in shaky:
        D = Nc - x_mean[j]
        wd = W[:, j][:, None] * D
        Sxx[j] = (wd * D).sum(axis=0)
        Sxy[j] = (Z[:, j] - z_mean[j]) @ wd
        Syy[j] = W[:, j] @ (Z[:, j] - z_mean[j]) ** 2
    ok = usable[None, :] & (Sxx > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        msq = np.where(ok, Syy[:, None] - Sxy * Sxy / Sxx, np.inf)
        slope_all = Sxy / Sxx
    attribute = np.argmin(msq, axis=1)
    J = Z.shape[1]
    rows = np.arange(J)
    found = ok[rows, attribute] & (S0 > 0)
    slope = np.where(found, slope_all[rows, attribute], 0.0)
    intercept = z_mean - slope * (x_mean[rows, attribute] + center[attribute])
    return attribute, slope, intercept, found | (S0 <= 0)


def _trim(W, beta):
    """Weka's weight trimming: per class, keep the rows of largest weight until they hold a
    ``1 - beta`` share of the weight; the others get weight 0 for the regression."""
    out = np.zeros_like(W)
    for j in range(W.shape[1]):
        w = W[:, j]
        total = w.sum()
        if total <= 0:
            out[:, j] = w
            continue
        order = np.argsort(w, kind="stable")[::-1]
        share = np.cumsum(w[order]) / total
        # rows are added while the share taken before them is below 1 - beta
        k = int(np.searchsorted(share, 1.0 - beta, side="left")) + 1
        keep = order[:k]
        out[keep, j] = w[keep]
    return out


def iterate(N, Y, F, usable, weight_trim_beta=0.0):
    """One LogitBoost iteration from committee ``F`` (updated in place). Returns
    ``(attribute, slope, intercept)`` of the iteration's regressions, or None when some
    class has no usable attribute (Weka then stops boosting).

    Examples
    --------
    >>> import numpy as np
    >>> N = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> Y = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    >>> F = np.zeros((4, 2))
    >>> iterate(N, Y, F, np.array([True])) is not None, bool(F[0, 0] > 0 > F[3, 0])
    (True, True)
    """
    P = softmax(F)
    Z, W = working_response(Y, P)
    if weight_trim_beta > 0:
        W = _trim(W, weight_trim_beta)
    a, b, c, found = simple_regressions(N, Z, W, usable)
    if not found.all():
        return None
    F += update(N, a, b, c)
    return a, b, c


def update(N, attribute, slope, intercept):
    """What one iteration's regressions add to the committee of the rows of ``N``:
    ``(J - 1) / J (f_j - mean_k f_k)``.

    Examples
    --------
    >>> import numpy as np
    >>> update(np.array([[1.0]]), np.array([0, 0]), np.array([1.0, 0.0]),
    ...        np.array([0.0, 0.0])).tolist()
    [[0.25, -0.25]]
    """
    J = attribute.shape[0]
    f = intercept[None, :] + slope[None, :] * N[:, attribute]
    return (f - f.mean(axis=1, keepdims=True)) * (J - 1) / J


def boost(N, Y, F0, n_iter, usable, weight_trim_beta=0.0):
    """``n_iter`` iterations from committee ``F0`` (fewer when an iteration finds no
    attribute). Returns the :class:`Regressions`.

    Examples
    --------
    >>> import numpy as np
    >>> N = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> Y = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    >>> boost(N, Y, np.zeros((4, 2)), 3, np.array([True])).n_iter
    3
    """
    F = F0.copy()
    steps = []
    for _ in range(n_iter):
        s = iterate(N, Y, F, usable, weight_trim_beta)
        if s is None:
            break
        steps.append(s)
    return _stack(steps, Y.shape[1])


def _stack(steps, J):
    if not steps:
        return empty_regressions(J)
    a, b, c = (np.array([s[k] for s in steps]) for k in range(3))
    return Regressions(a.astype(np.int64), b, c)


def _error(F, Y, on_probabilities):
    """Weka's stopping criterion on held-out rows: the misclassification rate (argmax, the
    first class on a tie), or the mean absolute error of the probabilities."""
    if on_probabilities:
        return float(np.abs(softmax(F) - Y).mean())
    return float(np.mean(np.argmax(F, axis=1) != np.argmax(Y, axis=1)))


def cv_iterations(N, Y, F0, folds, max_iter, heuristic_stop, usable_of, on_probabilities,
                  weight_trim_beta=0.0):
    """The number of iterations by cross-validation, as Weka's LogitBoost chooses it.

    On each fold, boosting runs on the training rows (from their committee ``F0``) and the
    held-out error is added to ``error[i]`` after ``i`` iterations; a fold stops after
    ``max_iter`` iterations, when no attribute is found, or when the summed error has not
    reached a new minimum for ``heuristic_stop`` iterations (Weka's heuristic, applied to
    the sum over the folds so far). The answer is the first minimum of the summed error
    over the iterations every fold completed. ``usable_of(rows)`` gives the usable columns.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> N = rng.normal(size=(40, 2))
    >>> Y = np.eye(2)[(N[:, 0] + 0.3 * rng.normal(size=40) > 0).astype(int)]
    >>> folds = [(np.setdiff1d(np.arange(40), t), t) for t in np.array_split(np.arange(40), 5)]
    >>> cv_iterations(N, Y, np.zeros((40, 2)), folds, 50, 50,
    ...               lambda r: np.array([True, True]), False) > 0
    True
    """
    error = np.zeros(max_iter + 1)
    completed = max_iter
    for train, test in folds:
        Ftr, Fte = F0[train].copy(), F0[test].copy()
        Ntr, Ytr, Nte, Yte = N[train], Y[train], N[test], Y[test]
        usable = usable_of(train)
        error[0] += _error(Fte, Yte, on_probabilities)
        it, no_min, last_min = 0, 0, np.inf
        while it < completed:
            s = iterate(Ntr, Ytr, Ftr, usable, weight_trim_beta)
            if s is None:
                break
            it += 1
            Fte += update(Nte, *s)
            error[it] += _error(Fte, Yte, on_probabilities)
            if no_min > heuristic_stop:
                break
            if error[it] < last_min:
                last_min, no_min = error[it], 0
            else:
                no_min += 1
        completed = min(completed, it)
    return int(np.argmin(error[:completed + 1]))


def aic_iterations(N, Y, F0, max_iter, heuristic_stop, usable, n_parameters,
                   weight_trim_beta=0.0):
    """The number of iterations minimising Akaike's criterion on the training rows,
    ``2 * (-log likelihood) + 2 * (n_parameters + iterations)`` (Weka's ``-A``; each
    iteration counts one parameter; ``n_parameters`` are the ancestors' iterations), with
    the same 50-iteration heuristic stop.

    Examples
    --------
    >>> import numpy as np
    >>> N = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
    >>> Y = np.eye(2)[[0, 0, 1, 0, 1, 1]]
    >>> aic_iterations(N, Y, np.zeros((6, 2)), 100, 50, np.array([True]), 0) >= 1
    True
    """
    F = F0.copy()
    it, no_min, best, best_it = 0, 0, np.inf, 0
    while it < max_iter:
        if iterate(N, Y, F, usable, weight_trim_beta) is None:
            break
        it += 1
        P = softmax(F)
        nll = -float(np.sum(Y * np.log(np.maximum(P, 1e-300))))
        crit = 2.0 * nll + 2.0 * (n_parameters + it)
        if no_min > heuristic_stop:
            break
        if crit < best:
            best, best_it, no_min = crit, it, 0
        else:
            no_min += 1
    return best_it


def weka_folds(y, n_folds, rng=None):
    """Cross-validation folds as Weka's ``Instances.stratify`` and ``trainCV``/``testCV``
    make them from rows in their given order (``rng``: shuffle the rows first).

    The rows are grouped by class (the first row's class first, by swapping, as Weka does),
    dealt into ``n_folds`` interleaved strata, and each fold's test rows are one contiguous
    block of that order (the first ``n % n_folds`` folds one row longer); the training rows
    keep the order.

    Examples
    --------
    >>> import numpy as np
    >>> [t.tolist() for _, t in weka_folds(np.array([0, 1, 0, 1, 0, 1]), 3)]
    [[0, 3], [2, 1], [4, 5]]
    """
    n = y.shape[0]
    order = np.arange(n) if rng is None else rng.permutation(n)
    lab = y[order].tolist()
    idx = order.tolist()
    index = 1
    while index < n:
        c = lab[index - 1]
        for j in range(index, n):
            if lab[j] == c:
                lab[index], lab[j] = lab[j], lab[index]
                idx[index], idx[j] = idx[j], idx[index]
                index += 1
        index += 1
    strat = []
    for start in range(n_folds):
        strat.extend(idx[start::n_folds])
    strat = np.asarray(strat, dtype=np.int64)
    out = []
    base, extra = divmod(n, n_folds)
    for k in range(n_folds):
        size = base + (1 if k < extra else 0)
        first = k * base + min(k, extra)
        test = strat[first:first + size]
        train = np.concatenate([strat[:first], strat[first + size:]])
        out.append((train, test))
    return out
