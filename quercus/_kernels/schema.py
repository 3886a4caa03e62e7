"""The node schema: every field of a fitted tree's node, and every code stored in one, said
once.

The tree arrays (:class:`quercus._tree.TreeArrays`), the Python builder, the compiled
builder's node tables, the routing record the kernels take and the model file all derive
from :data:`NODE_FIELDS` and :data:`FLAT_FIELDS`; nothing else lists the fields.
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

    ``leaf`` is the value of a node just made (a leaf, until it splits); ``table`` names
    the compiled builder's node table that holds it ("int" or "float"; "" for the fields
    only Python writes).
    """

    name: str
    dtype: type
    leaf: float
    table: str
    doc: str


# One entry per node. Links, codes and offsets into the flat arrays are int32 (a tree has
# fewer than 2**31 nodes and flat entries: both are checked), sample counts int64.
NODE_FIELDS = (
    Field("kind", np.int8, LEAF, "int", "LEAF, NUMERIC, MULTIWAY, CAT_BINARY, CAT_SUBSET"),
    Field("feature", np.int32, -1, "int", "the split attribute; -1 on a leaf"),
    Field("threshold", np.float64, 0.0, "float", "numeric split: x <= threshold goes "
          "to the first child"),
    Field("category", np.int32, -1, "int", "CAT_BINARY: the code v of a == v"),
    Field("first_child", np.int32, -1, "int", "children first_child .. + n_children - 1"),
    Field("n_children", np.int32, 0, "int", "0 on a leaf"),
    Field("depth", np.int32, 0, "int", "0 at the root"),
    Field("n_node_samples", np.int64, 0, "int", "training rows at the node"),
    Field("weighted_n_node_samples", np.float64, 0.0, "float", "their weight"),
    Field("impurity", np.float64, 0.0, "float", "under the fit's criterion"),
    Field("value", np.float64, 0.0, "float", "class weights, or the prediction "
          "(n_nodes, n_out)"),
    Field("missing_mode", np.int8, FRACTIONAL, "int", "FRACTIONAL, SURROGATE, LEARNED"),
    Field("missing_child", np.int32, -1, "int", "the child offset a missing value "
          "joins; -1: none"),
    Field("sur_start", np.int32, 0, "int", "this node's surrogates: sur_start .. "
          "+ sur_count - 1"),
    Field("sur_count", np.int32, 0, "int", ""),
    Field("rho", np.float64, 1.0, "float", "the known share of the split "
          "attribute's weight"),
    Field("cat_map_start", np.int32, -1, "int", "CAT_SUBSET: the child of category c "
          "is cat_map[cat_map_start + c]"),
)
# Entries shared by all nodes (indexed by the offsets above).
FLAT_FIELDS = (
    Field("cat_map", np.int8, 0, "", "child (0, 1; -1 absent) of each category"),
    Field("sur_feature", np.int64, 0, "", "a surrogate split's attribute"),
    Field("sur_kind", np.int8, 0, "", "NUMERIC or CAT_BINARY"),
    Field("sur_threshold", np.float64, 0.0, "", ""),
    Field("sur_category", np.int64, 0, "", ""),
    Field("sur_flip", np.int8, 0, "", "1: the surrogate's branches are swapped"),
    Field("sur_agreement", np.float64, 0.0, "", "its agreement with the split"),
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


# The compiled builder's node tables: an int table and a float table whose columns are the
# schema's "int" and "float" fields in order, the value's (one per class or output) last.
INT_COLUMNS = tuple(f.name for f in NODE_FIELDS if f.table == "int")
FLOAT_COLUMNS = tuple(f.name for f in NODE_FIELDS if f.table == "float" and f.name != "value")
N_INT = len(INT_COLUMNS)
KIND, FEATURE, CATEGORY, FIRST_CHILD, N_CHILDREN, DEPTH, N_SAMPLES, MISSING_MODE, \
    MISSING_CHILD, CAT_MAP_START, SUR_START, SUR_COUNT = (INT_COLUMNS.index(n) for n in (
        "kind", "feature", "category", "first_child", "n_children", "depth",
        "n_node_samples", "missing_mode", "missing_child", "cat_map_start", "sur_start",
        "sur_count"))
# The compiled builder's surrogate tables: integer columns (feature, kind, category, flip)
# and float columns (threshold, agreement) of the flat sur_* fields.
SUR_INT_COLUMNS = ("sur_feature", "sur_kind", "sur_category", "sur_flip")
SUR_FLOAT_COLUMNS = ("sur_threshold", "sur_agreement")
THRESHOLD, WEIGHT, IMPURITY, RHO = (FLOAT_COLUMNS.index(n) for n in (
    "threshold", "weighted_n_node_samples", "impurity", "rho"))
VALUE = len(FLOAT_COLUMNS)
# A new leaf's row of each table (its value: zeros).
INT_LEAF = np.array([f.leaf for f in NODE_FIELDS if f.table == "int"], dtype=np.int64)
FLOAT_LEAF = np.array([f.leaf for f in NODE_FIELDS if f.name in FLOAT_COLUMNS])


def leaf_defaults():
    """``{field: value}`` of a node just made, for the Python builder.

    Examples
    --------
    >>> d = leaf_defaults()
    >>> d["kind"] == LEAF, d["feature"], d["rho"]
    (True, -1, 1.0)
    """
    return {f.name: f.leaf for f in NODE_FIELDS}
