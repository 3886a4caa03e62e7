"""The split criteria: one registry that the parameters, the grower, the kernels,
``explain`` and the model files all read.

Every split in quercus is scored from a ``branch_stats[branch, stat]`` array: weighted
class counts for a classification criterion, ``(sum w, sum w*y, sum w*y2)`` for a
regression one (y2 = y*y for squared error, y*log(y) for Poisson). A criterion is one row
of :data:`REGISTRY`; the kernels take its integer ``code`` (never a function: closures
defeat caching) and read what they need to know about it from tables indexed by that code,
never from the order of the codes. Adding a criterion is one row here, its scoring
branch in :func:`impurity` (a node's impurity) or :func:`split_gain` (a split's gain from
its branches), and its tests.
"""

from typing import NamedTuple

import numpy as np

from ._jit import inner, kernel

# Kernel codes (any order: what they mean is in the registry's tables below).
ENTROPY = 0
GINI = 1
SQUARED_ERROR = 2
POISSON = 3
ABSOLUTE_ERROR = 4  # scored from sorted samples (see absolute.py); stats as squared error
HELLINGER = 5
N_REG_STATS = 3

CLASSIFICATION = "classification"
REGRESSION = "regression"


class Criterion(NamedTuple):
    """One criterion: what ``criterion=name`` means everywhere.

    ``scan`` says how a numeric feature's thresholds are scored: ``"mass"`` by the
    one-pass incremental formula of the children's impurity (entropy, Gini, squared
    error), ``"pair"`` from both branches' stats at every boundary, ``"sorted"`` by a
    search of its own over the node's sorted samples (absolute error). ``leaf`` is what a
    leaf predicts; ``max_classes`` the most classes it can separate (0: any).
    """

    name: str
    code: int
    task: str
    leaf: str
    scan: str
    gain_ratio: bool = False     # C4.5's rule: best ratio among the above-average gains
    positive_mean: bool = False  # a child needs a positive mean target (Poisson)
    direct_gain: bool = False    # the gain is split_gain's, not a decrease of impurity
    max_classes: int = 0
    summary: str = ""
    measure: str = ""            # how ``explain`` names what the chosen split is best by


REGISTRY = {c.name: c for c in (
    Criterion("entropy", ENTROPY, CLASSIFICATION, "class weights", "mass",
              summary="information gain (ID3): entropy in bits", measure="information gain"),
    Criterion("gain_ratio", ENTROPY, CLASSIFICATION, "class weights", "mass", gain_ratio=True,
              summary="gain ratio (C4.5): information gain over split information",
              measure="gain ratio among candidates with gain >= average"),
    Criterion("gini", GINI, CLASSIFICATION, "class weights", "mass",
              summary="Gini index decrease (CART)", measure="Gini decrease"),
    Criterion("hellinger", HELLINGER, CLASSIFICATION, "class weights", "pair",
              direct_gain=True, max_classes=2,
              summary="Hellinger distance between the two classes' distributions over the "
                      "branches (Cieslak and Chawla, 2008): insensitive to class skew; a "
                      "node's impurity is reported as Gini's", measure="Hellinger distance"),
    Criterion("squared_error", SQUARED_ERROR, REGRESSION, "mean", "mass",
              summary="variance decrease (CART regression)", measure="variance reduction"),
    Criterion("absolute_error", ABSOLUTE_ERROR, REGRESSION, "median", "sorted",
              summary="mean absolute deviation from the median",
              measure="absolute error decrease"),
    Criterion("poisson", POISSON, REGRESSION, "mean", "pair", positive_mean=True,
              summary="half Poisson deviance decrease (counts, rates)",
              measure="Poisson deviance decrease"),
)}


def _table(has):
    """A table of one property of every criterion, indexed by kernel code."""
    out = np.zeros(1 + max(c.code for c in REGISTRY.values()), dtype=np.bool_)
    for c in REGISTRY.values():
        out[c.code] = has(c)
    return out


# What the kernels ask of a criterion (numba freezes global arrays as constants).
_IS_REGRESSION = _table(lambda c: c.task == REGRESSION)
_MASS_SCAN = _table(lambda c: c.scan == "mass")
_POSITIVE_MEAN = _table(lambda c: c.positive_mean)
_DIRECT_GAIN = _table(lambda c: c.direct_gain)

_LOG2 = np.log(2.0)


def names(task):
    """The criterion names of a task, in the registry's order.

    Examples
    --------
    >>> names("regression")
    ('squared_error', 'absolute_error', 'poisson')
    """
    return tuple(name for name, c in REGISTRY.items() if c.task == task)


def criterion_code(name):
    """The kernel code of criterion ``name``: 'entropy' and 'gain_ratio' score with
    entropy, 'gini' with the Gini index, ...

    Examples
    --------
    >>> criterion_code("gain_ratio") == criterion_code("entropy") == ENTROPY
    True
    """
    return REGISTRY[name].code


def check_classes(name, n_classes):
    """Raise a ValueError naming ``criterion`` when it cannot separate ``n_classes``.

    Examples
    --------
    >>> check_classes("hellinger", 3)
    Traceback (most recent call last):
    ...
    ValueError: criterion='hellinger' separates two classes; got 3 classes.
    """
    most = REGISTRY[name].max_classes
    if most and n_classes > most:
        raise ValueError(f"criterion={name!r} separates {'two' if most == 2 else most} "
                         f"classes; got {n_classes} classes.")


@inner
def is_regression(criterion):
    """Whether a criterion's stats are regression sums (else class weights)."""
    return _IS_REGRESSION[criterion]


@inner
def mass_scan(criterion):
    """Whether thresholds can be scored by the incremental one-pass formula
    (``_mass_impurity`` in splits.py)."""
    return _MASS_SCAN[criterion]


@inner
def needs_positive_mean(criterion):
    """Whether each child needs a positive mean target (Poisson, scikit-learn's rule)."""
    return _POSITIVE_MEAN[criterion]


@inner
def stats_weight(stats, criterion):
    """Total weight of a stats vector."""
    if _IS_REGRESSION[criterion]:
        return stats[0]
    total = 0.0
    for k in range(stats.shape[0]):
        total += stats[k]
    return total


@kernel
def impurity(counts, criterion):
    """Impurity of one stats vector.

    Entropy in bits (``-sum p log2 p``) for ``ENTROPY``, ``1 - sum p^2`` for ``GINI`` (and
    for ``HELLINGER``, which scores splits, not nodes), the weighted variance for
    ``SQUARED_ERROR`` (and ``ABSOLUTE_ERROR``'s histogram stand-in), the mean half Poisson
    deviance ``sum w (y log(y/mean) - y + mean) / sum w`` for ``POISSON``. Precondition:
    weights non-negative; zero weight has impurity 0.

    Examples
    --------
    >>> import numpy as np
    >>> round(float(impurity(np.array([8.0, 9.0]), ENTROPY)), 3)  # the book's Ent(D)
    0.998
    """
    if _IS_REGRESSION[criterion]:
        w = counts[0]
        if w <= 0.0:
            return 0.0
        mean = counts[1] / w
        if criterion == POISSON:
            if mean <= 0.0:
                return 0.0
            return max((counts[2] - counts[1] * np.log(mean)) / w, 0.0)
        return max(counts[2] / w - mean * mean, 0.0)
    total = 0.0
    for k in range(counts.shape[0]):
        total += counts[k]
    if total <= 0.0:
        return 0.0
    acc = 0.0
    if criterion == ENTROPY:
        for k in range(counts.shape[0]):
            # Test the share, not the count: a tiny count can underflow to p == 0.
            p = counts[k] / total
            if p > 0.0:
                acc -= p * np.log(p)
        return acc / _LOG2
    for k in range(counts.shape[0]):
        p = counts[k] / total
        acc += p * p
    return 1.0 - acc


@inner
def _hellinger(branch_stats):
    """Hellinger distance between the two classes' distributions over the branches:
    ``sqrt(sum_b (sqrt(P(b | class 0)) - sqrt(P(b | class 1)))^2)``, 0 when a class is
    absent (Cieslak and Chawla, 2008)."""
    t0 = 0.0
    t1 = 0.0
    for b in range(branch_stats.shape[0]):
        t0 += branch_stats[b, 0]
        t1 += branch_stats[b, 1]
    if t0 <= 0.0 or t1 <= 0.0:
        return 0.0
    acc = 0.0
    for b in range(branch_stats.shape[0]):
        d = np.sqrt(branch_stats[b, 0] / t0) - np.sqrt(branch_stats[b, 1] / t1)
        acc += d * d
    return np.sqrt(acc)


@inner
def _hellinger_pair(a, b):
    """:func:`_hellinger` of the two branches ``a`` and ``b``, without allocating."""
    t0 = a[0] + b[0]
    t1 = a[1] + b[1]
    if t0 <= 0.0 or t1 <= 0.0:
        return 0.0
    da = np.sqrt(a[0] / t0) - np.sqrt(a[1] / t1)
    db = np.sqrt(b[0] / t0) - np.sqrt(b[1] / t1)
    return np.sqrt(da * da + db * db)


@inner
def split_gain(branch_stats, criterion):
    """The gain of a split from its branches' stats, for a criterion whose gain is not a
    decrease of impurity (``direct_gain``)."""
    return _hellinger(branch_stats)


@inner
def pair_gain(a, b, criterion):
    """:func:`split_gain` of the two branches ``a`` and ``b``, without allocating (hot
    loop)."""
    return _hellinger_pair(a, b)


@inner
def split_loss(a, b, criterion):
    """What a scan over boundaries minimises for the two branches ``a`` and ``b``: their
    weighted mean impurity, or minus the gain of a ``direct_gain`` criterion (hot loop:
    no allocation)."""
    if _DIRECT_GAIN[criterion]:
        return -pair_gain(a, b, criterion)
    wa = stats_weight(a, criterion)
    wb = stats_weight(b, criterion)
    if wa + wb <= 0.0:
        return 0.0
    return (wa * impurity(a, criterion) + wb * impurity(b, criterion)) / (wa + wb)


@kernel
def split_scores(branch_stats, criterion):
    """Score a candidate split from its per-branch stats.

    Parameters
    ----------
    branch_stats : float64 array (n_branches, n_stats)
        Stats of each branch (class weights, or regression sums); empty branches allowed.
    criterion : int
        A criterion code other than ``ABSOLUTE_ERROR``.

    Returns
    -------
    (child_impurity, decrease, split_info) : floats
        ``child_impurity`` is the weighted mean impurity of the branches (the book's
        conditional entropy or Gini_index(D, a)), ``decrease`` the parent impurity minus
        it (information gain for entropy, variance reduction for squared error),
        ``split_info`` the intrinsic value IV(a) in bits. A ``direct_gain`` criterion's
        decrease is its gain, and its child impurity the parent's minus that gain.

    Examples
    --------
    >>> import numpy as np
    >>> texture = np.array([[7.0, 2.0], [1.0, 4.0], [0.0, 3.0]])  # the book's 纹理
    >>> child, gain, iv = split_scores(texture, ENTROPY)
    >>> round(float(gain), 3), round(float(iv), 3)
    (0.381, 1.447)
    """
    return split_scores_into(branch_stats, criterion, np.zeros(branch_stats.shape[1]))


@inner
def split_scores_into(branch_stats, criterion, parent):
    """:func:`split_scores` with the parent's stats summed into the caller's
    ``parent`` (a row of scratch, overwritten): no array made per candidate."""
    n_branches, n_classes = branch_stats.shape
    for k in range(n_classes):
        parent[k] = 0.0
    for b in range(n_branches):
        for k in range(n_classes):
            parent[k] += branch_stats[b, k]
    total = stats_weight(parent, criterion)
    if total <= 0.0:
        return 0.0, 0.0, 0.0
    child = 0.0
    split_info = 0.0
    for b in range(n_branches):
        frac = stats_weight(branch_stats[b], criterion) / total
        if frac > 0.0:
            child += frac * impurity(branch_stats[b], criterion)
            split_info -= frac * np.log(frac) / _LOG2
    if _DIRECT_GAIN[criterion]:
        gain = split_gain(branch_stats, criterion)
        return impurity(parent, criterion) - gain, gain, split_info
    return child, impurity(parent, criterion) - child, split_info
