"""scikit-learn's estimator checks, run over every quercus classifier.

Every check passes; ``expected_failed_checks`` is deliberately empty. Notes on the checks
that touch quercus's own choices:

* check_fit2d_1sample: fitting ONE sample is an error in quercus by design ("one row" must be
  a clear error). The check accepts a ValueError whose message mentions "1 sample", and
  quercus's does: "Found array with 1 sample(s) ... X has only 1 sample (row); a decision
  tree needs at least 2 samples to fit." So it passes without an exemption.
* check_sample_weight_equivalence_on_dense_data: passes because fit drops zero-weight rows
  before growing, exactly as scikit-learn's own trees do. Before that, a zero-weight row
  still supplied an observed value between which thresholds were placed, so a weight of 0
  was not the same as removing the row. Integer weights equal repeated rows because
  weights flow through the class-count histograms; min_samples_* count unweighted samples
  (as in scikit-learn), but with the defaults (2 and 1) a count only differs from the
  repeated data's at a node whose rows are all copies of one row, which cannot split.
* check_array_api_input(array_namespace=numpy): scikit-learn skips it unless the
  SCIPY_ARRAY_API environment variable is set; we set it for the duration of each check so
  the check really runs (it verifies that enabling array-API dispatch with NumPy inputs
  changes nothing) instead of being silently skipped.
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
