"""Pruning: pre-pruning, reduced-error, C4.5's pessimistic pruning, cost complexity.

Expected values come from the book (Zhou Zhihua, 《机器学习》 section 4.3, figures 4.5-4.7),
from Quinlan's C4.5 book and Weka's J48 formula, from scikit-learn (its estimators and its own
pruning routines run on quercus's tree), or from slow plain-Python re-implementations written
here; no expectation is read back from the pruning code under test (unpruned quercus trees
are the starting point where a test needs one).

The book's example, worked by hand (training rows 1 2 3 6 7 10 14 15 16 17, validation rows
4 5 8 9 11 12 13 of watermelon 2.0; 是 = good melon):

* Root, 5 是 / 5 否. Gain(色泽) = Gain(脐部) = 1 - 0.4 * 1 - 0.4 * H(3/4) = 0.2755 (both split
  the rows into a 2/2 group, a 3/1 group and a pure pair); 根蒂 0.115, 敲声 and 纹理 0.174,
  触感 0. The book takes 脐部; quercus takes the first tied column.
* With 脐部 first: the unpruned tree is figure 4.5: 脐部 = 凹陷 -> 色泽 (青绿 是, 乌黑 是, 浅白 否);
  稍凹 -> 根蒂 (蜷缩 否, 稍蜷 -> 色泽 (青绿 是, 乌黑 -> 纹理 (清晰 否, 稍糊 是, 模糊 是), 浅白 是),
  硬挺 是); 平坦 -> 否. (At 稍凹, 根蒂/敲声/触感 tie at 0.311; at 稍蜷, 色泽/纹理 at 0.252;
  at 凹陷, 色泽/根蒂/纹理 at 0.811: the first column wins each time, as in the book.) It gets
  4 ✓ 5 ✗ 8 ✗ 9 ✗ 11 ✓ 12 ✓ 13 ✗ = 3/7 on validation (42.9%).
* Pre-pruning (figure 4.6): the root as a leaf (是) is right on 4 5 8 = 3/7; split by 脐部 it is
  right on 4 5 8 11 12 = 5/7: split. 凹陷 (rows 4 5 13): 1 error as a leaf, 2 split by 色泽:
  refuse. 稍凹 (rows 8 9): 1 error as a leaf, 1 split by 根蒂: no strict improvement, refuse.
  Result: 脐部 with three leaves 是 是 否, 5/7 (71.4%).
* Reduced error (figure 4.7): 纹理 node (rows 8 9): 2 errors split, 1 as a leaf: prune (57.1%).
  The 色泽 node under 稍蜷 (rows 8 9): 1 vs 1, kept. 色泽 under 凹陷 (rows 4 5 13): 2 vs 1,
  prune (71.4%). 根蒂 (rows 8 9): 1 vs 1, kept. Root: 2 vs 4, kept. Result: 脐部 = 凹陷 -> 是;
  稍凹 -> 根蒂 (蜷缩 否, 稍蜷 -> 色泽 (是, 是, 是), 硬挺 是); 平坦 -> 否, 5/7.
* strict_improvement=False turns every "1 vs 1" above into a prune / a split.
"""

import inspect
import math
import statistics
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.stats import beta
from sklearn import datasets
from sklearn.tree import DecisionTreeClassifier as SkClassifier
from sklearn.tree import DecisionTreeRegressor as SkRegressor
from sklearn.tree._tree import NODE_DTYPE, Tree, _build_pruned_tree_ccp, ccp_pruning_path

import quercus
from quercus import (C45Classifier, CARTClassifier, CARTRegressor, DecisionTreeClassifier,
                     DecisionTreeRegressor, ID3Classifier, export_dict)
from quercus._kernels.schema import LEAF, NUMERIC
from quercus._pruning import added_errors, choose_alpha, weakest_link_path
from quercus._target import Target
from quercus.datasets import load_golf, load_watermelon, watermelon_train_validation_split

BOOK_COLUMNS = ["脐部", "色泽", "根蒂", "敲声", "纹理", "触感"]


# ============================================================== helpers
def _shape(est):
    """The tree as nested (feature, {condition: subtree}) with class labels at the leaves."""
    def rec(d):
        if d["kind"] == "leaf":
            return d["class"] if "class" in d else d["value"]
        return (d["feature"], {c["condition"]: rec(c["node"]) for c in d["children"]})
    return rec(export_dict(est))


def _root_count(args):
    """How many roots a ``grow_subtree`` call with ``args`` grows (its ``root_start``)."""
    from quercus._kernels.subtree import grow_subtree
    names = list(inspect.signature(grow_subtree.py_func).parameters)
    return args[names.index("root_start")].size - 1


def _h(*counts):
    n = sum(counts)
    return -sum(c / n * math.log2(c / n) for c in counts if c)


def _tree_fields(tree):
    return {k: v.copy() for k, v in tree.__dict__.items()}


def _first_seen(y):
    order = []
    for v in y:
        if v not in order:
            order.append(v)
    return {v: i for i, v in enumerate(order)}


def _node_label(est, node, priority):
    """Majority class of a node's training counts, ties to the class seen first in y."""
    v = est.tree_.value[node]
    top = v.max()
    tied = [c for c, x in zip(est.classes_, v) if x == top]
    return min(tied, key=lambda c: priority[c])


def _path(tree, x):
    """Nodes visited by row ``x`` in a tree of numeric splits (left: x <= threshold)."""
    node, out = 0, [0]
    while tree.kind[node] != LEAF:
        assert tree.kind[node] == NUMERIC
        left, right = tree.children(node)
        node = left if x[tree.feature[node]] <= tree.threshold[node] else right
        out.append(node)
    return out


def _match(pruned, orig):
    """Map every node of ``pruned`` to the node of ``orig`` at the same place, checking that
    ``pruned`` is ``orig`` with some internal nodes turned into leaves (same splits, same
    stored values). Returns (map, original nodes made leaves)."""
    m, cut = {}, set()
    stack = [(0, 0)]
    while stack:
        p, o = stack.pop()
        m[p] = o
        np.testing.assert_array_equal(pruned.value[p], orig.value[o])
        assert pruned.weighted_n_node_samples[p] == orig.weighted_n_node_samples[o]
        if pruned.kind[p] == LEAF:
            if orig.kind[o] != LEAF:
                cut.add(o)
            continue
        assert pruned.kind[p] == orig.kind[o]
        assert pruned.feature[p] == orig.feature[o]
        assert pruned.threshold[p] == orig.threshold[o]
        assert pruned.n_children[p] == orig.n_children[o]
        stack.extend(zip(pruned.children(p), orig.children(o)))
    return m, cut


def _check_structure(est, X, y):
    """Invariants of a fitted (pruned) tree on its complete training data (no missing
    values): children stored after their parent with depth + 1, weights add up, every
    training row ends in exactly one leaf, every node's stored class counts are those of
    the training rows passing through it (an empty branch keeps its parent's counts)."""
    t = est.tree_
    par = t.parent()
    assert par[0] == -1
    for i in range(t.node_count):
        if t.kind[i] != LEAF:
            kids = t.children(i)
            assert min(kids) > i
            assert all(t.depth[c] == t.depth[i] + 1 for c in kids)
            assert t.weighted_n_node_samples[i] == pytest.approx(
                sum(t.weighted_n_node_samples[c] for c in kids))
            filled = [c for c in kids if t.weighted_n_node_samples[c] > 0]
            np.testing.assert_allclose(t.value[i], t.value[filled].sum(axis=0))
    assert (t.kind[est.apply(X)] == LEAF).all()
    paths = est.decision_path(X).toarray().astype(bool)
    assert (paths[:, t.kind == LEAF].sum(axis=1) == 1).all()
    y = np.asarray(y)
    for i in range(t.node_count):
        rows = paths[:, i]
        if rows.any():
            counts = [np.sum(rows & (y == c)) for c in est.classes_]
            np.testing.assert_allclose(t.value[i], counts, err_msg=f"node {i}")
        else:
            assert t.weighted_n_node_samples[i] == 0
            np.testing.assert_allclose(t.value[i], t.value[par[i]],
                                       err_msg=f"empty node {i}: not its parent's counts")


def _random_classification(seed, n, p=2, k=2, levels=6, noise=0.3):
    """Small integer-valued data (many ties), a threshold rule on x0 plus label noise."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, levels, size=(n, p)).astype(float)
    rule = (X[:, 0] * k // levels).astype(int)
    y = np.where(rng.random(n) < noise, rng.integers(0, k, n), rule)
    return X, np.array([f"c{v}" for v in y], dtype=object)


# ============================================================== 1. the book's example
def _book(columns):
    X_tr, X_va, y_tr, y_va = watermelon_train_validation_split()
    return X_tr[columns], X_va[columns], y_tr, y_va


def _book_fit(columns, pruning, strict=True):
    X_tr, X_va, y_tr, y_va = _book(columns)
    kw = {} if pruning is None else {"eval_set": (X_va, y_va)}
    est = ID3Classifier(pruning=pruning, strict_improvement=strict).fit(X_tr, y_tr, **kw)
    return est, int((est.predict(X_va) == y_va.to_numpy()).sum())


FIG_4_5 = ("脐部", {
    "= 凹陷": ("色泽", {"= 青绿": "是", "= 乌黑": "是", "= 浅白": "否"}),
    "= 稍凹": ("根蒂", {"= 蜷缩": "否",
                      "= 稍蜷": ("色泽", {"= 青绿": "是",
                                         "= 乌黑": ("纹理", {"= 清晰": "否", "= 稍糊": "是",
                                                           "= 模糊": "是"}),
                                         "= 浅白": "是"}),
                      "= 硬挺": "是"}),
    "= 平坦": "否"})
FIG_4_6 = ("脐部", {"= 凹陷": "是", "= 稍凹": "是", "= 平坦": "否"})
FIG_4_7 = ("脐部", {
    "= 凹陷": "是",
    "= 稍凹": ("根蒂", {"= 蜷缩": "否",
                      "= 稍蜷": ("色泽", {"= 青绿": "是", "= 乌黑": "是", "= 浅白": "是"}),
                      "= 硬挺": "是"}),
    "= 平坦": "否"})


def test_book_root_is_a_tie_between_color_and_navel_on_the_ten_training_rows():
    X_tr, _, y_tr, _ = watermelon_train_validation_split()
    gain = 1 - 0.4 * _h(2, 2) - 0.4 * _h(3, 1)  # = 0.2755, by hand
    for columns, winner in ((list(X_tr.columns), "色泽"), (BOOK_COLUMNS, "脐部")):
        table = ID3Classifier().fit(X_tr[columns], y_tr).explain().set_index("feature")
        assert table.loc["色泽", "gain"] == pytest.approx(gain, abs=1e-12)
        assert table.loc["脐部", "gain"] == pytest.approx(gain, abs=1e-12)
        assert table.loc["根蒂", "gain"] == pytest.approx(1 - 0.5 * _h(3, 2) - 0.4, abs=1e-12)
        others = table.drop(index=["色泽", "脐部"])["gain"]
        assert (others < gain - 0.05).all()
        assert table.index[table["chosen"]].tolist() == [winner]  # first tied column wins


def test_book_unpruned_tree_is_figure_4_5_with_validation_accuracy_3_of_7():
    est, correct = _book_fit(BOOK_COLUMNS, None)
    assert _shape(est) == FIG_4_5
    assert correct == 3  # 42.9%
    assert est.pruning_report().empty


def test_book_pre_pruning_is_figure_4_6_with_validation_accuracy_5_of_7():
    est, correct = _book_fit(BOOK_COLUMNS, "pre")
    assert _shape(est) == FIG_4_6
    assert correct == 5  # 71.4%
    report = est.pruning_report()
    # Refused: 色泽 at 凹陷 (2 validation errors split vs 1 as a leaf), 根蒂 at 稍凹 (1 vs 1).
    got = sorted(zip(report["feature"], report["error_before"], report["error_after"]))
    assert got == [("根蒂", 1.0, 1.0), ("色泽", 2.0, 1.0)]
    assert (report["leaves_removed"] == 0).all()
    assert report["reason"].str.startswith("pre-pruning").all()


def test_book_reduced_error_is_figure_4_7_with_validation_accuracy_5_of_7():
    est, correct = _book_fit(BOOK_COLUMNS, "reduced_error")
    assert _shape(est) == FIG_4_7
    assert correct == 5  # 71.4%
    report = est.pruning_report()
    # The book's order: node 6 (纹理) first, 42.9% -> 57.1%, then node 2 (色泽 at 凹陷),
    # 57.1% -> 71.4%; nodes 5 (色泽 at 稍蜷), 3 (根蒂) and 1 are kept.
    assert report[["feature", "error_before", "error_after"]].values.tolist() == [
        ["纹理", 2.0, 1.0], ["色泽", 2.0, 1.0]]
    assert report["leaves_removed"].tolist() == [2, 2]
    # The report's node ids are those of the pruned tree: 色泽's node is the 凹陷 leaf.
    _, X_va, _, _ = _book(BOOK_COLUMNS)
    concave = X_va[X_va["脐部"] == "凹陷"]
    assert set(est.apply(concave)) == {int(report["node"].iloc[1])}
    assert est.tree_.kind[int(report["node"].iloc[0])] == LEAF  # the 乌黑 leaf under 稍蜷


def test_book_post_pruning_keeps_more_branches_than_pre_pruning():
    pre, _ = _book_fit(BOOK_COLUMNS, "pre")
    post, _ = _book_fit(BOOK_COLUMNS, "reduced_error")
    full, _ = _book_fit(BOOK_COLUMNS, None)
    assert (pre.get_n_leaves(), post.get_n_leaves(), full.get_n_leaves()) == (3, 7, 11)


def test_book_non_strict_improvement_splits_and_prunes_on_equal_validation_error():
    # Pre-pruning: 根蒂 at 稍凹 (1 vs 1) and 色泽 at 稍蜷 (1 vs 1) are now split; 纹理 at 乌黑
    # (2 vs 1) and 色泽 at 凹陷 (2 vs 1) are still refused: the result is figure 4.7's shape.
    pre, correct = _book_fit(BOOK_COLUMNS, "pre", strict=False)
    assert _shape(pre) == FIG_4_7
    assert correct == 5
    report = pre.pruning_report()
    assert sorted(zip(report["feature"], report["error_before"], report["error_after"])) == [
        ("纹理", 2.0, 1.0), ("色泽", 2.0, 1.0)]
    assert report["reason"].str.contains("raises").all()
    # Reduced error: 色泽 at 稍蜷 (1 vs 1) and 根蒂 (1 vs 1) are pruned too: figure 4.6.
    post, correct = _book_fit(BOOK_COLUMNS, "reduced_error", strict=False)
    assert _shape(post) == FIG_4_6
    assert correct == 5
    report = post.pruning_report()
    assert sorted(report["feature"]) == ["根蒂", "纹理", "色泽", "色泽"]
    assert (report["error_after"] <= report["error_before"]).all()


def test_book_original_column_order_roots_at_color_with_hand_computed_accuracies():
    """色泽 first: 青绿 (1 6 10 17) -> 敲声 (gain 1: 浊响 是, 沉闷 否, 清脆 否); 乌黑 (2 3 7 15)
    -> 根蒂 (tied with 脐部 and 触感 at 0.311; 蜷缩 是, 稍蜷 -> 纹理 (清晰 否, 稍糊 是, 模糊 是),
    硬挺 是); 浅白 -> 否. Validation: 4 青绿/沉闷 否 ✗, 5 浅白 否 ✗, 8 乌黑/稍蜷/清晰 否 ✗,
    9 乌黑/稍蜷/稍糊 是 ✗, 11 ✓, 12 ✓, 13 青绿/浊响 是 ✗: 2/7.
    Pre-pruning: root leaf 3/7 vs 色泽 4/7 (青绿 and 乌黑 tie-free: 是 2/2 -> 是, 3/1 -> 是):
    split; 青绿 (4 13): 1 error as a leaf, 2 split by 敲声: refuse; 乌黑 (8 9): 1 vs 1: refuse
    (strict) or split, then 稍蜷 (8 9): 1 vs 2 by 纹理: refuse. Reduced error: 纹理 2 -> 1
    pruned; 根蒂 1 vs 1 kept (strict) / pruned; 敲声 2 -> 1 pruned; root 3 vs 4 kept."""
    cols = list(watermelon_train_validation_split()[0].columns)
    assert cols[0] == "色泽"
    full_shape = ("色泽", {
        "= 青绿": ("敲声", {"= 浊响": "是", "= 沉闷": "否", "= 清脆": "否"}),
        "= 乌黑": ("根蒂", {"= 蜷缩": "是",
                          "= 稍蜷": ("纹理", {"= 清晰": "否", "= 稍糊": "是", "= 模糊": "是"}),
                          "= 硬挺": "是"}),
        "= 浅白": "否"})
    three = ("色泽", {"= 青绿": "是", "= 乌黑": "是", "= 浅白": "否"})
    five = ("色泽", {"= 青绿": "是", "= 乌黑": ("根蒂", {"= 蜷缩": "是", "= 稍蜷": "是",
                                                      "= 硬挺": "是"}), "= 浅白": "否"})
    expected = {(None, True): (full_shape, 2), (None, False): (full_shape, 2),
                ("pre", True): (three, 4), ("pre", False): (five, 4),
                ("reduced_error", True): (five, 4), ("reduced_error", False): (three, 4)}
    for (pruning, strict), (shape, correct) in expected.items():
        est, got = _book_fit(cols, pruning, strict)
        assert (_shape(est), got) == (shape, correct), (pruning, strict)
    est, _ = _book_fit(cols, "reduced_error", True)
    report = est.pruning_report()
    assert sorted(zip(report["feature"], report["error_before"], report["error_after"])) == [
        ("敲声", 2.0, 1.0), ("纹理", 2.0, 1.0)]


def test_book_validation_weights_scale_the_reported_errors():
    X_tr, X_va, y_tr, y_va = _book(BOOK_COLUMNS)
    est = ID3Classifier(pruning="reduced_error").fit(
        X_tr, y_tr, eval_set=(X_va, y_va, np.full(len(y_va), 2.0)))
    assert _shape(est) == FIG_4_7
    report = est.pruning_report()
    assert report[["error_before", "error_after"]].values.tolist() == [[4.0, 2.0], [4.0, 2.0]]
    full = ID3Classifier().fit(X_tr, y_tr)
    pruned = quercus.prune(full, "reduced_error", X_va, y_va,
                           sample_weight=np.full(len(y_va), 3.0))
    assert _shape(pruned) == FIG_4_7
    assert pruned.pruning_report()["error_before"].tolist() == [6.0, 6.0]


def test_book_reduced_error_counts_validation_rows_stopping_at_a_node_on_both_sides():
    """Two extra validation rows like row 8 but with a 纹理 never seen in training, labelled
    否: they stop at the 纹理 node and are predicted by its distribution (是, a 1/1 tie)
    whether the node is pruned or not, so they cannot change the decision there. Counted
    on both sides: split 2 + 2 = 4 errors vs 3 as a leaf, pruned as in the book; 色泽 at
    稍蜷 (3 vs 3) and 根蒂 (3 vs 3) are kept, 色泽 at 凹陷 pruned: figure 4.7 again."""
    X_tr, X_va, y_tr, y_va = _book(BOOK_COLUMNS)
    extra = X_va.loc[[8, 8]].copy()
    extra["纹理"] = "奇怪"
    extra.index = [100, 101]
    X_val = pd.concat([X_va, extra])
    y_val = pd.concat([y_va, pd.Series(["否", "否"], index=extra.index)])
    full = ID3Classifier().fit(X_tr, y_tr)
    textures = full.tree_.feature == BOOK_COLUMNS.index("纹理")
    assert set(full.apply(extra)) == set(np.flatnonzero(textures))  # they stop there
    est = ID3Classifier(pruning="reduced_error").fit(X_tr, y_tr, eval_set=(X_val, y_val))
    assert _shape(est) == FIG_4_7, est.pruning_report()
    assert _shape(quercus.prune(full, "reduced_error", X_val, y_val)) == FIG_4_7


# ============================================================== 2. scikit-learn's path
def _runs(alphas, risks, rtol=1e-9):
    """Collapse runs of equal alphas (scikit-learn prunes tied weakest links one at a time,
    quercus all at once; tied alphas can differ in the last bits): keep each alpha once,
    with the risk after its last step."""
    a_out, r_out = [], []
    for a, r in zip(alphas, risks):
        if a_out and abs(a - a_out[-1]) <= rtol * max(abs(a), abs(a_out[-1])) + 1e-15:
            r_out[-1] = r
        else:
            a_out.append(float(a))
            r_out.append(float(r))
    return np.array(a_out), np.array(r_out)


def _sk_tree_from(est, n_features):
    """quercus's tree as a scikit-learn Tree (structure, impurity, weights, values)."""
    t = est.tree_
    nodes = np.zeros(t.node_count, dtype=NODE_DTYPE)
    for i in range(t.node_count):
        if t.kind[i] == LEAF:
            nodes[i]["left_child"] = nodes[i]["right_child"] = -1
            nodes[i]["feature"], nodes[i]["threshold"] = -2, -2.0
        else:
            assert t.kind[i] == NUMERIC
            nodes[i]["left_child"], nodes[i]["right_child"] = t.children(i)
            nodes[i]["feature"], nodes[i]["threshold"] = t.feature[i], t.threshold[i]
        nodes[i]["impurity"] = t.impurity[i]
        nodes[i]["n_node_samples"] = t.n_node_samples[i]
        nodes[i]["weighted_n_node_samples"] = t.weighted_n_node_samples[i]
    n_out = t.value.shape[1]
    tree = Tree(n_features, np.array([n_out], dtype=np.intp), 1)
    tree.__setstate__({"max_depth": int(t.depth.max()), "node_count": t.node_count,
                       "nodes": nodes,
                       "values": np.ascontiguousarray(t.value[:, None, :], dtype=np.float64)})
    return tree


_SK_DATA = {}


def _sk_data(name):
    if name not in _SK_DATA:
        X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
        X = X.astype(np.float32).astype(np.float64)  # scikit-learn's own precision
        if name != "diabetes":
            order = np.argsort(y, kind="stable")  # first-seen class = smallest label
            X, y = X[order], y[order]
        _SK_DATA[name] = X, y
    return _SK_DATA[name]


def _partition(est, X):
    """The set of training-row subsets of the nodes: equal for two trees exactly when they
    split the rows the same way (tied splits that partition alike are then harmless)."""
    paths = est.decision_path(X).toarray().astype(bool).T
    return sorted(np.packbits(col).tobytes() for col in paths)


def _tie_matched_sklearn(q, X, y, criterion):
    """The first scikit-learn random_state (from 0) whose tree partitions the training rows
    exactly as quercus's tree does (scikit-learn breaks feature ties at random, quercus by
    column order)."""
    target = _partition(q, X)
    for rs in range(50):
        sk = SkClassifier(criterion=criterion, random_state=rs).fit(X, y)
        if _partition(sk, X) == target:
            return rs
    raise AssertionError("no scikit-learn random_state below 50 grows quercus's tree")


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("name", ["breast_cancer", "iris", "wine"])
def test_weakest_link_path_equals_sklearn_cost_complexity_pruning_path(name, criterion):
    X, y = _sk_data(name)
    q = DecisionTreeClassifier(criterion=criterion, max_bins=None).fit(X, y)
    rs = _tie_matched_sklearn(q, X, y, criterion)
    path = SkClassifier(criterion=criterion, random_state=rs).cost_complexity_pruning_path(X, y)
    alphas, risks, steps = weakest_link_path(Target.of(q), q.tree_, "impurity")
    sk_a, sk_r = _runs(path.ccp_alphas, path.impurities)
    q_a, q_r = _runs(alphas, risks)
    np.testing.assert_allclose(q_a, sk_a, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(q_r, sk_r, rtol=1e-9, atol=1e-15)
    assert alphas[0] == 0.0 and steps[0] == [] and steps[-1] == [0]
    assert np.all(np.diff(alphas) >= 0)
    if criterion == "entropy":  # the seeds' N_t H_t is the same thing on an entropy tree
        a2, r2, _ = weakest_link_path(Target.of(q), q.tree_, "entropy")
        np.testing.assert_allclose(a2, alphas, rtol=1e-9, atol=1e-15)
        np.testing.assert_allclose(r2, risks, rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize("name", ["breast_cancer", "iris", "wine", "diabetes"])
def test_weakest_link_path_equals_sklearn_ccp_pruning_path_on_the_same_tree(name):
    """scikit-learn's own routine run on quercus's tree: immune to split ties."""
    X, y = _sk_data(name)
    q = (DecisionTreeRegressor(max_bins=None) if name == "diabetes"
         else CARTClassifier(max_bins=None)).fit(X, y)
    path = ccp_pruning_path(_sk_tree_from(q, X.shape[1]))
    sk_a, sk_r = _runs(path["ccp_alphas"], path["impurities"])
    q_a, q_r = _runs(*weakest_link_path(Target.of(q), q.tree_, "impurity")[:2])
    np.testing.assert_allclose(q_a, sk_a, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(q_r, sk_r, rtol=1e-9, atol=1e-12)


def test_regressor_weakest_link_path_equals_sklearn_on_diabetes():
    X, y = _sk_data("diabetes")
    q = DecisionTreeRegressor(max_bins=None).fit(X, y)
    path = SkRegressor(random_state=0).cost_complexity_pruning_path(X, y)
    sk_a, sk_r = _runs(path.ccp_alphas, path.impurities)
    q_a, q_r = _runs(*weakest_link_path(Target.of(q), q.tree_, "impurity")[:2])
    assert len(sk_a) > 100  # a long path with many tied alphas
    np.testing.assert_allclose(q_a, sk_a, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(q_r, sk_r, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", ["breast_cancer", "iris", "wine"])
def test_cart_ccp_alpha_matches_sklearn_ccp_alpha_between_path_alphas(name):
    X, y = _sk_data(name)
    q_full = CARTClassifier(max_bins=None).fit(X, y)
    rs = _tie_matched_sklearn(q_full, X, y, "gini")
    path = SkClassifier(random_state=rs).cost_complexity_pruning_path(X, y)
    a, _ = _runs(path.ccp_alphas, path.impurities)
    mids = (a[1:] + a[:-1]) / 2
    assert len(mids) >= 5
    rng = np.random.default_rng(0)
    X_new = (X + rng.normal(scale=0.05, size=X.shape) * X.std(axis=0)).astype(np.float32)
    sk_full = _sk_tree_from(q_full, X.shape[1])
    for alpha in mids:
        q = CARTClassifier(ccp_alpha=alpha, max_bins=None).fit(X, y)
        sk = SkClassifier(random_state=rs, ccp_alpha=alpha).fit(X, y)
        assert q.get_n_leaves() == sk.get_n_leaves(), alpha
        assert q.get_depth() == sk.get_depth(), alpha
        np.testing.assert_array_equal(q.predict(X), sk.predict(X))
        np.testing.assert_allclose(q.predict_proba(X), sk.predict_proba(X), atol=1e-12)
        # new rows: against scikit-learn's pruning of quercus's own tree (tied splits that
        # partition the training rows alike may still route new rows differently)
        sk_tree = Tree(X.shape[1], np.array([len(q.classes_)], dtype=np.intp), 1)
        _build_pruned_tree_ccp(sk_tree, sk_full, alpha)
        counts = sk_tree.predict(X_new).reshape(len(X_new), -1)
        np.testing.assert_allclose(q.predict_proba(X_new.astype(np.float64)),
                                   counts / counts.sum(axis=1, keepdims=True), atol=1e-12)
        assert q.ccp_alpha_ == alpha
        assert q.pruning_report()["reason"].str.startswith("weakest link").all()
        # quercus.prune of the full tree gives the same tree.
        pruned = quercus.prune(q_full, "cost_complexity", ccp_alpha=alpha)
        assert export_dict(pruned) == export_dict(q)


def test_regressor_ccp_alpha_matches_sklearn_pruning_of_the_same_tree():
    X, y = _sk_data("diabetes")
    q_full = DecisionTreeRegressor(max_bins=None).fit(X, y)
    sk_full = _sk_tree_from(q_full, X.shape[1])
    a, _ = _runs(*weakest_link_path(Target.of(q_full), q_full.tree_, "impurity")[:2])
    picks = (a[1:] + a[:-1])[np.linspace(0, len(a) - 2, 12).astype(int)] / 2
    X32 = X.astype(np.float32)
    for alpha in picks:
        q = DecisionTreeRegressor(ccp_alpha=alpha, max_bins=None).fit(X, y)
        sk = Tree(X.shape[1], np.array([1], dtype=np.intp), 1)
        _build_pruned_tree_ccp(sk, sk_full, alpha)
        assert q.get_n_leaves() == int((sk.children_left == -1).sum()), alpha
        np.testing.assert_allclose(q.predict(X), sk.predict(X32).reshape(-1), rtol=1e-12)
    # and against scikit-learn's own estimator where its tree is not affected by ties
    big = a[-4:-1] + (a[-3:] - a[-4:-1]) / 2
    for alpha in big:
        q = DecisionTreeRegressor(ccp_alpha=alpha, max_bins=None).fit(X, y)
        sk = SkRegressor(random_state=0, ccp_alpha=alpha).fit(X, y)
        assert q.get_n_leaves() == sk.get_n_leaves()
        np.testing.assert_allclose(q.predict(X), sk.predict(X), rtol=1e-12)


# ============================================================== 3. complexity table by hand
def _nested(est):
    """Numeric one-feature tree as (threshold, left, right), leaves as class-count tuples."""
    t = est.tree_

    def rec(i):
        if t.kind[i] == LEAF:
            return tuple(int(v) for v in t.value[i])
        left, right = t.children(i)
        return (float(t.threshold[i]), rec(left), rec(right))
    return rec(0)


def _hand_weakest_link(tree):
    """Breiman's weakest-link sequence on a nested tree, with exact fractions and the
    misclassification loss R(t) = (n_t - max class count) / N. Returns rows of
    (alpha, R(T), n_splits, n_leaves)."""
    def counts(t):
        if len(t) == 2:
            return t
        a, b = counts(t[1]), counts(t[2])
        return tuple(x + y for x, y in zip(a, b))

    N = sum(counts(tree))

    def risk(t):
        c = counts(t)
        return Fraction(sum(c) - max(c), N)

    pruned = set()  # paths (tuples of 1/2) of the internal nodes made leaves

    def leaves(t, path):
        if len(t) == 2 or path in pruned:
            return [t]
        return leaves(t[1], path + (1,)) + leaves(t[2], path + (2,))

    def internal(t, path):
        if len(t) == 2 or path in pruned:
            return []
        return [(t, path)] + internal(t[1], path + (1,)) + internal(t[2], path + (2,))

    def row(alpha):
        lv = leaves(tree, ())
        return alpha, sum(risk(x) for x in lv), len(internal(tree, ())), len(lv)

    rows = [row(Fraction(0))]
    while internal(tree, ()):
        g = {path: (risk(t) - sum(risk(x) for x in leaves(t, path))) / (len(leaves(t, path)) - 1)
             for t, path in internal(tree, ())}
        best = min(g.values())
        pruned |= {p for p, v in g.items() if v == best}
        rows.append(row(best))
    return rows


# x = 1..12. Gini grows these trees (checked in the test); counts are (A, B).
HAND_CASES = {
    # The two children of the root have the same g = 1/24: one step prunes both.
    "AAABAABBBABB": (6.5, (3.5, (3, 0), (4.5, (0, 1), (2, 0))),
                     (9.5, (0, 3), (10.5, (1, 0), (0, 2)))),
    # One node per step: g = 1/2, then 1, then 4 (in units of 1/12).
    "AAAABBABBBBA": (4.5, (4, 0), (11.5, (7.5, (6.5, (0, 2), (1, 0)), (0, 4)), (1, 0))),
}
HAND_EXPECTED = {  # alpha, R(T), n_splits, n_leaves, worked by hand
    "AAABAABBBABB": [(Fraction(0), Fraction(0), 5, 6), (Fraction(1, 24), Fraction(2, 12), 1, 2),
                     (Fraction(1, 3), Fraction(6, 12), 0, 1)],
    "AAAABBABBBBA": [(Fraction(0), Fraction(0), 4, 5), (Fraction(1, 24), Fraction(1, 12), 2, 3),
                     (Fraction(1, 12), Fraction(2, 12), 1, 2),
                     (Fraction(1, 3), Fraction(6, 12), 0, 1)],
}


@pytest.mark.parametrize("labels", sorted(HAND_CASES))
def test_cp_table_matches_a_hand_worked_weakest_link_sequence(labels):
    y = list(labels)
    X = pd.DataFrame({"x": np.arange(1, len(y) + 1, dtype=float)})
    full = CARTClassifier().fit(X, y)
    assert _nested(full) == HAND_CASES[labels]
    rows = _hand_weakest_link(HAND_CASES[labels])
    assert rows == HAND_EXPECTED[labels]
    r_root = Fraction(6, 12)
    est = CARTClassifier(pruning="cost_complexity", ccp_loss="error", cv=3,
                         cp=0.0, random_state=0).fit(X, y)
    table = est.cp_table_
    assert list(table.columns) == ["alpha", "cp", "n_splits", "n_leaves", "rel_error",
                                   "xerror", "xstd"]
    np.testing.assert_allclose(table["alpha"], [float(r[0]) for r in rows], atol=1e-15)
    np.testing.assert_allclose(table["cp"], [float(r[0] / r_root) for r in rows], atol=1e-15)
    np.testing.assert_allclose(table["rel_error"], [float(r[1] / r_root) for r in rows],
                               atol=1e-15)
    assert table["n_splits"].tolist() == [r[2] for r in rows]
    assert table["n_leaves"].tolist() == [r[3] for r in rows]
    assert ((table["xerror"] >= 0) & (table["xerror"] <= 2)).all()
    assert (table["xstd"] >= 0).all()
    assert abs(table["xerror"].iloc[-1] - 1.0) <= 0.5  # the root alone: about 1
    # weakest_link_path itself, with the same loss
    alphas, risks, _ = weakest_link_path(Target.of(full), full.tree_, "error")
    np.testing.assert_allclose(alphas, [float(r[0]) for r in rows], atol=1e-15)
    np.testing.assert_allclose(risks, [float(r[1]) for r in rows], atol=1e-15)
    # the chosen alpha is the table's, and the fitted tree is that row's tree
    assert est.ccp_alpha_ == choose_alpha(table, "1se")
    chosen = table[np.isclose(table["alpha"], est.ccp_alpha_)]
    assert est.get_n_leaves() == chosen["n_leaves"].min()


def _table(xerror, xstd):
    n = len(xerror)
    return pd.DataFrame({"alpha": np.arange(n) / 100.0, "cp": np.arange(n) / 50.0,
                         "n_splits": np.arange(n)[::-1], "n_leaves": np.arange(n)[::-1] + 1,
                         "rel_error": np.linspace(0.2, 1, n), "xerror": xerror, "xstd": xstd})


def test_choose_alpha_min_takes_the_lowest_xerror_and_1se_the_smallest_tree_within_one_se():
    # minimum 0.45 at alpha 0.02 (xstd 0.06): the 1-SE bound is 0.51; 0.05 is within it,
    # 0.03 (0.55) is not but does not stop the search; 0.04 (0.52) is just outside.
    t = _table([0.60, 0.50, 0.45, 0.55, 0.52, 0.50, 0.90],
               [0.08, 0.07, 0.06, 0.07, 0.07, 0.07, 0.09])
    assert choose_alpha(t, "min") == 0.02
    assert choose_alpha(t, "1se") == 0.05
    # a smaller standard error at the minimum narrows the choice
    t2 = _table([0.60, 0.50, 0.45, 0.55, 0.52, 0.50, 0.90],
                [0.08, 0.07, 0.01, 0.07, 0.07, 0.07, 0.09])
    assert choose_alpha(t2, "1se") == 0.02


def test_choose_alpha_ties_go_to_the_smaller_tree():
    t = _table([0.70, 0.40, 0.40, 0.80], [0.1, 0.05, 0.02, 0.1])
    assert choose_alpha(t, "min") == 0.02
    # 1se measures from the smaller tied tree (xstd 0.02): bound 0.42
    assert choose_alpha(t, "1se") == 0.02
    t = _table([0.70, 0.40, 0.40, 0.41], [0.1, 0.05, 0.02, 0.1])
    assert choose_alpha(t, "1se") == 0.03


def test_cv_rule_min_and_1se_on_a_fitted_table():
    y = list("AAAABBABBBBA")
    X = pd.DataFrame({"x": np.arange(1, 13, dtype=float)})
    for rule in ("min", "1se"):
        est = CARTClassifier(pruning="cost_complexity", ccp_loss="error", cv=3, cv_rule=rule,
                             random_state=0).fit(X, y)
        x, s = est.cp_table_["xerror"].to_numpy(), est.cp_table_["xstd"].to_numpy()
        best = np.flatnonzero(x == x.min())[-1]
        bound = x.min() if rule == "min" else x.min() + s[best]
        expected = est.cp_table_["alpha"].to_numpy()[np.flatnonzero(x <= bound + 1e-12)[-1]]
        assert est.ccp_alpha_ == expected


def test_cp_table_xerror_of_the_full_tree_and_of_the_root_by_hand():
    """With a CV splitter: the first row (alpha 0) is each fold's full tree, the last row
    the root alone (each fold predicts its training majority, ties to the class seen
    first); both are counted here fold by fold and scaled by the root's training errors."""
    from sklearn.model_selection import KFold
    X, y = _random_classification(5, 60, 2, 2)
    splitter = KFold(4, shuffle=True, random_state=0)
    est = CARTClassifier(pruning="cost_complexity", cv=splitter, cp=0.0).fit(X, y)
    table = est.cp_table_
    root_err = len(y) - max(np.sum(y == c) for c in np.unique(y))
    full_err = root_only_err = 0
    for train, test in splitter.split(X):
        fold = CARTClassifier().fit(X[train], y[train])
        full_err += int(np.sum(fold.predict(X[test]) != y[test]))
        priority = _first_seen(y[train])
        counts = {c: np.sum(y[train] == c) for c in priority}
        top = max(counts.values())
        majority = min((c for c in counts if counts[c] == top), key=priority.get)
        root_only_err += int(np.sum(y[test] != majority))
    assert table["xerror"].iloc[0] == pytest.approx(full_err / root_err, rel=1e-12)
    assert table["xerror"].iloc[-1] == pytest.approx(root_only_err / root_err, rel=1e-12)
    # the columns that do not depend on the folds are those of the plain path
    alphas, risks, _ = weakest_link_path(Target.of(est), CARTClassifier().fit(X, y).tree_,
                                         "impurity")
    np.testing.assert_allclose(table["alpha"], alphas, atol=1e-15)
    np.testing.assert_allclose(table["rel_error"], risks / risks[-1], atol=1e-12)


@pytest.mark.parametrize("loss", ["impurity", "error"])
def test_cp_table_xerror_is_each_fold_s_surrogate_tree_pruned_at_each_row_s_alpha(loss):
    """Every row's xerror, counted here fold by fold: each fold's tree grown as a user
    would grow it with rpart's surrogates at every node, pruned at the row's evaluation alpha (the
    geometric mean of the row's alpha interval) and scored on its held-out rows. The table
    itself grows the folds without surrogates (no row has a missing value, so none routes
    by them) and scores all alphas of a fold in one kernel call."""
    from sklearn.model_selection import KFold
    X, y = _random_classification(8, 90, 3, 3)
    splitter = KFold(5, shuffle=True, random_state=0)
    params = dict(pruning="cost_complexity", ccp_loss=loss)
    table = CARTClassifier(cv=splitter, **params).fit(X, y).cp_table_
    alphas = table["alpha"].to_numpy()
    upper = np.append(alphas[1:], np.inf)
    eval_alpha = np.sqrt(alphas * upper)
    # An alpha of 0 evaluates the smallest subtree of the full tree's risk (steps of alpha 0
    # pruned: a tiny alpha, as ccp_alpha=0 means no pruning at all); the last row, the
    # root alone.
    eval_alpha[eval_alpha == 0.0] = 1e-15
    eval_alpha[-1] = alphas[-1] + 1.0
    assert len(alphas) > 3
    errors = np.zeros(len(alphas))
    for train, test in splitter.split(X):
        for i, a in enumerate(eval_alpha):
            fold = CARTClassifier(ccp_alpha=a, surrogates="always", **params).fit(
                X[train], y[train])
            assert fold.tree_.sur_count.sum() > 0 or fold.tree_.node_count == 1
            errors[i] += np.sum(fold.predict(X[test]) != y[test])
    root_err = len(y) - max(np.sum(y == c) for c in np.unique(y))
    np.testing.assert_allclose(table["xerror"], errors / root_err, rtol=1e-12)


def test_cv_folds_grow_from_the_whole_data_s_encoding_without_encoding_again(monkeypatch):
    """The data is encoded once: each fold grows and is scored from its rows of the whole
    data's encoding, with the whole data's categories (rpart's folds keep the data's factor
    levels). A fold that misses a rare category still gives the table that folds fitted
    from a Categorical of every category give, counted here fold by fold."""
    from sklearn.model_selection import KFold

    from quercus import _prepare
    rng = np.random.default_rng(3)
    n = 150
    X = pd.DataFrame({"a": rng.choice(["p", "q", "r", "rare"], n, p=[.4, .3, .28, .02]),
                      "b": rng.choice(["u", "v", "w"], n)})
    y = np.where((X["a"] == "p") ^ (rng.random(n) < 0.2), "yes", "no")
    splitter = KFold(5, shuffle=True, random_state=1)
    folds = list(splitter.split(X))
    assert any((X["a"].iloc[train] != "rare").all() for train, _ in folds)
    params = dict(pruning="cost_complexity", cv=splitter, categorical_split="multiway",
                  max_surrogate=0)
    calls = []
    for name in ("fit_schema_and_encode", "encode"):
        real = getattr(_prepare, name)
        monkeypatch.setattr(_prepare, name,
                            lambda *a, real=real, name=name, **k: calls.append(name) or
                            real(*a, **k))
    table = CARTClassifier(**params).fit(X, y).cp_table_
    assert calls == ["fit_schema_and_encode"]
    monkeypatch.undo()
    cats = X.apply(lambda c: pd.Categorical(c, categories=pd.unique(c)))
    pd.testing.assert_frame_equal(CARTClassifier(**params).fit(cats, y).cp_table_, table)
    full_err = 0
    for train, test in folds:
        fold = CARTClassifier(categorical_split="multiway", max_surrogate=0).fit(
            cats.iloc[train], y[train])
        full_err += int(np.sum(fold.predict(cats.iloc[test]) != y[test]))
    root_err = n - max(np.sum(y == c) for c in np.unique(y))
    assert table["xerror"].iloc[0] == pytest.approx(full_err / root_err, rel=1e-12)


def _fold_table_data(case):
    """Data for the fold-binning tests: continuous values with missing ones and a class
    of one row (absent from one fold's training rows), a regression, and numeric plus
    categorical columns."""
    rng = np.random.default_rng(11)
    n = 120
    x0 = rng.normal(size=n).round(2)
    x1 = rng.normal(size=n)
    x1[rng.random(n) < 0.15] = np.nan
    X = pd.DataFrame({"x0": x0, "x1": x1})
    if case == "regression":
        return X, x0 * 2 + np.nan_to_num(x1) + rng.normal(size=n) * 0.3
    y = np.where(x0 + np.nan_to_num(x1) + rng.normal(size=n) * 0.5 > 0, "hi", "lo")
    y = y.astype(object)
    y[7] = "lone"
    if case == "categorical":
        X["c"] = pd.Categorical(rng.choice(list("pqrs"), n))
    return X, y


FOLD_CASES = {
    "continuous, missing values, a lone class": dict(),
    "regression": dict(),
    "categorical": dict(categorical_split="multiway", class_weight="balanced"),
    "random splitter": dict(splitter="random", random_state=4),
}


@pytest.mark.parametrize("case", sorted(FOLD_CASES))
def test_cv_folds_grown_on_their_rows_of_the_whole_data_s_bins_give_the_table_of_binning_each_fold(
        monkeypatch, case):
    """With exact bins, a fold grows on its rows of the whole data's bins (values it lacks
    leave empty bins, which no node sees): the same trees, so the same table to the bit,
    as binning each fold's rows again; the data is binned once."""
    from sklearn.model_selection import KFold

    from quercus import _fit
    tables, binned = _tables_with_and_without_fold_bins(
        monkeypatch, case, (_fit,), max_surrogate=0, max_bins=None, cv=KFold(
            10, shuffle=True, random_state=2))
    assert binned == {True: 1, False: 11}
    pd.testing.assert_frame_equal(tables[True], tables[False], check_exact=True)
    assert len(tables[True]) > 2


LEAN_FOLD_CASES = {
    "continuous, missing values, a lone class": ("continuous", CARTClassifier, {}),
    "surrogates": ("continuous", CARTClassifier, dict(max_surrogate=3)),
    "quantile bins": ("continuous", CARTClassifier, dict(max_bins=16, max_surrogate=0)),
    "balanced classes, error loss": ("categorical", CARTClassifier, dict(
        class_weight="balanced", ccp_loss="error")),
    "entropy, fractional sizes": ("categorical", CARTClassifier, dict(
        criterion="entropy", ccp_loss="entropy", min_samples_split=0.05,
        min_samples_leaf=0.02, min_weight_fraction_leaf=0.01)),
    "regression": ("regression", CARTRegressor, {}),
    "regression, weights": ("regression", CARTRegressor, dict(max_bins=32)),
}


@pytest.mark.parametrize("case", sorted(LEAN_FOLD_CASES))
def test_cv_folds_fitted_from_their_bins_alone_give_the_table_of_the_whole_fit_pipeline(
        monkeypatch, case):
    """A fold's fit from its bins, labels and weights (``_fit_fold_bins``, which skips
    the pipeline's hold-out, binning and pruning steps) is the same table, to the bit, as
    running every fold through ``fit_encoded``."""
    # (the two-call path: a small table's tree and folds grown by one call are
    # test_small_cv.py's)
    monkeypatch.setattr("quercus._small_cv.ENABLED", False)
    from quercus import _fit
    data, cls, params = LEAN_FOLD_CASES[case]
    X, y = _fold_table_data(data)
    w = np.random.default_rng(5).uniform(0.2, 3.0, len(y)) if "weights" in case else None
    monkeypatch.setattr(_fit, "KERNEL_FOLDS", False)  # (the Python path's folds)
    lean = []
    real = _fit._fit_fold_bins
    monkeypatch.setattr(_fit, "_fit_fold_bins",
                        lambda *a, **k: (lean.append(1), real(*a, **k))[1])
    tables = {}
    for path in ("lean", "pipeline"):
        if path == "pipeline":
            monkeypatch.setattr(_fit, "_fit_fold_bins", lambda *a, **k: None)
        est = cls(pruning="cost_complexity", n_jobs=1, random_state=3, **params)
        tables[path] = est.fit(X, y, sample_weight=w).cp_table_
    assert len(lean) == 10
    pd.testing.assert_frame_equal(tables["lean"], tables["pipeline"], check_exact=True)
    assert len(tables["lean"]) > 2


KERNEL_FOLD_CASES = {
    **LEAN_FOLD_CASES,
    "learned missing direction": ("continuous", CARTClassifier, dict(
        missing_strategy="learned")),
    "surrogates always": ("continuous", CARTClassifier, dict(surrogates="always")),
    "categorical, ordered subsets": ("categorical", CARTClassifier, dict(
        categorical_split="ordered", min_samples_leaf=2, class_weight=None)),
    "categorical, one vs rest, quantile bins": ("categorical", CARTClassifier, dict(
        categorical_split="binary", max_bins=8)),
    "gain ratio": ("categorical", DecisionTreeClassifier, dict(
        criterion="gain_ratio", missing_strategy="surrogate")),
}


COMPILED_FOLD_CASES = {"continuous, missing values, a lone class", "quantile bins",
                       "regression"}


@pytest.mark.parametrize("case", sorted(KERNEL_FOLD_CASES))
def test_cv_folds_scored_from_the_kernel_s_tables_give_the_python_path_s_table(
        monkeypatch, case):
    """A fold grown whole by ``grow_subtree`` and scored from its tables by
    ``table_moments`` (its routing arrays, node risks and classes made in the kernel, no
    tree object) gives the table of the Python path
    (``fit_fold`` then ``_errors_along_path``) to the bit; the fits it cannot take (class
    weights, entropy as the pruning's loss) go the Python way."""
    # (the two-call path: a small table's tree and folds grown by one call are
    # test_small_cv.py's)
    monkeypatch.setattr("quercus._small_cv.ENABLED", False)
    from quercus import _fit
    from quercus._kernels import folds
    data, cls, params = KERNEL_FOLD_CASES[case]
    X, y = _fold_table_data(data)
    w = np.random.default_rng(5).uniform(0.2, 3.0, len(y)) if "weights" in case else None
    if params.get("categorical_split") == "ordered":  # (two classes only)
        y = np.where(y == "lone", "hi", y)
    elif data == "categorical":  # (three classes: the lone row's, kept in every fold)
        y = y.copy()
        y[[7, 19, 33, 48, 60, 77, 91, 104, 111, 118]] = "lone"
    calls = []  # (the folds each call scores: one, or all of them at once)
    real = folds.table_moments
    def spy(*a):
        calls.append(a[1].size - 1)
        return real(*a)

    # (a fold at a time from _fit, every fold at once from _small_cv)
    monkeypatch.setattr(_fit, "table_moments", spy)
    monkeypatch.setattr("quercus._small_cv.table_moments", spy)
    tables = {}
    # Three cases compiled (a compile of the kernel's variants for categories, regression
    # and surrogates is a minute); the others run the kernels' Python source, the same
    # steps and arithmetic.
    mode = "compile" if case in COMPILED_FOLD_CASES else "interpret"
    for kernel in (True, False):
        monkeypatch.setattr(_fit, "KERNEL_FOLDS", kernel)
        est = cls(pruning="cost_complexity", n_jobs=1, random_state=3, **params)
        with quercus.config_context(jit=mode):
            tables[kernel] = est.fit(X, y, sample_weight=w).cp_table_
    kernel_ok = params.get("class_weight") is None and params.get("ccp_loss") != "entropy"
    assert sum(calls) == (10 if kernel_ok else 0)
    pd.testing.assert_frame_equal(tables[True], tables[False], check_exact=True)
    assert len(tables[True]) > 2


@pytest.mark.parametrize("case", ["continuous, missing values, a lone class", "regression",
                                  "categorical"])
def test_small_folds_are_grown_and_scored_in_one_call_as_one_by_one(monkeypatch, case):
    """Folds on the whole data's exact bins are the roots of one ``grow_subtree`` call
    and one ``table_moments`` call (a call per thread), with the table of the folds grown
    and scored one by one; a fold without every class goes on its own (here the lone
    class's: then every fold does)."""
    # (the two-call path: a small table's tree and folds grown by one call are
    # test_small_cv.py's)
    monkeypatch.setattr("quercus._small_cv.ENABLED", False)
    from quercus import _fit, _grower, _pruning
    X, y = _fold_table_data("regression" if case == "regression" else "continuous")
    if case == "categorical":
        X["c"] = pd.Categorical(np.random.default_rng(2).choice(list("pqrs"), len(X)))
        y = np.where(y == "lone", "hi", y)
    cls = CARTRegressor if case == "regression" else CARTClassifier
    roots = []  # the roots of each grow_subtree call
    real_grow = _grower.grow_subtree
    monkeypatch.setattr(_grower, "grow_subtree",
                        lambda *a: roots.append(_root_count(a)) or real_grow(*a))
    real_scorer = _fit._fold_scorer

    def one_by_one(*args):  # the scorer without its every_fold
        moments = real_scorer(*args)
        return None if moments is None else lambda *fold: moments(*fold)

    monkeypatch.setattr(_pruning, "FOLD_THREADS_MIN_CELLS", 0)  # (threads on small data)
    tables = {}
    for batch in (True, False):
        if not batch:
            monkeypatch.setattr(_fit, "_fold_scorer", one_by_one)
        for n_jobs in (1, 2):
            roots.clear()
            est = cls(pruning="cost_complexity", n_jobs=n_jobs, random_state=3)
            with quercus.config_context(jit="compile"):
                tables[batch, n_jobs] = est.fit(X, y).cp_table_
            # (the first call grows the whole data's tree)
            if not batch or case == "continuous, missing values, a lone class":
                assert roots == [1] * 11
            else:
                assert roots == ([1, 10] if n_jobs == 1 else [1, 5, 5])
    for key, table in tables.items():
        pd.testing.assert_frame_equal(table, tables[False, 1], check_exact=True)
    assert len(tables[False, 1]) > 2


def test_folds_of_a_splitter_whose_training_rows_lack_a_class_go_one_by_one(monkeypatch):
    """A splitter's training rows need not be the rest of the rows: a fold whose training
    rows lack a class that its held-out rows lack too still takes its own classes (the
    folds one by one), and the table is the one of the folds one by one."""
    from sklearn.model_selection import ShuffleSplit

    from quercus import _fit, _grower
    X, y = _fold_table_data("continuous")
    y = np.where(y == "lone", "hi", y)
    y[[3, 50]] = "rare"
    cv = ShuffleSplit(n_splits=6, train_size=0.5, test_size=0.2, random_state=0)
    # (a fold with the rare class neither among its training rows nor held out)
    assert any("rare" not in y[train] and "rare" not in y[test]
               for train, test in cv.split(X))
    roots = []
    real_grow = _grower.grow_subtree
    monkeypatch.setattr(_grower, "grow_subtree",
                        lambda *a: roots.append(_root_count(a)) or real_grow(*a))
    est = CARTClassifier(pruning="cost_complexity", cv=cv, n_jobs=1, random_state=3)
    table = est.fit(X, y).cp_table_
    assert roots == [1] * 7
    monkeypatch.setattr(_fit, "KERNEL_FOLDS", False)
    pd.testing.assert_frame_equal(table, est.fit(X, y).cp_table_, check_exact=True)


def _tables_with_and_without_fold_bins(monkeypatch, case, binning_modules, **params):
    """The cp tables of FOLD_CASES[case] with the folds' bins taken from the whole data's
    and with each fold binning its rows, and how many times each fit called
    ``bin_features`` (as the ``binning_modules`` name it)."""
    from quercus import _pruning
    data = "regression" if case == "regression" else (
        "categorical" if case == "categorical" else "continuous")
    X, y = _fold_table_data(data)
    cls = CARTRegressor if data == "regression" else CARTClassifier
    calls = []
    for module in binning_modules:
        real = module.bin_features
        monkeypatch.setattr(module, "bin_features",
                            lambda *a, real=real, **k: calls.append(1) or real(*a, **k))
    tables, binned = {}, {}
    for reuse in (True, False):
        monkeypatch.setattr(_pruning, "REUSE_FOLD_BINS", reuse)
        calls.clear()
        tables[reuse] = cls(pruning="cost_complexity", n_jobs=1, **params,
                            **FOLD_CASES[case]).fit(X, y).cp_table_
        binned[reuse] = len(calls)
    return tables, binned


def _assert_same_bins(got, want):
    """Two Bins the same to the bit: codes (type and order too), bins and their ranges."""
    assert got.codes.dtype == want.codes.dtype and got.codes.flags.f_contiguous
    for name in ("codes", "n_bins", "lo", "hi", "offsets"):
        a, b = getattr(got, name), getattr(want, name)
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes(), name
    assert got.exact == want.exact and got.source is None


def _fold_bins_matrix(rng, n):
    """Columns of every kind binning meets: continuous, few integers, rounded (ties),
    categorical codes, each perhaps with missing values."""
    cols, is_cat, cats = [], [], []
    for kind in rng.permutation(["normal", "integers", "rounded", "categorical"]):
        if kind == "normal":
            c = rng.normal(size=n)
        elif kind == "integers":
            c = rng.integers(0, 40, n).astype(float)
        elif kind == "rounded":
            c = rng.exponential(size=n).round(2)
        else:
            c = rng.integers(0, 4, n).astype(float)
        if rng.random() < 0.5:
            c[rng.random(n) < 0.2] = np.nan
        cols.append(c)
        is_cat.append(kind == "categorical")
        cats.append(list("abcd") if kind == "categorical" else None)
    return np.column_stack(cols), np.array(is_cat), cats


@pytest.mark.parametrize("max_bins", [None, 2, 9, 40, 255])
def test_fold_bins_are_the_bins_of_binning_the_fold_s_rows(max_bins):
    """A fold's bins taken from every row's exact ranks (FoldBins) are, to the bit, the
    bins of binning the fold's rows alone: the same codes, bins, ranges and code type,
    whether its columns get exact or quantile bins, with missing values and categories."""
    from quercus._binning import bin_features
    from quercus._fold_bins import FoldBins
    rng = np.random.default_rng(max_bins or 0)
    compared = 0
    for n in (3, 40, 300, 700):
        X, is_cat, cats = _fold_bins_matrix(rng, n)
        folds = FoldBins.of(X, is_cat, cats, max_bins)
        for size in (1, n // 2, n - 1, n):
            rows = np.sort(rng.choice(n, max(size, 1), replace=False))
            _assert_same_bins(folds.take_rows(rows), bin_features(X[rows], is_cat, cats,
                                                                  max_bins))
            compared += 1
    assert compared == 16


def test_fold_bins_refuse_what_could_bin_otherwise(monkeypatch):
    """Where the whole data's ranks could give other bins than a fold's own binning, there
    are none and the folds bin their rows, to the same table: a column holding -0.0 (a
    fold's sort may keep either zero), and a quantile edge that is not between the two
    values it parts (which the midpoint rule never gives: the kernel's refusal forced
    here)."""
    from sklearn.model_selection import KFold

    from quercus import _fold_bins, _pruning
    from quercus._binning import bin_features
    from quercus._fold_bins import FoldBins
    assert FoldBins.of(np.array([[-0.0], [0.0], [1.0]]), np.array([False]), [None], 2) is None
    X, y = _fold_table_data("continuous")
    is_cat, cats = np.array([False, False]), [None, None]
    rows = np.arange(0, len(y), 2)
    folds = FoldBins.of(X.to_numpy(), is_cat, cats, 5)
    _assert_same_bins(folds.take_rows(rows), bin_features(X.to_numpy()[rows], is_cat, cats, 5))
    params = dict(pruning="cost_complexity", cv=KFold(10, shuffle=True, random_state=2),
                  max_bins=5, max_surrogate=0, n_jobs=1)
    monkeypatch.setattr(_pruning, "REUSE_FOLD_BINS", False)
    want = CARTClassifier(**params).fit(X, y).cp_table_
    monkeypatch.setattr(_pruning, "REUSE_FOLD_BINS", True)
    real = _fold_bins.fold_numeric_bins
    monkeypatch.setattr(_fold_bins, "fold_numeric_bins",
                        lambda *a: (False,) + tuple(real(*a)[1:]))
    assert folds.take_rows(rows) is None
    pd.testing.assert_frame_equal(CARTClassifier(**params).fit(X, y).cp_table_, want,
                                  check_exact=True)


@pytest.mark.parametrize("case", sorted(FOLD_CASES))
def test_cv_folds_with_quantile_bins_take_them_from_the_whole_data_s_ranks_to_the_same_table(
        monkeypatch, case):
    """With more distinct values than bins, the folds' bins come from one exact binning of
    every row (FoldBins) instead of binning each fold's rows, and so do the whole data's:
    the data is binned once, not eleven times, and the table is the same to the bit."""
    from sklearn.model_selection import KFold

    from quercus import _fit, _fold_bins
    tables, binned = _tables_with_and_without_fold_bins(
        monkeypatch, case, (_fit, _fold_bins), max_bins=16, cv=KFold(
            10, shuffle=True, random_state=2))
    assert binned == {True: 1, False: 11}
    pd.testing.assert_frame_equal(tables[True], tables[False], check_exact=True)
    assert len(tables[True]) > 2


def test_cv_folds_on_two_threads_give_the_table_of_one_and_start_no_thread(monkeypatch):
    """The folds run side by side on the process's thread pool and the calling thread,
    merged in fold order: the same table to the bit on one thread and on two, and a fit
    after the first starts no thread (starting a pool for each fit took 2-3 ms, a tenth
    of a 10-fold fit on a few hundred rows)."""
    import threading

    from sklearn.model_selection import KFold

    from quercus import _pruning
    monkeypatch.setattr(_pruning, "FOLD_THREADS_MIN_CELLS", 0)  # these rows are few
    X, y = _fold_table_data("continuous")

    def table(n_jobs):
        return CARTClassifier(pruning="cost_complexity", max_surrogate=0, n_jobs=n_jobs,
                              cv=KFold(10, shuffle=True, random_state=2)).fit(X, y).cp_table_

    one, two = table(1), table(2)
    started = []
    start = threading.Thread.start
    monkeypatch.setattr(threading.Thread, "start",
                        lambda self: started.append(self.name) or start(self))
    again = table(2)
    assert started == []
    pd.testing.assert_frame_equal(one, two, check_exact=True)
    pd.testing.assert_frame_equal(two, again, check_exact=True)
    assert len(one) > 2


@pytest.mark.parametrize("seed", [0, 1, 12345])
@pytest.mark.parametrize("n,k,classes", [
    (14, 10, None), (17, 10, None), (100, 10, None), (7, 10, None), (23, 3, None),
    (40, 10, [20, 20]), (150, 10, [50, 50, 50]), (17, 10, [8, 9]), (14, 10, [9, 5]),
    (61, 5, [30, 6, 25]), (300, 10, [10, 240, 50])])
def test_default_folds_are_scikit_learn_s_splits_without_its_input_checks(seed, n, k,
                                                                          classes):
    """default_splits deals the rows to folds itself (the splitter's checks cost more
    than a small fit): the very (train, test) pairs of KFold / StratifiedKFold with
    shuffle=True, classes shuffled in first-appearance order, labels given as codes."""
    from quercus._pruning import default_folds, default_splits
    codes = None
    if classes is not None:
        codes = np.repeat(np.arange(len(classes)), classes)
        np.random.default_rng(seed).shuffle(codes)
        codes = (codes + 1) % len(classes)  # first appearance is not code order
    ours = default_splits(k, n, codes, seed)
    theirs = list(default_folds(k, n, codes, seed).split(np.zeros(n), codes))
    assert len(ours) == len(theirs) == min(k, n)
    for (a_train, a_test), (b_train, b_test) in zip(ours, theirs):
        np.testing.assert_array_equal(a_train, b_train)
        np.testing.assert_array_equal(a_test, b_test)


def test_cv_fold_missing_a_class_counts_its_held_out_row_as_an_error():
    """The folds' labels are coded from the whole data's: a fold whose training rows lack
    a class (here the one row of "lone") has only the classes it saw, and its held-out
    "lone" row is an error in every subtree; the full tree's xerror equals the folds
    fitted one by one."""
    from sklearn.model_selection import KFold
    X, y = _fold_table_data("continuous")
    splitter = KFold(10, shuffle=True, random_state=2)
    est = CARTClassifier(pruning="cost_complexity", cv=splitter, max_surrogate=0).fit(X, y)
    full_err = 0
    for train, test in splitter.split(X):
        fold = CARTClassifier(max_surrogate=0).fit(X.iloc[train], y[train])
        if 7 in test:
            assert "lone" not in fold.classes_
        full_err += int(np.sum(fold.predict(X.iloc[test]) != y[test]))
    root_err = len(y) - max(np.sum(y == c) for c in np.unique(y))
    assert est.cp_table_["xerror"].iloc[0] == pytest.approx(full_err / root_err, rel=1e-12)


@pytest.mark.parametrize("why", ["quantile bins", "a zero weight"])
def test_cv_folds_bin_their_own_rows_when_the_whole_data_s_bins_are_not_theirs(
        monkeypatch, why):
    """Quantile bins are cut from the rows binned (a fold's own rows cut its own), and a
    row of weight zero is dropped before binning: then no fold grows on its rows of the
    whole data's bins. With quantile bins a fold's own bins come from every row's exact
    ranks (FoldBins, the one binning: the whole data's bins come from it too); with a zero
    weight each fold bins its rows."""
    from quercus import _fit, _fold_bins
    X, y = _fold_table_data("continuous")
    w = np.ones(len(y))
    params = dict(pruning="cost_complexity", cv=5, random_state=0, max_surrogate=0)
    if why == "quantile bins":
        params["max_bins"] = 16
    else:
        w[3] = 0.0
    calls = []
    for module in (_fit, _fold_bins):
        monkeypatch.setattr(module, "bin_features",
                            lambda *a, real=module.bin_features, m=module, **k:
                            calls.append(m) or real(*a, **k))
    CARTClassifier(**params).fit(X, y, sample_weight=w)
    assert calls == ([_fold_bins] if why == "quantile bins" else [_fit] * 6)


def test_ccp_alpha_applies_after_any_other_pruning():
    X, y = _random_classification(8, 120, 2, 2)
    X_tr, X_va, y_tr, y_va = X[:90], X[90:], y[:90], y[90:]
    full = DecisionTreeClassifier().fit(X_tr, y_tr)
    pess = quercus.prune(full, "pessimistic")
    alphas = np.unique(weakest_link_path(Target.of(pess), pess.tree_, "impurity")[0])
    alpha = float((alphas[1] + alphas[2]) / 2)
    both = DecisionTreeClassifier(pruning="pessimistic", ccp_alpha=alpha,
                                  min_objects=0).fit(X_tr, y_tr)
    assert export_dict(both) == export_dict(quercus.prune(pess, "cost_complexity",
                                                          ccp_alpha=alpha))
    assert both.get_n_leaves() < pess.get_n_leaves()
    assert both.ccp_alpha_ == alpha
    reasons = both.pruning_report()["reason"]
    assert reasons.str.startswith("weakest link").any()
    assert (~reasons.str.startswith("weakest link")).any()
    red = quercus.prune(full, "reduced_error", X_va, y_va)
    alphas = np.unique(weakest_link_path(Target.of(red), red.tree_, "impurity")[0])
    alpha = float((alphas[1] + alphas[2]) / 2)
    both = DecisionTreeClassifier(pruning="reduced_error", ccp_alpha=alpha).fit(
        X_tr, y_tr, eval_set=(X_va, y_va))
    assert export_dict(both) == export_dict(quercus.prune(red, "cost_complexity",
                                                          ccp_alpha=alpha))
    assert both.get_n_leaves() < red.get_n_leaves()


def test_ccp_alpha_is_set_when_cross_validation_selects_the_full_tree():
    # xerror is lowest for the full tree (alpha 0) here, so the selected alpha is 0.
    y = list("AAABBBAAABBB")
    X = pd.DataFrame({"x": np.arange(1, 13, dtype=float)})
    est = CARTClassifier(pruning="cost_complexity", ccp_loss="error", cv=3,
                         cp=0.0, random_state=0).fit(X, y)
    assert choose_alpha(est.cp_table_, "1se") == 0.0
    assert est.get_n_leaves() == 4
    assert est.ccp_alpha_ == 0.0


def test_fitted_tree_is_the_selected_row_of_the_cp_table_when_a_split_has_zero_alpha():
    """x <= 2.5 splits (3A, 1B) into (2A) and the unsplittable (1A, 1B): no fewer errors, so
    its weakest-link alpha under ccp_loss="error" is 0. The table lists the full tree
    (alpha 0, 2 splits) and the tree without that split (alpha 0, 1 split); both are
    evaluated at alpha 0 so their xerror ties, and ties go to the smaller tree."""
    X = pd.DataFrame({"x": [1.0, 2, 3, 3, 6, 7, 8, 9]})
    y = list("AAABBBBB")
    full = CARTClassifier().fit(X, y)
    assert _nested(full) == (4.5, (2.5, (2, 0), (1, 1)), (0, 4))
    rows = _hand_weakest_link(_nested(full))
    assert rows == [(0, Fraction(1, 8), 2, 3), (0, Fraction(1, 8), 1, 2),
                    (Fraction(1, 4), Fraction(3, 8), 0, 1)]
    est = CARTClassifier(pruning="cost_complexity", ccp_loss="error", cv=3,
                         cp=0.0, random_state=0).fit(X, y)
    table = est.cp_table_
    assert table["n_leaves"].tolist() == [3, 2, 1]
    alpha = choose_alpha(table, est.cv_rule)
    selected = table[table["alpha"] == alpha]["n_leaves"].min()
    assert est.get_n_leaves() == selected, (
        f"cp_table_ selects the {selected}-leaf tree, the fitted tree has "
        f"{est.get_n_leaves()} leaves")


# ============================================================== 4. pessimistic (C4.5 / J48)
def _j48_add_errs(n, e, cf):
    """Weka's Stats.addErrs, written out from its definition: e = 0 the exact binomial upper
    limit n (1 - cf^(1/n)); 0 < e < 1 interpolated linearly to e = 1; otherwise the normal
    approximation with continuity correction (Wilson's upper bound at (e + 0.5) / n)."""
    if e < 1:
        base = n * (1 - cf ** (1 / n))
        return base + e * (_j48_add_errs(n, 1, cf) - base)
    if e + 0.5 >= n:
        return max(n - e, 0.0)
    z = statistics.NormalDist().inv_cdf(1 - cf)
    f = (e + 0.5) / n
    upper = (f + z * z / (2 * n) + z * math.sqrt(f / n - f * f / n + z * z / (4 * n * n))) / (
        1 + z * z / n)
    return upper * n - e


def test_added_errors_zero_errors_is_the_exact_binomial_limit():
    # Quinlan's C4.5 book: U_25%(0, 6) = 0.206, U_25%(0, 9) = 0.143, U_25%(0, 1) = 0.750
    assert added_errors(6, 0, 0.25) == pytest.approx(6 * (1 - 0.25 ** (1 / 6)), rel=1e-12)
    assert added_errors(6, 0, 0.25) == pytest.approx(6 * 0.206, abs=0.005)  # ~1.2
    assert added_errors(9, 0, 0.25) == pytest.approx(9 * 0.143, abs=0.005)
    assert added_errors(1, 0, 0.25) == pytest.approx(0.75, rel=1e-12)
    for n in (1, 2, 5, 14.5, 100):
        for cf in (0.5, 0.25, 0.1, 0.01):
            # P(0 errors | p = U) = (1 - U)^n = cf: U is the exact upper limit
            u = added_errors(n, 0, cf) / n
            assert (1 - u) ** n == pytest.approx(cf, rel=1e-9)


@pytest.mark.parametrize("cf", [0.5, 0.25, 0.1, 0.01])
def test_added_errors_equals_the_j48_formula(cf):
    for n in (1, 2, 3, 6, 9, 16, 30, 100, 7.5, 0.4):
        for e in (0, 0.3, 0.7, 1, 1.5, 2, 5, 29, n - 0.6, n - 0.4, n):
            if e < 0 or e > n:
                continue
            assert added_errors(n, e, cf) == pytest.approx(_j48_add_errs(n, e, cf),
                                                           rel=1e-10, abs=1e-12), (n, e)
    assert added_errors(0, 0, cf) == 0.0


def test_added_errors_normal_approximation_is_close_to_the_exact_binomial_limit():
    # Quinlan: U_25%(1, 16) = 0.157 (16 * 0.157 = 2.512 errors); J48's approximation 2.476.
    assert 1 + added_errors(16, 1, 0.25) == pytest.approx(2.476, abs=0.001)
    for n, e in ((16, 1), (30, 3), (40, 2), (100, 10), (200, 5), (50, 20)):
        exact = n * beta.ppf(1 - 0.25, e + 1, n - e)  # Clopper-Pearson upper limit
        assert e + added_errors(n, e, 0.25) == pytest.approx(exact, rel=0.04), (n, e)


def test_added_errors_grow_as_the_confidence_factor_falls():
    for n, e in ((6, 0), (16, 1), (40, 7.5), (3, 0.5)):
        values = [added_errors(n, e, cf) for cf in (0.5, 0.25, 0.1, 0.05, 0.01, 0.001)]
        assert all(a < b for a, b in zip(values, values[1:])), (n, e, values)


def _voting():
    X = pd.DataFrame({"education": ["n"] * 6 + ["y"] * 9 + ["u"]})
    return X, ["democrat"] * 15 + ["republican"]


@pytest.mark.parametrize("min_objects", [0, 2])
def test_quinlans_voting_example_prunes_three_leaves_into_one(min_objects):
    """C4.5 book, section 4.2: leaves of 6, 9 and 1 cases with no error; as one leaf 16
    cases with 1 error. Subtree 6 U(0,6) + 9 U(0,9) + 1 U(0,1) = 3.273 > leaf.
    J48's minimum of 2 cases (its default -M 2) allows the split: two of its branches hold
    at least 2 cases (C45Split.handleEnumeratedAttribute: Distribution.check(minNoObj))."""
    X, y = _voting()
    assert C45Classifier(pruning=None, min_objects=min_objects).fit(X, y).get_n_leaves() == 3
    est = C45Classifier(min_objects=min_objects).fit(X, y)
    assert est.get_n_leaves() == 1
    report = est.pruning_report()
    assert len(report) == 1
    subtree = sum(n * (1 - 0.25 ** (1 / n)) for n in (6, 9, 1))
    assert report["error_before"].iloc[0] == pytest.approx(subtree, rel=1e-9)
    assert subtree == pytest.approx(3.273, abs=0.001)
    assert report["error_after"].iloc[0] == pytest.approx(1 + _j48_add_errs(16, 1, 0.25),
                                                          rel=1e-9)
    assert report["reason"].iloc[0] == "estimated errors as a leaf are not higher"


def _two_branch_data(pos_u, neg_v, pos_v):
    """Attribute a: u holds ``pos_u`` positives; v holds ``neg_v`` negatives and ``pos_v``
    positives (so the root as a leaf says 'pos' whenever pos_u + pos_v > neg_v)."""
    X = pd.DataFrame({"a": ["u"] * pos_u + ["v"] * (neg_v + pos_v)})
    y = ["pos"] * pos_u + ["neg"] * neg_v + ["pos"] * pos_v
    return X, y


@pytest.mark.parametrize("raising", [True, False])
def test_pessimistic_prunes_when_the_leaf_is_within_0_1_of_the_subtree_as_j48(raising):
    def est(n, e):
        return e + _j48_add_errs(n, e, 0.25)
    # (3 pos) | (4 neg, 3 pos); as a leaf (10 cases, 4 errors): 5.560 vs 5.475 + 0.1
    X, y = _two_branch_data(3, 4, 3)
    subtree, leaf = est(3, 0) + est(7, 3), est(10, 4)
    assert subtree < leaf <= subtree + 0.1
    fitted = C45Classifier(subtree_raising=raising).fit(X, y)
    assert fitted.get_n_leaves() == 1
    report = fitted.pruning_report()
    assert len(report) == 1
    assert report["error_before"].iloc[0] == pytest.approx(subtree, rel=1e-9)
    assert report["error_after"].iloc[0] == pytest.approx(leaf, rel=1e-9)
    assert report["reason"].iloc[0] == "estimated errors as a leaf are not higher"
    # (3 pos) | (2 neg, 1 pos); as a leaf (6 cases, 2 errors): 3.321 > 3.154 + 0.1: kept
    X, y = _two_branch_data(3, 2, 1)
    assert est(6, 2) > est(3, 0) + est(3, 1) + 0.1
    fitted = C45Classifier(subtree_raising=raising).fit(X, y)
    assert fitted.get_n_leaves() == 2
    assert fitted.pruning_report().empty


@pytest.mark.parametrize("cf", [0.5, 0.25])
def test_pessimistic_first_collapses_subtrees_that_fix_no_training_error(cf):
    """J48's collapse(): (4 pos) | (2 pos, 2 neg) makes 2 training errors, as many as the
    root as a leaf (6 pos, 2 neg), so the split goes before any estimate is looked at."""
    X, y = _two_branch_data(4, 2, 2)
    assert C45Classifier(pruning=None).fit(X, y).get_n_leaves() == 2
    fitted = C45Classifier(confidence_factor=cf).fit(X, y)
    assert fitted.get_n_leaves() == 1
    report = fitted.pruning_report()
    assert report[["feature", "leaves_removed", "error_before", "error_after"]].values.tolist() \
        == [["a", 1, 2.0, 2.0]]
    assert report["reason"].iloc[0].startswith("collapse")


def test_c45_defaults_to_pessimistic_pruning():
    assert C45Classifier().pruning == "pessimistic"
    X, y = load_watermelon("2.0")
    assert export_dict(C45Classifier().fit(X, y)) == export_dict(
        C45Classifier(pruning="pessimistic").fit(X, y))
    assert C45Classifier().fit(X, y).get_n_leaves() < C45Classifier(pruning=None).fit(
        X, y).get_n_leaves()


def test_c45_pessimistic_on_golf_is_quinlans_tree():
    X, y = load_golf()
    est = C45Classifier(pruning="pessimistic").fit(X, y)
    shape = _shape(est)
    assert shape[0] == "outlook"
    branches = shape[1]
    assert branches["= overcast"] == "yes"
    assert branches["= rain"] == ("windy", {"= False": "yes", "= True": "no"})
    feature, sunny = branches["= sunny"]
    assert feature == "humidity"
    (le, yes), (gt, no) = sunny.items()
    assert (yes, no) == ("yes", "no")
    # C4.5 prints 75 (the largest value below the cut); the cut lies between 70 and 85
    thr = export_dict(est)["children"][0]["node"]["threshold"]
    assert 70 <= thr < 85 and le.startswith("<=") and gt.startswith(">")
    assert est.pruning_report().empty
    assert est.get_n_leaves() == 5


def _sk_or_local(name):
    if name == "golf":
        return load_golf()
    if name.startswith("watermelon"):
        return load_watermelon(name.split("_")[1])
    if name == "noisy":
        rng = np.random.default_rng(0)
        X = rng.normal(size=(300, 4))
        return X, np.where(X[:, 0] + 0.8 * rng.normal(size=300) > 0, "a", "b")
    return getattr(datasets, f"load_{name}")(return_X_y=True)


@pytest.mark.parametrize("name", ["iris", "wine", "breast_cancer", "watermelon_2.0",
                                  "watermelon_3.0", "golf", "noisy"])
def test_smaller_confidence_factor_prunes_at_least_as_much(name):
    X, y = _sk_or_local(name)
    full = C45Classifier(pruning=None).fit(X, y).get_n_leaves()
    for raising in (True, False):
        leaves = [C45Classifier(confidence_factor=cf, subtree_raising=raising).fit(X, y)
                  .get_n_leaves() for cf in (0.5, 0.25, 0.1, 0.01)]
        assert all(b <= a for a, b in zip(leaves, leaves[1:])), leaves
        assert leaves[0] <= full


def test_smaller_confidence_factor_can_keep_a_branch_as_j48_does():
    """Not a theorem: J48's estimate switches from the exact e = 0 limit to the normal
    approximation at e >= 1, so a smaller CF can keep more. Node (18 cases, 1 error) with
    leaves (2, 1) [after its own pruning] and (16, 0): at CF 0.05 the leaf estimate is
    below the subtree's (+0.1), at CF 0.01 above it."""
    rows = [("a", 5.0, 0.0, "p")] * 20 + [("b", 1.0, -1.0, "p"), ("b", 1.0, 0.0, "q")]
    rows += [("b", 5.0 + i, (-2.0 if i % 2 else 1.0), "q") for i in range(16)]
    X = pd.DataFrame([r[:3] for r in rows], columns=["c0", "x", "z"])
    y = [r[3] for r in rows]
    # grown without J48's minimum of 2 cases, so that the one-case leaves exist
    assert _shape(C45Classifier(pruning=None, min_objects=0).fit(X, y))[1]["= b"][0] == "x"

    def est(n, e, cf):
        return e + _j48_add_errs(n, e, cf)
    for cf, pruned in ((0.05, True), (0.01, False)):
        leaf = est(18, 1, cf)
        subtree = est(2, 1, cf) + est(16, 0, cf)
        assert (leaf <= subtree + 0.1) == pruned
        expected = 2 if pruned else 3
        assert C45Classifier(confidence_factor=cf, min_objects=0).fit(
            X, y).get_n_leaves() == expected


def _raising_data(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 80))
    k = int(rng.integers(2, 6))
    X = pd.DataFrame({f"c{j}": rng.choice(list("abcdef"[:k]), n)
                      for j in range(int(rng.integers(1, 4)))})
    X["x"] = rng.integers(0, 10, n).astype(float)
    X["z"] = rng.normal(size=n).round(1)
    signal = (X["x"] > 4) if rng.random() < 0.5 else X["c0"].isin(["a"])
    y = np.where(signal ^ (rng.random(n) < rng.uniform(0.05, 0.3)), "p", "q")
    return X, y


def test_subtree_raising_happens_and_keeps_the_tree_consistent():
    raised = differs = 0
    for seed in range(150):
        X, y = _raising_data(seed)
        with_raising = C45Classifier(subtree_raising=True).fit(X, y)
        without = C45Classifier(subtree_raising=False).fit(X, y)
        reasons = with_raising.pruning_report()["reason"]
        assert not without.pruning_report()["reason"].str.startswith("subtree raising").any()
        _check_structure(without, X, y)
        # without raising the pruned tree is the unpruned one with some nodes made leaves
        _match(without.tree_, C45Classifier(pruning=None, min_objects=2).fit(X, y).tree_)
        if reasons.str.startswith("subtree raising").any():
            raised += 1
            _check_structure(with_raising, X, y)
            differs += export_dict(with_raising) != export_dict(without)
    assert raised >= 3
    assert differs >= 1


# ============================================================== 5. quercus.prune
def _slow_reduced_error(est, X_val, y_val, strict, priority):
    """Reduced-error pruning re-implemented on the original tree. Returns the decisions
    {original node: (validation error of its subtree, as a leaf)} of every node pruned,
    in the bottom-up pass (nested ones included), and each node's label."""
    t = est.tree_
    labels = [_node_label(est, i, priority) for i in range(t.node_count)]
    leaf_err = [0] * t.node_count
    for x, target in zip(X_val, y_val):
        for node in _path(t, x):
            leaf_err[node] += target != labels[node]
    decisions = {}

    def rec(node):
        if t.kind[node] == LEAF:
            return leaf_err[node]
        sub = sum(rec(c) for c in t.children(node))
        if leaf_err[node] < sub if strict else leaf_err[node] <= sub:
            decisions[node] = (sub, leaf_err[node])
            return leaf_err[node]
        return sub
    rec(0)
    return decisions, labels


def _top_level(tree, nodes):
    par = tree.parent()

    def has_ancestor(n):
        a = par[n]
        while a >= 0:
            if a in nodes:
                return True
            a = par[a]
        return False
    return {n for n in nodes if not has_ancestor(n)}


def _slow_predict(tree, X, cut, labels):
    out = []
    for x in X:
        node = 0
        for node in _path(tree, x):
            if node in cut:
                break
        out.append(labels[node])
    return np.array(out, dtype=object)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(6, 60), n_val=st.integers(1, 40),
       p=st.integers(1, 3), k=st.integers(2, 3), strict=st.booleans())
def test_reduced_error_equals_a_slow_reimplementation(seed, n, n_val, p, k, strict):
    X, y = _random_classification(seed, n + n_val, p, k)
    X_tr, y_tr, X_va, y_va = X[:n], y[:n], X[n:], y[n:]
    keep = np.isin(y_va, np.unique(y_tr))
    X_va, y_va = X_va[keep], y_va[keep]
    if len(y_va) == 0:
        X_va, y_va = X_tr[:2], y_tr[:2]
    full = DecisionTreeClassifier().fit(X_tr, y_tr)
    before = export_dict(full)
    fields = _tree_fields(full.tree_)
    pruned = quercus.prune(full, "reduced_error", X_va, y_va, strict_improvement=strict)
    # the original is untouched
    assert export_dict(full) == before
    for k_, v in fields.items():
        np.testing.assert_array_equal(getattr(full.tree_, k_), v)
    assert full.pruning_report().empty
    priority = _first_seen(y_tr)
    decisions, labels = _slow_reduced_error(full, X_va, y_va, strict, priority)
    cut = _top_level(full.tree_, set(decisions))
    # the pruned tree is the original with exactly those subtrees replaced by leaves
    node_map, got_cut = _match(pruned.tree_, full.tree_)
    assert got_cut == cut
    assert pruned.get_n_leaves() <= full.get_n_leaves()
    X_test = np.vstack([X_tr, X_va, _random_classification(seed + 1, 30, p, k)[0]])
    np.testing.assert_array_equal(pruned.predict(X_test),
                                  _slow_predict(full.tree_, X_test, cut, labels))
    # the report: one row per pruned node, errors as computed here
    report = pruned.pruning_report()
    assert len(report) == len(decisions)
    assert (report["error_after"] <= report["error_before"]).all()
    if strict:
        assert (report["error_after"] < report["error_before"]).all()
    shown = report[report["node"] >= 0]
    assert {node_map[int(i)] for i in shown["node"]} == cut
    for _, r in shown.iterrows():
        o = node_map[int(r["node"])]
        assert (r["error_before"], r["error_after"]) == decisions[o]
        assert r["feature"] == f"x{full.tree_.feature[o]}"
    # leaves_removed counts each step's own removals: they add up to the difference
    assert report["leaves_removed"].sum() == full.get_n_leaves() - pruned.get_n_leaves()
    assert sorted(decisions.values()) == sorted(zip(report["error_before"],
                                                    report["error_after"]))
    # validation error never grows
    assert (pruned.predict(X_va) != y_va).sum() <= (full.predict(X_va) != y_va).sum()
    # fitting with pruning="reduced_error" and eval_set gives the same tree
    fitted = DecisionTreeClassifier(pruning="reduced_error", strict_improvement=strict).fit(
        X_tr, y_tr, eval_set=(X_va, y_va))
    assert export_dict(fitted) == export_dict(pruned)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(8, 80), p=st.integers(1, 3),
       k=st.integers(2, 3))
def test_no_pruning_method_increases_the_number_of_leaves(seed, n, p, k):
    X, y = _random_classification(seed, n + 20, p, k)
    X_tr, y_tr, X_va, y_va = X[:n], y[:n], X[n:], y[n:]
    keep = np.isin(y_va, np.unique(y_tr))
    X_va, y_va = X_va[keep], y_va[keep]
    if len(y_va) == 0:
        X_va, y_va = X_tr[:3], y_tr[:3]
    full = DecisionTreeClassifier(criterion="entropy").fit(X_tr, y_tr)
    leaves = full.get_n_leaves()
    alphas = weakest_link_path(Target.of(full), full.tree_, "impurity")[0]
    results = {
        "pre": DecisionTreeClassifier(criterion="entropy", pruning="pre").fit(
            X_tr, y_tr, eval_set=(X_va, y_va)),
        "pre, not strict": DecisionTreeClassifier(
            criterion="entropy", pruning="pre", strict_improvement=False).fit(
            X_tr, y_tr, eval_set=(X_va, y_va)),
        "reduced_error": quercus.prune(full, "reduced_error", X_va, y_va),
        "reduced_error, not strict": quercus.prune(full, "reduced_error", X_va, y_va,
                                                   strict_improvement=False),
        "pessimistic": quercus.prune(full, "pessimistic"),
        "pessimistic, no raising": quercus.prune(full, "pessimistic", subtree_raising=False),
        "pessimistic on validation": quercus.prune(full, "pessimistic", X_va, y_va),
        "cost_complexity": quercus.prune(full, "cost_complexity",
                                         ccp_alpha=float(np.median(alphas)) + 1e-12),
        "cost_complexity, error": quercus.prune(full, "cost_complexity", ccp_alpha=0.01,
                                                ccp_loss="error"),
    }
    for name, est in results.items():
        assert est.get_n_leaves() <= leaves, name
        if name.startswith("pre"):
            _check_structure(est, X_tr, y_tr)
            continue
        assert est.pruning == name.split(",")[0].split(" ")[0]
        if name == "pessimistic":  # subtree raising may re-sort the training rows
            _check_structure(est, X_tr, y_tr)
        elif name != "pessimistic on validation":
            _match(est.tree_, full.tree_)  # the original with some subtrees made leaves
    # pessimistic with the kept training data is C4.5-style fitting with pruning on
    fitted = DecisionTreeClassifier(criterion="entropy", pruning="pessimistic",
                                    min_objects=0).fit(X_tr, y_tr)
    assert export_dict(fitted) == export_dict(results["pessimistic"])


def test_prune_leaves_the_original_untouched_for_every_method():
    X_tr, X_va, y_tr, y_va = watermelon_train_validation_split()
    full = C45Classifier(pruning=None).fit(X_tr, y_tr)
    before, fields = export_dict(full), _tree_fields(full.tree_)
    params = full.get_params()
    alphas = np.unique(weakest_link_path(Target.of(full), full.tree_, "impurity")[0])
    for method, args in (("reduced_error", (X_va, y_va)), ("pessimistic", ()),
                         ("cost_complexity", ())):
        kw = {"ccp_alpha": (alphas[1] + alphas[2]) / 2} if method == "cost_complexity" else {}
        pruned = quercus.prune(full, method, *args, **kw)
        assert pruned is not full and pruned.tree_ is not full.tree_
        assert pruned.get_n_leaves() < full.get_n_leaves(), method
    assert export_dict(full) == before
    for k_, v in fields.items():
        np.testing.assert_array_equal(getattr(full.tree_, k_), v)
    assert full.get_params() == params
    assert full.pruning_report().empty


def test_prune_bad_calls_raise_clear_errors():
    X_tr, X_va, y_tr, y_va = watermelon_train_validation_split()
    full = ID3Classifier().fit(X_tr, y_tr)
    with pytest.raises(ValueError, match="method must be one of"):
        quercus.prune(full, "minimal")
    with pytest.raises(ValueError, match=r"needs X_val and y_val"):
        quercus.prune(full, "reduced_error")
    with pytest.raises(ValueError, match=r"needs X_val and y_val"):
        quercus.prune(full, "reduced_error", X_va)
    with pytest.raises(ValueError, match=r"takes \['strict_improvement'\]; got "
                                         r"\['confidence_factor'\]"):
        quercus.prune(full, "reduced_error", X_va, y_va, confidence_factor=0.1)
    with pytest.raises(ValueError, match=r"takes \['ccp_alpha', 'ccp_loss'\]"):
        quercus.prune(full, "cost_complexity", ccp_alpha=0.1, cv=5)
    with pytest.raises(ValueError, match=r"needs ccp_alpha > 0"):
        quercus.prune(full, "cost_complexity")
    with pytest.raises(ValueError, match=r"needs ccp_alpha > 0"):
        quercus.prune(full, "cost_complexity", ccp_alpha=0.0)
    with pytest.raises(ValueError, match=r"'confidence_factor' parameter"):
        quercus.prune(full, "pessimistic", confidence_factor=0.9)
    with pytest.raises(ValueError, match=r"'ccp_loss' parameter"):
        quercus.prune(full, "cost_complexity", ccp_alpha=0.1, ccp_loss="gini")
    with pytest.raises(ValueError, match="not one of the training classes"):
        quercus.prune(full, "reduced_error", X_va, y_va.replace("是", "maybe"))
    import pickle
    loaded = pickle.loads(pickle.dumps(full))
    with pytest.raises(ValueError, match="no longer holds its training data"):
        quercus.prune(loaded, "pessimistic")
    assert quercus.prune(loaded, "pessimistic", X_tr, y_tr).get_n_leaves() <= 9
    # the original stays usable and unpruned after the failed calls (9 leaves: see the
    # original-column-order test above)
    assert full.get_n_leaves() == 9
    assert full.pruning_report().empty


def test_prune_appends_to_the_report_and_records_the_method():
    X_tr, X_va, y_tr, y_va = _book(BOOK_COLUMNS)
    pre = ID3Classifier(pruning="pre", strict_improvement=False).fit(
        X_tr, y_tr, eval_set=(X_va, y_va))
    assert len(pre.pruning_report()) == 2
    post = quercus.prune(pre, "reduced_error", X_va, y_va, strict_improvement=False)
    assert post.pruning == "reduced_error"
    assert _shape(post) == FIG_4_6
    report = post.pruning_report()
    assert report["reason"].iloc[:2].str.startswith("pre-pruning").all()
    assert report["feature"].iloc[2:].tolist().count("根蒂") == 1


# ============================================================== 6. internal hold-out
def test_internal_hold_out_uses_validation_fraction_and_random_state():
    X, y = _random_classification(3, 120, 2, 2)
    for frac in (0.25, 0.5):
        est = DecisionTreeClassifier(pruning="reduced_error", validation_fraction=frac,
                                     random_state=0).fit(X, y)
        # train_test_split keeps ceil(frac * n) rows out
        assert est.tree_.n_node_samples[0] == 120 - math.ceil(frac * 120)
    same = [export_dict(DecisionTreeClassifier(pruning="reduced_error", random_state=7)
                        .fit(X, y)) for _ in range(2)]
    assert same[0] == same[1]
    trees = {str(export_dict(DecisionTreeClassifier(pruning="reduced_error", random_state=s)
                             .fit(X, y))) for s in range(8)}
    assert len(trees) > 1
    pre = DecisionTreeClassifier(pruning="pre", validation_fraction=0.5, random_state=1).fit(X, y)
    assert pre.tree_.n_node_samples[0] == 60
    # pruning that needs no validation data trains on every row
    assert DecisionTreeClassifier(pruning="pessimistic").fit(X, y).tree_.n_node_samples[0] == 120


def test_eval_set_without_validation_pruning_is_an_error():
    X_tr, X_va, y_tr, y_va = watermelon_train_validation_split()
    for pruning in (None, "pessimistic", "cost_complexity"):
        with pytest.raises(ValueError, match=r"eval_set is used by pruning='pre' and "
                                             r"'reduced_error'"):
            ID3Classifier(pruning=pruning).fit(X_tr, y_tr, eval_set=(X_va, y_va))


def test_eval_set_labels_unseen_at_fit_are_an_error():
    X_tr, X_va, y_tr, y_va = watermelon_train_validation_split()
    y_bad = y_va.copy()
    y_bad.iloc[0] = "不知道"
    for pruning in ("pre", "reduced_error"):
        with pytest.raises(ValueError, match=r"eval_set: label '不知道' is not one of the "
                                             r"training classes"):
            ID3Classifier(pruning=pruning).fit(X_tr, y_tr, eval_set=(X_va, y_bad))


def test_malformed_eval_set_is_an_error():
    X_tr, X_va, y_tr, y_va = watermelon_train_validation_split()
    with pytest.raises(ValueError, match=r"eval_set must be a tuple"):
        ID3Classifier(pruning="pre").fit(X_tr, y_tr, eval_set=X_va)
    with pytest.raises(ValueError, match=r"eval_set: X has 7 rows but y has 6"):
        ID3Classifier(pruning="pre").fit(X_tr, y_tr, eval_set=(X_va, y_va.iloc[:6]))


# ============================================================== 7. regression
def _regression_data(seed, n, p=2):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 8, size=(n, p)).astype(float)
    y = 3.0 * (X[:, 0] > 3) + rng.normal(size=n)
    return X, y


def _slow_reduced_error_regression(est, X_val, y_val, strict):
    t = est.tree_
    err = np.zeros(t.node_count)
    for x, target in zip(X_val, y_val):
        for node in _path(t, x):
            err[node] += (target - t.value[node, 0]) ** 2
    decisions = {}

    def rec(node):
        if t.kind[node] == LEAF:
            return err[node]
        sub = sum(rec(c) for c in t.children(node))
        if err[node] < sub - 1e-9 if strict else err[node] <= sub + 1e-9:
            decisions[node] = (sub, err[node])
            return err[node]
        return sub
    rec(0)
    return decisions


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("strict", [True, False])
def test_regressor_reduced_error_equals_a_slow_reimplementation(seed, strict):
    X, y = _regression_data(seed, 90)
    X_tr, y_tr, X_va, y_va = X[:60], y[:60], X[60:], y[60:]
    full = DecisionTreeRegressor().fit(X_tr, y_tr)
    est = DecisionTreeRegressor(pruning="reduced_error", strict_improvement=strict).fit(
        X_tr, y_tr, eval_set=(X_va, y_va))
    decisions = _slow_reduced_error_regression(full, X_va, y_va, strict)
    cut = _top_level(full.tree_, set(decisions))
    _, got_cut = _match(est.tree_, full.tree_)
    assert got_cut == cut
    assert est.get_n_leaves() < full.get_n_leaves()
    sse = lambda m: float(np.sum((m.predict(X_va) - y_va) ** 2))  # noqa: E731
    assert sse(est) <= sse(full) + 1e-9
    report = est.pruning_report()
    assert len(report) == len(decisions)
    np.testing.assert_allclose(sorted(report["error_before"]),
                               sorted(d[0] for d in decisions.values()), rtol=1e-9)
    assert export_dict(quercus.prune(full, "reduced_error", X_va, y_va,
                                     strict_improvement=strict)) == export_dict(est)


def test_regressor_cost_complexity_prunes_and_never_adds_leaves():
    X, y = _regression_data(11, 150)
    full = DecisionTreeRegressor().fit(X, y)
    est = DecisionTreeRegressor(pruning="cost_complexity", cv=5, cp=0.0,
                                random_state=0).fit(X, y)
    table = est.cp_table_
    assert est.get_n_leaves() <= full.get_n_leaves()
    assert est.get_n_leaves() < full.get_n_leaves()  # noise: CV cuts something
    assert table["n_leaves"].iloc[0] == full.get_n_leaves()
    assert table["n_leaves"].iloc[-1] == 1 and table["rel_error"].iloc[-1] == pytest.approx(1)
    assert (np.diff(table["alpha"]) >= 0).all()
    assert (np.diff(table["rel_error"]) >= -1e-12).all()
    assert (np.diff(table["n_leaves"]) < 0).all()
    assert est.ccp_alpha_ == choose_alpha(table, "1se")
    chosen = table[np.isclose(table["alpha"], est.ccp_alpha_)]
    assert est.get_n_leaves() == chosen["n_leaves"].min()
    _match(est.tree_, full.tree_)
    for alpha in (0.01, 0.1, 1.0):
        pruned = quercus.prune(full, "cost_complexity", ccp_alpha=alpha)
        assert pruned.get_n_leaves() <= full.get_n_leaves()
        assert export_dict(pruned) == export_dict(DecisionTreeRegressor(ccp_alpha=alpha)
                                                  .fit(X, y))


def test_regressor_pre_pruning_never_adds_leaves():
    X, y = _regression_data(5, 120)
    full = DecisionTreeRegressor().fit(X[:80], y[:80])
    for strict in (True, False):
        pre = DecisionTreeRegressor(pruning="pre", strict_improvement=strict).fit(
            X[:80], y[:80], eval_set=(X[80:], y[80:]))
        assert pre.get_n_leaves() < full.get_n_leaves()
        _match(pre.tree_, full.tree_)


def test_pessimistic_pruning_of_a_regressor_is_a_clear_error():
    X, y = _regression_data(0, 40)
    with pytest.raises(ValueError, match=r"pruning='pessimistic' is C4.5's error-based "
                                         r"pruning of classifiers"):
        DecisionTreeRegressor(pruning="pessimistic").fit(X, y)
    full = DecisionTreeRegressor().fit(X, y)
    with pytest.raises(ValueError, match="pessimistic pruning is for classifiers"):
        quercus.prune(full, "pessimistic")
    with pytest.raises(ValueError, match="pessimistic pruning is for classifiers"):
        quercus.prune(full, "pessimistic", X, y)


def test_subtree_raising_keeps_empty_branches_predicting_as_their_parent():
    # A branch that the re-sorted data no longer reaches must not be left with zero counts
    # (it would predict nothing): like any empty branch it predicts as its parent, as J48.
    rng = np.random.default_rng(922)
    n = int(rng.integers(12, 60))
    X = pd.DataFrame({f"x{j}": pd.Categorical(rng.choice(list("abc"), n), categories=list("abc"))
                      for j in range(3)})
    y = np.where((X.x0 == "a") | (rng.random(n) < 0.3), "yes", "no")
    model = C45Classifier().fit(X, y)
    assert model.pruning_report()["reason"].str.startswith("subtree raising").any()
    t = model.tree_
    parent = t.parent()
    for node in range(t.node_count):
        assert t.value[node].sum() > 0
        if t.n_node_samples[node] == 0:
            np.testing.assert_allclose(t.value[node], t.value[parent[node]])
    row = pd.DataFrame({c: pd.Categorical([v], categories=list("abc"))
                        for c, v in {"x0": "c", "x1": "a", "x2": "c"}.items()})
    assert model.predict_proba(row).sum() == pytest.approx(1.0)


@pytest.mark.parametrize("loader", [datasets.load_breast_cancer, datasets.load_wine])
def test_cost_complexity_pruning_path_method_equals_scikit_learns(loader):
    from sklearn.tree import DecisionTreeClassifier as SkTree
    X, y = loader(return_X_y=True)
    X = X.astype(np.float32).astype(np.float64)
    ours = CARTClassifier(missing_strategy="learned").cost_complexity_pruning_path(X, y)
    theirs = SkTree(random_state=0).cost_complexity_pruning_path(X, y)
    # Compare modulo exact split ties: both paths end at the root and start at the full tree.
    assert ours.ccp_alphas[0] == 0.0
    assert ours.impurities[-1] == pytest.approx(theirs.impurities[-1])
    assert ours.impurities[0] == pytest.approx(theirs.impurities[0], abs=1e-12)
    assert np.all(np.diff(ours.ccp_alphas) >= 0)
    # The estimator is not fitted by the call (scikit-learn's contract).
    est = CARTClassifier()
    est.cost_complexity_pruning_path(X, y)
    assert not hasattr(est, "tree_")


def test_cv_folds_share_the_threads_from_a_thousand_cells(monkeypatch):
    # The folds' kernels release the GIL: from FOLD_THREADS_MIN_CELLS cells (wine: 2,314)
    # they run side by side; on iris (600) and the textbook's 17 rows, whose folds are
    # mostly Python, they take turns in one thread. (These folds are grown a call per
    # thread, _fit's every_fold; others one by one, _pruning's loop.)
    # (the two-call path: a small table's tree and folds grown by one call are
    # test_small_cv.py's)
    monkeypatch.setattr("quercus._small_cv.ENABLED", False)
    from sklearn.datasets import load_iris, load_wine

    from quercus import _pruning, _small_cv
    from quercus.datasets import load_watermelon
    seen = []
    real = _pruning.in_order

    def spy(run, n, threads):
        seen.append(threads)
        return real(run, n, threads)

    monkeypatch.setattr(_pruning, "in_order", spy)
    monkeypatch.setattr(_small_cv, "in_order", spy)
    X, y = load_wine(return_X_y=True)
    assert X.size >= _pruning.FOLD_THREADS_MIN_CELLS
    CARTClassifier(pruning="cost_complexity", n_jobs=2).fit(X, y)
    assert seen == [2]
    for Xs, ys in (load_iris(return_X_y=True), load_watermelon("2.0")):
        assert Xs.size < _pruning.FOLD_THREADS_MIN_CELLS
        CARTClassifier(pruning="cost_complexity", n_jobs=2).fit(Xs, ys)
    assert seen == [2, 1, 1]


def test_cp_table_and_alpha_belong_to_the_last_fit_and_the_table_is_made_once():
    from quercus import CARTClassifier
    from quercus.datasets import load_watermelon
    X, y = load_watermelon("2.0")
    est = CARTClassifier(pruning="cost_complexity", random_state=0).fit(X, y)
    table = est.cp_table_
    assert isinstance(table, pd.DataFrame) and est.cp_table_ is table  # made when first read
    assert est.ccp_alpha_ in table["alpha"].tolist()  # the chosen row's
    est.set_params(pruning=None).fit(X, y)
    assert not hasattr(est, "cp_table_")  # a fit without cross-validation has none
    assert not hasattr(est, "ccp_alpha_")  # nor, unpruned, a pruning alpha
    with pytest.raises(AttributeError, match="pruning='cost_complexity'"):
        est.cp_table_
    again = est.set_params(pruning="cost_complexity").fit(X, y).cp_table_
    assert again is not table
    pd.testing.assert_frame_equal(again, table, check_exact=True)


def _naive_weakest_link_report(tree, steps, reason):
    """The report rows of collapsing ``steps`` (lists of nodes) in turn, each node's
    ``leaves_removed`` counted on the tree as it then is by ``subtree_leaves`` (numpy
    reads, the tree's own ``children``), on a copy of the tree."""
    from quercus import _pruning
    tree = _pruning.copy_tree(tree)
    rows = []
    for nodes in steps:
        for node in nodes:
            if tree.kind[node] != LEAF:
                leaves = len(_pruning.subtree_leaves(tree, node))
                rows.append((node, int(tree.feature[node]), leaves - 1, reason(nodes)))
                tree.kind[node] = LEAF
    return rows, tree.kind


@pytest.mark.parametrize("seed", range(4))
def test_weakest_link_reports_count_each_collapse_s_own_leaves(seed):
    """prune_to_row and prune_at_alpha write a row for each node they collapse, its
    leaves_removed the leaves below it then (those of nodes collapsed before it not
    counted again), as a walk of the tree node by node counts them."""
    from quercus import _pruning
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(120, 4))
    y = (X[:, 0] + 0.5 * rng.normal(size=120) > 0).astype(int) + (X[:, 1] > 1)
    est = CARTClassifier(random_state=seed).fit(X, y)
    target = Target.of(est)
    alphas, _, steps = weakest_link_path(target, est.tree_)
    assert len(steps) > 3
    for row in (1, len(steps) // 2, len(steps) - 1):
        pruned, report = _pruning.prune_to_row(target, est.tree_, row)
        expected, kind = _naive_weakest_link_report(est.tree_, steps[1:row + 1],
                                                    lambda nodes: None)
        assert [(r["node"], r["feature"], r["leaves_removed"]) for r in report] == \
            [e[:3] for e in expected]
        assert pruned.kind.tolist() == kind.tolist()
        alpha = float(alphas[row])
        cut, at_alpha = _pruning.prune_at_alpha(target, est.tree_, alpha)
        assert [(r["node"], r["leaves_removed"]) for r in at_alpha] == \
            [(r["node"], r["leaves_removed"]) for r in report]
        assert cut.kind.tolist() == kind.tolist()
        assert sum(r["leaves_removed"] for r in report) == \
            est.tree_.n_leaves - _pruning.compact(pruned)[0].n_leaves  # (reachable ones)
