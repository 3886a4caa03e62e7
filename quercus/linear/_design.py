"""X -> the model matrix, as R's ``model.matrix`` makes it for a main-effects formula.

Numeric columns enter as they are. A categorical column (strings, booleans, a pandas
Categorical, or any column named in ``categorical_features``) is coded with R's treatment
contrasts: one 0/1 indicator per level but the first, which is the reference. The levels
are ordered as R's ``factor()`` orders them under ``LC_COLLATE=C``: strings by Unicode code
point (R's default sorts in the session's locale, which differs between machines), numbers
numerically, booleans FALSE then TRUE; a pandas Categorical keeps its own order (as an R
factor keeps its levels), without its unused categories (R's ``drop.unused.levels``).
Without an intercept the first categorical column gets an indicator for every level, as in
R. Coefficient names are R's: the column name followed by the level (``色泽浅白``,
``windyTRUE``).
"""

import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._prepare import Schema, as_2d, encode, fit_schema_and_encode

INTERCEPT = "(Intercept)"


@dataclass
class Design:
    """How the columns of X become the model matrix (see the module docstring)."""

    schema: Schema  # the columns; categories in R's level order
    fit_intercept: bool
    full_dummy: int  # the feature coded with every level (no intercept), else -1

    @property
    def terms(self):
        """One ``(name, feature, level)`` per model-matrix column; ``feature`` is -1 for
        the intercept, ``level`` -1 for a numeric column."""
        out = [(INTERCEPT, -1, -1)] if self.fit_intercept else []
        for j, name in enumerate(self.schema.feature_names):
            if not self.schema.is_categorical[j]:
                out.append((name, j, -1))
                continue
            cats = self.schema.categories[j]
            first = 0 if j == self.full_dummy else 1
            out.extend((name + level_label(cats[k]), j, k) for k in range(first, len(cats)))
        return out

    @property
    def column_names(self):
        return [t[0] for t in self.terms]

    def to_dict(self):
        return {"schema": self.schema.to_dict(), "fit_intercept": bool(self.fit_intercept),
                "full_dummy": int(self.full_dummy)}


def level_label(v):
    """A level as R writes it in a coefficient name: ``TRUE``/``FALSE`` for booleans,
    whole numbers without a decimal point, other numbers to 15 significant digits.

    Examples
    --------
    >>> level_label(True), level_label(6.0), level_label(0.5), level_label("浅白")
    ('TRUE', '6', '0.5', '浅白')
    """
    if isinstance(v, (bool, np.bool_)):
        return "TRUE" if v else "FALSE"
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, numbers.Real):
        f = float(v)
        return str(int(f)) if f.is_integer() and abs(f) < 1e15 else format(f, ".15g")
    return str(v)


def _r_order(cats):
    """The permutation that sorts categories as R's ``sort`` does under LC_COLLATE=C."""
    vals = list(cats)
    if all(isinstance(v, (bool, np.bool_)) for v in vals):
        key = [int(bool(v)) for v in vals]
    elif all(isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))
             for v in vals):
        key = [float(v) for v in vals]
    else:
        key = [str(v) for v in vals]
    return sorted(range(len(vals)), key=key.__getitem__)


def _first_missing(X_enc, names):
    bad = np.isnan(X_enc)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValueError(
            f"Input X contains NaN (a missing value) in column {names[j]!r} at row {i}; "
            f"logistic regression needs every value. Drop those rows (R's glm drops them "
            f"with na.action = na.omit) or fill them in.")


def fit_design(X, categorical_features=None, fit_intercept=True):
    """Learn the coding of training ``X`` and return ``(design, M)``, ``M`` the float64
    model matrix.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"c": ["b", "a", "c", "a"], "x": [1.0, 2.0, 3.0, 4.0]})
    >>> design, M = fit_design(X)
    >>> design.column_names
    ['(Intercept)', 'cb', 'cc', 'x']
    >>> M.tolist()[0]
    [1.0, 1.0, 0.0, 1.0]
    """
    X = as_2d(X, min_samples=1)
    schema, X_enc = fit_schema_and_encode(X, categorical_features)
    cats = list(schema.categories)
    for j in np.flatnonzero(schema.is_categorical):
        codes = X_enc[:, j]
        ok = ~np.isnan(codes)
        col = X.iloc[:, j] if isinstance(X, pd.DataFrame) else None
        if col is not None and isinstance(col.dtype, pd.CategoricalDtype):
            used = np.zeros(len(cats[j]), dtype=bool)
            used[codes[ok].astype(np.int64)] = True
            order = np.flatnonzero(used)  # the Categorical's order, unused levels dropped
        else:
            order = np.asarray(_r_order(cats[j]), dtype=np.int64)
        new_code = np.full(len(cats[j]), np.nan)
        new_code[order] = np.arange(order.size)
        X_enc[ok, j] = new_code[codes[ok].astype(np.int64)]
        cats[j] = np.asarray(cats[j], dtype=object)[order]
    schema = Schema(schema.feature_names, schema.is_categorical, cats)
    _first_missing(X_enc, schema.feature_names)
    full = -1
    if not fit_intercept and schema.is_categorical.any():
        full = int(np.flatnonzero(schema.is_categorical)[0])
    design = Design(schema, bool(fit_intercept), full)
    return design, _matrix(design, X_enc)


def design_matrix(design, X):
    """The model matrix of new ``X`` with a fitted design (same columns, same order).

    A category not seen at fit time is an error, as in R ("factor has new levels").

    Examples
    --------
    >>> import pandas as pd
    >>> design, _ = fit_design(pd.DataFrame({"c": ["b", "a"], "x": [1.0, 2.0]}))
    >>> design_matrix(design, pd.DataFrame({"c": ["a"], "x": [5.0]})).tolist()
    [[1.0, 0.0, 5.0]]
    """
    X = as_2d(X, min_samples=0)
    schema = design.schema
    X_enc = encode(X, schema)
    for j in np.flatnonzero(schema.is_categorical):
        unseen = X_enc[:, j] < 0
        if unseen.any():
            i = int(np.flatnonzero(unseen)[0])
            value = (X.iloc[i, j] if isinstance(X, pd.DataFrame) else X[i, j])
            raise ValueError(
                f"Column {schema.feature_names[j]!r} holds {value!r} at row {i}, a level "
                f"not seen at fit time (R: factor has new levels); its levels are "
                f"{[level_label(c) for c in schema.categories[j]]}.")
    _first_missing(X_enc, schema.feature_names)
    return _matrix(design, X_enc)


def _matrix(design, X_enc):
    terms = design.terms
    M = np.empty((X_enc.shape[0], len(terms)), dtype=np.float64)
    for c, (_, j, level) in enumerate(terms):
        if j < 0:
            M[:, c] = 1.0
        elif level < 0:
            M[:, c] = X_enc[:, j]
        else:
            M[:, c] = X_enc[:, j] == level
    return M
