"""scikit-learn's estimator checks, run over the quercus regressors.

The same approach as tests/test_sklearn_checks.py (the classifiers): every check runs and
passes; ``expected_failed_checks`` is deliberately empty. Notes on the checks that touch
the regressors' own choices:

* check_regressors_train / check_regressors_int / check_regressor_data_not_an_array: the
  default criterion is squared error, which accepts any finite target (the Poisson
  criterion, which needs y >= 0, is not a default and is not run here: the checks feed
  standardised, negative targets).
* check_supervised_y_no_nan: a NaN or infinite target must raise a ValueError (the check
  imposes no message on third-party estimators; quercus's names the row, "Input y
  contains ... at row 0; regression targets must be finite", tested in
  tests/test_regression.py).
* check_sample_weight_equivalence_on_dense_data: integer weights equal repeated rows and a
  zero weight equals dropping the row (fit drops zero-weight rows before growing).
* check_fit2d_1sample: one sample is a clear error mentioning "1 sample", as for the
  classifiers.
* check_array_api_input(array_namespace=numpy): run with SCIPY_ARRAY_API=1 so the check
  really runs instead of being skipped.

CARTRegressor differs from DecisionTreeRegressor only in its default missing_strategy
("surrogate"), so the checks also exercise the surrogate search on every fit.
"""

from sklearn.utils.estimator_checks import parametrize_with_checks

from quercus import CARTRegressor, DecisionTreeRegressor

EXPECTED_FAILED_CHECKS = {}  # none: see the module docstring


@parametrize_with_checks(
    [DecisionTreeRegressor(), CARTRegressor()],
    expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS,
)
def test_sklearn_compatible(estimator, check, monkeypatch):
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")
    check(estimator)
