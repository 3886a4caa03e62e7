"""A fitted tree as standalone code: a Python function, or a SQL ``CASE WHEN`` expression.

The generated code routes a row exactly as ``predict`` does: missing values by the tree's
own rule (C4.5's weighted spreading, rpart's surrogates then the fallback branch, or the
learned direction), and a category unseen at fit time to the ``!=`` side of an ``a == v``
split, or to a stop at the multiway or subset node (whose distribution it then predicts).
"""

import keyword
import math
import sys
from dataclasses import dataclass

import numpy as np

from ..inspect import (_check_fitted, _is_lmt, categorical_mask, feature_names, imputed_values,
                       iter_nodes, model_columns)

__all__ = ["export_code"]

# Python's tokenizer allows 100 levels of indentation; a deep tree is cut into helper
# functions well before that.
_MAX_NESTING = 30
# The tie rule of ``predict`` (see DecisionTreeClassifier._majority).
_TIE = 1e-12


# --------------------------------------------------------------------- the tree, read once
@dataclass
class _Route:
    """How one internal node sends a row to its children, in plain values."""

    node: int
    feature: str
    kind: str                 # "numeric", "categorical_binary", "multiway", "categorical_subset"
    children: list
    threshold: float | None   # numeric
    category: object          # categorical_binary: the v of a == v
    branch_of: dict | None    # multiway / subset: category -> child offset
    mode: str                 # "fractional", "surrogate" or "learned"
    missing_child: int        # child offset a missing value joins; -1: it stops here
    surrogates: list          # (feature, is_numeric, threshold or category, flip)
    shares: list              # fractional: (child offset, weight, total) of non-empty children

    @property
    def can_stop(self):
        """Whether a row can end at this node (an unseen category, or no missing branch)."""
        return (self.kind in ("multiway", "categorical_subset")
                or (self.mode != "fractional" and self.missing_child < 0))


def _plain(v):
    return v.item() if isinstance(v, np.generic) else v


def _read_tree(est):
    """Every node's view and routing, read through :mod:`quercus.inspect`, and the node
    outputs ``predict`` uses."""
    walk = iter_nodes(est)  # checks that est is fitted
    # A LogisticModelTree's leaves predict with their models: no node outputs.
    outputs = est._node_outputs() if hasattr(est, "_node_outputs") else None
    views, routes = {}, {}
    for v in walk:
        views[v.node] = v
        if not v.children:
            continue
        # C4.5's shares, computed as the routing kernel does (a running sum, then
        # weight * share / total) so that the generated Python adds the same numbers.
        total = 0.0
        for x in v.child_weights:
            total += x
        shares = [(i, x, total) for i, x in enumerate(v.child_weights) if x > 0.0]
        surrogates = [(s.feature, s.kind == "numeric",
                       s.threshold if s.kind == "numeric" else s.category, s.flip)
                      for s in v.surrogates]
        routes[v.node] = _Route(
            node=v.node, feature=v.feature, kind=v.kind, children=v.children,
            threshold=v.threshold, category=v.category,
            branch_of=v.category_branch if v.kind in ("multiway", "categorical_subset")
            else None,
            mode=v.missing_mode,
            missing_child=-1 if v.missing_child is None else v.missing_child,
            surrogates=surrogates, shares=shares)
    spreads = any(r.mode == "fractional" for r in routes.values())
    return views, routes, outputs, spreads


# --------------------------------------------------------------------- Python
def _py_literal(v):
    """A Python literal of a label, category or number (repr, which escapes quotes,
    backslashes and unprintable characters)."""
    v = _plain(v)
    if isinstance(v, float) and not math.isfinite(v):
        return f'float("{v}")'
    if v is None or isinstance(v, (str, bool, int, float)):
        return repr(v)
    raise ValueError(f"export_code cannot write the value {v!r} of type {type(v).__name__} "
                     "as a Python literal.")


def _comment(text):
    """Text safe on one comment line: unprintable characters (a newline in a feature name)
    escaped."""
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii")
                   for ch in str(text))


def _py_output(values):
    return "(" + ", ".join(repr(float(x)) for x in values) + ("," if len(values) == 1 else "") + ")"


class _PyWriter:
    """Writes the body of ``predict_proba`` (or of the regressor's ``predict``)."""

    def __init__(self, est, views, routes, outputs, spreads):
        self.est, self.views, self.routes = est, views, routes
        self.outputs, self.spreads = outputs, spreads
        self.regressor = est._is_regressor
        self.functions = []  # (name, lines) of helpers, in order of creation
        self.pending = []

    # Output of a node where a row ends.
    def _end(self, node, weight="w"):
        v = self.views[node]
        label = (f"{v.predicted:.6g}" if self.regressor else _comment(v.predicted))
        out = self.outputs[node]
        if self.spreads:
            return [f"_add(acc, {weight}, {_py_output(out)})  # node {node}: {label}"]
        if self.regressor:
            return [f"return {float(out[0])!r}  # node {node}"]
        return [f"return [{_py_output(out)[1:-1].rstrip(',')}]  # node {node}: {label}"]

    def _branch_lines(self, r):
        """Lines setting ``b``, the child offset of the row (-1: stop here; -2: spread)."""
        fx = f"row[{_py_literal(r.feature)}]"
        lines = [f"v = {fx}", "if _missing(v):"]
        if r.mode == "fractional":
            lines.append("    b = -2  # C4.5: every branch, weighted")
        else:
            first = True
            for name, numeric, test, flip in r.surrogates:
                kw = "if" if first else "elif"
                lines.append(f"    {kw} not _missing(row[{_py_literal(name)}]):")
                lines.append("        " + _py_test("b", f"row[{_py_literal(name)}]", numeric,
                                                      test, flip) + "  # surrogate")
                first = False
            pad = "    " if first else "        "
            if not first:
                lines.append("    else:")
            why = "learned direction" if r.mode == "learned" else "fallback branch"
            if r.missing_child < 0:
                lines.append(f"{pad}b = -1  # no branch: it stops here")
            else:
                lines.append(f"{pad}b = {r.missing_child}  # {why}")
        if r.kind == "numeric":
            if math.isfinite(r.threshold):
                lines += ["else:", "    " + _py_test("b", "v", True, r.threshold, False)]
            else:  # scikit-learn's "known values left, missing right"
                lines += ["else:", "    b = 0"]
        elif r.kind == "categorical_binary":
            lines += ["else:", "    " + _py_test("b", "v", False, r.category, False)]
        else:
            table = "{" + ", ".join(f"{_py_literal(c)}: {i}" for c, i in r.branch_of.items()) + "}"
            lines += ["else:", f"    b = {table}.get(v, -1)  # -1: unseen, it stops here"]
        return lines

    def node(self, node, level):
        """Lines (unindented) that end a row reaching ``node`` (``return`` included)."""
        if node not in self.routes:
            return self._end(node) + (["return"] if self.spreads else [])
        if self.spreads:
            # Every internal node is a function: C4.5 calls it with a share of the weight.
            self.pending.append(node)
            return [f"_n{node}(row, w, acc)", "return"]
        if level >= _MAX_NESTING:  # cut before Python's nesting limit
            self.pending.append(node)
            return [f"return _n{node}(row)"]
        return self._body(node, level)

    def _body(self, node, level):
        r = self.routes[node]
        v = self.views[node]
        lines = self._branch_lines(r)
        if r.mode == "fractional":
            lines.append(f"if b == -2:  # {_comment(v.feature)} is missing")
            # Last branch first: the order in which quercus adds up a spread row's parts.
            for i, weight, total in reversed(r.shares):
                c = r.children[i]
                wexpr = f"w * {weight!r} / {total!r}"
                if c in self.routes:
                    self.pending.append(c)
                    lines.append(f"    _n{c}(row, {wexpr}, acc)")
                else:
                    lines += ["    " + s for s in self._end(c, wexpr)]
            lines.append("    return")
        last = len(r.children) - 1
        for i, c in enumerate(r.children):
            what = f"# {_comment(v.feature)} {_comment(v.conditions[i])}"
            if i == last and not r.can_stop:
                lines.append(f"else:  {what}")
            else:
                lines.append(f"{'if' if i == 0 else 'elif'} b == {i}:  {what}")
            lines += ["    " + s for s in self.node(c, level + 1)]
        if r.can_stop:
            lines.append("# It stops here (an unseen category, or no branch for a missing value):")
            lines += self._end(node)
        return lines

    def write(self):
        """(body of the main function, helper functions as lists of lines)."""
        if self.spreads:
            main = ["acc = [0.0] * " + str(self.outputs.shape[1])]
            main += (self._end(0, "1.0") if 0 not in self.routes
                     else [f"_n0(row, 1.0, acc)"])
            if 0 in self.routes:
                self.pending.append(0)
            main.append("return acc[0]" if self.regressor else "return acc")
        else:
            main = self.node(0, 0)
        done = set()
        while self.pending:
            n = self.pending.pop(0)
            if n in done:
                continue
            done.add(n)
            head = f"def _n{n}(row, w, acc):" if self.spreads else f"def _n{n}(row):"
            self.functions.append([head] + ["    " + s for s in self._body(n, 0)])
        return main, self.functions


def _py_test(var, expr, numeric, test, flip):
    """``var = 0 or 1``: the branch of a known value at a numeric (<= threshold) or
    ``a == v`` test, swapped with ``flip`` (a surrogate that goes the other way)."""
    a, b = (1, 0) if flip else (0, 1)
    if numeric:
        return f"{var} = {a} if float({expr}) <= {test!r} else {b}"
    return f"{var} = {a} if {expr} == {_py_literal(test)} else {b}"


_PY_MISSING = '''def _missing(v):
    """None, NaN, pandas.NA or NaT: a missing value."""
    if v is None:
        return True
    try:
        return bool(v != v)
    except (TypeError, ValueError):  # pandas.NA refuses to be a bool
        return True
'''

_PY_ADD = '''def _add(acc, w, out):
    for k, x in enumerate(out):
        acc[k] += w * x
'''


def _python(est, function_name):
    views, routes, outputs, spreads = _read_tree(est)
    with _deep(views):
        main, helpers = _PyWriter(est, views, routes, outputs, spreads).write()
    reg = est._is_regressor
    name = type(est).__name__
    gives = (f"{function_name}(row) gives its predict" if reg else
             f"{function_name}(row) and {function_name}_proba(row) give its predict and "
             "predict_proba")
    out = [f"# Generated by quercus from a fitted {name}:",
           f"# {gives} results, with the standard library only.",
           "# row: a mapping of feature name -> value (a dict, or a pandas DataFrame row);",
           "# None, NaN or pandas.NA is a missing value.", ""]
    if not reg:
        classes = [_plain(c) for c in est.classes_]
        perm = np.argsort(est._class_priority, kind="stable").tolist()
        out += ["CLASSES = [" + ", ".join(_py_literal(c) for c in classes) + "]",
                "# Tie order: a tie goes to the class seen first in the training labels.",
                f"_TIE_ORDER = {tuple(perm)!r}", ""]
    out += ["", _PY_MISSING]
    if spreads:
        out += ["", _PY_ADD]
    for lines in sorted(helpers, key=lambda f: int(f[0][len("def _n"):].split("(")[0])):
        out += ["", "\n".join(lines), ""]
    proba_name = f"{function_name}_proba" if not reg else function_name
    doc = ("Probability of each class of CLASSES for ``row``." if not reg
           else "Predicted value for ``row``.")
    out += ["", f"def {proba_name}(row):", f'    """{doc}"""'] + ["    " + s for s in main]
    if not reg:
        out += ["", "", f"def {function_name}(row):",
                '    """Predicted class for ``row`` (ties to the class seen first)."""',
                f"    p = {proba_name}(row)",
                "    top = max(p)",
                f"    tol = {_TIE!r} * max(top, 1.0)",
                "    for k in _TIE_ORDER:",
                "        if p[k] >= top - tol:",
                "            return CLASSES[k]"]
    return "\n".join(out).replace("\n\n\n\n", "\n\n\n") + "\n"


# --------------------------------------------------------------------- SQL
def _sql_ident(name):
    s = str(name)
    if "\x00" in s:
        raise ValueError(f"export_code(language='sql') cannot quote the feature name {s!r}: "
                         "it holds a NUL character.")
    return '"' + s.replace('"', '""') + '"'


def _sql_literal(v):
    v = _plain(v)
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, (int, float)):
        if isinstance(v, float) and not math.isfinite(v):
            raise NotImplementedError(f"export_code(language='sql'): the value {v!r} has no "
                                      "portable SQL literal.")
        return repr(v)
    if isinstance(v, str):
        if "\x00" in v:
            raise ValueError(f"export_code(language='sql') cannot write {v!r}: it holds a "
                             "NUL character.")
        return "'" + v.replace("'", "''") + "'"
    raise ValueError(f"export_code cannot write the value {v!r} of type {type(v).__name__} "
                     "as a SQL literal.")


def _sql_test(col, numeric, test, flip):
    """Condition for the left branch of a known value (the right one with ``flip``)."""
    if numeric:
        return f"{col} {'>' if flip else '<='} {_sql_literal(float(test))}"
    return f"{col} {'<>' if flip else '='} {_sql_literal(test)}"


class _SqlWriter:
    """SQL conditions of a tree's branches, and its endpoints: the leaves, and the internal
    nodes where a row can stop. A nested ``CASE`` a level per tree level overflows
    SQLite's parser from about twenty levels, so the expressions are flat: one ``WHEN``
    (or one product of branch weights) per endpoint."""

    def __init__(self, routes):
        self.routes = routes

    def _missing_to(self, r, i):
        """Condition, given the node's attribute is NULL, that sends the row to child
        ``i``: None for never, "TRUE" for always. The first known surrogate decides; with
        none known, the fallback branch. (A test on a NULL column is NULL, which WHEN, AND
        and OR treat as false here: these conditions are never negated.)"""
        tail = "TRUE" if r.missing_child == i else None
        if i > 1:  # surrogates send a row to the first or the second child only
            return tail
        for name, numeric, test, flip in reversed(r.surrogates):
            col = _sql_ident(name)
            go = _sql_test(col, numeric, test, flip if i == 0 else not flip)
            if tail is None:
                tail = go
            elif tail == "TRUE":
                tail = f"({go} OR {col} IS NULL)"
            else:
                tail = f"({go} OR ({col} IS NULL AND {tail}))"
        return tail

    def known_to(self, r, i):
        """Condition that a known value goes to child ``i`` (None: never)."""
        col = _sql_ident(r.feature)
        if r.kind == "numeric":
            if not math.isfinite(r.threshold):  # "known values left, missing right"
                return f"{col} IS NOT NULL" if i == 0 else None
            return _sql_test(col, True, r.threshold, i == 1)
        if r.kind == "categorical_binary":
            return _sql_test(col, False, r.category, i == 1)
        cats = [c for c, b in r.branch_of.items() if b == i]
        if not cats:
            return None
        if len(cats) == 1:
            return f"{col} = {_sql_literal(cats[0])}"
        return f"{col} IN (" + ", ".join(_sql_literal(c) for c in cats) + ")"

    def condition(self, r, i):
        """Condition that a row at ``r`` goes to child ``i``, missing values included."""
        known = self.known_to(r, i)
        miss = None if r.mode == "fractional" else self._missing_to(r, i)
        col = _sql_ident(r.feature)
        if miss is None:
            return known or "FALSE"
        m = f"{col} IS NULL" if miss == "TRUE" else f"({col} IS NULL AND {miss})"
        return m if known is None else f"({known} OR {m})"

    def weight(self, r, i):
        """The row's weight in child ``i`` (None: the stop at ``r``): 1 or 0, and C4.5's
        share of a row missing the attribute."""
        col = _sql_ident(r.feature)
        n = len(r.children)
        if r.mode == "fractional":
            if i is None:
                known = " OR ".join(k for k in (self.known_to(r, j) for j in range(n)) if k)
                return f"CASE WHEN {col} IS NULL OR {known or 'FALSE'} THEN 0.0 ELSE 1.0 END"
            share = {j: w / t for j, w, t in r.shares}.get(i, 0.0)
            return (f"CASE WHEN {col} IS NULL THEN {share!r} "
                    f"WHEN {self.known_to(r, i) or 'FALSE'} THEN 1.0 ELSE 0.0 END")
        if i is None:
            anyc = " OR ".join(self.condition(r, j) for j in range(n))
            return f"CASE WHEN {anyc} THEN 0.0 ELSE 1.0 END"
        return f"CASE WHEN {self.condition(r, i)} THEN 1.0 ELSE 0.0 END"

    def endpoints(self):
        """(node, path) of every leaf and every node where a row can stop, in tree order,
        each stop after the endpoints below it. ``path``: the (route, child offset) pairs
        from the root."""
        out = []
        stack = [(0, (), False)]
        while stack:
            node, path, stop = stack.pop()
            r = self.routes.get(node)
            if r is None or stop:
                out.append((node, path))
                continue
            if r.can_stop:
                stack.append((node, path, True))
            stack.extend((c, path + ((r, i),), False)
                         for i, c in reversed(list(enumerate(r.children))))
        return out

    def case(self, literal):
        """One flat CASE: a WHEN per endpoint, the conditions of its path but those that the
        earlier WHENs imply (the last branch of a node where no row stops)."""
        parts = ["CASE"]
        ends = self.endpoints()
        for j, (node, path) in enumerate(ends):
            conds = [self.condition(r, i) for r, i in path
                     if r.can_stop or i < len(r.children) - 1]
            if j == len(ends) - 1:
                parts.append(f"  ELSE {literal(node)}")
            else:
                parts.append(f"  WHEN {' AND '.join(conds) or 'TRUE'} THEN {literal(node)}")
        parts.append("END")
        return "\n".join(parts) if len(ends) > 1 else literal(ends[0][0])

    def weighted_sum(self, value):
        """Sum over the endpoints of (product of the row's weights along the path) times
        the endpoint's ``value`` (endpoints whose value is 0 left out): C4.5's spread rows
        add up every branch they reach. Summed pairwise, so that a big tree's expression
        stays shallow."""
        terms = []
        for node, path in self.endpoints():
            v = value(node)
            if v == 0.0:
                continue
            factors = [f"({self.weight(r, i)})" for r, i in path]
            r = self.routes.get(node)
            if r is not None:
                factors.append(f"({self.weight(r, None)})")
            terms.append(" * ".join(factors + ([] if v == 1.0 and factors else [repr(v)])))
        if not terms:
            return "0.0"
        while len(terms) > 1:
            terms = [f"({a}\n + {b})" for a, b in zip(terms[::2], terms[1::2])] + (
                [terms[-1]] if len(terms) % 2 else [])
        return terms[0]


def _sql(est, method):
    views, routes, outputs, spreads = _read_tree(est)
    w = _SqlWriter(routes)
    reg = est._is_regressor
    if reg and not spreads:
        return w.case(lambda n: repr(float(outputs[n, 0])))
    if reg:
        return w.weighted_sum(lambda n: float(outputs[n, 0]))
    if not spreads:
        if method == "predict_proba":
            columns = [w.case(lambda n, k=k: repr(float(outputs[n, k])))
                       for k in range(outputs.shape[1])]
        else:
            return w.case(lambda n: _sql_literal(views[n].predicted))
    else:
        columns = [w.weighted_sum(lambda n, k=k: float(outputs[n, k]))
                   for k in range(outputs.shape[1])]
    if method == "predict_proba":
        return ",\n".join(f"{c}\nAS {_sql_ident(f'proba_{_plain(cls)}')}"
                          for c, cls in zip(columns, est.classes_))
    # The class of a spread row: the first class, in tie order, within the tie tolerance
    # of every other (predict's rule), from the probability expressions.
    perm = np.argsort(est._class_priority, kind="stable").tolist()
    parts = ["CASE"]
    for j, k in enumerate(perm[:-1]):
        conds = " AND ".join(f"({columns[k]}) >= ({columns[m]}) - {_TIE!r}"
                             for m in perm[:j] + perm[j + 1:])
        parts.append(f"  WHEN {conds} THEN {_sql_literal(est.classes_[k])}")
    parts.append(f"  ELSE {_sql_literal(est.classes_[perm[-1]])}")
    parts.append("END")
    return "\n".join(parts)


# --------------------------------------------------------------------- LogisticModelTree
class _LMTWriter:
    """Python for a LogisticModelTree: impute the row as LMT does, walk the tree to a
    leaf, and return the leaf model's class scores ``F`` (a row's probabilities are their
    softmax)."""

    def __init__(self, est, views):
        self.views = views
        self.columns = model_columns(est)
        self.col_index = {name: i for i, (name, _, _) in enumerate(self.columns)}
        self.binary = bool(est.binary_splits)
        self.pending, self.functions = [], []

    def node(self, node, level):
        v = self.views[node]
        if not v.children:
            return [f"return _F({v.model_name[3:]}, x)  # {_comment(v.model_name)}"]
        if level >= _MAX_NESTING:  # cut before Python's nesting limit
            self.pending.append(node)
            return [f"return _n{node}(v, x)"]
        return self._body(node, level)

    def _body(self, node, level):
        v = self.views[node]
        if v.kind == "numeric":
            value = (f"x[{self.col_index[v.feature]}]" if self.binary
                     else f"v[{_py_literal(v.feature)}]")
            lines = [f"if {value} <= {v.threshold!r}:  # {_comment(v.feature)} "
                     f"{_comment(v.conditions[0])}"]
            lines += ["    " + s for s in self.node(v.children[0], level + 1)]
            lines.append(f"else:  # {_comment(v.feature)} {_comment(v.conditions[1])}")
            lines += ["    " + s for s in self.node(v.children[1], level + 1)]
            return lines
        lines = [f"b = v[{_py_literal(v.feature)}]"]
        last = len(v.children) - 1
        for i, (c, cat) in enumerate(zip(v.children, v.branch_categories)):
            head = ("else:" if i == last
                    else f"{'if' if i == 0 else 'elif'} b == {_py_literal(cat[0])}:")
            lines.append(f"{head}  # {_comment(v.feature)} {_comment(v.conditions[i])}")
            lines += ["    " + s for s in self.node(c, level + 1)]
        return lines

    def write(self):
        main = self.node(0, 0)
        done = set()
        while self.pending:
            n = self.pending.pop(0)
            if n not in done:
                done.add(n)
                self.functions.append([f"def _n{n}(v, x):"]
                                      + ["    " + s for s in self._body(n, 0)])
        return main, self.functions


def _lmt_python(est, function_name):
    views = {v.node: v for v in iter_nodes(est)}
    classes = [_plain(c) for c in est.classes_]
    impute = imputed_values(est)
    cats = categorical_mask(est)
    names = feature_names(est)
    columns = model_columns(est)
    w = _LMTWriter(est, views)
    main, helpers = w.write()
    out = ["# Generated by quercus from a fitted LogisticModelTree:",
           f"# {function_name}(row) and {function_name}_proba(row) give its predict and "
           "predict_proba results, with the standard library only.",
           "# row: a mapping of feature name -> value (a dict, or a pandas DataFrame row);",
           "# None, NaN or pandas.NA is a missing value. As LMT does, a missing value (and "
           "a category",
           "# not seen at fit time) is replaced by the training mean or the most frequent "
           "category;",
           "# the leaf's logistic model then gives P(class j) = exp(F_j) / sum_k exp(F_k).",
           "", "import math", "",
           "CLASSES = [" + ", ".join(_py_literal(c) for c in classes) + "]",
           "# What replaces a missing value, per feature.",
           "_IMPUTE = {" + ", ".join(f"{_py_literal(n)}: {_py_literal(impute[_plain(n)])}"
                                      for n in names) + "}",
           "# The categories seen at fit time, per categorical feature.",
           "_CATEGORIES = {" + ", ".join(
               f"{_py_literal(n)}: frozenset(["
               + ", ".join(_py_literal(_plain(c)) for c in est._schema.categories[j]) + "])"
               for j, n in enumerate(names) if cats[j]) + "}",
           "# Each leaf model's coefficients, per class: the intercept, then one per column "
           "of _columns.",
           "_MODELS = {"]
    for v in sorted((v for v in views.values() if v.model is not None),
                    key=lambda v: int(v.model_name[3:])):
        out.append(f"    {v.model_name[3:]}: (  # {_comment(v.model_name)}")
        for c in classes:
            out.append("        (" + ", ".join(repr(float(x)) for x in v.model_coef[c])
                       + ("," if len(v.model_coef[c]) == 1 else "") + "),")
        out.append("    ),")
    out += ["}", "", "", _PY_MISSING, "",
            "def _inputs(row):",
            '    """The row\'s features, missing values and unseen categories imputed."""',
            "    v = {}",
            "    for name, fill in _IMPUTE.items():",
            "        x = row[name]",
            "        if name in _CATEGORIES:",
            "            v[name] = fill if _missing(x) or x not in _CATEGORIES[name] else x",
            "        else:",
            "            v[name] = fill if _missing(x) else float(x)",
            "    return v", "", "",
            "def _columns(v):",
            '    """The logistic models\' columns: numeric features, 0/1 category '
            'indicators."""',
            "    return ["]
    for name, feat, level in columns:
        expr = (f"v[{_py_literal(feat)}]" if level is None
                else f"1.0 if v[{_py_literal(feat)}] == {_py_literal(level)} else 0.0")
        out.append(f"        {expr},  # {_comment(name)}")
    out += ["    ]", "", "",
            "def _F(leaf, x):",
            '    """The class scores F_j of a leaf\'s model."""',
            "    out = []",
            "    for c in _MODELS[leaf]:",
            "        f = c[0]",
            "        for k, xk in enumerate(x):",
            "            f += c[k + 1] * xk",
            "        out.append(f)",
            "    return out", ""]
    for lines in sorted(helpers, key=lambda f: int(f[0][len("def _n"):].split("(")[0])):
        out += ["", "\n".join(lines), ""]
    out += ["", "def _scores(row):",
            '    """The class scores F of the leaf model the row reaches."""',
            "    v = _inputs(row)", "    x = _columns(v)"] + ["    " + s for s in main]
    out += ["", "", f"def {function_name}_proba(row):",
            '    """Probability of each class of CLASSES for ``row`` (softmax of F)."""',
            "    F = _scores(row)", "    top = max(F)",
            "    e = [math.exp(f - top) for f in F]", "    s = sum(e)",
            "    return [x / s for x in e]", "", "",
            f"def {function_name}(row):",
            '    """Predicted class for ``row``: the largest F, the first on a tie (within',
            '    rounding: the sums here may add in another order than numpy\'s)."""',
            "    F = _scores(row)", "    top = max(F)",
            f"    tol = {_TIE!r} * max(abs(top), 1.0)",
            "    return CLASSES[next(k for k, f in enumerate(F) if f >= top - tol)]"]
    return "\n".join(out).replace("\n\n\n\n", "\n\n\n") + "\n"


class _deep:
    """Room for the recursion of a deep tree's expression."""

    def __init__(self, views):
        self.need = 4 * max(v.depth for v in views.values()) + 200

    def __enter__(self):
        self.old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(self.old, self.need))

    def __exit__(self, *exc):
        sys.setrecursionlimit(self.old)


# --------------------------------------------------------------------- public
def export_code(estimator, language="python", *, function_name="predict", method="predict"):
    """A fitted tree as standalone code: a Python function or a SQL expression.

    The code gives exactly what the estimator's ``predict`` gives (and, in Python, its
    ``predict_proba``), missing values and categories unseen at fit time included, for
    every missing-value strategy: C4.5's fractional rule (the row is spread over the
    branches and the reached distributions are summed with the branches' training
    shares), rpart's surrogates (tried in order, then the fallback branch) and the learned
    direction.

    - ``language="python"``: source code that needs only the standard library. It defines
      ``predict(row)`` (named ``function_name``) and, for a classifier,
      ``predict_proba(row)`` (a list in the order of ``CLASSES``) and ``CLASSES``.
      ``row`` maps feature names to values: a dict or a pandas DataFrame row. ``None``,
      NaN and ``pandas.NA`` are missing values.
    - ``language="sql"``: a ``CASE WHEN`` expression over columns named as the features
      (quoted identifiers; NULL is a missing value), for
      ``SELECT <expression> AS prediction FROM t``. With ``method="predict_proba"`` (a
      classifier), one probability expression per class, each ``AS "proba_<class>"``, for
      a SELECT list. C4.5's fractional rule is written as sums of branch expressions
      weighted by their shares, so every branch is evaluated; its class is the first in
      tie order within 1e-12 of the highest probability, as ``predict`` decides.

    Parameters
    ----------
    estimator : fitted quercus classifier or regressor
    language : {"python", "sql"}, default="python"
    function_name : str, default="predict"
        Python: the name of the prediction function (``<name>_proba`` for the
        probabilities).
    method : {"predict", "predict_proba"}, default="predict"
        SQL: the class (or value) expression, or the class probability expressions.

    Returns
    -------
    str

    A :class:`quercus.LogisticModelTree` is written as Python only: the code imputes a
    missing value (and a category unseen at fit time) as LMT does (the training mean or
    most frequent category), walks the tree to a leaf and computes its logistic model,
    ``P(class j) = exp(F_j) / sum_k exp(F_k)``; ``predict`` is the class of the largest
    ``F_j``. SQL raises ``NotImplementedError``: the softmax needs ``exp()``, which
    SQLite does not have by default.

    Raises
    ------
    NotImplementedError
        SQL for a category or class label that is an infinite float (no portable literal),
        or for a LogisticModelTree.

    Examples
    --------
    >>> from quercus import ID3Classifier, export_code
    >>> from quercus.datasets import load_watermelon
    >>> X, y = load_watermelon("2.0")
    >>> clf = ID3Classifier().fit(X, y)
    >>> ns = {}
    >>> exec(export_code(clf), ns)
    >>> row = X.iloc[0].to_dict()
    >>> ns["predict"](row) == clf.predict(X.iloc[:1])[0]
    True
    >>> from quercus import CARTClassifier
    >>> print(export_code(CARTClassifier(max_depth=1).fit(X, y), "sql"))
    CASE
      WHEN ("纹理" = '清晰' OR "纹理" IS NULL) THEN '是'
      ELSE '否'
    END
    """
    lmt = _is_lmt(estimator)
    if not lmt and (not hasattr(estimator, "_is_regressor")
                    or not hasattr(estimator, "_node_outputs")):
        raise TypeError(f"export_code needs a quercus tree estimator; got "
                        f"{type(estimator).__name__}.")
    if language not in ("python", "sql"):
        raise ValueError(f"The 'language' parameter of export_code must be 'python' or "
                         f"'sql'; got {language!r}.")
    if method not in ("predict", "predict_proba"):
        raise ValueError(f"The 'method' parameter of export_code must be 'predict' or "
                         f"'predict_proba'; got {method!r}.")
    if method == "predict_proba" and getattr(estimator, "_is_regressor", False):
        raise ValueError("The 'method' parameter of export_code is 'predict_proba', but a "
                         "regressor has no class probabilities.")
    if lmt:
        _check_fitted(estimator)
    if language == "sql":
        if lmt:
            raise NotImplementedError(
                "export_code(language='sql') cannot write a LogisticModelTree: its leaves' "
                "probabilities need exp() (a softmax), which SQLite lacks by default; use "
                "language='python'.")
        return _sql(estimator, method)
    if not (isinstance(function_name, str) and function_name.isidentifier()
            and not keyword.iskeyword(function_name)
            and function_name not in ("CLASSES", "_missing", "_add", "_TIE_ORDER", "math",
                                      "_IMPUTE", "_CATEGORIES", "_MODELS", "_inputs",
                                      "_columns", "_F", "_scores")
            and not function_name.startswith("_n")):
        raise ValueError(f"The 'function_name' parameter of export_code must be a Python "
                         f"identifier, not a keyword; got {function_name!r}.")
    return _lmt_python(estimator, function_name) if lmt else _python(estimator,
                                                                      function_name)
