"""The one split step both growers apply (quercus._kernels.split_step)."""

import numpy as np
import pytest

from quercus._kernels.builder import leaf_nodes
from quercus._kernels.criteria import GINI, SQUARED_ERROR
from quercus._kernels.schema import FRACTIONAL, LEARNED, MULTIWAY, NUMERIC, SURROGATE
from quercus._kernels.split_step import split_rows


def _split(nodes, branch, missing_mode, known_w, w=None, y=None, n_children=2, kind=NUMERIC,
           stat_crit=GINI, n_stats=2, unit=False, missing_child=1):
    m = branch.shape[0]
    w = np.ones(m) if w is None else w
    y = (np.arange(m) % 2).astype(float) if y is None else y
    return split_rows(nodes, 1, 0, kind, 3, 0.5, -1, n_children, 0.75, missing_mode,
                      missing_child, bool((branch < 0).any()), known_w, 0, 0, -1,
                      np.arange(10, 10 + m), w, branch.copy(), np.r_[np.zeros(10), y],
                      np.r_[np.zeros(10), y * y], n_stats, stat_crit, unit)


def test_fractional_missing_rows_go_to_every_child_by_known_weight():
    nodes = leaf_nodes(8, 2)
    branch = np.array([0, 1, 1, -1, 2, -1])
    w = np.array([1.0, 2.0, 1.0, 4.0, 1.0, 0.5])
    known_w = np.array([1.0, 3.0, 0.0])   # the third child holds no known weight here
    kids = _split(nodes, branch, FRACTIONAL, known_w, w=w, n_children=3, kind=MULTIWAY)
    # Child 0: row 0 and a quarter of each missing row; child 1: rows 1, 2 and three
    # quarters; child 2 (share 0): its own row only.
    assert kids.offsets.tolist() == [0, 3, 7, 8]
    assert kids.rows.tolist() == [10, 13, 15, 11, 12, 13, 15, 14]
    np.testing.assert_allclose(kids.w, [1.0, 1.0, 0.125, 2.0, 1.0, 3.0, 0.375, 1.0])
    np.testing.assert_allclose(kids.weight, [2.125, 6.375, 1.0])
    # The stats are the weighted class counts of each child's rows (y = row % 2).
    np.testing.assert_allclose(kids.stats, [[1.0, 1.125], [1.0, 5.375], [1.0, 0.0]])
    assert np.isclose(kids.weight.sum(), w.sum())


@pytest.mark.parametrize("mode", [SURROGATE, LEARNED])
def test_other_rules_send_a_missing_row_to_the_missing_child(mode):
    nodes = leaf_nodes(8, 2)
    branch = np.array([0, -1, 0, -1, 1])
    kids = _split(nodes, branch, mode, np.array([2.0, 1.0]), missing_child=1)
    assert kids.offsets.tolist() == [0, 2, 5]
    assert kids.rows.tolist() == [10, 12, 11, 13, 14]
    assert kids.weight.tolist() == [2.0, 3.0]


def test_the_node_becomes_the_split_and_its_children_new_leaves():
    nodes = leaf_nodes(8, 1)
    nodes.depth[0] = 4
    nodes.kind[1:3] = 7    # garbage the split must overwrite
    kids = _split(nodes, np.array([1, 0, 1]), SURROGATE, np.array([1.0, 2.0]), n_stats=3,
                  stat_crit=SQUARED_ERROR, y=np.array([1.0, 2.0, 4.0]))
    assert int(nodes.kind[0]) == NUMERIC and int(nodes.feature[0]) == 3
    assert int(nodes.first_child[0]) == 1 and int(nodes.n_children[0]) == 2
    assert nodes.threshold[0] == 0.5 and nodes.rho[0] == 0.75
    assert nodes.kind[1:3].tolist() == [0, 0] and nodes.depth[1:3].tolist() == [5, 5]
    # Regression stats: weight, sum of w*y, sum of w*y*y.
    np.testing.assert_allclose(kids.stats, [[1.0, 2.0, 4.0], [2.0, 5.0, 17.0]])


def test_unit_weights_are_counted_not_copied():
    nodes = leaf_nodes(8, 2)
    kids = _split(nodes, np.array([0, 1, 1, 1]), SURROGATE, np.array([1.0, 3.0]), unit=True)
    assert kids.w.shape == (0,)
    assert kids.weight.tolist() == [1.0, 3.0]
