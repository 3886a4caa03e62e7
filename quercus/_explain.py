"""``explain(node)``: the table of every candidate split at a node, with its numbers."""

import numpy as np
import pandas as pd

from . import _prepare
from ._grower import BinnedData, criterion_code
from ._kernels.criteria import ENTROPY, GINI, impurity, split_scores
from ._kernels.histograms import feature_histogram
from ._kernels.splits import CAT_BINARY, MULTIWAY, NUMERIC, midpoint, search_node
from ._params import resolve_counts
from ._selection import choose_split

COLUMNS = ["feature", "split", "kind", "threshold", "category", "n_branches", "entropy",
           "gain", "intrinsic_value", "gain_ratio", "gini_index", "gini_decrease",
           "valid", "best_of_feature", "above_average_gain", "chosen", "note"]


def _data_for(est, X, y, sample_weight):
    if X is None:
        if y is not None or sample_weight is not None:
            raise ValueError("explain(): pass X together with y (and sample_weight).")
        if getattr(est, "_explain_data", None) is None:
            raise ValueError("explain() needs the training data: this model was loaded, "
                             "unpickled or fitted on more than five million cells, so pass "
                             "X and y.")
        return est._explain_data
    if y is None:
        raise ValueError("explain(): y is required when X is given.")
    X = _prepare.as_2d(X)
    X_enc = _prepare.encode(X, est.schema_)
    n = X_enc.shape[0]
    y = np.asarray(pd.Series(np.ravel(np.asarray(y, dtype=object))))
    y_codes = pd.Index(est.classes_).get_indexer(y)
    if (y_codes < 0).any():
        bad = y[np.flatnonzero(y_codes < 0)[0]]
        raise ValueError(f"explain(): label {bad!r} is not one of the classes {list(est.classes_)}.")
    w = _prepare.check_weights(sample_weight, X_enc)
    keep = w > 0  # zero-weight rows take no part in a fit, so none in its explanation
    X_enc, y_codes, w = X_enc[keep], y_codes[keep], w[keep]
    schema = est.schema_
    # Categories unseen at fit time cannot follow a multiway branch; give them their own bin.
    X_enc = X_enc.copy()
    for j in np.flatnonzero(schema.is_categorical):
        X_enc[X_enc[:, j] < 0, j] = len(schema.categories[j])
    cats = [None if c is None else np.append(c, "<unseen>") for c in schema.categories]
    codes, n_bins, values, offsets = _prepare.bin_numeric(X_enc, schema.is_categorical, cats)
    return BinnedData(codes, n_bins, schema.is_categorical.copy(), values, offsets,
                      y_codes.astype(np.int32), w, len(est.classes_))


def _branch(data, tree, node, f_codes):
    """Child offset of every sample at ``node`` (bins compared in the data's own bins)."""
    k = tree.kind[node]
    f = tree.feature[node]
    if k == NUMERIC:
        values = data.bin_values[data.bin_offsets[f]:data.bin_offsets[f + 1]]
        last_left = np.searchsorted(values, tree.threshold[node], side="right") - 1
        return (f_codes > last_left).astype(np.int64)
    if k == CAT_BINARY:
        return (f_codes != tree.category[node]).astype(np.int64)
    return f_codes.astype(np.int64)


def _node_samples(data, tree, node):
    """Indices of the samples that reach ``node``, and the multiway features used above."""
    parent = tree.parent()
    path = [node]
    while parent[path[-1]] >= 0:
        path.append(int(parent[path[-1]]))
    path.reverse()
    mask = np.ones(data.codes.shape[0], dtype=bool)
    used = np.zeros(data.codes.shape[1], dtype=bool)
    for a, c in zip(path[:-1], path[1:]):
        f = tree.feature[a]
        mask &= _branch(data, tree, a, data.codes[:, f]) == c - tree.first_child[a]
        if tree.kind[a] == MULTIWAY:
            used[f] = True
    return np.flatnonzero(mask).astype(np.int64), used


def _scores(stats):
    ent_child, gain, iv = split_scores(stats, ENTROPY)
    gini_child, gini_dec, _ = split_scores(stats, GINI)
    return {"entropy": ent_child, "gain": gain, "intrinsic_value": iv,
            "gain_ratio": gain / iv if iv > 0 else np.nan,
            "gini_index": gini_child, "gini_decrease": gini_dec}


def _fmt(x):
    return f"{x:.6g}"


def explain_node(est, node, X=None, y=None, sample_weight=None):
    """Candidate table at ``node``; see :meth:`DecisionTreeClassifier.explain`."""
    tree = est.tree_
    if not (isinstance(node, (int, np.integer)) and 0 <= node < tree.node_count):
        raise ValueError(f"node must be an integer in [0, {tree.node_count - 1}]; got {node!r}.")
    data = _data_for(est, X, y, sample_weight)
    idx, used = _node_samples(data, tree, node)
    schema = est.schema_
    names = schema.feature_names
    multiway = est.categorical_split == "multiway"
    _, msl, _ = resolve_counts(est, data.codes.shape[0], data.codes.shape[1])
    rows = []
    features = np.flatnonzero(~used).astype(np.int64)
    if idx.size:
        for f in features:
            bins, counts, n = feature_histogram(data.codes[:, f], idx, data.y, data.w,
                                                data.n_bins[f], data.n_classes)
            if schema.is_categorical[f]:
                cats = schema.categories[f]
                label = lambda b: cats[b] if b < len(cats) else "<unseen>"  # noqa: E731
                if multiway:
                    ok = len(bins) >= 2 and bool((n >= msl).all())
                    rows.append(dict(feature=names[f], split=f"{names[f]} = {{" + ", ".join(
                        str(label(b)) for b in bins) + "}", kind="multiway", threshold=np.nan,
                        category=None, n_branches=len(bins), valid=ok, _f=f, _bin=-1,
                        **_scores(counts)))
                else:
                    total = counts.sum(axis=0)
                    for b, c, nb in zip(bins, counts, n):
                        stats = np.vstack([c, total - c])
                        ok = len(bins) >= 2 and nb >= msl and n.sum() - nb >= msl
                        rows.append(dict(feature=names[f], split=f"{names[f]} = {label(b)}",
                                         kind="categorical_binary", threshold=np.nan,
                                         category=label(b), n_branches=2, valid=ok, _f=f,
                                         _bin=int(b), **_scores(stats)))
            else:
                values = data.bin_values[data.bin_offsets[f]:data.bin_offsets[f + 1]]
                total = counts.sum(axis=0)
                left = np.cumsum(counts, axis=0)
                left_n = np.cumsum(n)
                for t in range(len(bins) - 1):
                    thr = midpoint(values[bins[t]], values[bins[t + 1]])
                    stats = np.vstack([left[t], total - left[t]])
                    ok = left_n[t] >= msl and left_n[-1] - left_n[t] >= msl
                    rows.append(dict(feature=names[f], split=f"{names[f]} <= {_fmt(thr)}",
                                     kind="numeric", threshold=thr, category=None,
                                     n_branches=2, valid=bool(ok), _f=f, _bin=int(bins[t]),
                                     **_scores(stats)))
    table = pd.DataFrame(rows, columns=COLUMNS + ["_f", "_bin"])
    _mark(est, data, node, idx, features, table)
    value = np.bincount(data.y[idx], weights=data.w[idx], minlength=data.n_classes)
    table.attrs.update(node=int(node), n_samples=int(idx.size), weighted_n_samples=float(value.sum()),
                       entropy=float(impurity(value, ENTROPY)), gini=float(impurity(value, GINI)),
                       distribution={c: float(v) for c, v in zip(est.classes_.tolist(), value)})
    return table.drop(columns=["_f", "_bin"])


def _mark(est, data, node, idx, features, table):
    """Fill best_of_feature / above_average_gain / chosen / note."""
    tree = est.tree_
    table["best_of_feature"] = False
    table["chosen"] = False
    table["above_average_gain"] = pd.Series([None] * len(table), dtype=object)
    table["note"] = ""
    if table.empty:
        return
    gain_ratio = est.criterion == "gain_ratio"
    crit = criterion_code(est.criterion)
    _, msl, _ = resolve_counts(est, data.codes.shape[0], data.codes.shape[1])
    found, kind, _, dec, info, split_bin, thr = search_node(
        data.codes, data.n_bins, data.is_cat, data.bin_values, data.bin_offsets, features,
        idx, data.y, data.w, data.n_classes, crit, est.categorical_split == "multiway", msl,
        0.0, np.full(features.size, -1.0))
    for i, f in enumerate(features):
        if not found[i]:
            continue
        sel = (table["_f"] == f) & ((table["_bin"] == split_bin[i]) | (kind[i] == MULTIWAY))
        table.loc[sel, "best_of_feature"] = True
    if gain_ratio and found.any():
        avg = dec[found].mean()
        best_rows = table["best_of_feature"]
        table.loc[best_rows, "above_average_gain"] = (table.loc[best_rows, "gain"]
                                                      >= avg - 1e-12)
        table.attrs["average_gain"] = float(avg)
    winner = choose_split(found, dec, info, gain_ratio)
    measure = {"gini": "Gini decrease", "entropy": "information gain",
               "gain_ratio": "gain ratio among candidates with gain >= average"}[est.criterion]
    if tree.kind[node] != 0:
        f = tree.feature[node]
        k = tree.kind[node]
        sel = table["_f"] == f
        if k == NUMERIC:
            sel &= table["threshold"] == tree.threshold[node]
        elif k == CAT_BINARY:
            sel &= table["_bin"] == tree.category[node]
        table.loc[sel, "chosen"] = True
        table.loc[sel, "note"] = f"chosen: best {measure}"
    elif winner >= 0:
        table.loc[(table["_f"] == features[winner]) & table["best_of_feature"], "note"] = (
            "best candidate, but the node is a leaf (a stopping rule applied)")
    rest = table["best_of_feature"] & ~table["chosen"] & (table["note"] == "")
    table.loc[rest, "note"] = "best split of its feature"
    if gain_ratio and "average_gain" in table.attrs:
        below = rest & (table["above_average_gain"] == False)  # noqa: E712 (object column)
        table.loc[below, "note"] = (f"gain below the average {table.attrs['average_gain']:.3f}:"
                                    " not eligible for the gain ratio")
    table.loc[~table["valid"], "note"] = "invalid: a branch is below min_samples_leaf or the feature is constant"
