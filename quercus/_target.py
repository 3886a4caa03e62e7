"""What a tree predicts: a regression value, or classes and how a node's class is chosen.

Pruning, explanation and model files read a fitted tree through its arrays and this record,
not through the estimator that grew it.
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.base import is_regressor as _sklearn_is_regressor

from . import _prepare
from ._grower import BinnedData


def node_outputs(value, regression):
    """Each node's prediction from its ``value`` row: the regression value, or the class
    proportions (zeros for a node without weight).

    Examples
    --------
    >>> import numpy as np
    >>> node_outputs(np.array([[3.0, 1.0], [0.0, 0.0]]), regression=False).tolist()
    [[0.75, 0.25], [0.0, 0.0]]
    """
    if regression:
        return value
    total = value.sum(axis=1, keepdims=True)
    return np.divide(value, total, out=np.zeros_like(value), where=total > 0)


def majority(dist, class_priority):
    """The class of each row of ``dist`` (class weights or proportions): its largest
    entry, a tie going to the class of lowest ``class_priority`` (the earliest seen).

    Examples
    --------
    >>> import numpy as np
    >>> majority(np.array([[0.5, 0.5], [0.2, 0.8]]), np.array([1, 0])).tolist()
    [1, 1]
    """
    # The classes in priority order: the first tied column is the earliest-seen class.
    perm = np.argsort(class_priority, kind="stable")
    dist = np.atleast_2d(dist)[:, perm]
    top = dist.max(axis=1, keepdims=True)
    return perm[(dist >= top - 1e-12 * np.maximum(top, 1.0)).argmax(axis=1)]


def is_regressor(est):
    """scikit-learn's ``is_regressor``, read from the class's own flag where it has one
    (scikit-learn's builds the estimator's tags, a noticeable part of a small fit).

    Examples
    --------
    >>> from quercus import CARTClassifier, CARTRegressor
    >>> is_regressor(CARTRegressor()), is_regressor(CARTClassifier())
    (True, False)
    """
    flag = getattr(est, "_is_regressor", None)
    return _sklearn_is_regressor(est) if flag is None else bool(flag)


@dataclass(frozen=True, eq=False)
class Target:
    """The target of a tree.

    Attributes
    ----------
    regression : bool
    criterion : str
        The split criterion, which says how a regression target is checked (Poisson
        targets are non-negative) and which statistics its samples carry.
    classes : ndarray or None
        A classifier's labels, sorted.
    class_priority : ndarray or None
        Each class's rank in the order of first appearance among the rows grown on: a
        tied node goes to the class ranked first.

    Examples
    --------
    >>> import numpy as np
    >>> target = Target(False, "gini", np.array(["no", "yes"]), np.array([1, 0]))
    >>> target.classes[target.majority(np.array([[2.0, 2.0]]))].tolist()
    ['yes']
    >>> target.encode(["yes", "no"], 2).tolist()
    [1, 0]
    """

    regression: bool
    criterion: str
    classes: np.ndarray = None
    class_priority: np.ndarray = None

    @classmethod
    def of(cls, est):
        """The target of a fitted tree estimator, read from its fitted attributes.

        Examples
        --------
        >>> from quercus import ID3Classifier
        >>> from quercus.datasets import load_golf
        >>> Target.of(ID3Classifier().fit(*load_golf())).classes.tolist()
        ['no', 'yes']
        """
        if is_regressor(est):
            return cls(True, est.criterion)
        # (The tie order is the one fitted attribute without a public name.)
        return cls(False, est.criterion, est.classes_, est._class_priority)

    @property
    def n_classes(self):
        """Number of classes (0 for a regression target)."""
        return 0 if self.regression else len(self.classes)

    def majority(self, dist):
        """The class index of each row of ``dist``: :func:`majority` in this target's
        tie order."""
        return majority(dist, self.class_priority)

    def node_outputs(self, tree):
        """Each node's prediction: class proportions, or the regression value."""
        return node_outputs(tree.value, self.regression)

    def encode(self, y, n, what="eval_set"):
        """Targets ``y`` of ``n`` rows coded as the tree's: float64 values, or indices of
        ``classes`` (a label it does not know is an error naming ``what``)."""
        if self.regression:
            return _prepare.encode_regression_target(y, n, self.criterion)
        y = np.asarray(y, dtype=object).ravel()
        codes = pd.Index(self.classes).get_indexer(y)
        if (codes < 0).any():
            bad = y[np.flatnonzero(codes < 0)[0]]
            raise ValueError(f"{what}: label {bad!r} is not one of the training classes "
                             f"{list(self.classes)}.")
        return codes

    def binned_data(self, bins, is_categorical, y_enc, w):
        """The grower's :class:`~quercus._grower.BinnedData` of binned rows with coded
        targets ``y_enc`` and weights ``w``."""
        y = np.asarray(y_enc, dtype=np.float64)
        if self.regression:
            return BinnedData.from_bins(bins, is_categorical, y,
                                        _prepare.second_statistic(y, self.criterion), w, 3, 1)
        k = self.n_classes
        return BinnedData.from_bins(bins, is_categorical, y, y, w, k, k)
