"""The node schema: every field of a fitted tree's node, and every code stored in one, said
once.

The tree arrays (:class:`quercus._tree.TreeArrays`), the :data:`Nodes` record both
growers write (:mod:`quercus._kernels.builder`), the routing record the kernels take and
the model file all derive from :data:`NODE_FIELDS` and :data:`FLAT_FIELDS`.
"""

from typing import NamedTuple

import numpy as np

# Node kinds of the fitted tree; also the split kinds a search returns.
LEAF = 0
NUMERIC = 1
MULTIWAY = 2
CAT_BINARY = 3
CAT_SUBSET = 4
KIND_NAMES = {LEAF: "leaf", NUMERIC: "numeric", MULTIWAY: "multiway",
              CAT_BINARY: "categorical_binary", CAT_SUBSET: "categorical_subset"}

# How a categorical attribute splits (the estimators' ``categorical_split``).
CAT_MULTIWAY = 0
CAT_ONE_VS_REST = 1
CAT_ORDERED = 2

# How a missing value is routed (``missing_strategy``; also stored per node).
FRACTIONAL = 0
SURROGATE = 1
LEARNED = 2
MISSING_NAMES = {FRACTIONAL: "fractional", SURROGATE: "surrogate", LEARNED: "learned"}


class Field(NamedTuple):
    """One array of a fitted tree.

    ``leaf`` is the value of a node just made (a leaf, until it splits).
    """

    name: str
    dtype: type
    leaf: float
    doc: str


# One entry per node. Links, codes and offsets into the flat arrays are int32 (a tree has
# fewer than 2**31 nodes and flat entries: both are checked), sample counts int64.
NODE_FIELDS = (
    Field("kind", np.int8, LEAF, "LEAF, NUMERIC, MULTIWAY, CAT_BINARY, CAT_SUBSET"),
    Field("feature", np.int32, -1, "the split attribute; -1 on a leaf"),
    Field("threshold", np.float64, 0.0, "numeric split: x <= threshold goes "
          "to the first child"),
    Field("category", np.int32, -1, "CAT_BINARY: the code v of a == v"),
    Field("first_child", np.int32, -1, "children first_child .. + n_children - 1"),
    Field("n_children", np.int32, 0, "0 on a leaf"),
    Field("depth", np.int32, 0, "0 at the root"),
    Field("n_node_samples", np.int64, 0, "training rows at the node"),
    Field("weighted_n_node_samples", np.float64, 0.0, "their weight"),
    Field("impurity", np.float64, 0.0, "under the fit's criterion"),
    Field("value", np.float64, 0.0, "class weights, or the prediction "
          "(n_nodes, n_out)"),
    Field("missing_mode", np.int8, FRACTIONAL, "FRACTIONAL, SURROGATE, LEARNED"),
    Field("missing_child", np.int32, -1, "the child offset a missing value "
          "joins; -1: none"),
    Field("sur_start", np.int32, 0, "this node's surrogates: sur_start .. "
          "+ sur_count - 1"),
    Field("sur_count", np.int32, 0, ""),
    Field("rho", np.float64, 1.0, "the known share of the split "
          "attribute's weight"),
    Field("cat_map_start", np.int32, -1, "CAT_SUBSET: the child of category c "
          "is cat_map[cat_map_start + c]"),
)
# Entries shared by all nodes (indexed by the offsets above).
FLAT_FIELDS = (
    Field("cat_map", np.int8, 0, "child (0, 1; -1 absent) of each category"),
    Field("sur_feature", np.int64, 0, "a surrogate split's attribute"),
    Field("sur_kind", np.int8, 0, "NUMERIC or CAT_BINARY"),
    Field("sur_threshold", np.float64, 0.0, ""),
    Field("sur_category", np.int64, 0, ""),
    Field("sur_flip", np.int8, 0, "1: the surrogate's branches are swapped"),
    Field("sur_agreement", np.float64, 0.0, "its agreement with the split"),
)
ALL_FIELDS = NODE_FIELDS + FLAT_FIELDS


# The arrays the routing kernels read, in the order they take them.
ROUTING_FIELDS = ("kind", "feature", "threshold", "category", "first_child", "n_children",
                  "missing_mode", "missing_child", "cat_map_start", "cat_map", "sur_start",
                  "sur_count", "sur_feature", "sur_kind", "sur_threshold", "sur_category",
                  "sur_flip")
# They travel as one record: numba types a named tuple of arrays and compiles a field's
# access by name to the same load as by position.
Routing = NamedTuple("Routing", [(name, np.ndarray) for name in ROUTING_FIELDS])


# The training data's bins as the kernels read them, one record: each sample's bin code of
# each feature (``codes``, missing = ``n_bins[f]``), the bins of observed values per
# feature, and the smallest and largest value of every numeric bin (``lo``, ``hi``: often
# one array, exact bins), feature ``f``'s at ``offsets[f]:offsets[f + 1]``. Which features
# are categorical travels beside it (``is_cat``, None when none is): numba decides ``is
# None`` at compile time for an argument, not for a record's field.
Binned = NamedTuple("Binned", [("codes", np.ndarray), ("n_bins", np.ndarray),
                               ("lo", np.ndarray), ("hi", np.ndarray),
                               ("offsets", np.ndarray)])


# A tree's nodes as one record: the arrays of the node fields, in the schema's order and
# types. Both growers write their nodes into one (quercus._kernels.builder), the subtree
# kernel returns its nodes as one, and the tree arrays are made of one.
Nodes = NamedTuple("Nodes", [(f.name, np.ndarray) for f in NODE_FIELDS])
# A node just made, field by field: a compiled builder reads these as constants.
NodeDefaults = NamedTuple("NodeDefaults", [(f.name, f.dtype) for f in NODE_FIELDS])
LEAF_NODE = NodeDefaults(*(f.dtype(f.leaf) for f in NODE_FIELDS))
# Each field's type, field by field: what a compiled builder makes its arrays of.
NodeTypes = NamedTuple("NodeTypes", [(f.name, type) for f in NODE_FIELDS])
NODE_TYPES = NodeTypes(*(f.dtype for f in NODE_FIELDS))
# Surrogate splits as one record: the flat sur_* fields' arrays (an entry a surrogate), in
# the schema's order and types; what the surrogate kernels write and read.
SUR_FIELDS = tuple(f for f in FLAT_FIELDS if f.name.startswith("sur_"))
Surrogates = NamedTuple("Surrogates", [(f.name, np.ndarray) for f in SUR_FIELDS])
# Each field's type: what a compiled builder makes its arrays of.
SurrogateTypes = NamedTuple("SurrogateTypes", [(f.name, type) for f in SUR_FIELDS])
SUR_TYPES = SurrogateTypes(*(f.dtype for f in SUR_FIELDS))
