"""Model files: a fitted estimator as plain JSON, and a loader that trusts nothing.

The file holds the estimator's class name and parameters, the column schema, the classes and
the tree arrays. Loading checks every field (types, lengths, ranges, the tree's shape) before
any kernel sees it, because the compiled kernels do not check bounds: a corrupt or hostile
file gives a ValueError naming the field, never a crash, code execution or a huge allocation.
"""

import json
import math
import numbers

import numpy as np

from ._fit import FittedTree
from ._kernels.schema import CAT_BINARY, CAT_SUBSET, LEAF, MULTIWAY, NUMERIC
from ._prepare import Schema
from ._target import Target, is_regressor
from ._tree import _ALL_FIELDS, _FIELDS, _FLAT, SCHEMA_VERSION, TreeArrays
from ._version import __version__

FORMAT = "quercus-model"
FORMAT_VERSION = 1
MAX_NODES = 50_000_000  # a bound on what a file may ask us to allocate
MAX_ITEMS = 200_000_000


class ModelFileError(ValueError):
    """A model file that cannot be loaded; the message names the field at fault."""


# ---------------------------------------------------------------- writing
def _plain(v):
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def _floats(arr):
    return [_plain(float(x)) for x in np.ravel(arr)]


def to_dict(est):
    """The fitted estimator as plain data (see :func:`save`)."""
    t = est.tree_
    tree = {"schema_version": SCHEMA_VERSION}
    for name, dt in _ALL_FIELDS.items():
        arr = getattr(t, name)
        tree[name] = _floats(arr) if np.dtype(dt).kind == "f" else np.ravel(arr).tolist()
    tree["n_outputs"] = int(t.value.shape[1])
    params = {k: _plain(v) for k, v in est.get_params().items()
              if not isinstance(v, (np.ndarray, list, tuple, dict)) or k == "class_weight"}
    if isinstance(params.get("class_weight"), dict):
        params["class_weight"] = [[_plain(k), _plain(v)] for k, v in
                                  params["class_weight"].items()]
    params["categorical_features"] = None  # the schema below says which columns are
    params["cv"] = params["cv"] if isinstance(params.get("cv"), int) else 10
    out = {
        "format": FORMAT, "format_version": FORMAT_VERSION, "quercus_version": __version__,
        "estimator": type(est).__name__, "params": params,
        "schema": est.schema_.to_dict(),
        "feature_names_in": (list(map(str, est.feature_names_in_))
                             if hasattr(est, "feature_names_in_") else None),
        "tree": tree,
        "pruning_report": [{k: _plain(v) for k, v in r.items()}
                           for r in getattr(est, "pruning_report_", [])],
    }
    target = Target.of(est)
    if not target.regression:
        out["classes"] = [_plain(c) for c in target.classes]
        out["class_priority"] = target.class_priority.tolist()
    return out


def save(est, path):
    """Write a fitted estimator to ``path`` as UTF-8 JSON."""
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(to_dict(est), fh, ensure_ascii=False, allow_nan=False)


# ---------------------------------------------------------------- reading
def _fail(field, why):
    raise ModelFileError(f"Invalid model file: {field} {why}.")


def _require(d, key, kind, where):
    if not isinstance(d, dict) or key not in d:
        _fail(f"{where}{key}", "is missing")
    v = d[key]
    if kind is not None and not isinstance(v, kind):
        _fail(f"{where}{key}", f"must be {getattr(kind, '__name__', kind)}; got "
              f"{type(v).__name__}")
    return v


def _number(x, field):
    if isinstance(x, bool) or not isinstance(x, (numbers.Real, str)):
        _fail(field, f"holds {x!r}, not a number")
    if isinstance(x, str):
        if x not in ("inf", "-inf", "nan"):
            _fail(field, f"holds {x!r}, not a number")
        return float(x)
    return float(x)


def _array(tree, name, dtype, length):
    raw = _require(tree, name, list, "tree.")
    if length is not None and len(raw) != length:
        _fail(f"tree.{name}", f"has {len(raw)} entries, expected {length}")
    if len(raw) > MAX_ITEMS:
        _fail(f"tree.{name}", "is too large")
    if np.dtype(dtype).kind == "f":
        return np.asarray([_number(x, f"tree.{name}") for x in raw], dtype=np.float64)
    for x in raw:
        if isinstance(x, bool) or not isinstance(x, numbers.Integral):
            _fail(f"tree.{name}", f"holds {x!r}, not an integer")
        if not -(2**62) <= x <= 2**62:
            _fail(f"tree.{name}", "holds an integer out of range")
    arr = np.asarray(raw, dtype=np.int64)
    info = np.iinfo(dtype)
    if arr.size and (arr.min() < info.min or arr.max() > info.max):
        _fail(f"tree.{name}", "holds an integer out of range")
    return arr.astype(dtype)


def _label(x, field):
    if isinstance(x, (str, bool)) or (isinstance(x, numbers.Real) and math.isfinite(x)):
        return x
    _fail(field, f"holds {x!r}; labels and categories are strings, numbers or booleans")


def _schema(d, n_features_hint=None):
    names = _require(d, "feature_names", list, "schema.")
    is_cat = _require(d, "is_categorical", list, "schema.")
    cats = _require(d, "categories", list, "schema.")
    p = len(names)
    if p == 0 or len(is_cat) != p or len(cats) != p:
        _fail("schema", "must list the same, non-zero number of features in feature_names, "
              "is_categorical and categories")
    if not all(isinstance(n, str) for n in names):
        _fail("schema.feature_names", "must be strings")
    if not all(isinstance(b, bool) for b in is_cat):
        _fail("schema.is_categorical", "must be booleans")
    for j, (b, c) in enumerate(zip(is_cat, cats)):
        if b:
            if not isinstance(c, list) or not c:
                _fail(f"schema.categories[{j}]", "must be a non-empty list for a categorical "
                      "feature")
            for v in c:
                _label(v, f"schema.categories[{j}]")
        elif c is not None:
            _fail(f"schema.categories[{j}]", "must be null for a numeric feature")
    return Schema.from_dict(d)


def _check_tree(t, schema, n_out):
    """The tree's shape: a rooted tree, children after parents, fields in range."""
    n = t.kind.shape[0]
    p = schema.n_features
    if n < 1:
        _fail("tree", "has no node")
    if not np.isin(t.kind, [LEAF, NUMERIC, MULTIWAY, CAT_BINARY, CAT_SUBSET]).all():
        _fail("tree.kind", "holds an unknown node kind")
    internal = t.kind != LEAF
    if (t.n_children[~internal] != 0).any():
        _fail("tree.n_children", "is not 0 on a leaf")
    if internal.any():
        f = t.feature[internal]
        if (f < 0).any() or (f >= p).any():
            _fail("tree.feature", "names a feature out of range")
        nodes = np.flatnonzero(internal)
        fc, nc = t.first_child[internal], t.n_children[internal]
        if (fc <= nodes).any() or (nc < 2).any() or (fc + nc > n).any():
            _fail("tree.first_child", "must point after the node, to at least two children "
                  "inside the tree")
        cat = schema.is_categorical[f]
        kinds = t.kind[internal]
        if ((kinds == NUMERIC) == cat).any():
            _fail("tree.kind", "does not match the feature's type (numeric or categorical)")
        for node, k, feat, first, cnt in zip(nodes, kinds, f, fc, nc):
            n_cat = len(schema.categories[feat]) if schema.is_categorical[feat] else 0
            if k == MULTIWAY and cnt != n_cat:
                _fail(f"tree.n_children[{node}]", "must equal the number of categories")
            if k in (NUMERIC, CAT_BINARY, CAT_SUBSET) and cnt != 2:
                _fail(f"tree.n_children[{node}]", "must be 2 for a binary split")
            if k == CAT_BINARY and not 0 <= t.category[node] < n_cat:
                _fail(f"tree.category[{node}]", "is out of range")
            if k == CAT_SUBSET:
                s = t.cat_map_start[node]
                if s < 0 or s + n_cat > t.cat_map.shape[0]:
                    _fail(f"tree.cat_map_start[{node}]", "is out of range")
                if not np.isin(t.cat_map[s:s + n_cat], [0, 1]).all():
                    _fail("tree.cat_map", "must map categories to 0 or 1")
            if k == NUMERIC and np.isnan(t.threshold[node]):
                _fail(f"tree.threshold[{node}]", "is NaN")
            if not -1 <= t.missing_child[node] < cnt:
                _fail(f"tree.missing_child[{node}]", "is out of range")
        # Each node but the root is the child of exactly one node: a tree, no cycle.
        parents = np.zeros(n, dtype=np.int64)
        for first, cnt in zip(fc, nc):
            parents[first:first + cnt] += 1
        if parents[0] != 0 or (parents[1:] != 1).any():
            _fail("tree", "is not a tree: every node but the root needs exactly one parent")
        # Depths bound the routing buffers: they must be the tree's own.
        depth = np.zeros(n, dtype=np.int64)
        for node, first, cnt in zip(nodes, fc, nc):  # parents come before children
            depth[first:first + cnt] = depth[node] + 1
            if t.missing_mode[node] == 0 and not t.weighted_n_node_samples[
                    first:first + cnt].sum() > 0:
                _fail(f"tree.weighted_n_node_samples[{first}]", "must give the children of a "
                      "fractional node a positive total")
        if not np.array_equal(depth, t.depth):
            _fail("tree.depth", "does not match the tree's structure")
    elif n != 1:
        _fail("tree", "is not a tree: nodes unreachable from a leaf root")
    elif t.depth[0] != 0:
        _fail("tree.depth", "does not match the tree's structure")
    if not np.isin(t.missing_mode, [0, 1, 2]).all():
        _fail("tree.missing_mode", "holds an unknown mode")
    m = t.sur_feature.shape[0]
    for name in ("sur_kind", "sur_threshold", "sur_category", "sur_flip", "sur_agreement"):
        if getattr(t, name).shape[0] != m:
            _fail(f"tree.{name}", "must have one entry per surrogate")
    if ((t.sur_start < 0) | (t.sur_count < 0) | (t.sur_start + t.sur_count > m)).any():
        _fail("tree.sur_start", "points outside the surrogates")
    if m:
        if (t.sur_feature < 0).any() or (t.sur_feature >= p).any():
            _fail("tree.sur_feature", "names a feature out of range")
        for s in range(m):
            g = t.sur_feature[s]
            if schema.is_categorical[g]:
                if t.sur_kind[s] != CAT_BINARY or not (
                        0 <= t.sur_category[s] < len(schema.categories[g])):
                    _fail(f"tree.sur_category[{s}]", "is out of range")
            elif t.sur_kind[s] != NUMERIC or np.isnan(t.sur_threshold[s]):
                _fail(f"tree.sur_kind[{s}]", "does not match a numeric feature")
    if t.value.shape != (n, n_out) or not np.isfinite(t.value).all():
        _fail("tree.value", f"must hold {n} x {n_out} finite numbers")
    if (t.weighted_n_node_samples < 0).any() or not np.isfinite(
            t.weighted_n_node_samples).all():
        _fail("tree.weighted_n_node_samples", "must be finite and non-negative")


# The estimators a model file may name, by class name. Each module registers its own (they
# import this one to save, so this one imports none of them): a tree estimator with the
# function that stores a FittedTree as its fitted state, an estimator whose files have
# fields of their own with its class's ``from_dict``.
_TREE_ESTIMATORS = {}
_OWN_FORMAT = {}


def register_tree_estimators(classes, set_fitted):
    """Let model files name each of ``classes``: tree estimators whose fitted state
    ``set_fitted(est, fitted)`` stores from a :class:`quercus._fit.FittedTree`.

    Examples
    --------
    >>> import quercus
    >>> sorted(_TREE_ESTIMATORS)[:3]
    ['C45Classifier', 'CARTClassifier', 'CARTRegressor']
    """
    for cls in classes:
        _TREE_ESTIMATORS[cls.__name__] = (cls, set_fitted)


def register_own_format(*classes):
    """Let model files name each of ``classes``, whose files have fields of their own:
    read (and checked) by the class's ``from_dict``.

    Examples
    --------
    >>> import quercus
    >>> sorted(_OWN_FORMAT)
    ['LogisticModelTree', 'LogisticRegression']
    """
    for cls in classes:
        _OWN_FORMAT[cls.__name__] = cls.from_dict


def from_dict(d):
    """An estimator from :func:`to_dict`'s plain data, every field checked."""
    if not isinstance(d, dict):
        _fail("the file", "must hold a JSON object")
    if d.get("format") != FORMAT:
        _fail("format", f"must be {FORMAT!r}; this is not a quercus model file")
    version = d.get("format_version")
    if version != FORMAT_VERSION:
        _fail("format_version", f"is {version!r}; this quercus reads version "
              f"{FORMAT_VERSION} (a newer quercus wrote the file?)")
    name = _require(d, "estimator", str, "")
    if name in _OWN_FORMAT:  # models with fields of their own read (and check) them
        return _OWN_FORMAT[name](d)
    if name not in _TREE_ESTIMATORS:
        _fail("estimator", f"is {name!r}, not a quercus estimator")
    cls, set_fitted = _TREE_ESTIMATORS[name]
    params = _require(d, "params", dict, "")
    known = cls().get_params()
    unknown = set(params) - set(known)
    if unknown:
        _fail("params", f"names unknown parameters {sorted(unknown)}")
    params = dict(params)
    if isinstance(params.get("class_weight"), list):
        try:
            params["class_weight"] = {_label(k, "params.class_weight"): float(v)
                                      for k, v in params["class_weight"]}
        except (TypeError, ValueError):
            _fail("params.class_weight", "must be a list of [label, weight] pairs")
    est = cls(**params)
    try:
        est._validate_params()
    except ValueError as exc:
        _fail("params", f"are invalid: {exc}")
    schema = _schema(_require(d, "schema", dict, ""))
    regression = is_regressor(est)
    if regression:
        n_out = 1
    else:
        classes = _require(d, "classes", list, "")
        if not classes:
            _fail("classes", "is empty")
        for c in classes:
            _label(c, "classes")
        kinds = {type(c) for c in classes}
        if len(kinds) > 1 and not kinds <= {int, float}:
            _fail("classes", "mixes label types")
        n_out = len(classes)
        priority = _array({"p": _require(d, "class_priority", list, "")}, "p", np.int64,
                          n_out)
        if sorted(priority.tolist()) != list(range(n_out)):
            _fail("class_priority", "must be a permutation of the classes' ranks")
    tree_d = _require(d, "tree", dict, "")
    if tree_d.get("schema_version") != SCHEMA_VERSION:
        _fail("tree.schema_version", f"is {tree_d.get('schema_version')!r}; expected "
              f"{SCHEMA_VERSION}")
    kind_raw = _require(tree_d, "kind", list, "tree.")
    n = len(kind_raw)
    if not 1 <= n <= MAX_NODES:
        _fail("tree.kind", f"has {n} nodes; a model has between 1 and {MAX_NODES}")
    arrays = {}
    for fname, dt in _FIELDS.items():
        length = n * n_out if fname == "value" else n
        arrays[fname] = _array(tree_d, fname, dt, length)
    arrays["value"] = arrays["value"].reshape(n, n_out)
    for fname, dt in _FLAT.items():
        arrays[fname] = _array(tree_d, fname, dt, None)
    tree = TreeArrays(**arrays)
    _check_tree(tree, schema, n_out)
    est.n_features_in_ = schema.n_features
    names_in = d.get("feature_names_in")
    if names_in is not None:
        if names_in != list(schema.feature_names):
            _fail("feature_names_in", "must equal schema.feature_names")
        est.feature_names_in_ = np.asarray(names_in, dtype=object)
    target = (Target(True, est.criterion) if regression else
              Target(False, est.criterion, np.asarray(classes), priority))
    report = d.get("pruning_report", [])
    set_fitted(est, FittedTree(tree, target, schema,
                               report if isinstance(report, list) else []))
    return est


def load(path):
    """Read a model file written by ``est.save(path)``, checking every field.

    A file that is not valid (not JSON, another format or version, a field of the wrong
    type, length or range, a tree that is not a tree) raises :class:`ModelFileError` (a
    ValueError) naming the field; nothing in the file is executed. A pickle is refused
    with a message that says so.

    Examples
    --------
    >>> import os, tempfile, quercus
    >>> from quercus.datasets import load_watermelon
    >>> X, y = load_watermelon("2.0alpha")
    >>> path = os.path.join(tempfile.mkdtemp(), "melon.json")
    >>> quercus.ID3Classifier().fit(X, y).save(path)
    >>> quercus.load(path).explain  # doctest: +ELLIPSIS
    <bound method ...explain of ID3Classifier()>
    """
    with open(path, "rb") as fh:
        raw = fh.read()
    if raw[:1] == b"\x80":  # the PROTO opcode that starts a pickle (protocol 2 and later)
        raise ModelFileError(
            f"Invalid model file: {str(path)!r} looks like a pickle (Python's binary "
            f"format, as pickle.dump and joblib.dump write), not a quercus model file. "
            f"quercus model files are JSON, written by est.save(path); quercus.load never "
            f"unpickles, since unpickling runs code from the file. A pickle you trust "
            f"loads with pickle.load.")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelFileError(f"Invalid model file: not UTF-8 JSON ({exc}).") from None
    except RecursionError:
        raise ModelFileError("Invalid model file: nested too deeply.") from None
    return from_dict(data)
