"""Writing a tree's nodes, said once for both growers.

A tree being grown is a :data:`~quercus._kernels.schema.Nodes` record: one array per node
field. The Python grower's :class:`~quercus._tree.TreeBuilder` holds one (and grows it in
place), the subtree kernel one of its own (made by :func:`leaf_nodes`, grown by
:func:`with_room`); both make a node, record its statistics and turn it into a split with
the functions here, so a field is written in one place. Called from Python, they run as
plain Python on the builder's arrays. The kernels' surrogate splits are a
:data:`~quercus._kernels.schema.Surrogates` record, made and grown here too.
"""

import numpy as np

from ._jit import inner
from .schema import LEAF_NODE, NO_SURROGATE, Nodes, Surrogates
from .tables import grown, grown_vector


@inner
def leaf_nodes(capacity, n_out):
    """A :data:`~quercus._kernels.schema.Nodes` record of ``capacity`` slots, each a new
    leaf at depth 0 (``value``: ``n_out`` columns); compiled, the subtree kernel's own.

    Examples
    --------
    >>> nodes = leaf_nodes(4, 3)
    >>> nodes.kind.dtype.name, nodes.value.shape, nodes.first_child.tolist()
    ('int8', (4, 3), [-1, -1, -1, -1])
    """
    # Each array takes its type from its field's leaf value (a NumPy scalar of the
    # schema's type), so the schema alone says it.
    d = LEAF_NODE
    return Nodes(
        np.full(capacity, d.kind), np.full(capacity, d.feature), np.full(capacity, d.threshold),
        np.full(capacity, d.category), np.full(capacity, d.first_child),
        np.full(capacity, d.n_children), np.full(capacity, d.depth),
        np.full(capacity, d.n_node_samples), np.full(capacity, d.weighted_n_node_samples),
        np.full(capacity, d.impurity), np.full((capacity, n_out), d.value),
        np.full(capacity, d.missing_mode), np.full(capacity, d.missing_child),
        np.full(capacity, d.sur_start), np.full(capacity, d.sur_count), np.full(capacity, d.rho),
        np.full(capacity, d.cat_map_start))


@inner
def init_nodes(nodes, first, n_new, depth):
    """Slots ``first .. first + n_new - 1`` of ``nodes`` made new leaves at ``depth``
    (each field's :data:`~quercus._kernels.schema.LEAF_NODE` value).

    Examples
    --------
    >>> nodes = leaf_nodes(3, 2)
    >>> init_nodes(nodes, 1, 2, 4)
    >>> nodes.depth[1:].tolist(), nodes.first_child[1:].tolist(), nodes.value[2].tolist()
    ([4, 4], [-1, -1], [0.0, 0.0])
    """
    # Slices set to a scalar: one vectorised write a field from Python (a multiway split
    # of a thousand categories makes a thousand leaves), a loop when compiled.
    d, e = LEAF_NODE, first + n_new
    nodes.kind[first:e] = d.kind
    nodes.feature[first:e] = d.feature
    nodes.threshold[first:e] = d.threshold
    nodes.category[first:e] = d.category
    nodes.first_child[first:e] = d.first_child
    nodes.n_children[first:e] = d.n_children
    nodes.depth[first:e] = depth
    nodes.n_node_samples[first:e] = d.n_node_samples
    nodes.weighted_n_node_samples[first:e] = d.weighted_n_node_samples
    nodes.impurity[first:e] = d.impurity
    nodes.value[first:e] = d.value
    nodes.missing_mode[first:e] = d.missing_mode
    nodes.missing_child[first:e] = d.missing_child
    nodes.sur_start[first:e] = d.sur_start
    nodes.sur_count[first:e] = d.sur_count
    nodes.rho[first:e] = d.rho
    nodes.cat_map_start[first:e] = d.cat_map_start


@inner
def with_room(nodes, count, n_new):
    """``nodes`` (of which ``count`` slots are used) if it has room for ``n_new`` more,
    else a copy of it with room for half as many again (at least for those).

    Examples
    --------
    >>> nodes = leaf_nodes(4, 1)
    >>> with_room(nodes, 2, 2) is nodes, with_room(nodes, 2, 3).kind.shape[0]
    (True, 6)
    """
    if count + n_new <= nodes.kind.shape[0]:
        return nodes
    cap = max(nodes.kind.shape[0] + nodes.kind.shape[0] // 2, count + n_new)
    return Nodes(
        grown_vector(nodes.kind, cap, count), grown_vector(nodes.feature, cap, count),
        grown_vector(nodes.threshold, cap, count), grown_vector(nodes.category, cap, count),
        grown_vector(nodes.first_child, cap, count), grown_vector(nodes.n_children, cap, count),
        grown_vector(nodes.depth, cap, count), grown_vector(nodes.n_node_samples, cap, count),
        grown_vector(nodes.weighted_n_node_samples, cap, count),
        grown_vector(nodes.impurity, cap, count), grown(nodes.value, cap, count),
        grown_vector(nodes.missing_mode, cap, count),
        grown_vector(nodes.missing_child, cap, count), grown_vector(nodes.sur_start, cap, count),
        grown_vector(nodes.sur_count, cap, count), grown_vector(nodes.rho, cap, count),
        grown_vector(nodes.cat_map_start, cap, count))


@inner
def write_stats(nodes, slot, impurity, weight, n_samples):
    """A node's impurity, weight and number of samples (its value the caller writes: the
    growers make it in their own ways)."""
    nodes.impurity[slot] = impurity
    nodes.weighted_n_node_samples[slot] = weight
    nodes.n_node_samples[slot] = n_samples


@inner
def write_split(nodes, slot, kind, feature, threshold, category, first_child, n_children, rho,
                missing_mode, missing_child, sur_start, sur_count, cat_map_start):
    """Make node ``slot`` a split: of ``kind`` on ``feature`` (``threshold``, or the
    ``category`` of a CAT_BINARY split, else -1), its ``n_children`` children from slot
    ``first_child``, the known share ``rho`` of the attribute's weight, how its missing
    values go (``missing_mode``, ``missing_child``), its surrogates (``sur_count`` from
    ``sur_start``) and its categories' children (from ``cat_map_start``; -1: none).

    Examples
    --------
    >>> from quercus._kernels.schema import NUMERIC
    >>> nodes = leaf_nodes(3, 1)
    >>> init_nodes(nodes, 0, 3, 0)
    >>> write_split(nodes, 0, NUMERIC, 2, 0.5, -1, 1, 2, 1.0, 1, 0, 0, 0, -1)
    >>> int(nodes.kind[0]), int(nodes.feature[0]), int(nodes.first_child[0])
    (1, 2, 1)
    >>> unsplit(nodes, 0)
    >>> int(nodes.kind[0]), int(nodes.feature[0]), int(nodes.first_child[0])
    (0, -1, -1)
    """
    nodes.kind[slot] = kind
    nodes.feature[slot] = feature
    nodes.threshold[slot] = threshold
    nodes.category[slot] = category
    nodes.first_child[slot] = first_child
    nodes.n_children[slot] = n_children
    nodes.rho[slot] = rho
    nodes.missing_mode[slot] = missing_mode
    nodes.missing_child[slot] = missing_child
    nodes.sur_start[slot] = sur_start
    nodes.sur_count[slot] = sur_count
    nodes.cat_map_start[slot] = cat_map_start


@inner
def unsplit(nodes, slot):
    """Node ``slot`` a leaf again (every field :func:`write_split` writes back to a new
    leaf's): a split that pre-pruning refused."""
    d = LEAF_NODE
    write_split(nodes, slot, d.kind, d.feature, d.threshold, d.category, d.first_child,
                d.n_children, d.rho, d.missing_mode, d.missing_child, d.sur_start,
                d.sur_count, d.cat_map_start)


@inner
def as_parent(nodes, slot, parent, n_samples):
    """Node ``slot``, an empty branch of ``parent`` (or one of zero weight), predicts as its
    parent; ``n_samples``: its samples (of zero weight)."""
    for k in range(nodes.value.shape[1]):
        nodes.value[slot, k] = nodes.value[parent, k]
    nodes.n_node_samples[slot] = n_samples


@inner
def surrogate_table(capacity):
    """A :data:`~quercus._kernels.schema.Surrogates` record of ``capacity`` entries, not
    yet written (each array typed by its field's schema type).

    Examples
    --------
    >>> surs = surrogate_table(2)
    >>> surs.sur_kind.dtype.name, surs.sur_threshold.shape
    ('int8', (2,))
    """
    d = NO_SURROGATE
    return Surrogates(np.full(capacity, d.sur_feature), np.full(capacity, d.sur_kind),
                      np.full(capacity, d.sur_threshold), np.full(capacity, d.sur_category),
                      np.full(capacity, d.sur_flip), np.full(capacity, d.sur_agreement))


@inner
def with_surrogate_room(surs, count, n_new):
    """``surs`` (of which ``count`` entries are used) if it has room for ``n_new`` more,
    else a copy with twice the room (at least for those).

    Examples
    --------
    >>> surs = surrogate_table(2)
    >>> with_surrogate_room(surs, 1, 1) is surs, with_surrogate_room(surs, 1, 3).sur_flip.shape
    (True, (4,))
    """
    if count + n_new <= surs.sur_feature.shape[0]:
        return surs
    cap = max(2 * surs.sur_feature.shape[0], count + n_new)
    return Surrogates(
        grown_vector(surs.sur_feature, cap, count), grown_vector(surs.sur_kind, cap, count),
        grown_vector(surs.sur_threshold, cap, count), grown_vector(surs.sur_category, cap, count),
        grown_vector(surs.sur_flip, cap, count), grown_vector(surs.sur_agreement, cap, count))


@inner
def first_surrogates(surs, n):
    """The first ``n`` entries of ``surs``, a record of copies (the kernel's growing arrays
    are not handed out)."""
    return Surrogates(surs.sur_feature[:n].copy(), surs.sur_kind[:n].copy(),
                      surs.sur_threshold[:n].copy(), surs.sur_category[:n].copy(),
                      surs.sur_flip[:n].copy(), surs.sur_agreement[:n].copy())
