"""float32 rows are routed as they are, without a float64 copy, to the same nodes."""

import numpy as np
import pandas as pd
import pytest

from quercus import CARTClassifier, CARTRegressor, C45Classifier


@pytest.mark.parametrize("make", [CARTClassifier, CARTRegressor, C45Classifier])
def test_float32_rows_reach_the_nodes_of_their_float64_copy(make):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 6)).astype(np.float32)
    X[rng.random(X.shape) < 0.02] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) > 0).astype(int)
    est = make().fit(X, y)
    # Values a hair from the thresholds: a float32 compared as float64, exactly.
    X_new = rng.normal(size=(20_000, 6)).astype(np.float32)
    X_new[rng.random(X_new.shape) < 0.02] = np.nan
    wide = X_new.astype(np.float64)
    assert np.array_equal(est.apply(X_new), est.apply(wide))
    assert np.array_equal(est.predict(X_new), est.predict(wide))
    frame = pd.DataFrame(X_new)
    assert np.array_equal(est.predict(frame), est.predict(wide))


def test_an_infinite_float32_value_is_named():
    X = np.random.default_rng(1).normal(size=(200, 3)).astype(np.float32)
    est = CARTClassifier().fit(X, X[:, 0] > 0)
    X[5, 2] = np.inf
    with pytest.raises(ValueError, match="inf"):
        est.predict(X)
