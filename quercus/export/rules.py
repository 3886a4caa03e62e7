"""One if-then rule per leaf, in the spirit of R's ``rpart.rules``."""

import pandas as pd

from .code import _read_tree
from .text import display_width

__all__ = ["export_rules"]


def _num(x, decimals):
    s = f"{x:.{decimals}f}".rstrip("0").rstrip(".") if decimals else f"{x:.0f}"
    return "0" if s == "-0" else s


def _weight(w):
    if w == 0 or (abs(w) >= 1 and abs(w - round(w)) < 1e-9 * abs(w)):
        return str(int(round(w)))
    return f"{w:.3g}"


def _set(values):
    return "{" + ", ".join(str(v) for v in values) + "}"


def _surrogate_test(name, numeric, test, flip, to_left, decimals):
    left = to_left != flip
    if numeric:
        return f"{name} {'<=' if left else '>'} {_num(test, decimals)}"
    return f"{name} {'=' if left else '!='} {test}"


def _missing_note(r, i, decimals):
    """How a row missing ``r``'s attribute reaches child ``i``: None (never, or the
    fractional rule, said once for the whole tree), "" (always), or the surrogates."""
    if r.mode == "fractional":
        return None
    if r.mode == "learned" or not r.surrogates or i > 1:
        return "" if r.missing_child == i else None
    tests = [_surrogate_test(n, num, t, f, i == 0, decimals) for n, num, t, f in r.surrogates]
    note = "first known of " + ", ".join(tests)
    return note + ("; or all missing" if r.missing_child == i else "")


class _Condition:
    """The tests on one attribute along a path, merged: a numeric interval, or the
    categories allowed and excluded."""

    def __init__(self, feature):
        self.feature = feature
        self.lo = self.hi = None          # lo < x <= hi
        self.allowed = None               # a set, or None: any
        self.excluded = []
        self.other = None                 # "is known" / "is missing"
        self.notes = []                   # missing-value notes, one per merged test

    def add(self, r, i, decimals):
        if r.kind == "numeric":
            if r.threshold == float("inf"):
                self.other = "is known" if i == 0 else "is missing"
            elif i == 0:
                self.hi = r.threshold if self.hi is None else min(self.hi, r.threshold)
            else:
                self.lo = r.threshold if self.lo is None else max(self.lo, r.threshold)
        elif r.kind == "categorical_binary":
            if i == 0:
                self._allow([r.category])
            elif r.category not in self.excluded:
                self.excluded.append(r.category)
        else:
            self._allow([c for c, b in r.branch_of.items() if b == i])
        self.notes.append(_missing_note(r, i, decimals))

    def _allow(self, cats):
        self.allowed = cats if self.allowed is None else [c for c in self.allowed if c in cats]

    def text(self, decimals):
        f = self.feature
        if self.other is not None:
            s = f"{f} {self.other}"
        elif self.lo is not None or self.hi is not None:
            lo = None if self.lo is None else _num(self.lo, decimals)
            hi = None if self.hi is None else _num(self.hi, decimals)
            s = (f"{lo} < {f} <= {hi}" if lo is not None and hi is not None
                 else f"{f} <= {hi}" if hi is not None else f"{f} > {lo}")
        elif self.allowed is not None:
            cats = [c for c in self.allowed if c not in self.excluded]
            s = f"{f} = {cats[0]}" if len(cats) == 1 else f"{f} in {_set(cats)}"
        else:
            s = (f"{f} != {self.excluded[0]}" if len(self.excluded) == 1
                 else f"{f} not in {_set(self.excluded)}")
        if any(n is None for n in self.notes):
            return s  # a missing value never takes this path (or C4.5's rule applies)
        extra = [n for n in self.notes if n]
        if not extra:
            return f"({s} or missing)"
        return f"{s} (or missing and {' and '.join(extra)})"


def _rules(est, decimals):
    views, routes, _, spreads = _read_tree(est)
    reg = bool(getattr(est, "_is_regressor", False))
    rows = []
    stack = [(0, [])]
    while stack:
        node, path = stack.pop()
        if node in routes:
            r = routes[node]
            stack.extend((c, path + [(r, i)]) for i, c in reversed(list(enumerate(r.children))))
            continue
        conds = {}
        for r, i in path:
            conds.setdefault(r.feature, _Condition(r.feature)).add(r, i, decimals)
        v = views[node]
        row = {"node": node, "conditions": [c.text(decimals) for c in conds.values()]}
        if reg:
            row.update(value=v.predicted, cover=v.weighted_n_samples, n_samples=v.n_samples,
                       impurity=v.impurity)
        else:
            total = sum(v.distribution.values())
            conf = v.distribution[v.predicted] / total if total > 0 else 0.0
            row.update({"class": v.predicted, "cover": v.weighted_n_samples,
                        "n_samples": v.n_samples,
                        "errors": v.weighted_n_samples * (1.0 - conf), "confidence": conf})
            if v.model_name is not None:
                row.update(model_name=v.model_name, model=v.model)
        rows.append(row)
    notes = []
    if spreads:
        notes.append("Missing values (C4.5's fractional rule): a sample missing a tested "
                     "attribute follows every branch, weighted by the branches' training "
                     "shares, and gets the weighted mix of the rules it reaches.")
    if any(v.model is not None for v in views.values()):
        notes.append("LogisticModelTree: each rule's leaf predicts with its logistic model "
                     "(listed above; P(class) is the softmax of the classes' F, or the "
                     "logistic of the logit with two classes); class, errors and confidence "
                     "are of the leaf's training classes. A missing value, or a category "
                     "not seen at fit time, is first imputed (training mean or most "
                     "frequent category): 'or missing' marks the branch it then takes.")
    elif any(r.kind in ("multiway", "categorical_subset") for r in routes.values()):
        notes.append("A category not seen at fit time stops at its multiway or subset test "
                     "and gets that node's prediction (no rule here).")
    return rows, notes


def export_rules(estimator, *, as_frame=False, decimals=3):
    """One if-then rule per leaf, with its cover, errors and confidence (``rpart.rules``).

    A rule is the conjunction of the tests on the way to the leaf, one per attribute: the
    tests on a numeric attribute are merged into an interval (``0.3 < 密度 <= 0.6``) and
    those on a categorical one into the categories left (``纹理 not in {清晰, 模糊}``).
    Where a missing value of the attribute follows the branch, the test says so: ``or
    missing`` (the learned direction, or the fallback branch), or the surrogates that
    send it there (``or missing and first known of 脐部 = 凹陷, 色泽 != 浅白``). For C4.5's
    fractional rule, a note under the rules says how a missing value is spread.

    For a :class:`quercus.LogisticModelTree` a rule ends with its leaf's model, ``THEN
    LM_3`` (``cover``, ``errors`` and ``confidence`` are of the leaf's training classes),
    and the models follow the rules (the frame has ``model_name`` and ``model`` columns);
    ``or missing`` marks the branch an imputed value takes.

    Parameters
    ----------
    estimator : fitted quercus classifier or regressor
    as_frame : bool, default=False
        Return a DataFrame (one row per leaf: ``node``, ``rule``, ``class`` or ``value``,
        ``cover``, ``n_samples``, then ``errors`` and ``confidence`` for a classifier or
        ``impurity`` for a regressor, and ``conditions``, the rule's tests as a list) instead
        of text.
    decimals : int, default=3
        Digits of thresholds in the text.

    Returns
    -------
    str or pandas.DataFrame
        The text: one aligned line per rule (East Asian wide characters count as two
        columns), headed by the column names; ``cover`` is the leaf's weighted number of
        training samples, ``errors`` the weight of its other classes, ``confidence`` the
        share of its class.

    Examples
    --------
    >>> from quercus import ID3Classifier, export_rules
    >>> from quercus.datasets import load_watermelon
    >>> clf = ID3Classifier().fit(*load_watermelon("2.0"))
    >>> print(export_rules(clf).splitlines()[1])
    IF 纹理 = 清晰 AND 根蒂 = 蜷缩                                 THEN 是      5       0       1.000
    >>> frame = export_rules(clf, as_frame=True)
    >>> frame.loc[0, "rule"], frame.loc[0, "class"], float(frame.loc[0, "cover"])
    ('纹理 = 清晰 AND 根蒂 = 蜷缩', '是', 5.0)
    """
    from ..inspect import _is_lmt
    lmt = _is_lmt(estimator)
    if not lmt and (not hasattr(estimator, "_is_regressor")
                    or not hasattr(estimator, "_node_outputs")):
        raise TypeError(f"export_rules needs a quercus tree estimator; got "
                        f"{type(estimator).__name__}.")
    if not isinstance(as_frame, bool):
        raise ValueError(f"The 'as_frame' parameter of export_rules must be True or False; "
                         f"got {as_frame!r}.")
    if isinstance(decimals, bool) or not isinstance(decimals, int) or decimals < 0:
        raise ValueError(f"The 'decimals' parameter of export_rules must be an int >= 0; "
                         f"got {decimals!r}.")
    rows, notes = _rules(estimator, decimals)
    reg = bool(getattr(estimator, "_is_regressor", False))
    for row in rows:
        row["rule"] = " AND ".join(row["conditions"]) or "TRUE"
    if as_frame:
        cols = ["node", "rule", "value" if reg else "class", "cover", "n_samples"]
        cols += ["impurity"] if reg else ["errors", "confidence"]
        cols += ["model_name", "model"] if lmt else []
        frame = pd.DataFrame(rows, columns=cols + ["conditions"])
        frame.attrs["notes"] = notes
        return frame
    ifs = [f"IF {row['rule']}" for row in rows]
    thens = [f"THEN {row['value']:.4g}" if reg else
             f"THEN {row['model_name']}" if lmt else f"THEN {row['class']}" for row in rows]
    if reg:
        heads = ["cover", "impurity"]
        nums = [[_weight(r["cover"]), f"{r['impurity']:.4g}"] for r in rows]
    else:
        heads = ["cover", "errors", "confidence"]
        nums = [[_weight(r["cover"]), _weight(r["errors"]), f"{r['confidence']:.3f}"]
                for r in rows]
    w_if = max(display_width(s) for s in ifs)
    w_then = max(display_width(s) for s in thens)
    widths = [max(len(h), *(len(n[k]) for n in nums)) for k, h in enumerate(heads)]
    pad = " " * (w_if + 1 + w_then)
    lines = [pad + "".join("  " + h.rjust(w) for h, w in zip(heads, widths))]
    for a, b, n in zip(ifs, thens, nums):
        lines.append(a + " " * (w_if - display_width(a) + 1) + b
                     + " " * (w_then - display_width(b))
                     + "".join("  " + x.rjust(w) for x, w in zip(n, widths)))
    out = "\n".join(line.rstrip() for line in lines)
    if lmt:
        out += "".join("\n\n" + row["model"]
                       for row in sorted(rows, key=lambda r: int(r["model_name"][3:])))
    if notes:
        out += "\n\n" + "\n".join(notes)
    return out
