"""A chosen split applied to its node, said once for both growers.

Once a node's split is chosen and its samples' branches are known (:func:`~quercus.
_kernels.node.branches`; surrogates, where kept, have routed the samples that miss the
attribute), :func:`apply_split` sends the samples to the children, makes the children new
leaves and writes the split into the node. The subtree kernel calls it for its small
nodes, the Python grower through :func:`split_rows` for its big ones; what each does
before (the split search, surrogates) and after (histograms, the validation test, its
stack of nodes) is made of the same helpers too.
"""

from typing import NamedTuple

import numpy as np

from ._jit import kernel
from .builder import init_nodes, write_split
from .partition import scatter
from .schema import FRACTIONAL
from .tables import ordered_sum


class Children(NamedTuple):
    """A split node's samples as its children hold them: child ``c`` has the samples
    ``rows[offsets[c]:offsets[c + 1]]`` with their weights ``w`` alike (empty when every
    weight is 1: the caller has its ones), its ``stats`` and its total ``weight``."""

    rows: np.ndarray
    w: np.ndarray
    offsets: np.ndarray
    stats: np.ndarray
    weight: np.ndarray


# Inlined at numba's IR level into the subtree kernel: as a call, its arguments (the nodes
# record's seventeen arrays among them) cost more than the work at a small node.
@kernel(inline="always")
def apply_split(nodes, count, slot, link_base, k, f, threshold, category, n_children, rho,
                missing_mode, missing_child, any_missing, known_w, sur_start, sur_count,
                cat_map_start, idx, wi, branch, y, y2, n_stats, stat_crit, unit):
    """Split node ``slot`` of ``nodes``: its ``n_children`` children become new leaves at
    slots ``count ..`` (``nodes`` must have room), linked as ``count - link_base``, and
    the node a split of kind ``k`` (see :func:`~quercus._kernels.builder.write_split` for
    the split's fields). The node's samples ``idx`` (weights ``wi``) go to the children
    by ``branch``: a sample missing the attribute (branch < 0) goes to ``missing_child``,
    or under C4.5's rule (``missing_mode`` FRACTIONAL) to every child with a share of its
    weight, the children's shares of the known weight ``known_w``. ``branch`` is written.

    Returns the :class:`Children` (stats by ``stat_crit``; with ``unit`` no weights).
    """
    # (Surrogates have routed every sample they can: the rest join the missing child.)
    if missing_mode != FRACTIONAL and any_missing:
        for i in range(branch.shape[0]):
            if branch[i] < 0:
                branch[i] = missing_child
    known_total = ordered_sum(known_w)
    shares = known_w / known_total if known_total > 0 else known_w
    child_idx, child_w, offsets, child_stats, _ = scatter(
        idx, wi, branch, n_children, shares, y, y2, n_stats, stat_crit, unit)
    init_nodes(nodes, count, n_children, nodes.depth[slot] + 1)
    write_split(nodes, slot, k, f, threshold, category, count - link_base, n_children, rho,
                missing_mode, missing_child, sur_start, sur_count, cat_map_start)
    weight = np.zeros(n_children)
    for c in range(n_children):
        if unit:
            weight[c] = offsets[c + 1] - offsets[c]
        else:
            for i in range(offsets[c], offsets[c + 1]):
                weight[c] += child_w[i]
    return Children(child_idx, child_w, offsets, child_stats, weight)


@kernel
def split_rows(nodes, count, slot, k, f, threshold, category, n_children, rho,
               missing_mode, missing_child, any_missing, known_w, sur_start, sur_count,
               cat_map_start, idx, wi, branch, y, y2, n_stats, stat_crit, unit):
    """:func:`apply_split` for the Python grower (children linked by their slots).

    Examples
    --------
    >>> import numpy as np
    >>> from quercus._kernels.builder import leaf_nodes
    >>> from quercus._kernels.schema import NUMERIC, SURROGATE
    >>> nodes = leaf_nodes(3, 2)
    >>> y = np.array([0.0, 1.0, 1.0])
    >>> kids = split_rows(nodes, 1, 0, NUMERIC, 0, 0.5, -1, 2, 1.0, SURROGATE, 0, False,
    ...                   np.array([1.0, 2.0]), 0, 0, -1, np.arange(3), np.ones(3),
    ...                   np.array([0, 1, 1]), y, y, 2, 0, False)
    >>> kids.rows.tolist(), kids.offsets.tolist(), kids.weight.tolist()
    ([0, 1, 2], [0, 1, 3], [1.0, 2.0])
    >>> int(nodes.first_child[0]), nodes.depth.tolist()
    (1, [0, 1, 1])
    """
    return apply_split(nodes, count, slot, 0, k, f, threshold, category, n_children, rho,
                       missing_mode, missing_child, any_missing, known_w, sur_start,
                       sur_count, cat_map_start, idx, wi, branch, y, y2, n_stats, stat_crit,
                       unit)
