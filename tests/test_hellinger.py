"""The Hellinger distance criterion (Cieslak and Chawla, 2008): one entry of the criterion
registry, checked against its definition and against the brute-force builder of
``naive.py`` on random data."""

import importlib.util
import pathlib

import numpy as np
import pandas as pd
import pytest

from quercus import DecisionTreeClassifier, export_dict, load
from quercus._kernels.criteria import HELLINGER, pair_gain, split_loss, split_scores

_spec = importlib.util.spec_from_file_location(
    "quercus_tests_naive", pathlib.Path(__file__).with_name("naive.py"))
naive = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(naive)


def test_naive_hellinger_is_the_textbook_value():
    # A perfect split of two classes: the distributions over branches are disjoint, the
    # distance its largest, sqrt(2); a split that keeps the class mix in each branch: 0.
    assert naive.hellinger_distance([[5.0, 0.0], [0.0, 3.0]]) == pytest.approx(np.sqrt(2.0))
    assert naive.hellinger_distance([[2.0, 4.0], [3.0, 6.0]]) == pytest.approx(0.0, abs=1e-15)


def test_kernel_gain_equals_the_definition():
    rng = np.random.default_rng(0)
    for _ in range(200):
        branches = np.round(rng.uniform(0, 5, size=(int(rng.integers(2, 5)), 2)), 2)
        branches[rng.random(branches.shape) < 0.2] = 0.0
        _, gain, info = split_scores(branches, HELLINGER)
        assert gain == pytest.approx(naive.hellinger_distance(branches.tolist()),
                                     rel=1e-12, abs=1e-15)
        assert info == pytest.approx(naive.intrinsic_value(branches.tolist()), abs=1e-12)
        a, b = branches[0].copy(), branches[1:].sum(axis=0)
        two = naive.hellinger_distance([a.tolist(), b.tolist()])
        assert pair_gain(a, b, HELLINGER) == pytest.approx(two, rel=1e-12, abs=1e-15)
        assert split_loss(a, b, HELLINGER) == pytest.approx(-two, rel=1e-12, abs=1e-15)


def test_gain_does_not_move_with_the_class_ratio():
    # Skew insensitivity, the reason for the criterion: scaling one class's weights leaves
    # the distance unchanged, where the Gini decrease changes.
    branches = np.array([[30.0, 2.0], [10.0, 6.0]])
    skewed = branches * np.array([10.0, 1.0])
    assert split_scores(skewed, HELLINGER)[1] == pytest.approx(
        split_scores(branches, HELLINGER)[1], rel=1e-12)
    gini = 1
    assert split_scores(skewed, gini)[1] != pytest.approx(split_scores(branches, gini)[1])


def _random_frame(rng, n):
    cols = {}
    for j in range(int(rng.integers(0, 3))):
        cols[f"c{j}"] = pd.Series(rng.choice(list("pqrs")[:int(rng.integers(1, 5))], n),
                                  dtype=object)
    for j in range(int(rng.integers(1, 3))):
        cols[f"n{j}"] = (rng.integers(0, 5, n).astype(float) if j % 2
                         else np.round(rng.normal(size=n), 2))
    y = rng.choice(["neg", "pos"], n, p=[0.8, 0.2]).astype(object)
    y[:2] = ["neg", "pos"]  # both classes present
    return pd.DataFrame(cols), y


def _rows(tree):
    out, stack = [], [tree]
    while stack:
        d = stack.pop()
        out.append((d.get("feature"), d["kind"], d["n_samples"], d["class"],
                    d.get("threshold"), d.get("category")))
        stack.extend(reversed([c["node"] for c in d.get("children", [])]))
    return out


@pytest.mark.parametrize("categorical_split", ["binary", "multiway"])
def test_trees_equal_the_brute_force_builder(categorical_split):
    rng = np.random.default_rng(11 if categorical_split == "binary" else 12)
    for trial in range(30):
        n = int(rng.integers(6, 40))
        X, y = _random_frame(rng, n)
        w = None if trial % 3 else np.round(rng.uniform(0.2, 2.5, n), 3)
        msl = 1 if trial % 4 else 2
        est = DecisionTreeClassifier(criterion="hellinger", categorical_split=categorical_split,
                                     min_samples_leaf=msl).fit(X, y, sample_weight=w)
        ref = naive.build_tree(X, y, criterion="hellinger", categorical_split=categorical_split,
                               sample_weight=w, min_samples_leaf=msl)
        ours = _rows(export_dict(est))
        theirs = [(t.feature, t.kind, t.n_samples, t.prediction, t.threshold, t.category)
                  for t in ref.preorder()]
        context = f"\n{X.assign(y=y).to_string()}\nweights={w}"
        assert len(ours) == len(theirs), context
        for a, b in zip(ours, theirs):
            assert a[:4] == b[:4], context
            if b[4] is not None:
                assert a[4] == pytest.approx(b[4], abs=1e-12), context
            assert a[5] == b[5], context
        assert est.predict(X).tolist() == naive.predict(ref, X).tolist(), context


def test_explain_shows_the_distance_and_marks_the_largest(tmp_path):
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"a": rng.normal(size=80).round(1), "b": rng.integers(0, 4, 80) * 1.0})
    y = np.where(X["a"] + 0.3 * rng.normal(size=80) > 0.8, "pos", "neg")
    est = DecisionTreeClassifier(criterion="hellinger").fit(X, y)
    table = est.explain(0)
    valid = table[table["valid"]]
    assert table.loc[table["chosen"], "hellinger"].item() == pytest.approx(
        valid["hellinger"].max(), rel=1e-12)
    assert table.loc[table["chosen"], "feature"].item() == "a"
    assert "Hellinger distance" in table.loc[table["chosen"], "note"].item()
    assert "hellinger" in repr(table)  # printed beside the textbook's columns
    # the same numbers as the definition, row by row
    left = table.loc[table["chosen"], "threshold"].item()
    mask = X["a"] <= left
    branches = [[float(((y == c) & m).sum()) for c in ("neg", "pos")] for m in (mask, ~mask)]
    assert table.loc[table["chosen"], "hellinger"].item() == pytest.approx(
        naive.hellinger_distance(branches), rel=1e-12)


def test_more_than_two_classes_are_refused_naming_the_criterion():
    X = np.arange(9.0).reshape(-1, 1)
    with pytest.raises(ValueError, match="criterion='hellinger' separates two classes; "
                                         "got 3 classes"):
        DecisionTreeClassifier(criterion="hellinger").fit(X, [0, 1, 2] * 3)


def test_model_file_carries_the_criterion(tmp_path):
    rng = np.random.default_rng(3)
    X, y = _random_frame(rng, 60)
    est = DecisionTreeClassifier(criterion="hellinger").fit(X, y)
    est.save(tmp_path / "h.json")
    again = load(tmp_path / "h.json")
    assert again.criterion == "hellinger"
    assert (again.predict(X) == est.predict(X)).all()
