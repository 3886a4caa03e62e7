"""How a tree's nodes are stored while it grows and once fitted: the schema's (narrow) types
on every path, a builder whose heap arrays stay within a quarter again the nodes it holds,
and a big tree's move to memory maps with room up to the grower's bound on its nodes."""

import json
import pickle

import numpy as np
import pytest

import quercus
from quercus import _tree
from quercus._tree import _FIELDS, _FLAT, TreeBuilder


def _fitted_trees(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (X[:, 0] + rng.normal(scale=0.5, size=300) > 0).astype(int)
    models = [quercus.C45Classifier().fit(X, y),  # pessimistic pruning, fractional missing
              quercus.CARTClassifier(pruning="cost_complexity", cv=3, random_state=0)
              .fit(X, y),
              quercus.CARTRegressor(max_depth=4).fit(X, np.nan_to_num(X[:, 1]))]
    path = tmp_path / "m.json"
    models[0].save(path)
    models.append(quercus.load(path))
    return models


def test_fitted_pruned_and_loaded_trees_hold_the_schema_types(tmp_path):
    for model in _fitted_trees(tmp_path):
        t = model.tree_
        for name, dt in {**_FIELDS, **_FLAT}.items():
            assert getattr(t, name).dtype == np.dtype(dt), (type(model).__name__, name)


def test_tree_arrays_cast_whatever_they_are_given():
    b = TreeBuilder(n_out=1)
    b.add(1, 0)
    t = b.freeze()
    args = {name: getattr(t, name).astype(np.int64) if np.dtype(dt).kind == "i"
            else getattr(t, name) for name, dt in {**_FIELDS, **_FLAT}.items()}
    again = _tree.TreeArrays(**args)
    assert again.first_child.dtype == np.int32 and again.sur_start.dtype == np.int32
    assert again.n_node_samples.dtype == np.int64 and again.cat_map.dtype == np.int8


def test_builder_keeps_every_node_across_growth_with_bounded_slack():
    rng = np.random.default_rng(1)
    b = TreeBuilder(n_out=2, capacity=4)
    expected_feature, expected_value = [], []
    for step in range(300):
        n_new = int(rng.integers(1, 9))
        first = b.add(n_new, depth=step % 7)
        assert first == len(expected_feature)
        for j in range(first, first + n_new):
            b["feature"][j] = j % 11
            b["value"][j] = (j, -j)
            expected_feature.append(j % 11)
            expected_value.append((j, -j))
        # Growth by a quarter: never room for more than a quarter again the nodes held.
        assert b._cap <= max(4, 1.25 * b.count)
    t = b.freeze()
    assert t.feature.tolist() == expected_feature
    assert t.value.tolist() == [list(v) for v in expected_value]
    assert (t.kind == _tree.LEAF).all() and (t.first_child == -1).all()


def test_freeze_hands_the_arrays_over_and_empties_the_builder():
    b = TreeBuilder(n_out=1)
    b.add(5, 0)
    t = b.freeze()
    assert t.node_count == 5
    assert b._arrays == {} and b.count == 0


def test_builder_refuses_more_nodes_than_the_node_links_can_address(monkeypatch):
    monkeypatch.setattr(_tree, "MAX_TREE_NODES", 100)
    b = TreeBuilder(n_out=1, capacity=64)
    b.add(60, 0)
    with pytest.raises(MemoryError, match="more than 100 nodes"):
        b.add(60, 1)


def test_flat_arrays_longer_than_the_int32_offsets_reach_are_refused(monkeypatch):
    monkeypatch.setattr(_tree, "MAX_TREE_NODES", 100)
    b = TreeBuilder(n_out=1)
    b.add(3, 0)
    b.flat["cat_map"].extend([0] * 101)
    with pytest.raises(MemoryError, match="cat_map has more than 100 entries"):
        b.freeze()


def test_model_file_of_a_grown_tree_reads_back_in_the_same_types(tmp_path):
    model = quercus.CARTClassifier().fit(np.arange(40.0).reshape(20, 2), np.arange(20) % 3)
    path = tmp_path / "m.json"
    model.save(path)
    doc = json.loads(path.read_text())
    assert doc["tree"]["first_child"] == model.tree_.first_child.tolist()
    loaded = quercus.load(path)
    assert loaded.tree_.first_child.dtype == np.int32
    np.testing.assert_array_equal(loaded.predict(np.arange(40.0).reshape(20, 2)),
                                  model.predict(np.arange(40.0).reshape(20, 2)))


@pytest.mark.parametrize("make,encoded,held", [
    (lambda: quercus.CARTClassifier(), False, None),
    (lambda: quercus.CARTClassifier(ccp_alpha=0.01), False, None),
    (lambda: quercus.CARTClassifier(pruning="reduced_error"), True, False),  # hold-out
    (lambda: quercus.C45Classifier(), True, True),  # pessimistic pruning routes the rows
    (lambda: quercus.CARTClassifier(pruning="cost_complexity", cv=3), True, True),  # folds
])
def test_a_dataframe_is_encoded_to_float64_only_when_pruning_reads_the_rows(
        monkeypatch, make, encoded, held):
    """A fit that reads the rows only through their bins bins a DataFrame with categorical
    columns straight from its columns. Otherwise the float64 encoded copy is made: held
    while growing when the pruning routes the rows (C4.5's, the cost-complexity folds),
    freed once binned when only a hold-out's rows were taken from it."""
    import weakref

    import pandas as pd

    from quercus import _fit, _prepare, _small_cv
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=200),
                      "c": pd.Categorical(rng.choice(list("xyz"), 200))})
    y = (X["a"] > 0).to_numpy().astype(int)
    refs = []
    encode = _prepare.fit_schema_and_encode

    def spy_encode(*args, **kwargs):
        schema, X_enc = encode(*args, **kwargs)
        refs.append(weakref.ref(X_enc))
        return schema, X_enc

    alive_while_growing = []
    grow = _fit.grow

    def spy_grow(*args, **kwargs):
        alive_while_growing.append(refs[0]() is not None if refs else None)
        return grow(*args, **kwargs)

    # (a small cross-validated fit grows its tree with the folds': quercus._small_cv)
    blocks = _small_cv.subtree_blocks

    def spy_blocks(*args, **kwargs):
        alive_while_growing.append(refs[0]() is not None if refs else None)
        return blocks(*args, **kwargs)

    monkeypatch.setattr(_prepare, "fit_schema_and_encode", spy_encode)
    monkeypatch.setattr(_fit, "grow", spy_grow)
    monkeypatch.setattr(_small_cv, "subtree_blocks", spy_blocks)
    make().fit(X, y)
    assert len(refs) == (1 if encoded else 0)
    assert alive_while_growing[0] is held


def test_a_builder_expecting_a_big_tree_grows_it_in_maps_and_keeps_every_node(monkeypatch):
    node_bytes = _tree._NODE_BYTES + 8 * 2
    monkeypatch.setattr(_tree, "MAP_MIN_BYTES", 100 * node_bytes)
    b = TreeBuilder(n_out=2, capacity=8)
    b.expect(50)  # small: stays in the heap
    assert all(arr.flags.owndata for arr in b._arrays.values())
    for j in range(600):  # past the expected size too: it is only a hint
        assert b.add(1, depth=j % 5) == j
        b["feature"][j] = j
        b["value"][j] = (j, 2 * j)
        if j == 20:
            b.expect(500)  # every field in a map with room for 500 nodes
            assert b._cap == 500
            assert not any(arr.flags.owndata for arr in b._arrays.values())
    t = b.freeze()
    assert t.node_count == 600
    assert t.feature.tolist() == list(range(600))
    assert t.value[:, 1].tolist() == [2.0 * j for j in range(600)]
    assert t.depth.tolist() == [j % 5 for j in range(600)]


@pytest.mark.parametrize("maps_granted", [0, 3])
def test_maps_that_cannot_be_had_leave_the_builder_growing_in_the_heap(monkeypatch,
                                                                       maps_granted):
    monkeypatch.setattr(_tree, "MAP_MIN_BYTES", 0)
    real, granted = _tree._mapped, []

    def refuse(shape, dtype):  # the first few fields get their maps, then none
        if len(granted) >= maps_granted:
            raise OSError("no address space")
        granted.append(1)
        return real(shape, dtype)

    monkeypatch.setattr(_tree, "_mapped", refuse)
    b = TreeBuilder(n_out=1, capacity=4)
    b.add(1, 0)
    b.expect(20)
    assert sum(not arr.flags.owndata for arr in b._arrays.values()) == maps_granted
    for j in range(1, 50):
        b.add(1, j % 3)
        b["feature"][j] = j
    t = b.freeze()
    assert t.feature.tolist()[1:] == list(range(1, 50))
    assert t.depth.tolist()[1:] == [j % 3 for j in range(1, 50)]


def _fits(seed):
    # More rows than one subtree kernel call takes, so that the builder grows the trees.
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(5000, 5))
    y_reg = X[:, 0] + rng.normal(size=5000)
    y_clf = (X[:, 1] + rng.normal(scale=0.7, size=5000) > 0).astype(int)
    X_miss = X.copy()
    X_miss[rng.random(X.shape) < 0.1] = np.nan
    return [lambda: quercus.CARTRegressor(max_surrogate=0).fit(X, y_reg),
            lambda: quercus.CARTRegressor(min_samples_leaf=5).fit(X_miss, y_reg),
            lambda: quercus.CARTClassifier(min_samples_leaf=3).fit(X, y_clf),
            lambda: quercus.C45Classifier().fit(X_miss, y_clf)]


def test_trees_grown_in_maps_equal_trees_grown_in_the_heap(monkeypatch, tmp_path):
    heap = [fit().tree_ for fit in _fits(3)]
    monkeypatch.setattr(_tree, "MAP_MIN_BYTES", 0)
    # A regressor's tree is a view of its map, whether its subtrees were grown by the
    # kernel or every node in Python (surrogate splits).
    assert not _fits(3)[1]().tree_.kind.flags.owndata
    model = _fits(3)[0]()
    assert not model.tree_.kind.flags.owndata
    model.save(tmp_path / "m.json")
    assert quercus.load(tmp_path / "m.json").tree_.to_dict() == model.tree_.to_dict()
    again = pickle.loads(pickle.dumps(model))  # (pickle copies the filled part only)
    assert again.tree_.to_dict() == model.tree_.to_dict()
    for a, fit in zip(heap, _fits(3)):
        assert a.to_dict() == fit().tree_.to_dict()


def test_the_grower_bounds_the_nodes_of_binary_trees_exactly_when_fully_grown(monkeypatch):
    seen = []
    expect = TreeBuilder.expect

    def spy(self, n_nodes):  # the grower's bound on the whole tree, given at the root
        seen.append(n_nodes)
        expect(self, n_nodes)

    monkeypatch.setattr(TreeBuilder, "expect", spy)
    n = 5000  # more rows than one subtree kernel call takes: the builder grows the tree
    rng = np.random.default_rng(5)
    X = rng.normal(size=(n, 3))

    def fit(est, y):
        model = est.fit(X, y)
        return seen[-1], model.tree_.node_count

    # Distinct targets, fully grown: one row a leaf, 2n - 1 nodes, the bound itself.
    # (No surrogates: the small nodes' subtrees are then grown by the kernel.)
    assert fit(quercus.CARTRegressor(max_surrogate=0), rng.permutation(n) * 1.0) == (
        2 * n - 1, 2 * n - 1)
    # Leaves of at least 4 rows: at most m // 4 of them under a small node of m rows.
    bound, count = fit(quercus.CARTRegressor(min_samples_leaf=4, max_surrogate=0),
                       rng.normal(size=n))
    assert count <= bound <= 2 * (n // 4) - 1 + 64
    bound, count = fit(quercus.CARTRegressor(max_depth=4, max_surrogate=0), rng.normal(size=n))
    assert count <= bound <= 31


def test_no_bound_when_a_split_may_have_empty_branches_or_spread_samples():
    from types import SimpleNamespace
    from quercus._grower import GrowConfig, subtree_node_bound
    from quercus._kernels.schema import CAT_MULTIWAY, CAT_ONE_VS_REST, FRACTIONAL, SURROGATE

    def bound(cat_mode, missing_mode, categorical, missing):
        cfg = GrowConfig(criterion=0, gain_ratio=False, cat_mode=cat_mode,
                         missing_mode=missing_mode, max_surrogate=0, random_splitter=False,
                         max_depth=2**31 - 1, min_samples_split=2, min_samples_leaf=1,
                         min_weight_leaf=0.0, min_impurity_decrease=0.0, max_features=3)
        data = SimpleNamespace(cat_mask=np.array([True, False]) if categorical else None,
                               has_missing=missing)
        return subtree_node_bound(data, cfg, [(100, 3)])

    assert bound(CAT_ONE_VS_REST, SURROGATE, True, True) == 198
    assert bound(CAT_MULTIWAY, FRACTIONAL, False, False) == 198  # nothing to spread
    assert bound(CAT_MULTIWAY, SURROGATE, True, False) is None  # empty branches
    assert bound(CAT_ONE_VS_REST, FRACTIONAL, False, True) is None  # spread samples


def test_flat_arrays_grow_drop_their_tail_and_hand_over_their_entries():
    rng = np.random.default_rng(9)
    a, model = _tree.FlatArray(np.float64), []
    for _ in range(400):
        op = rng.integers(0, 4)
        if op == 0:
            v = float(rng.normal())
            a.append(v)
            model.append(v)
        elif op == 1:
            vs = rng.normal(size=int(rng.integers(0, 40)))
            a.extend(vs)
            model.extend(vs.tolist())
        elif op == 2:  # an undone split drops what it added
            n = int(rng.integers(0, len(model) + 3))
            del a[n:]
            del model[n:]
        else:
            s = int(rng.integers(0, len(model) + 1))
            part = a[s:s + 5]
            assert part.tolist() == model[s:s + 5]
            part[:] = 0.0  # a copy: the entries stay
        assert len(a) == len(model)
    out = a.take()
    assert out.dtype == np.float64 and out.tolist() == model
    with pytest.raises(TypeError, match="tail"):
        del _tree.FlatArray(np.int8)[1:2]


def test_a_builder_s_flat_entries_are_arrays_not_python_objects():
    b = TreeBuilder(n_out=1)
    b.add(1, 0)
    b.flat["sur_threshold"].append(0.5)
    b.flat["cat_map"].extend(np.array([1, 0, 1]))  # (the grower's maps are int64)
    assert all(isinstance(f, _tree.FlatArray) for f in b.flat.values())
    t = b.freeze()
    assert t.sur_threshold.tolist() == [0.5] and t.cat_map.tolist() == [1, 0, 1]
    # A category's child (0 or 1) is one byte: flights' 835k entries took 6.7 MB as int64.
    assert t.cat_map.dtype == np.int8


def _written_nodes(n, n_out, seed):
    """A Nodes record of ``n`` slots, every field of every slot written with its own
    values (distinct per field, within each field's type)."""
    from quercus._kernels.builder import leaf_nodes
    from quercus._kernels.schema import NODE_FIELDS
    rng = np.random.default_rng(seed)
    nodes = leaf_nodes(n, n_out)
    for f, a in zip(NODE_FIELDS, nodes):
        a[...] = rng.integers(0, 100, size=a.shape).astype(a.dtype)
    return nodes


def test_a_full_compiled_builder_grows_keeping_every_field_of_every_node():
    # with_room lists the fields itself when it grows the record: a field dropped or two
    # swapped there would show here as another field's values.
    from quercus._kernels.builder import init_nodes, with_room
    from quercus._kernels.schema import LEAF_NODE, NODE_FIELDS
    nodes = _written_nodes(5, 3, seed=1)
    before = [a.copy() for a in nodes]
    grown = with_room(nodes, 5, 4)
    init_nodes(grown, 5, 4, 7)
    assert grown.kind.shape[0] >= 9 and grown is not nodes
    for f, old, new in zip(NODE_FIELDS, before, grown):
        assert new.dtype == old.dtype, f.name
        np.testing.assert_array_equal(new[:5], old, err_msg=f.name)
        expected = 7 if f.name == "depth" else getattr(LEAF_NODE, f.name)
        assert (new[5:9] == expected).all(), f.name
    cap = grown.kind.shape[0]
    same = with_room(grown, cap - 1, 1)  # room left: the same record, written in place
    init_nodes(same, cap - 1, 1, 2)
    assert same is grown and grown.depth[cap - 1] == 2


def test_the_builder_s_new_leaves_are_the_schema_s_and_an_unsplit_node_is_one_again():
    from quercus._kernels.builder import init_nodes, unsplit, write_split
    from quercus._kernels.schema import MULTIWAY, NODE_FIELDS
    nodes = _written_nodes(3, 2, seed=2)
    init_nodes(nodes, 0, 3, 4)
    for f, a in zip(NODE_FIELDS, nodes):
        assert (a == (4 if f.name == "depth" else f.leaf)).all(), f.name
    fresh = [a.copy() for a in nodes]
    write_split(nodes, 1, MULTIWAY, 3, 0.25, 2, 5, 3, 0.5, 2, 1, 6, 2, 9)
    assert [int(nodes.kind[1]), int(nodes.first_child[1]), int(nodes.sur_count[1]),
            int(nodes.cat_map_start[1])] == [MULTIWAY, 5, 2, 9]
    unsplit(nodes, 1)
    for f, old, new in zip(NODE_FIELDS, fresh, nodes):
        np.testing.assert_array_equal(new, old, err_msg=f.name)


def test_a_builder_and_its_nodes_record_share_their_arrays():
    b = TreeBuilder(n_out=2)
    b.add(3, 0)
    nodes = b.nodes()
    for name, a in zip(nodes._fields, nodes):
        assert a is b[name], name
