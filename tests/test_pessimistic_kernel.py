"""C4.5's pessimistic pruning runs as one kernel; it must decide exactly as the
straightforward recursive version (J48's ``C45PruneableClassifierTree.prune``) written below
with the routing kernels: the same nodes pruned or raised, in the same order, with the same
error estimates, and the same final tree."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_digits

from quercus import C45Classifier, _prepare
from quercus._kernels.predict import SPREAD, accumulate_node_stats, child_branches
from quercus._kernels.schema import LEAF
from quercus._pruning import (_training_errors, added_errors, copy_tree, make_leaf,
                              pessimistic, subtree_leaves)
from quercus._target import Target


def child_shares(X, rows, w, t, weighted_n, node):
    """Weight of each of ``rows`` going to each child of ``node`` (columns in branch
    order), from the routing kernel's branches: a spread row (a missing value) shared out
    by the children's training weights, a stopping row nowhere."""
    branch = child_branches(X, rows, t, node)
    first, k = int(t.first_child[node]), int(t.n_children[node])
    out = np.zeros((rows.shape[0], k))
    own = np.flatnonzero(branch >= 0)
    out[own, branch[own]] = w[own]
    spread = branch == SPREAD
    kids = weighted_n[first:first + k]
    out[spread] = w[spread, None] * kids / kids.sum()
    return out


def reference_pessimistic(est, tree, X_enc, y_enc, w, cf, subtree_raising):
    """The recursion as J48 writes it: returns (tree, [(node, before, after, reason)])."""
    tree = copy_tree(tree)
    log = []
    y = np.asarray(y_enc, dtype=np.float64)
    K = est.n_classes_
    t = tree.kernel_args()

    def stats_at(node, rows, wts):
        return accumulate_node_stats(X_enc[rows], y[rows], y[rows], wts, t,
                                     tree.weighted_n_node_samples, K, False, node)

    def estimate(d):
        n = d.sum()
        e = n - d.max() if n > 0 else 0.0
        return e + added_errors(n, e, cf)

    train_err = _training_errors(tree)
    stack = [0]
    while stack:
        node = stack.pop()
        if tree.kind[node] == LEAF:
            continue
        leaves = subtree_leaves(tree, node)
        below = sum(train_err[lf] for lf in leaves)
        if below >= train_err[node] - 1e-3:
            log.append((node, "collapse", below, train_err[node], len(leaves) - 1))
            make_leaf(tree, node)
        else:
            stack.extend(tree.children(node))

    def prune(node, rows, wts):
        if tree.kind[node] == LEAF:
            return
        shares = child_shares(X_enc, rows, wts, t, tree.weighted_n_node_samples, node)
        for j, c in enumerate(tree.children(node)):
            m = shares[:, j] > 0
            prune(c, rows[m], shares[m, j])
        stats = stats_at(node, rows, wts)
        leaf_err = estimate(stats[node])
        tree_err = sum(estimate(stats[lf]) for lf in subtree_leaves(tree, node))
        largest = max(tree.children(node), key=lambda c: stats[c].sum())
        branch_err, raised = np.inf, None
        if subtree_raising:
            raised = stats_at(largest, rows, wts)
            branch_err = sum(estimate(raised[lf]) for lf in subtree_leaves(tree, largest))
        if leaf_err <= tree_err + 0.1 and leaf_err <= branch_err + 0.1:
            log.append((node, "leaf", tree_err, leaf_err))
            make_leaf(tree, node)
        elif subtree_raising and branch_err <= tree_err + 0.1:
            log.append((node, "raise", tree_err, branch_err))
            counts = accumulate_node_stats(X_enc[rows], y[rows], y[rows], wts, t,
                                           tree.weighted_n_node_samples, 1, False, largest,
                                           True)[:, 0]
            parent = tree.parent()
            for n_ in _all_nodes(tree, largest):
                tree.value[n_] = raised[n_] if raised[n_].sum() > 0 else tree.value[parent[n_]]
                tree.weighted_n_node_samples[n_] = raised[n_].sum()
                tree.n_node_samples[n_] = int(counts[n_])
            for name in ("kind", "feature", "threshold", "category", "first_child",
                         "n_children", "missing_mode", "missing_child", "sur_start",
                         "sur_count", "rho", "cat_map_start"):
                getattr(tree, name)[node] = getattr(tree, name)[largest]
            prune(node, rows, wts)

    prune(0, np.arange(X_enc.shape[0]), np.asarray(w, dtype=np.float64))
    return tree, log


def _all_nodes(tree, node):
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        out.append(n)
        if tree.kind[n] != LEAF:
            stack.extend(tree.children(n))
    return out


def _digits(missing):
    X, y = load_digits(return_X_y=True)
    X = X.astype(float)
    X[np.random.default_rng(0).random(X.shape) < missing] = np.nan
    return X, y


def _categorical():
    rng = np.random.default_rng(5)
    n = 2000
    X = pd.DataFrame({"a": rng.normal(size=n),
                      "b": pd.Categorical(rng.choice([f"v{i}" for i in range(15)], n)),
                      "c": pd.Categorical(rng.choice(list("xyz"), n))})
    y = (X["a"] + X["b"].cat.codes * 0.2 + rng.normal(size=n) > 1.5).astype(int)
    X.loc[rng.random(n) < 0.1, "b"] = np.nan
    X.loc[rng.random(n) < 0.1, "a"] = np.nan
    return X, y.to_numpy()


CASES = [("digits", lambda: _digits(0.0)), ("digits-missing", lambda: _digits(0.15)),
         ("categorical-missing", _categorical)]


@pytest.mark.parametrize("raising", [True, False])
@pytest.mark.parametrize("cf", [0.05, 0.25, 0.6])
@pytest.mark.parametrize("name,data", CASES, ids=[c[0] for c in CASES])
def test_pessimistic_kernel_decides_as_the_recursive_reference(name, data, cf, raising):
    X, y = data()
    est = C45Classifier(pruning=None, max_bins=None).fit(X, y)
    X_enc = _prepare.encode(X, est.schema_)
    y_enc = np.searchsorted(est.classes_, y)
    w = np.ones(len(y))
    ref_tree, ref_log = reference_pessimistic(est, est.tree_, X_enc, y_enc, w, cf, raising)
    tree, report = pessimistic(Target.of(est), est.tree_, X_enc, y_enc, w, cf, raising)
    decisions = [r for r in report if not r["reason"].startswith("collapse")]
    ref_decisions = [r for r in ref_log if r[1] != "collapse"]
    collapsed = [(r["node"], r["error_before"], r["error_after"], r["leaves_removed"])
                 for r in report if r["reason"].startswith("collapse")]
    ref_collapsed = [(r[0], r[2], r[3], r[4]) for r in ref_log if r[1] == "collapse"]
    assert len(collapsed) == len(ref_collapsed)
    for got, want in zip(collapsed, ref_collapsed):
        assert got[0] == want[0] and got[3] == want[3]
        assert got[1:3] == pytest.approx(want[1:3], rel=1e-12, abs=1e-12)
    assert len(decisions) == len(ref_decisions) > 0
    if raising and cf >= 0.25:
        assert any(r[1] == "raise" for r in ref_decisions) or name == "digits"
    for got, (node, kind, before, after) in zip(decisions, ref_decisions):
        assert got["node"] == node
        assert got["reason"].startswith("subtree raising") == (kind == "raise")
        assert got["error_before"] == pytest.approx(before, rel=1e-9, abs=1e-9)
        assert got["error_after"] == pytest.approx(after, rel=1e-9, abs=1e-9)
    for name_, arr in ref_tree.__dict__.items():
        np.testing.assert_allclose(getattr(tree, name_), arr, rtol=1e-9, atol=1e-9,
                                   err_msg=name_)


def _trees_equal(a, b):
    for name_, arr in a.__dict__.items():
        np.testing.assert_array_equal(getattr(b, name_), arr, err_msg=name_)


@pytest.mark.parametrize("name,data", CASES[1:], ids=[c[0] for c in CASES[1:]])
def test_pessimistic_reads_row_and_column_ordered_X_alike_without_copying(name, data,
                                                                           monkeypatch):
    X, y = data()
    est = C45Classifier(pruning=None).fit(X, y)
    X_enc = _prepare.encode(X, est.schema_)
    y_enc = np.searchsorted(est.classes_, y)
    w = np.ones(len(y))
    import quercus._pruning as pruning_module
    seen = []
    kernel = pruning_module.prune_pessimistic
    monkeypatch.setattr(pruning_module, "prune_pessimistic",
                        lambda X_, *a: seen.append(X_) or kernel(X_, *a))
    by_rows, log_rows = pessimistic(Target.of(est), est.tree_, np.ascontiguousarray(X_enc),
                                    y_enc, w, 0.25, True)
    X_cols = np.asfortranarray(X_enc)
    by_cols, log_cols = pessimistic(Target.of(est), est.tree_, X_cols, y_enc, w, 0.25, True)
    assert seen[1] is X_cols  # the column-ordered matrix is read where it is
    assert log_rows == log_cols
    _trees_equal(by_rows, by_cols)


def test_pessimistic_in_place_prunes_the_tree_given_and_otherwise_leaves_it_alone():
    X, y = _categorical()
    est = C45Classifier(pruning=None).fit(X, y)
    X_enc = _prepare.encode(X, est.schema_)
    y_enc = np.searchsorted(est.classes_, y)
    w = np.ones(len(y))
    grown = copy_tree(est.tree_)
    pruned, log = pessimistic(Target.of(est), est.tree_, X_enc, y_enc, w, 0.25, True)
    _trees_equal(grown, est.tree_)  # untouched by default
    assert (pruned.kind != LEAF).sum() < (grown.kind != LEAF).sum()
    target = copy_tree(grown)
    same, same_log = pessimistic(Target.of(est), target, X_enc, y_enc, w, 0.25, True,
                                 in_place=True)
    assert same is target and same_log == log
    _trees_equal(pruned, same)


def test_child_branches_name_each_rows_branch_or_its_spread_by_a_missing_value():
    from quercus._kernels.predict import SPREAD, STOP, child_branches
    X, y = _categorical()
    est = C45Classifier(pruning=None).fit(X, y)
    X_enc = _prepare.encode(X, est.schema_)
    t = est.tree_
    rows = np.arange(len(y))
    for node in np.flatnonzero(t.kind != LEAF)[:5]:
        branch = child_branches(X_enc, rows, t.kernel_args(), node)
        k = int(t.n_children[node])
        assert branch.dtype == np.int32 and set(branch.tolist()) <= {SPREAD, STOP, *range(k)}
        missing = np.isnan(X_enc[:, t.feature[node]])
        assert (branch[missing] == SPREAD).all() and (branch[~missing] >= 0).all()
        shares = child_shares(X_enc, rows, np.ones(len(y)), t.kernel_args(),
                              t.weighted_n_node_samples, node)
        own = branch >= 0
        np.testing.assert_array_equal(shares[own, branch[own]], 1.0)
        assert (shares[own].sum(axis=1) == 1.0).all()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_child_rows_from_the_buckets_are_each_branchs_rows_in_order_with_their_shares(seed):
    """A node's rows are bucketed once by branch; each child's rows and weights must be
    exactly (same rows, order and bits) those picked by scanning every row for it."""
    from quercus._kernels.pessimistic import _bucket_rows, _child_rows
    from quercus._kernels.predict import SPREAD, STOP
    rng = np.random.default_rng(seed)
    n, k = 500, 7
    rows = np.sort(rng.choice(5000, n, replace=False)).astype(np.int64)
    branch = rng.integers(0, k, n).astype(np.int32)
    branch[rng.random(n) < 0.15] = SPREAD
    branch[rng.random(n) < 0.05] = STOP
    branch[branch == 3] = 4  # a branch that no row takes
    wts = rng.random(n) * 3
    wts[rng.random(n) < 0.1] = 0.0
    child_w = rng.random(k) * 10
    child_w[5] = 0.0  # an empty child: spread rows get no share of it
    total = child_w.sum()
    order, starts = _bucket_rows(branch, k)
    for j in range(k):
        share = np.where(branch == j, wts,
                         np.where(branch == SPREAD, wts * child_w[j] / total, 0.0))
        keep = share != 0.0
        got_rows, got_w = _child_rows(rows, wts, order, starts, j, child_w[j], total)
        np.testing.assert_array_equal(got_rows, rows[keep])
        np.testing.assert_array_equal(got_w, share[keep])
    assert starts[-1] == (branch != STOP).sum()
