"""The subcommands: fit, predict, show, explain, evaluate, demo.

Each takes the parsed arguments and a :class:`Console` and returns an exit status; bad usage
or bad data raise :class:`~quercus.cli.options.UsageError` or
:class:`~quercus.cli.io.DataError`, which ``main`` turns into a one-line message and status 2.
"""

import os
import re
import sys
import time
import warnings

import numpy as np
import pandas as pd

from .io import read_table
from .options import ALGORITHMS, UsageError, chosen_parameters, make_estimator
from .progress import Progress
from .table import format_table

# A fit or cross-validation of at least this many cells shows progress on a terminal.
_PROGRESS_CELLS = 200_000


class Console:
    """Where a command writes: results to stdout, notes and progress to stderr.

    ``quiet`` drops notes and progress; ``verbose`` adds details (how files were read, the
    parameters used) and a traceback for an unexpected error.

    Examples
    --------
    >>> Console(quiet=True).note("not shown")
    """

    def __init__(self, quiet=False, verbose=False):
        self.quiet = quiet
        self.verbose = verbose

    def out(self, text=""):
        """Write a line of the command's result to stdout."""
        print(text)

    def note(self, text):
        """Write a note to stderr, unless quiet."""
        if not self.quiet:
            print(f"note: {text}", file=sys.stderr)

    def detail(self, text):
        """Write a detail to stderr, only when verbose."""
        if self.verbose and not self.quiet:
            print(text, file=sys.stderr)

    def progress(self, label, total=None, cells=None):
        """A :class:`Progress` on stderr, off when quiet or when the work is small."""
        enabled = not self.quiet and (cells is None or cells >= _PROGRESS_CELLS)
        return Progress(label, total=total, enabled=enabled)


# ---------------------------------------------------------------- reading
def _split_names(values):
    out = []
    for v in values or []:
        out += [s.strip() for s in v.split(",") if s.strip()]
    return out


def load_data(args, path, con):
    """Read a data file with the command's reading options (encoding, delimiter, sheet)."""
    loaded = read_table(path, encoding=getattr(args, "encoding", None),
                        delimiter=getattr(args, "delimiter", None),
                        sheet=getattr(args, "sheet", None))
    con.detail(loaded.describe())
    return loaded


def _need_columns(path, df, names, option):
    missing = [n for n in names if n not in df.columns]
    if missing:
        raise UsageError(f"{path}: no column {missing[0]!r} ({option}); its columns are "
                         f"{_list(df.columns)}")


def _list(names, at_most=12):
    names = [str(n) for n in names]
    more = f", ... ({len(names)} in all)" if len(names) > at_most else ""
    return ", ".join(names[:at_most]) + more


def as_category_text(col):
    """A column declared categorical, as text: integral numbers without ``.0``.

    The same cell then gives the same category whether the file was CSV (read as numbers),
    Excel or Parquet, at fit and at predict time. Missing cells stay missing.

    Examples
    --------
    >>> as_category_text(pd.Series([1.0, 2.0, None, 2.5])).tolist()
    ['1', '2', nan, '2.5']
    """
    if isinstance(col.dtype, pd.CategoricalDtype) or not pd.api.types.is_numeric_dtype(col) \
            or pd.api.types.is_bool_dtype(col):
        return col.astype(object).where(col.notna(), np.nan) if not isinstance(
            col.dtype, pd.CategoricalDtype) else col

    def text(v):
        if pd.isna(v):
            return np.nan
        f = float(v)
        return str(int(f)) if f.is_integer() else repr(f)
    return col.map(text).astype(object)


def _row_ids(df):
    """Integer columns that only number the rows (0 or 1, 2, 3, ... in order)."""
    out = []
    n = len(df)
    for c in df.columns:
        col = df[c]
        if n < 3 or not pd.api.types.is_integer_dtype(col) or pd.api.types.is_bool_dtype(col):
            continue
        v = col.to_numpy()
        if v[0] in (0, 1) and (np.diff(v) == 1).all():
            out.append(c)
    return out


class Training:
    """X, y and what was left out, from a data file and the training options."""

    def __init__(self, args, loaded, con, announce_ids=True):
        df = loaded.frame
        path = loaded.path
        self.path = path
        target = args.target if args.target is not None else str(df.columns[-1])
        _need_columns(path, df, [target], "--target")
        ignored = _split_names(args.ignore) + _split_names([args.id] if args.id else [])
        _need_columns(path, df, ignored, "--ignore" if args.ignore else "--id")
        if target in ignored:
            raise UsageError(f"{path}: column {target!r} is both the target and ignored")
        self.auto_ids = []
        if not ignored and not args.no_auto_id:
            self.auto_ids = [c for c in _row_ids(df) if c != target]
            ignored = list(self.auto_ids)
        categorical = _split_names(args.categorical)
        _need_columns(path, df, categorical, "--categorical")
        if target in categorical or set(categorical) & set(ignored):
            raise UsageError(f"{path}: --categorical names the target or an ignored column")
        y = df[target]
        keep = y.notna().to_numpy()
        self.dropped = np.flatnonzero(~keep) + 1
        if not keep.any():
            raise UsageError(f"{path}: the target column {target!r} has no values")
        X = df.loc[keep, [c for c in df.columns if c != target and c not in ignored]]
        if X.shape[1] == 0:
            raise UsageError(f"{path}: no attribute left besides the target {target!r}")
        X = X.copy()
        for c in categorical:
            X[c] = as_category_text(X[c])
        self.X, self.y = X, y[keep]
        if isinstance(self.y.dtype, pd.CategoricalDtype):
            self.y = self.y.astype(object)
        self.target, self.ignored, self.categorical = target, ignored, categorical
        if len(self.dropped):
            con.note(f"{path}: {len(self.dropped)} row(s) without a value of {target!r} left "
                     f"out (data rows {_list(self.dropped.tolist(), 8)})")
        if self.auto_ids and announce_ids:
            con.note(f"{path}: column(s) {_list(self.auto_ids)} number the rows; ignored "
                     "(--no-auto-id keeps them)")

    def is_regression_target(self):
        y = self.y
        if pd.api.types.is_bool_dtype(y) or not pd.api.types.is_numeric_dtype(y):
            return False
        v = y.to_numpy(dtype=float)
        return not np.all(np.equal(np.mod(v, 1), 0))

    def kinds(self):
        """(categorical, numeric) attribute counts, as the estimators detect them."""
        cat = 0
        for c in self.X.columns:
            col = self.X[c]
            if (c in self.categorical or not pd.api.types.is_numeric_dtype(col)
                    or pd.api.types.is_bool_dtype(col)):
                cat += 1
        return cat, self.X.shape[1] - cat


def _algorithms(args, training=None):
    names = [a.strip() for a in args.algorithm.split(",") if a.strip()]
    out = []
    for name in names:
        if name == "auto":
            reg = training is not None and training.is_regression_target()
            name = "cart-regressor" if reg else "c45"
        if name not in ALGORITHMS:
            raise UsageError(f"--algorithm {name!r}: choose from auto, "
                             f"{', '.join(ALGORITHMS)}")
        out.append((name, ALGORITHMS[name]))
    if not out:
        raise UsageError("--algorithm: name at least one algorithm")
    return out


def _estimator(args, cls, training):
    params = chosen_parameters(args, cls)
    if training is not None and training.categorical:
        params["categorical_features"] = training.categorical
    if isinstance(params.get("class_weight"), dict) and training is not None:
        params["class_weight"] = _class_weight_keys(params["class_weight"], training.y)
    return make_estimator(cls, params)


def _class_weight_keys(weights, y):
    labels = {str(v): v for v in pd.unique(y.dropna())}
    out = {}
    for k, w in weights.items():
        if k not in labels:
            raise UsageError(f"--class-weight: {k!r} is not a class of the target; its "
                             f"classes are {_list(sorted(labels))}")
        out[labels[k]] = w
    return out


def _locate(msg, index):
    """The estimators count rows from 0 in the data they got; say the file's data row."""
    def repl(m):
        i = int(m.group(1))
        return f"data row {int(index[i]) + 1 if i < len(index) else i + 1}"
    return re.sub(r"\brow (\d+)\b", repl, msg)


def _fit_one(est, training, con, label):
    X, y = training.X, training.y
    cells = X.shape[0] * X.shape[1]
    t0 = time.perf_counter()
    try:
        with con.progress(f"{label} on {X.shape[0]:,} rows", cells=cells):
            est.fit(X, y)
    except (ValueError, TypeError) as exc:
        raise UsageError(f"{training.path}: {_locate(str(exc), X.index)}") from None
    return time.perf_counter() - t0


def _tree_line(est):
    t = est.tree_
    return (f"{est.get_n_leaves()} leaves, {t.node_count} nodes, depth {est.get_depth()}")


def _score_line(est, X, y):
    pred = est.predict(X)
    if est._is_regressor:
        from sklearn.metrics import r2_score
        v = y.to_numpy(dtype=float)
        rmse = float(np.sqrt(np.mean((pred - v) ** 2)))
        return f"training R²: {r2_score(v, pred):.3f}, RMSE {rmse:.4g}"
    right = int((np.asarray(pred) == y.to_numpy()).sum())
    return f"training accuracy: {right / len(y):.3f} ({right} of {len(y)})"


# ---------------------------------------------------------------- fit
def cmd_fit(args, con):
    """``quercus fit DATA``: grow a tree, print a summary, save the model (``-o``)."""
    (name, cls), *more = _algorithms(args)  # validated before reading: fail fast
    if more:
        raise UsageError("fit: --algorithm takes one algorithm (evaluate compares several)")
    if args.algorithm != "auto":
        _estimator(args, cls, None)  # bad parameters fail before a long read
    loaded = load_data(args, args.data, con)
    training = Training(args, loaded, con, announce_ids=False)
    (name, cls), = _algorithms(args, training)
    est = _estimator(args, cls, training)
    con.detail(f"{type(est).__name__} parameters: {est.get_params()}")
    seconds = _fit_one(est, training, con, f"fitting {type(est).__name__}")
    cat, num = training.kinds()
    kind = ("regression" if est._is_regressor else f"{len(est.classes_)} classes")
    con.out(f"data: {args.data}, {len(training.X)} rows, {training.X.shape[1]} attributes "
            f"({cat} categorical, {num} numeric), target {training.target} ({kind})")
    if training.ignored:
        why = (" (they number the rows; --no-auto-id keeps them)" if training.auto_ids
               else "")
        con.out(f"ignored: {_list(training.ignored)}{why}")
    con.out(f"model: {type(est).__name__} ({name}), {_tree_line(est)}")
    con.out(_score_line(est, training.X, training.y))
    con.out(f"fit time: {seconds:.2f} s")
    if args.output:
        try:
            est.save(args.output)
        except OSError as exc:
            raise UsageError(f"{args.output}: cannot write the model ({exc.strerror})") from None
        con.out(f"saved: {args.output}")
    if args.tree or not args.output:
        from .. import export_text
        con.out("")
        con.out(export_text(est))
    return 0


# ---------------------------------------------------------------- predict
def load_model(path):
    """A model file read by :func:`quercus.load`; a bad file is a :class:`UsageError`."""
    from .. import ModelFileError, load
    if not os.path.exists(path):
        raise UsageError(f"{path}: no such file")
    try:
        return load(path)
    except ModelFileError as exc:
        raise UsageError(f"{path}: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read the model ({exc})") from None


def model_frame(est, loaded, con, allow_extra=True, extra_ok=()):
    """The model's columns of a data file, by name, in the model's order.

    Missing columns are an error naming them; extra ones are ignored with a note.
    """
    df = loaded.frame
    names = [str(n) for n in est.schema_.feature_names]
    missing = [n for n in names if n not in df.columns]
    if missing:
        raise UsageError(f"{loaded.path}: missing column(s) the model needs: {_list(missing)}")
    extra = [c for c in df.columns if c not in names and c not in extra_ok]
    if extra:
        con.note(f"{loaded.path}: column(s) the model does not use, ignored: {_list(extra)}")
    X = df[names].copy()
    schema = est.schema_
    for j, n in enumerate(names):
        cats = schema.categories[j] if schema.is_categorical[j] else None
        if cats is not None and all(isinstance(c, str) for c in cats):
            X[n] = as_category_text(X[n])
    return X


def cmd_predict(args, con):
    """``quercus predict MODEL DATA``: one prediction per row, as CSV."""
    est = load_model(args.model)
    if args.proba and est._is_regressor:
        raise UsageError(f"--proba: {args.model} holds a regressor "
                         f"({type(est).__name__}); probabilities need a classifier")
    loaded = load_data(args, args.data, con)
    ids = _split_names([args.id] if args.id else [])
    _need_columns(loaded.path, loaded.frame, ids, "--id")
    X = model_frame(est, loaded, con, extra_ok=ids)
    try:
        with con.progress(f"predicting {len(X):,} rows", cells=X.size):
            out = pd.DataFrame({"prediction": est.predict(X)})
            if args.proba:
                proba = est.predict_proba(X)
                for k, c in enumerate(est.classes_):
                    out[f"P({c})"] = np.round(proba[:, k], 6)
    except (ValueError, TypeError) as exc:
        raise UsageError(f"{loaded.path}: {_locate(str(exc), X.index)}") from None
    for c in reversed(ids):
        out.insert(0, c, loaded.frame[c].to_numpy())
    _write_frame(out, args.output)
    if args.output:
        con.note(f"{len(out)} predictions written to {args.output}")
    return 0


def _write_frame(df, path):
    sep = "\t" if path and os.path.splitext(path)[1].lower() in (".tsv", ".tab") else ","
    if not path or path == "-":
        df.to_csv(sys.stdout, index=False, sep=sep, lineterminator="\n")
        return
    try:
        df.to_csv(path, index=False, sep=sep, encoding="utf-8", lineterminator="\n")
    except OSError as exc:
        raise UsageError(f"{path}: cannot write ({exc.strerror})") from None


# ---------------------------------------------------------------- show
SHOW_FORMATS = ("text", "rules", "dot", "html", "png", "svg", "json")
# format -> the quercus.export function that makes it
_EXPORTERS = {"rules": "export_rules", "dot": "export_graphviz", "html": "export_html",
              "png": "plot_tree", "svg": "plot_tree"}


def exporter(fmt):
    """The export function of a format, or a :class:`UsageError` if it is not available.

    Examples
    --------
    >>> exporter("text").__name__
    'export_text'
    """
    from .. import export
    if fmt == "text":
        return export.export_text
    if fmt == "json":
        return export.export_dict
    func = getattr(export, _EXPORTERS[fmt], None)
    if func is None:
        raise UsageError(f"--format {fmt}: format {fmt} is not available in this quercus "
                         f"(quercus.export.{_EXPORTERS[fmt]} is missing)")
    return func


def cmd_show(args, con):
    """``quercus show MODEL``: the tree as text, rules, dot, html, png, svg or json."""
    est = load_model(args.model)
    fmt = args.format
    func = exporter(fmt)
    if fmt in ("png", "svg"):
        if fmt == "png" and not args.output:
            raise UsageError("--format png: give the image file with -o FILE.png")
        return _show_plot(func, est, fmt, args.output)
    if fmt == "json":
        import json
        text = json.dumps(func(est), ensure_ascii=False, indent=1)
    else:
        text = func(est)
    if not isinstance(text, str):
        raise UsageError(f"--format {fmt}: quercus.export.{func.__name__} did not return text")
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as fh:
                fh.write(text if text.endswith("\n") else text + "\n")
        except OSError as exc:
            raise UsageError(f"{args.output}: cannot write ({exc.strerror})") from None
    else:
        con.out(text.rstrip("\n"))
    return 0


def _show_plot(func, est, fmt, output):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise UsageError(f'--format {fmt}: needs matplotlib: pip install "quercus[plot]"') \
            from None
    fig, ax = plt.subplots()
    try:
        result = func(est, ax=ax)
        figure = getattr(result, "figure", None) or getattr(ax, "figure", fig)
        figure = figure if hasattr(figure, "savefig") else fig
        if output:
            figure.savefig(output, format=fmt, bbox_inches="tight")
        else:
            figure.savefig(sys.stdout.buffer, format=fmt, bbox_inches="tight")
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise UsageError(f"{output}: cannot write ({exc.strerror})") from None
    finally:
        plt.close("all")
    return 0


# ---------------------------------------------------------------- explain
_REASONS = {
    "entropy": "highest information gain",
    "gain_ratio": "highest gain ratio among the candidates with at least average gain",
    "gini": "largest Gini decrease (lowest Gini index)",
    "squared_error": "largest variance reduction",
    "absolute_error": "largest absolute error decrease",
    "poisson": "largest Poisson deviance decrease",
}


def find_node(est, spec):
    """The node a ``--node`` names: an id (``3``) or a path of branch tests from the root,
    ``纹理=清晰/根蒂=蜷缩`` (spaces optional; ``!=``, ``<=``, ``>`` and ``in {...}`` as
    ``quercus show`` writes them; a numeric test may leave out its threshold: ``密度<=``).

    Examples
    --------
    >>> from quercus import ID3Classifier
    >>> from quercus.datasets import load_watermelon
    >>> clf = ID3Classifier().fit(*load_watermelon("2.0"))
    >>> find_node(clf, "纹理=清晰/根蒂 = 稍蜷"), find_node(clf, "0")
    (5, 0)
    """
    from ..inspect import node_view
    spec = str(spec).strip()
    n = est.tree_.node_count
    if re.fullmatch(r"\d+", spec):
        node = int(spec)
        if node >= n:
            raise UsageError(f"--node {spec}: the tree has nodes 0 to {n - 1}")
        return node
    node = 0
    for k, step in enumerate(s for s in spec.split("/") if s.strip()):
        view = node_view(est, node)
        if not view.children:
            raise UsageError(f"--node {spec!r}: step {k + 1} ({step.strip()!r}) goes below a "
                             f"leaf (node {node})")
        want = re.sub(r"\s+", "", step)
        tests = [re.sub(r"\s+", "", f"{view.feature}{c}") for c in view.conditions]
        hit = [i for i, t in enumerate(tests) if t == want]
        if not hit and view.kind == "numeric":
            hit = _numeric_step(view, want)
        if not hit:
            raise UsageError(f"--node {spec!r}: step {k + 1} ({step.strip()!r}) matches no "
                             f"branch of node {node}; its branches are "
                             f"{_list(f'{view.feature} {c}' for c in view.conditions)}")
        node = int(view.children[hit[0]])
    return node


def _numeric_step(view, want):
    """The branch of a numeric node a step like ``密度<=0.38`` names: the operator picks
    it; a threshold, if written, must be the node's at the precision written."""
    m = re.fullmatch(re.escape(str(view.feature)) + r"(<=|>)([-+0-9.eE]*)", want)
    if not m or not np.isfinite(view.threshold):
        return []
    if m.group(2):
        try:
            value = float(m.group(2))
        except ValueError:
            return []
        digits = len(m.group(2).split(".")[1]) if "." in m.group(2) else 0
        if abs(value - view.threshold) > 0.5 * 10.0 ** -digits + 1e-12:
            return []
    return [0 if m.group(1) == "<=" else 1]


def _node_path(est, node):
    from ..inspect import node_view
    parent = est.tree_.parent()
    steps = []
    while parent[node] >= 0:
        p = int(parent[node])
        view = node_view(est, p)
        i = list(view.children).index(node)
        steps.append(f"{view.feature}{view.conditions[i].replace(' ', '', 1)}"
                     if view.conditions[i].startswith("= ") else
                     f"{view.feature} {view.conditions[i]}")
        node = p
    return "/".join(reversed(steps)) or "(root)"


def explain_text(est, node, table):
    """The explanation of one node as terminal text: the node, the split table with the
    chosen split marked, and why it was chosen.

    Examples
    --------
    >>> from quercus import ID3Classifier
    >>> from quercus.datasets import load_watermelon
    >>> clf = ID3Classifier().fit(*load_watermelon("2.0"))
    >>> print(explain_text(clf, 0, clf.explain(0)).splitlines()[-1])
    chosen: 纹理 = {清晰, 稍糊, 模糊}: highest information gain (gain 0.381)
    """
    from ..inspect import node_view
    a = table.attrs
    lines = [f"node {node}: {_node_path(est, node)}, {a['n_samples']} samples"
             + (f" (weight {a['weighted_n_samples']:.4g})"
                if abs(a["weighted_n_samples"] - a["n_samples"]) > 1e-9 else "")]
    if est._is_regressor:
        lines.append(f"value {a['value']:.4g}, impurity {a['impurity']:.4g}")
        cols = ["split", "rho", "impurity", "decrease", "note"]
        measure = "decrease"
    else:
        dist = ", ".join(f"{c}: {w:.4g}" for c, w in a["distribution"].items())
        lines.append(f"classes {dist}; Ent(D) = {a['entropy']:.3f}, Gini(D) = {a['gini']:.3f}"
                     + (f"; average gain {a['average_gain']:.3f}" if "average_gain" in a
                        else ""))
        cols = ["split", "rho", "entropy", "gain", "intrinsic_value", "gain_ratio",
                "gini_index", "note"]
        measure = {"gain_ratio": "gain_ratio", "gini": "gini_decrease"}.get(est.criterion,
                                                                           "gain")
    if table.empty:
        lines.append("no candidate split (every attribute is used above or constant)")
        return "\n".join(lines)
    if "rho" in table and (table["rho"] >= 1 - 1e-12).all():
        cols.remove("rho")  # no missing values here: rho is 1 everywhere
    lines.append("")
    lines.append(format_table(table, cols, mark=table["chosen"].tolist()))
    lines.append("")
    chosen = table[table["chosen"]]
    if len(chosen):
        row = chosen.iloc[0]
        lines.append(f"chosen: {row['split']}: {_REASONS.get(est.criterion, 'best')} "
                     f"({measure.replace('_', ' ')} {row[measure]:.3f})")
    else:
        view = node_view(est, node)
        best = table[table["note"].str.startswith("best candidate")]
        why = (f"the best candidate was {best.iloc[0]['split']}, but a stopping rule or "
               "pruning made the node a leaf" if len(best) else "no valid split")
        lines.append(f"leaf: predicts {view.predicted}; {why}")
    return "\n".join(lines)


def cmd_explain(args, con):
    """``quercus explain DATA`` or ``quercus explain MODEL --data DATA``."""
    source = args.source
    if source.lower().endswith(".json"):
        if not args.data:
            raise UsageError(f"{source}: a model file needs its data: --data DATA (the "
                             "model keeps no training data)")
        est = load_model(source)
        loaded = load_data(args, args.data, con)
        df = loaded.frame
        target = args.target if args.target is not None else str(df.columns[-1])
        _need_columns(loaded.path, df, [target], "--target")
        X = model_frame(est, loaded, con, extra_ok=[target])
        keep = df[target].notna().to_numpy()
        X, y = X[keep], df.loc[keep, target]
        node = find_node(est, args.node)
        try:
            table = est.explain(node, X, y)
        except (ValueError, TypeError) as exc:
            raise UsageError(f"{loaded.path}: {_locate(str(exc), X.index)}") from None
    else:
        if args.data:
            raise UsageError("--data goes with a model file (quercus explain MODEL.json "
                             "--data DATA)")
        loaded = load_data(args, source, con)
        training = Training(args, loaded, con)
        (name, cls), *more = _algorithms(args, training)
        if more:
            raise UsageError("explain: --algorithm takes one algorithm")
        est = _estimator(args, cls, training)
        _fit_one(est, training, con, f"fitting {type(est).__name__}")
        node = find_node(est, args.node)
        table = est.explain(node)
    con.out(explain_text(est, node, table))
    from ..inspect import node_view
    view = node_view(est, node)
    if view.children:
        con.out("")
        con.out("children: " + "; ".join(
            f"{view.feature} {c} (node {ch})" for c, ch in zip(view.conditions,
                                                               view.children)))
    return 0


# ---------------------------------------------------------------- evaluate
def _folds(training, k, regression, seed, con):
    """The cross-validation splitter and its description; fewer folds or no stratification
    when the data are too small, with a note saying so."""
    from sklearn.model_selection import KFold, StratifiedKFold
    n = len(training.y)
    if k < 2:
        raise UsageError(f"--cv {k}: needs at least 2 folds")
    if k > n:
        con.note(f"--cv {k}: only {n} rows, so {n} folds")
        k = n
    if regression:
        return KFold(k, shuffle=True, random_state=seed), f"{k}-fold cross-validation", k
    counts = training.y.value_counts()
    largest, smallest = int(counts.max()), int(counts.min())
    if largest < 2:
        con.note(f"every class has a single row: {k} folds, not stratified")
        return (KFold(k, shuffle=True, random_state=seed),
                f"{k}-fold cross-validation (not stratified)", k)
    if largest < k:
        # Stratification deals each class's rows over the folds: no class can fill more
        # folds than it has rows.
        con.note(f"the largest class has {largest} rows: {largest} stratified folds "
                 f"instead of {k}")
        k = largest
    if smallest < k:
        con.note(f"class {counts.idxmin()!r} has {smallest} row(s): some folds test none "
                 "of it")
    return (StratifiedKFold(k, shuffle=True, random_state=seed),
            f"{k}-fold stratified cross-validation", k)


def _classification_report(con, y_true, y_pred, classes):
    from sklearn.metrics import (accuracy_score, cohen_kappa_score, confusion_matrix,
                                 precision_recall_fscore_support)
    acc = accuracy_score(y_true, y_pred)
    right = int(np.sum(np.asarray(y_true) == np.asarray(y_pred)))
    con.out(f"accuracy   {acc:.3f}  ({right} of {len(y_true)})")
    con.out(f"kappa      {cohen_kappa_score(y_true, y_pred):.3f}")
    con.out("")
    con.out("confusion matrix (rows: actual, columns: predicted)")
    cm = confusion_matrix(y_true, y_pred, labels=classes)
    frame = pd.DataFrame(cm, columns=[str(c) for c in classes])
    frame.insert(0, "actual", [str(c) for c in classes])
    con.out(format_table(frame))
    con.out("")
    p, r, f, s = precision_recall_fscore_support(y_true, y_pred, labels=classes,
                                                 zero_division=0)
    per = pd.DataFrame({"class": [str(c) for c in classes], "precision": p, "recall": r,
                        "f1": f, "support": s.astype(int)})
    wp, wr, wf, _ = precision_recall_fscore_support(y_true, y_pred, labels=classes,
                                                    average="weighted", zero_division=0)
    per.loc[len(per)] = ["weighted avg", wp, wr, wf, int(s.sum())]
    per["support"] = per["support"].astype(int)
    con.out(format_table(per))
    return acc


def _regression_report(con, y_true, y_pred):
    from sklearn.metrics import mean_absolute_error, mean_squared_error, r2_score
    r2 = r2_score(y_true, y_pred)
    con.out(f"R²     {r2:.3f}")
    con.out(f"RMSE   {np.sqrt(mean_squared_error(y_true, y_pred)):.4g}")
    con.out(f"MAE    {mean_absolute_error(y_true, y_pred):.4g}")
    return r2


def cmd_evaluate(args, con):
    """``quercus evaluate DATA``: cross-validation or a test file, algorithms side by side."""
    if args.cv is not None and args.test:
        raise UsageError("--cv and --test: give one of them")
    loaded = load_data(args, args.data, con)
    training = Training(args, loaded, con)
    algos = _algorithms(args, training)
    ests = [(name, _estimator(args, cls, training)) for name, cls in algos]
    kinds = {e._is_regressor for _, e in ests}
    if len(kinds) > 1:
        raise UsageError("--algorithm: compare classifiers with classifiers and regressors "
                         "with regressors")
    regression = kinds.pop()
    test = None
    if args.test:
        test_loaded = load_data(args, args.test, con)
        tdf = test_loaded.frame
        _need_columns(test_loaded.path, tdf, [training.target], "--target")
    X, y = training.X, training.y
    if not args.test:
        splitter, how_cv, k = _folds(training, args.cv or 10, regression, args.seed, con)
    summary = []
    for name, est in ests:
        from sklearn.base import clone
        label = f"{type(est).__name__} ({name})"
        t_fit = _fit_one(est, training, con, f"fitting {type(est).__name__}")
        if args.test:
            keep = tdf[training.target].notna().to_numpy()
            X_te = model_frame(est, test_loaded, con, extra_ok=[training.target]
                               + training.ignored)[keep]
            y_true = tdf.loc[keep, training.target]
            try:
                y_pred = est.predict(X_te)
            except (ValueError, TypeError) as exc:
                raise UsageError(f"{test_loaded.path}: {_locate(str(exc), X_te.index)}") \
                    from None
            how = f"test set {args.test}, {len(y_true)} rows"
            t_eval = 0.0
        else:
            y_pred = np.empty(len(y), dtype=object if not regression else float)
            t0 = time.perf_counter()
            strat = None if regression else y
            with con.progress(f"cross-validating {type(est).__name__}", total=k,
                              cells=0 if X.size < _PROGRESS_CELLS // 10 else None) as prog:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)
                    folds = list(splitter.split(X, strat))
                for tr, te in folds:
                    fold = clone(est)
                    try:
                        with warnings.catch_warnings():
                            # (the notes above already said what scikit-learn warns of)
                            warnings.simplefilter("ignore", UserWarning)
                            fold.fit(X.iloc[tr], y.iloc[tr])
                    except (ValueError, TypeError) as exc:
                        raise UsageError(f"{training.path}: {exc}") from None
                    y_pred[te] = fold.predict(X.iloc[te])
                    prog.step()
            t_eval = time.perf_counter() - t0
            y_true = y
            how = f"{how_cv}, {len(y)} rows, seed {args.seed}"
        con.out(f"=== {label}: {how} ===")
        if regression:
            score = _regression_report(con, y_true.to_numpy(dtype=float),
                                       np.asarray(y_pred, dtype=float))
        else:
            y_pred = np.asarray(y_pred, dtype=np.asarray(y_true).dtype if
                                np.asarray(y_true).dtype != object else object)
            classes = list(est.classes_)
            extra = [c for c in pd.unique(pd.Series(y_true)) if c not in classes]
            score = _classification_report(con, np.asarray(y_true), y_pred,
                                           classes + extra)
        con.out("")
        con.out(f"tree (fitted on all {len(y)} rows): {_tree_line(est)}")
        con.out(f"time: fit {t_fit:.2f} s" + (f", cross-validation {t_eval:.2f} s"
                                              if not args.test else ""))
        con.out("")
        summary.append({"algorithm": name, ("R²" if regression else "accuracy"): score,
                        "leaves": est.get_n_leaves(), "depth": est.get_depth(),
                        "fit s": round(t_fit, 2)})
    if len(summary) > 1:
        con.out("=== side by side ===")
        con.out(format_table(pd.DataFrame(summary), decimals={"fit s": 2}))
    return 0


# ---------------------------------------------------------------- demo
def cmd_demo(args, con):
    """``quercus demo``: the watermelon book's chapter 4, from the split table to the
    pruned tree."""
    from .. import C45Classifier, CARTClassifier, ID3Classifier, export_text
    from ..datasets import load_watermelon, watermelon_train_validation_split

    if args.write_data:
        return _write_data(args.write_data, con)
    out = con.out
    X, y = load_watermelon("2.0")
    out("quercus demo: watermelon 2.0 (《机器学习》 table 4.1), 17 melons, target 好瓜\n")
    id3 = ID3Classifier().fit(X, y)
    table = id3.explain(0)
    out(f"Root node: Ent(D) = {table.attrs['entropy']:.3f}, Gini(D) = "
        f"{table.attrs['gini']:.3f}. Every candidate split:\n")
    cols = ["split", "entropy", "gain", "intrinsic_value", "gain_ratio", "gini_index"]
    out(format_table(table, cols, mark=table["chosen"].tolist()))
    out("\n* chosen: the highest information gain (ID3). C4.5 takes the highest gain ratio "
        "among\n  the attributes with at least average gain; CART the lowest Gini index.")
    for name, est in (("ID3 (information gain, multiway)", id3),
                      ("C4.5 (gain ratio among above-average gains; unpruned, as in the book)",
                       C45Classifier(pruning=None).fit(X, y)),
                      ("C4.5 with its default pessimistic pruning (as Weka's J48)",
                       C45Classifier().fit(X, y)),
                      ("CART (Gini, binary a == v / a != v)", CARTClassifier().fit(X, y))):
        out(f"\n{name}: {est.get_n_leaves()} leaves, depth {est.get_depth()}\n")
        out(export_text(est))
    # The book's section 4.3: the same learner on the training half, pruned on the
    # validation half (the book breaks the root's tie for 脐部, hence the column order).
    X_tr, X_va, y_tr, y_va = watermelon_train_validation_split()
    cols = ["脐部", "色泽", "根蒂", "敲声", "纹理", "触感"]
    full = ID3Classifier().fit(X_tr[cols], y_tr)
    post = ID3Classifier(pruning="reduced_error").fit(X_tr[cols], y_tr,
                                                      eval_set=(X_va[cols], y_va))
    out("\nReduced-error pruning (the book's section 4.3): ID3 on the 10 training melons,\n"
        "pruned bottom-up on the 7 validation melons.\n")
    out(f"unpruned: {full.get_n_leaves()} leaves, validation accuracy "
        f"{full.score(X_va[cols], y_va):.1%}")
    out(f"pruned:   {post.get_n_leaves()} leaves, validation accuracy "
        f"{post.score(X_va[cols], y_va):.1%}\n")
    report = post.pruning_report()
    out(format_table(report[["feature", "leaves_removed", "error_before", "error_after",
                              "reason"]], decimals=0))
    out("")
    out(export_text(post))
    return 0


def _write_data(folder, con):
    """Copy the bundled data sets as CSV files (UTF-8, 编号 kept) into ``folder``."""
    from importlib import resources
    try:
        os.makedirs(folder, exist_ok=True)
        for entry in sorted(resources.files("quercus.datasets").joinpath("data").iterdir(),
                            key=lambda e: e.name):
            if not entry.name.endswith(".csv"):
                continue
            target = os.path.join(folder, entry.name)
            with open(target, "wb") as fh:
                fh.write(entry.read_bytes())
            con.out(target)
    except OSError as exc:
        raise UsageError(f"{folder}: cannot write the data sets ({exc.strerror})") from None
    return 0
