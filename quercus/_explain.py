"""``explain(node)``: the table of every candidate split at a node, with its numbers."""

import numpy as np
import pandas as pd

from . import _prepare
from ._binning import bin_features
from ._grower import (ABSOLUTE_ERROR, SQUARED_ERROR, bin_of_threshold, criterion_code,
                      criterion_for_stats, ordered_categories)
from ._kernels.absolute import abs_dev
from ._kernels.criteria import ENTROPY, GINI, REGISTRY, impurity, split_scores
from ._kernels.histograms import feature_histogram
from ._kernels.partition import route, scatter
from ._kernels.schema import (CAT_MULTIWAY, CAT_ONE_VS_REST, CAT_SUBSET, FRACTIONAL, LEARNED,
                              MULTIWAY, NUMERIC, Surrogates)
from ._kernels.splits import _info_with_missing, _split_missing, search_node
from ._kernels.thresholds import midpoint
from ._kernels.surrogates import route_missing
from ._params import resolve_counts
from ._kernels.selection import choose_split
from ._target import Target

CLASSIFIER_COLUMNS = ["feature", "split", "kind", "threshold", "category", "n_branches",
                      "rho", "entropy", "gain_known", "gain", "intrinsic_value", "gain_ratio",
                      "gini_index", "gini_decrease", "valid", "best_of_feature",
                      "above_average_gain", "chosen", "note"]
REGRESSOR_COLUMNS = ["feature", "split", "kind", "threshold", "category", "n_branches",
                     "rho", "impurity", "decrease_known", "decrease", "valid",
                     "best_of_feature", "chosen", "note"]


# The columns a student checks by hand, printed by ExplainTable (all stay in the frame).
_SHOWN_CLASSIFIER = ["feature", "split", "rho", "entropy", "gain_known", "gain",
                     "intrinsic_value", "gain_ratio", "gini_index", "above_average_gain",
                     "chosen"]
_SHOWN_REGRESSOR = ["feature", "split", "rho", "impurity", "decrease_known", "decrease",
                    "chosen"]


def _fmt_classification(x):
    return "NaN" if x != x else f"{x:.3f}" if x == 0 or abs(x) >= 1e-3 else f"{x:.3g}"


def _fmt_regression(x):
    return "NaN" if x != x else f"{x:.4g}"


class ExplainTable(pd.DataFrame):
    """The table :meth:`explain` returns: a DataFrame that prints for a terminal.

    Printing it (``print(table)``, or its repr at a prompt) shows the columns a student
    checks by hand (attribute, split, Ent, Gain, IV, gain ratio, Gini, chosen; ``rho`` and
    the gain on the known values when some are missing) to three decimals (a regressor's
    to four significant figures), lined up
    with East Asian wide characters counted as two columns, below a line about the node.
    The pandas options are set for that print only. Everything else is a plain DataFrame:
    every column is there, and a selection or any other result is a ``pd.DataFrame``
    that prints as pandas does; ``to_string()`` renders every column.

    Examples
    --------
    >>> from quercus import ID3Classifier
    >>> from quercus.datasets import load_watermelon
    >>> table = ID3Classifier().fit(*load_watermelon("2.0")).explain(0)
    >>> print(str(table).splitlines()[0])
    node 0: 17 samples, Ent(D) = 0.998, Gini(D) = 0.498, {否: 9, 是: 8}
    >>> type(table[["feature", "gain"]]).__name__
    'DataFrame'
    """

    @property
    def _constructor(self):
        # Derived frames (selections, arithmetic, copies) are plain DataFrames.
        return pd.DataFrame

    def _caption(self):
        a = self.attrs
        if "node" not in a:
            return None
        head = f"node {a['node']}: {a['n_samples']} samples"
        if "entropy" in a:
            dist = ", ".join(f"{c}: {w:.4g}" for c, w in a["distribution"].items())
            return (f"{head}, Ent(D) = {a['entropy']:.3f}, Gini(D) = {a['gini']:.3f}, "
                    f"{{{dist}}}")
        return f"{head}, impurity = {a['impurity']:.4g}, value = {a['value']:.4g}"

    def _shown_columns(self):
        wanted = _SHOWN_REGRESSOR if "decrease" in self.columns else _SHOWN_CLASSIFIER
        cols = [c for c in wanted if c in self.columns]
        own = [c for c in self.columns if own_gain_criterion(c) is not None]
        if own and "gini_index" in cols:  # the criterion's own gain, after Gini's
            at = cols.index("gini_index") + 1
            cols = cols[:at] + own + cols[at:]
        if "rho" in cols and not (self["rho"] < 1).any():  # nothing missing at this node
            cols = [c for c in cols if c not in ("rho", "gain_known", "decrease_known")]
        if "above_average_gain" in cols and self["above_average_gain"].isna().all():
            cols.remove("above_average_gain")  # C4.5's column only
        return cols

    def __repr__(self):
        cols = self._shown_columns()
        shown = pd.DataFrame(self[cols])
        # The book's three decimals; a regressor's scale is the target's, so figures.
        fmt = _fmt_regression if "decrease" in cols else _fmt_classification
        for c in cols:
            if shown[c].dtype.kind == "f":
                shown[c] = shown[c].map(fmt)
            elif shown[c].dtype == object:
                shown[c] = shown[c].map(lambda v: "" if v is None else v)
        with pd.option_context("display.unicode.east_asian_width", True,
                               "display.width", 10_000, "display.max_columns", None,
                               "display.max_colwidth", None):
            body = pd.DataFrame.__repr__(shown)
        lines = [line for line in (self._caption(), body) if line]
        if len(cols) < self.shape[1]:
            lines.append(f"({len(cols)} of {self.shape[1]} columns shown; every column is "
                         f"in the table: .columns, .to_string())")
        return "\n".join(lines)

    __str__ = __repr__


def cached_training_data(est):
    """The binned training data a fit kept (None: loaded, unpickled or too big), with a
    value table for every numeric feature: lazy features' tables are made on first use,
    from the training matrix the data still refers to, and kept."""
    data = getattr(est, "_explain_data", None)
    if data is not None:
        data = est._explain_data = data.with_value_tables()
    return data


def _data_for(est, target, X, y, sample_weight):
    if X is None:
        if y is not None or sample_weight is not None:
            raise ValueError("explain(): pass X together with y (and sample_weight).")
        data = cached_training_data(est)
        if data is None:
            raise ValueError("explain() needs the training data: this model was loaded, "
                             "unpickled or fitted on more than five million cells, so pass "
                             "X and y.")
        return data
    if y is None:
        raise ValueError("explain(): y is required when X is given.")
    X = _prepare.as_2d(X)
    X_enc = _prepare.encode(X, est.schema_)
    n = X_enc.shape[0]
    y_f = np.asarray(target.encode(y, n, "explain()"), dtype=np.float64)
    w = _prepare.check_weights(sample_weight, X_enc.shape[0])
    keep = w > 0  # zero-weight rows take no part in a fit, so none in its explanation
    X_enc, y_f, w = X_enc[keep], y_f[keep], w[keep]
    schema = est.schema_
    # Categories unseen at fit time cannot follow a multiway branch; give them their own bin.
    X_enc = X_enc.copy()
    for j in np.flatnonzero(schema.is_categorical):
        X_enc[X_enc[:, j] < 0, j] = len(schema.categories[j])
    cats = [None if c is None else np.append(c, "<unseen>") for c in schema.categories]
    bins = bin_features(X_enc, schema.is_categorical, cats, est.max_bins)
    return target.binned_data(bins, schema.is_categorical.copy(), y_f, w)


def _descend(data, tree, node):
    """The samples and their weights at ``node``, replaying the fit's routing (C4.5's
    fractional copies and surrogates included), and the multiway features used above."""
    parent = tree.parent()
    path = [node]
    while parent[path[-1]] >= 0:
        path.append(int(parent[path[-1]]))
    path.reverse()
    idx = np.arange(data.codes.shape[0], dtype=np.int64)
    wi = data.w.copy()
    used = np.zeros(data.codes.shape[1], dtype=bool)
    for a, c in zip(path[:-1], path[1:]):
        f = int(tree.feature[a])
        k = int(tree.kind[a])
        nbf = int(data.n_bins[f])
        split_bin = (bin_of_threshold(data, f, tree.threshold[a]) if k == NUMERIC
                     else int(tree.category[a]))
        cat_map = np.zeros(1, dtype=np.int64)
        if k == CAT_SUBSET:
            s = int(tree.cat_map_start[a])
            cat_map = np.append(tree.cat_map[s:s + nbf], 0).astype(np.int64)
        branch = route(data.codes[:, f], idx, k, split_bin, cat_map, nbf)
        missing = branch < 0
        kids = tree.children(a)
        wn = tree.weighted_n_node_samples[kids]
        shares = wn / wn.sum() if wn.sum() > 0 else wn
        mode = int(tree.missing_mode[a])
        if missing.any() and mode != FRACTIONAL:
            _route_missing(data, tree, a, idx, branch)
        child_idx, child_w, offsets, _, _ = scatter(
            idx, wi, branch, len(kids), shares, data.y, data.y2, data.n_stats,
            criterion_for_stats(data), False)
        j = c - int(tree.first_child[a])
        idx, wi = child_idx[offsets[j]:offsets[j + 1]], child_w[offsets[j]:offsets[j + 1]]
        if k == MULTIWAY:
            used[f] = True
    return idx, wi, used


def _route_missing(data, tree, node, idx, branch):
    """Send the samples ``idx`` at ``node`` that miss its attribute (``branch`` < 0, set in
    place) as the fit did: by its surrogates, else to its missing child."""
    start = int(tree.sur_start[node])
    stop = start + (0 if tree.missing_mode[node] == LEARNED else int(tree.sur_count[node]))
    surs = Surrogates(*(getattr(tree, name)[start:stop] for name in Surrogates._fields))
    route_missing(data.codes, data.n_bins, data.bin_hi, data.bin_offsets, idx, branch, surs,
                  int(tree.missing_child[node]), *data.value_args)


def _classification_scores(stats, miss, rho, own=None):
    ent_child, gain, _ = split_scores(stats, ENTROPY)
    gini_child, gini_dec, _ = split_scores(stats, GINI)
    iv = _info_with_missing(stats, miss, GINI)  # GINI: weights are row sums
    scores = {"rho": rho, "entropy": ent_child, "gain_known": gain, "gain": rho * gain,
              "intrinsic_value": iv, "gain_ratio": rho * gain / iv if iv > 0 else np.nan,
              "gini_index": gini_child, "gini_decrease": rho * gini_dec}
    if own is not None:  # a criterion scored by a gain of its own: a column of its name
        scores[own.name] = rho * split_scores(stats, own.code)[1]
    return scores


def own_gain_criterion(name):
    """The registry entry of criterion ``name`` when its splits are scored by a gain of its
    own (which ``explain`` shows in a column of its name), else None.

    Examples
    --------
    >>> own_gain_criterion("gini") is None  # Gini's gain is its impurity decrease
    True
    """
    entry = REGISTRY.get(name)
    return entry if entry is not None and entry.direct_gain else None


def _regression_scores(stats, rho, crit, y_rows):
    if crit == ABSOLUTE_ERROR:
        total_w = sum(w.sum() for _, w in y_rows)
        # (Any median gives the same sum of deviations: abs_dev's.)
        child = sum(abs_dev(v, w) for v, w in y_rows) / total_w
        parent = abs_dev(np.concatenate([v for v, _ in y_rows]),
                         np.concatenate([w for _, w in y_rows])) / total_w
        dec = parent - child
    else:
        child, dec, _ = split_scores(stats, crit)
    return {"rho": rho, "impurity": child, "decrease_known": dec, "decrease": rho * dec}


def _fmt(x):
    return f"{x:.6g}"


def explain_node(est, node, X=None, y=None, sample_weight=None):
    """Candidate table at ``node``; see ``explain`` of the estimators."""
    tree = est.tree_
    if not (isinstance(node, (int, np.integer)) and 0 <= node < tree.node_count):
        raise ValueError(f"node must be an integer in [0, {tree.node_count - 1}]; got {node!r}.")
    target = Target.of(est)
    data = _data_for(est, target, X, y, sample_weight)
    idx, wi, used = _descend(data, tree, node)
    schema = est.schema_
    names = schema.feature_names
    reg = target.regression
    crit = criterion_code(est.criterion)
    hist_crit = SQUARED_ERROR if crit == ABSOLUTE_ERROR else crit
    cat_mode = {"multiway": CAT_MULTIWAY, "binary": CAT_ONE_VS_REST,
                "one_vs_rest": CAT_ONE_VS_REST}.get(est.categorical_split, -1)
    _, msl, _ = resolve_counts(est, data.codes.shape[0], data.codes.shape[1])
    rows = []
    features = np.flatnonzero(~used).astype(np.int64)
    own = None if reg else own_gain_criterion(est.criterion)

    def add(f, b, split, kind, thr, cat, branches, miss, n_ok, sample_sets):
        stats = np.vstack(branches)
        known = stats.sum(axis=0) if not reg else stats[:, 0].sum()
        total = (known.sum() if not reg else known) + (miss.sum() if not reg else miss[0])
        rho = (known.sum() if not reg else known) / total if total > 0 else 0.0
        scores = (_regression_scores(stats, rho, crit, sample_sets) if reg
                  else _classification_scores(stats, miss, rho, own))
        rows.append(dict(feature=names[f], split=split, kind=kind, threshold=thr,
                         category=cat, n_branches=int((stats.sum(axis=1) > 0).sum()),
                         valid=bool(n_ok), _f=f, _bin=b, **scores))

    if idx.size:
        for f in features:
            nbf = int(data.n_bins[f])
            bins, counts, n = feature_histogram(data.codes[:, f], idx, wi, data.y, data.y2,
                                                nbf + 1, data.n_stats, hist_crit)
            nk, miss, _ = _split_missing(bins, counts, n, nbf)
            bins, counts, n = bins[:nk], counts[:nk], n[:nk]
            codes_here = data.codes[idx, f]

            def samples(mask_bins):
                sel = np.isin(codes_here, mask_bins)
                return data.y[idx[sel]], wi[sel]

            total = counts.sum(axis=0)
            if schema.is_categorical[f]:
                cats = schema.categories[f]
                label = lambda b: cats[b] if b < len(cats) else "<unseen>"  # noqa: E731
                if cat_mode == CAT_MULTIWAY:
                    ok = len(bins) >= 2 and bool((n >= msl).all())
                    add(f, -1, f"{names[f]} = {{" + ", ".join(str(label(b)) for b in bins)
                        + "}", "multiway", np.nan, None, list(counts), miss, ok,
                        [samples([b]) for b in bins])
                elif cat_mode == CAT_ONE_VS_REST:
                    for b, c, nb in zip(bins, counts, n):
                        ok = len(bins) >= 2 and nb >= msl and n.sum() - nb >= msl
                        add(f, int(b), f"{names[f]} = {label(b)}", "categorical_binary",
                            np.nan, label(b), [c, total - c], miss, ok,
                            [samples([b]), samples(np.setdiff1d(bins, [b]))])
                else:
                    by_code = {int(b): r for r, b in enumerate(bins)}
                    order = np.array([by_code[int(b)] for b in
                                      ordered_categories(data, crit, idx, wi, f)])
                    for t in range(len(bins) - 1):
                        left = bins[order[:t + 1]]
                        lc = counts[order[:t + 1]].sum(axis=0)
                        ok = n[order[:t + 1]].sum() >= msl and n[order[t + 1:]].sum() >= msl
                        add(f, t + 1, f"{names[f]} in {{" + ", ".join(
                            str(label(b)) for b in left) + "}", "categorical_subset", np.nan,
                            None, [lc, total - lc], miss, ok,
                            [samples(left), samples(bins[order[t + 1:]])])
            else:
                sl = slice(data.bin_offsets[f], data.bin_offsets[f + 1])
                lo, hi = data.bin_lo[sl], data.bin_hi[sl]
                left = np.cumsum(counts, axis=0)
                left_n = np.cumsum(n)
                for t in range(len(bins) - 1):
                    thr = midpoint(hi[bins[t]], lo[bins[t + 1]])
                    ok = left_n[t] >= msl and left_n[-1] - left_n[t] >= msl
                    sets = ([samples(bins[:t + 1]), samples(bins[t + 1:])]
                            if crit == ABSOLUTE_ERROR else None)
                    add(f, int(bins[t]), f"{names[f]} <= {_fmt(thr)}", "numeric", thr, None,
                        [left[t], total - left[t]], miss, ok, sets)
    columns = REGRESSOR_COLUMNS if reg else CLASSIFIER_COLUMNS
    if own is not None:
        at = columns.index("gini_decrease") + 1
        columns = columns[:at] + [own.name] + columns[at:]
    table = pd.DataFrame(rows, columns=[c for c in columns if c != "above_average_gain"]
                         + ["_f", "_bin"])
    if not reg:
        table.insert(columns.index("above_average_gain"), "above_average_gain",
                     pd.Series([None] * len(table), dtype=object))
    _mark(est, data, node, idx, wi, features, table, cat_mode, crit)
    stats = (np.bincount(data.y[idx].astype(np.int64), weights=wi, minlength=data.n_stats)
             if not reg else None)
    table.attrs.update(node=int(node), n_samples=int(idx.size),
                       weighted_n_samples=float(wi.sum()))
    if reg:
        table.attrs["impurity"] = float(tree.impurity[node])
        table.attrs["value"] = float(tree.value[node, 0])
    else:
        table.attrs.update(entropy=float(impurity(stats, ENTROPY)),
                           gini=float(impurity(stats, GINI)),
                           distribution={c: float(v) for c, v in
                                         zip(target.classes.tolist(), stats)})
    out = ExplainTable(table.drop(columns=["_f", "_bin"]))
    out.attrs = dict(table.attrs)
    return out


def _mark(est, data, node, idx, wi, features, table, cat_mode, crit):
    """Fill best_of_feature / above_average_gain / chosen / note."""
    tree = est.tree_
    table["best_of_feature"] = False
    table["chosen"] = False
    table["note"] = ""
    if table.empty:
        return
    gain_ratio = est.criterion == "gain_ratio"
    _, msl, _ = resolve_counts(est, data.codes.shape[0], data.codes.shape[1])
    search_cat = cat_mode if cat_mode >= 0 else 2
    mode = int(tree.missing_mode[node]) if tree.kind[node] else FRACTIONAL
    no_draw = np.full(features.size, -1.0)
    found, kind, _, dec, info, split_bin, thr, _, _ = search_node(
        data.binned, data.cat_mask, features, idx, wi, data.y, data.y2, data.n_stats, crit,
        search_cat, mode, msl, 0.0, no_draw)
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
    measure = REGISTRY[est.criterion].measure
    if tree.kind[node] != 0:
        f = tree.feature[node]
        k = tree.kind[node]
        sel = table["_f"] == f
        if k == NUMERIC:
            sel &= table["threshold"] == tree.threshold[node]
        elif k == CAT_SUBSET:
            sel &= table["best_of_feature"]
        elif k != MULTIWAY:
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
    table.loc[~table["valid"], "note"] = ("invalid: a branch is below min_samples_leaf or "
                                          "the feature is constant")
