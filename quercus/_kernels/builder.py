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
from .schema import LEAF_NODE, NODE_TYPES, SUR_TYPES, Nodes, Surrogates
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
    # np.empty of the schema's types, which other kernels make arrays of too: np.full
    # would compile a function of its own for each type.
    t = NODE_TYPES
    nodes = Nodes(
        np.empty(capacity, t.kind), np.empty(capacity, t.feature),
        np.empty(capacity, t.threshold), np.empty(capacity, t.category),
        np.empty(capacity, t.first_child), np.empty(capacity, t.n_children),
        np.empty(capacity, t.depth), np.empty(capacity, t.n_node_samples),
        np.empty(capacity, t.weighted_n_node_samples), np.empty(capacity, t.impurity),
        np.empty((capacity, n_out), t.value), np.empty(capacity, t.missing_mode),
        np.empty(capacity, t.missing_child), np.empty(capacity, t.sur_start),
        np.empty(capacity, t.sur_count), np.empty(capacity, t.rho),
        np.empty(capacity, t.cat_map_start))
    init_nodes(nodes, 0, capacity, 0)
    return nodes


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
    # One loop writing every field: one small function to compile (slice assignments
    # compile numba's general indexing code for each field's type). From Python, the
    # builder's nodes are few at a time but for a multiway split's.
    d = LEAF_NODE
    for i in range(first, first + n_new):
        nodes.kind[i] = d.kind
        nodes.feature[i] = d.feature
        nodes.threshold[i] = d.threshold
        nodes.category[i] = d.category
        nodes.first_child[i] = d.first_child
        nodes.n_children[i] = d.n_children
        nodes.depth[i] = depth
        nodes.n_node_samples[i] = d.n_node_samples
        nodes.weighted_n_node_samples[i] = d.weighted_n_node_samples
        nodes.impurity[i] = d.impurity
        for k in range(nodes.value.shape[1]):
            nodes.value[i, k] = d.value
        nodes.missing_mode[i] = d.missing_mode
        nodes.missing_child[i] = d.missing_child
        nodes.sur_start[i] = d.sur_start
        nodes.sur_count[i] = d.sur_count
        nodes.rho[i] = d.rho
        nodes.cat_map_start[i] = d.cat_map_start


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
    yet written (each array of its field's schema type).

    Examples
    --------
    >>> surs = surrogate_table(2)
    >>> surs.sur_kind.dtype.name, surs.sur_threshold.shape
    ('int8', (2,))
    """
    t = SUR_TYPES
    return Surrogates(np.empty(capacity, t.sur_feature), np.empty(capacity, t.sur_kind),
                      np.empty(capacity, t.sur_threshold), np.empty(capacity, t.sur_category),
                      np.empty(capacity, t.sur_flip), np.empty(capacity, t.sur_agreement))


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
    return _grown_surrogates(surs, max(2 * surs.sur_feature.shape[0], count + n_new), count)


@inner
def first_surrogates(surs, n):
    """The first ``n`` entries of ``surs``, a record of copies (the kernel's growing arrays
    are not handed out).

    Examples
    --------
    >>> surs = surrogate_table(3)
    >>> surs.sur_flip[:] = [1, 0, 1]
    >>> first_surrogates(surs, 2).sur_flip.tolist()
    [1, 0]
    """
    return _grown_surrogates(surs, n, n)


@inner
def _grown_surrogates(surs, n, keep):
    """A record of ``n`` entries, the first ``keep`` of ``surs`` copied into it."""
    return Surrogates(
        grown_vector(surs.sur_feature, n, keep), grown_vector(surs.sur_kind, n, keep),
        grown_vector(surs.sur_threshold, n, keep), grown_vector(surs.sur_category, n, keep),
        grown_vector(surs.sur_flip, n, keep), grown_vector(surs.sur_agreement, n, keep))
