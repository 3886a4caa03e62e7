"""X / y / weights -> typed arrays, validated once at the public boundary.

X is encoded as a float64 matrix: numeric columns keep their values, categorical columns hold
category codes (``-1`` for a category not seen at fit time). The :class:`Schema` remembers
which column is which and the categories, so prediction encodes new data the same way.
"""

import numbers
import os
import sys
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.utils import check_array
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import column_or_1d

from ._binning import Bins, bin_features, bin_lows, can_read_values, widen_codes

_NUMERIC_KINDS = {"integer", "floating", "mixed-integer-float", "decimal"}

# A categorical column with a distinct value on at least this share of its (at least
# ID_LIKE_MIN_ROWS) known rows looks like an id: information gain favours it (the book's 编号).
ID_LIKE_SHARE = 0.9
ID_LIKE_MIN_ROWS = 10
# Up to this many labels of a NumPy string, boolean or integer type are coded by sorting
# them (:func:`encode_target`); longer columns are hashed first.
SORT_LABELS_MAX_ROWS = 10_000
# Up to this many, such labels are coded on Python values (see encode_target).
FEW_LABELS_MAX_ROWS = 64


class DataWarning(UserWarning):
    """A column of the training data that fits but is probably not what was meant: a
    numeric column holding a stray word (so it became categorical), or a categorical
    column with a distinct value on (nearly) every row, like an id.

    Examples
    --------
    >>> import warnings
    >>> import pandas as pd
    >>> from quercus import DataWarning, ID3Classifier
    >>> X = pd.DataFrame({"name": [f"melon {i}" for i in range(12)], "ripe": [0, 1] * 6})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = ID3Classifier().fit(X, ["yes", "no", "no"] * 4)
    >>> [str(w.message).split(":")[0] for w in caught if w.category is DataWarning]
    ["Column 'name' has 12 distinct values in its 12 rows, like an id"]
    """


def _user_stacklevel():
    """The ``stacklevel`` that points a warning raised by the calling function at the
    first frame outside quercus: the user's ``fit``, however deep the warning is raised."""
    package = os.path.dirname(os.path.abspath(__file__))
    frame, level = sys._getframe(2), 2
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    return level


def _parses_as_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def _may_be_number(text):
    """Whether ``float(text)`` might succeed: its first character after white space is
    one that a number written for ``float`` starts with."""
    head = text.lstrip()[:1]
    return head.isdecimal() or (head != "" and head in "+-.iInN")


def _stray_words(cats):
    """The categories of a string column that are not numbers, when most of its distinct
    values are (None otherwise): ``'未知'`` among ages read as text."""
    sample = cats[:100]
    if not all(isinstance(c, str) for c in sample):
        return None
    # Cheap looks first (a fit's time on small data): most columns of words stop at the
    # first, which counts the values that could parse at all (float() takes a sign, a
    # digit, a point, inf or nan first), without raising an exception for each word.
    if sum(map(_may_be_number, sample)) * 2 <= len(sample):
        return None
    if sum(map(_parses_as_number, sample)) * 2 <= len(sample):
        return None
    is_number = pd.to_numeric(pd.Series(cats, dtype=object), errors="coerce").notna()
    n_bad = int((~is_number).sum())
    if n_bad == 0 or n_bad >= len(cats) - n_bad:
        return None
    return np.flatnonzero(~is_number.to_numpy())


def _check_categorical_column(name, codes, cats, detected):
    """Warn (:class:`DataWarning`) about a categorical training column that is probably a
    mistake. ``detected``: its kind was detected from its values, not declared."""
    # The rows are counted only for a column of enough categories to be id-like.
    n_known = (int(np.count_nonzero(codes >= 0))
               if len(cats) >= ID_LIKE_SHARE * ID_LIKE_MIN_ROWS else 0)
    if n_known >= ID_LIKE_MIN_ROWS and len(cats) >= ID_LIKE_SHARE * n_known:
        n_distinct = int(np.count_nonzero(np.bincount(codes[codes >= 0],
                                                      minlength=len(cats))))
        if n_distinct >= ID_LIKE_SHARE * n_known:
            warnings.warn(
                f"Column {name!r} has {n_distinct} distinct values in its {n_known} "
                f"rows, like an id: a tree can split on it to tell the training rows apart "
                f"(information gain favours attributes with many values, the book's 编号 "
                f"example), which predicts nothing about new rows. Drop the column if it "
                f"identifies the rows.", DataWarning, stacklevel=_user_stacklevel())
    bad = _stray_words(cats) if detected and len(cats) else None
    if bad is not None:
        counts = np.bincount(codes[codes >= 0], minlength=len(cats))[bad]
        order = np.argsort(-counts, kind="stable")[:5]
        words = ", ".join(f"{cats[bad[i]]!r} ({counts[i]} row{'s' if counts[i] != 1 else ''})"
                          for i in order)
        more = f" and {len(bad) - len(order)} more" if len(bad) > len(order) else ""
        warnings.warn(
            f"Column {name!r} looks numeric ({len(cats) - len(bad)} of its {len(cats)} "
            f"distinct values are numbers) but holds values that are not numbers: "
            f"{words}{more}. It is treated as categorical, each number a category of its "
            f"own, with no thresholds. If those values mean missing, make them NaN "
            f"(pd.to_numeric(X[{name!r}], errors='coerce'), or read_csv's na_values); if "
            f"the column is categorical, name it in categorical_features.", DataWarning,
            stacklevel=_user_stacklevel())


@dataclass
class Schema:
    """What the estimator learned about the columns of X."""

    feature_names: list
    is_categorical: np.ndarray
    categories: list = field(default_factory=list)  # per feature: ndarray or None

    @property
    def n_features(self):
        return len(self.feature_names)

    def category_index(self, j):
        """Feature ``j``'s categories as a pd.Index, built once: its hash table is then
        built once too, not at every prediction (where it was much of a small one's time)."""
        cache = self.__dict__.setdefault("_index_cache", {})
        if j not in cache:
            cache[j] = pd.Index(self.categories[j])
        return cache[j]

    def code_map(self, j, categories):
        """Feature ``j``'s code (float; -1 unseen) for each of a pandas Categorical's
        ``categories``, then NaN: indexed by the Categorical's codes, its missing code -1
        reads the NaN. The last lookup is kept with the categories object it was made for:
        the columns of one DataFrame, or of its slices, share that object, so predicting on
        them looks nothing up again."""
        cache = self.__dict__.setdefault("_code_map_cache", {})
        hit = cache.get(j)
        if hit is None or hit[0] is not categories:
            codes = self.category_index(j).get_indexer(categories).astype(float)
            hit = cache[j] = (categories, np.append(codes, np.nan))
        return hit[1]

    def to_dict(self):
        return {
            "feature_names": list(self.feature_names),
            "is_categorical": self.is_categorical.tolist(),
            "categories": [None if c is None else _plain_list(c) for c in self.categories],
        }

    @classmethod
    def from_dict(cls, d):
        cats = [None if c is None else np.asarray(c, dtype=object) for c in d["categories"]]
        return cls(list(d["feature_names"]), np.asarray(d["is_categorical"], dtype=bool), cats)


def _plain_list(values):
    out = []
    for v in values:
        out.append(v.item() if isinstance(v, np.generic) else v)
    return out


def frame_columns(X, start=0, stop=None):
    """DataFrame ``X``'s columns ``start:stop`` as the arrays pandas stores them in: a
    NumPy array or a pandas ExtensionArray (a Categorical, a string array, a nullable
    integer array), not Series, whose making was most of a small frame's encoding.

    Examples
    --------
    >>> X = pd.DataFrame({"c": pd.Categorical(["b", "a"]), "x": [0.5, 0.1]})
    >>> [type(col).__name__ for col in frame_columns(X)]
    ['Categorical', 'ndarray']
    """
    return [_column(X, j) for j in range(start, X.shape[1] if stop is None else stop)]


def _column(X, j):
    """Column ``j`` of DataFrame ``X`` as pandas stores it (see :func:`frame_columns`)."""
    get = getattr(X, "_get_column_array", None)  # (pandas' own accessor: no Series)
    if get is not None:
        return get(j)
    values = X.iloc[:, j].array
    return (values.to_numpy() if isinstance(values, pd.arrays.NumpyExtensionArray)
            else values)


def frame_names(X):
    """DataFrame ``X``'s column names as strings (read from an object array: iterating
    pandas' string Index is slower).

    Examples
    --------
    >>> import pandas as pd
    >>> frame_names(pd.DataFrame({"a": [1], 2: [3]}))
    ['a', '2']
    """
    return [str(c) for c in X.columns.to_numpy(dtype=object)]


def _columns(X):
    """Split X into (names, list of 1-d columns)."""
    if isinstance(X, pd.DataFrame):
        return frame_names(X), frame_columns(X)
    arr = X
    return [f"x{j}" for j in range(arr.shape[1])], [arr[:, j] for j in range(arr.shape[1])]


def as_2d(X, *, what="X", min_samples=1):
    """Return X as a DataFrame or a 2-d ndarray, with shape errors raised here."""
    if isinstance(X, pd.DataFrame):
        # (is_unique is kept by the columns' Index: indexing them is not free)
        dup = [] if X.columns.is_unique else X.columns[X.columns.duplicated()]
        if len(dup):
            raise ValueError(f"Column names must be unique: {dup[0]!r} appears "
                             f"{int((X.columns == dup[0]).sum())} times.")
        arr = X
    else:
        arr = check_array(X, dtype=None, ensure_all_finite=False, ensure_min_samples=0,
                          ensure_min_features=0, input_name=what)
        if arr.dtype.kind in "USO":
            arr = arr.astype(object)
    n, p = arr.shape
    if n < min_samples:
        why = (f"{what} has no rows" if n == 0 else
               f"{what} has only {n} sample (row); a decision tree needs at least "
               f"{min_samples} samples to fit")
        raise ValueError(f"Found array with {n} sample(s) (shape={arr.shape}) while a "
                         f"minimum of {min_samples} is required: {why}.")
    if p == 0:
        raise ValueError(f"Found array with 0 feature(s) (shape={arr.shape}) while a "
                         f"minimum of 1 is required: {what} has no columns.")
    return arr


def _resolve_categorical(categorical_features, names, cols, is_frame):
    p = len(names)
    if categorical_features is None:
        mask = np.zeros(p, dtype=bool)
        for j, col in enumerate(cols):
            mask[j] = _auto_categorical(col, names[j], is_frame)
        return mask
    cf = np.asarray(categorical_features)
    if cf.dtype == bool:
        if cf.shape != (p,):
            raise ValueError(f"categorical_features as a boolean mask must have length "
                             f"{p} (the number of features); got {cf.shape[0]}.")
        return cf.copy()
    mask = np.zeros(p, dtype=bool)
    for item in cf.ravel().tolist():
        if isinstance(item, str):
            if item not in names:
                raise ValueError(f"categorical_features names an unknown column {item!r}; "
                                 f"the columns are {names}.")
            mask[names.index(item)] = True
        elif isinstance(item, numbers.Integral) and not isinstance(item, bool):
            if not -p <= item < p:
                raise ValueError(f"categorical_features index {item} is out of range for "
                                 f"{p} features.")
            mask[item] = True
        else:
            raise ValueError(f"categorical_features entries must be column names or "
                             f"integer indices; got {item!r}.")
    return mask


def _categorical_by_dtype(dtype):
    """Whether a column of ``dtype`` is categorical when its kind is detected, or None
    when its values say (:func:`_auto_categorical`)."""
    # (A NumPy bool or number and a pandas string dtype: what pandas' checks below say of
    # them, in fewer steps; those checks are slow on an extension dtype.)
    if isinstance(dtype, np.dtype) and dtype.kind in "biufc":
        return dtype.kind == "b"
    if isinstance(dtype, pd.StringDtype):
        return True
    if isinstance(dtype, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(dtype):
        return True
    if pd.api.types.is_numeric_dtype(dtype):
        return False
    if pd.api.types.is_string_dtype(dtype) and not dtype == object:
        return True
    return None


def _auto_categorical(col, name, is_frame):
    decided = _categorical_by_dtype(col.dtype)
    if decided is not None:
        return decided
    kind = _value_kind(col, name)
    if kind == "string" or kind == "boolean":
        return True
    # object columns of plain numbers: categorical in a DataFrame (its dtype says so),
    # numeric in a bare object array (scikit-learn's convention).
    return is_frame


def _value_kind(col, name):
    if not isinstance(col, np.ndarray) and col.dtype == object:
        col = col.to_numpy()  # (the same values: infer_dtype reads an array faster)
    kind = pd.api.types.infer_dtype(col, skipna=True)
    if kind in ("string", "boolean") or kind in _NUMERIC_KINDS:
        return kind
    if kind == "empty":
        raise ValueError(f"Column {name!r} has no values: every entry is missing.")
    for i, v in enumerate(col):
        if not (_is_missing(v) or isinstance(v, (str, numbers.Number, bool, np.bool_))):
            raise TypeError(
                f"Column {name!r} holds a value of type {type(v).__name__} at row {i} "
                f"({v!r}); each value of the X argument must be a string, a number or a "
                f"boolean.")
    types = sorted({type(v).__name__ for v in col if not _is_missing(v)})
    # Numbers with a few words among them (an unknown age written '未知'): name the words.
    words = [(i, v) for i, v in enumerate(col) if isinstance(v, str)]
    named = ""
    if 0 < len(words) <= 5:
        named = (" The values that are not numbers: "
                 + ", ".join(f"{v!r} (row {i})" for i, v in words) + ".")
    raise ValueError(f"Column {name!r} mixes value types ({', '.join(types)}): a "
                     f"categorical column must hold only strings, only numbers or only "
                     f"booleans.{named}")


def _is_missing(v):
    """None, NaN, pd.NA or NaT (a scalar)."""
    return v is None or v is pd.NA or v is pd.NaT or (isinstance(v, float) and v != v)


def _missing_mask(col):
    return np.asarray(pd.isna(col), dtype=bool)


def _object_values(col):
    """A column's values as an object ndarray (a pandas string array hands over its own
    values: no conversion); pd.isna and pd.factorize are faster on that than on pandas'
    arrays."""
    if isinstance(col, (pd.Series, pd.api.extensions.ExtensionArray)):
        return col.to_numpy(dtype=object)
    return np.asarray(col, dtype=object)


def _numeric_column(col, name, what):
    """float64 values of a numeric column; missing values (None, NaN, pd.NA) become NaN,
    infinity is an error."""
    try:
        if isinstance(col, (pd.Series, pd.api.extensions.ExtensionArray)):
            values = col.to_numpy(dtype=np.float64, na_value=np.nan)
        else:
            raw = np.asarray(col)
            if raw.dtype == object:
                raw = np.where(_missing_mask(raw), np.nan, raw)
            values = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError):
        values = None
    if values is None:
        raw = np.asarray(col, dtype=object)
        for i, v in enumerate(raw):
            if _is_missing(v):
                continue
            try:
                float(v)
            except (TypeError, ValueError):
                break
        else:  # pragma: no cover - every value converts one by one
            i, v = 0, raw[0]
        raise ValueError(f"Column {name!r} of {what} is numeric (as at fit time) but holds "
                         f"{v!r} at row {i}, which is not a number.")
    bad = np.isinf(values)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"Input {what} contains inf in column {name!r} (row {i}); a numeric value must "
            f"be finite (NaN marks a missing value).")
    return values


def _check_not_all_missing(values_missing, name):
    if values_missing.size and values_missing.all():
        raise ValueError(f"Column {name!r} has no values: every entry is missing. Drop the "
                         f"column; a tree cannot split on it.")


def _schema_columns(X, categorical_features):
    """(names, columns, categorical mask, is_frame) of training X; a DataFrame's columns
    are :func:`frame_columns`', or None when its mask did not need them (see
    :func:`_frame_mask`): a matrix of float64 columns is then read whole, and
    :func:`_schema_cols` makes them when they are needed after all."""
    if not isinstance(X, pd.DataFrame):
        names, cols = _columns(X)
        return names, cols, _resolve_categorical(categorical_features, names, cols,
                                                 False), False
    names = frame_names(X)
    # The first column's dtype says whether the frame may be all float64.
    cols = frame_columns(X, stop=1) if categorical_features is None and names else []
    mask = _frame_mask(X, categorical_features, names, cols[0].dtype if cols else None)
    if mask is not None:
        return names, None, mask, True
    cols += frame_columns(X, start=len(cols))
    return names, cols, _resolve_categorical(categorical_features, names, cols, True), True


def _frame_mask(X, categorical_features, names, first_dtype):
    """The categorical mask of DataFrame ``X`` (columns ``names``, the first of dtype
    ``first_dtype``) as :func:`_resolve_categorical` makes it, when it is known without
    its columns: ``categorical_features`` given (names and indices), or, detected, every
    column float64 (numbers: none categorical). Else None."""
    if categorical_features is not None:
        return _resolve_categorical(categorical_features, names, None, True)
    if first_dtype == np.float64 and is_float_matrix(X):
        return np.zeros(len(names), dtype=bool)
    return None


def _schema_cols(X, cols):
    """``cols`` of :func:`_schema_columns`, made now when it left them out."""
    return frame_columns(X) if cols is None else cols


def _fit_numeric(col, name, is_frame):
    """A numeric training column as float64 (NaN: missing), checked."""
    if not is_frame and np.asarray(col).dtype == object:
        _value_kind(col, name)
    values = _numeric_column(col, name, "X")
    _check_not_all_missing(np.isnan(values), name)
    return values


def _category_codes(col):
    """A pandas Categorical column's own codes (-1: missing), read without building its
    values; ``col`` the Categorical or a Series of one."""
    return (col.array if isinstance(col, pd.Series) else col).codes


def _fit_categories(col, name, detected=False):
    """A categorical training column's (codes, categories): integer codes, -1 for a
    missing value, and the categories as an object array. A column that looks like a
    mistake gets a :class:`DataWarning` (``detected``: categorical by its values, not
    declared in ``categorical_features``)."""
    dtype = getattr(col, "dtype", None)
    if isinstance(dtype, pd.CategoricalDtype):
        # The column's own codes (-1: missing), read without building its values.
        codes = _category_codes(col)
        _check_not_all_missing(codes < 0, name)
        cats = np.asarray(dtype.categories, dtype=object)
        _check_categorical_column(name, codes, cats, False)  # its categories are declared
        return codes, cats
    values = _object_values(col)
    missing = _missing_mask(values)
    _check_not_all_missing(missing, name)
    if dtype is not None and pd.api.types.is_bool_dtype(dtype):
        cats = np.array([False, True], dtype=object)
        codes = np.where(missing, 0, values).astype(np.int8)
    else:
        # (a pandas string column holds strings or missing values, and a column detected
        # as categorical by its values had them checked then: nothing to check)
        if values.size and not isinstance(dtype, pd.StringDtype) and not (
                detected and dtype == object):
            _value_kind(values, name)
        codes, cats = pd.factorize(values, sort=False)
        cats = np.asarray(cats, dtype=object)
    codes[missing] = -1
    _check_categorical_column(name, codes, cats, detected)
    return codes, cats


def fit_schema_and_encode(X, categorical_features=None):
    """Learn the column schema from training X and encode it.

    Returns ``(schema, X_enc)`` with ``X_enc`` float64 of shape (n_samples, n_features).
    Categories keep their order of first appearance (a pandas Categorical keeps its own
    order; booleans are ``[False, True]``), which is also the tie-break order.
    """
    names, cols, mask, is_frame = _schema_columns(X, categorical_features)
    arr = None if mask.any() else _checked_float_matrix(X)
    if arr is not None:
        return Schema(names, mask, [None] * len(names)), arr
    cols = _schema_cols(X, cols)
    n = len(cols[0]) if cols else 0
    X_enc = np.empty((n, len(cols)), dtype=np.float64, order="F")
    categories = []
    for j, col in enumerate(cols):
        if not mask[j]:
            X_enc[:, j] = _fit_numeric(col, names[j], is_frame)
            categories.append(None)
            continue
        codes, cats = _fit_categories(col, names[j], categorical_features is None)
        X_enc[:, j] = np.where(codes < 0, np.nan, codes)  # a missing category is NaN
        categories.append(cats)
    return Schema(names, mask, categories), X_enc


def fit_schema_and_bin(X, categorical_features, max_bins, lazy=False):
    """Learn the column schema from training X and bin it, for a fit that reads no more
    than the bins: the schema and the bins of :func:`fit_schema_and_encode` then
    :func:`quercus._binning.bin_features`, without the float64 matrix in between (8 bytes a
    cell). A categorical column's codes go straight to its bin codes, and only the numeric
    columns are gathered as float64 to be binned, ``_BIN_CHUNK_CELLS`` at a time (a float64
    matrix is binned as it is).
    ``lazy``: a float64 matrix that can be kept for the thresholds (the caller's own
    memory, or a copy made of a DataFrame's float64 blocks; see :func:`readable_source`)
    is binned with ``lazy=True`` (no value table for long continuous columns), and so are
    the columns of a float32 matrix, which the fit then reads as it is.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"c": pd.Categorical(["b", "a", None]), "x": [0.5, 0.1, 0.9]})
    >>> schema, bins = fit_schema_and_bin(X, None, 255)
    >>> schema.categories[0].tolist(), bins.codes.tolist(), bins.n_bins.tolist()
    (['a', 'b'], [[1, 1], [0, 0], [2, 2]], [2, 3])
    """
    names, cols, mask, is_frame = _schema_columns(X, categorical_features)
    arr = None if mask.any() else _checked_float_matrix(X)
    if arr is not None:
        schema = Schema(names, mask, [None] * len(names))
        source = readable_source(arr) if lazy else None
        if source is None:
            return schema, bin_features(arr, mask, schema.categories, max_bins)
        return schema, bin_features(source, mask, schema.categories, max_bins, lazy=True)
    cols = _schema_cols(X, cols)
    n, p = (len(cols[0]) if cols else 0), len(cols)
    # A float32 matrix is read for the thresholds as it is, like a float64 one: its long
    # continuous columns keep no value table (8 bytes a row each).
    source = (readable_source(X) if lazy and isinstance(X, np.ndarray)
              and X.dtype == np.float32 and not mask.any() else None)
    codes = np.empty((n, p), dtype=np.uint8, order="F")  # widened as columns need
    n_bins = np.zeros(p, dtype=np.int64)
    table = np.zeros(p, dtype=np.int64)  # values in each column's table (0: categorical)
    categories = [None] * p
    written = []  # the columns coded so far
    # The numeric columns are gathered as float64 and binned a few at a time (binning works
    # column by column): a float64 copy of all of them, and their codes beside the
    # matrix's, held 12 bytes a cell more at the peak (scikit-learn's tree reads float32 as
    # it is).
    step = max(1, _BIN_CHUNK_CELLS // max(n, 1))
    n_numeric = int(np.count_nonzero(~mask))
    X_num = np.empty((n, min(step, n_numeric)), order="F")
    pending = []  # the numeric columns in X_num, binned when it is full
    # Every numeric bin's largest value, in feature order, written as each group is binned
    # into a buffer of the exact bins' bound (its unwritten pages never become resident),
    # shrunk in place at the end: joining the groups' tables held them twice.
    hi = np.empty(n * n_numeric if max_bins is None else (max_bins + 1) * n_numeric)
    filled = 0
    lo_parts = {}  # start in hi -> the quantile bins' smallest values of a group

    def bin_pending():
        nonlocal codes, filled
        k = len(pending)
        num = bin_features(X_num[:, :k], np.zeros(k, dtype=bool), [None] * k, max_bins,
                           lazy=source is not None)
        if np.iinfo(num.codes.dtype).max > np.iinfo(codes.dtype).max:
            codes = widen_codes(codes, np.iinfo(num.codes.dtype).max, written)
        for i, j in enumerate(pending):
            codes[:, j] = num.codes[:, i]
            n_bins[j] = num.n_bins[i]
            table[j] = num.offsets[i + 1] - num.offsets[i]
            written.append(j)
        hi[filled:filled + num.hi.size] = num.hi
        if not num.exact:  # (a copy of the group's hi but for its quantile columns)
            lo_parts[filled] = num.lo
        filled += num.hi.size
        pending.clear()

    for j, col in enumerate(cols):
        if not mask[j]:
            X_num[:, len(pending)] = _fit_numeric(col, names[j], is_frame)
            pending.append(j)
            if len(pending) == X_num.shape[1]:
                bin_pending()
            continue
        cat_codes, cats = _fit_categories(col, names[j], categorical_features is None)
        n_bins[j] = max(len(cats), 1)
        if n_bins[j] > np.iinfo(codes.dtype).max:
            codes = widen_codes(codes, n_bins[j], written)
        codes[:, j] = np.where(cat_codes < 0, n_bins[j], cat_codes)  # missing: n_bins
        written.append(j)
        categories[j] = cats
        del cat_codes
    if pending:
        bin_pending()
    del X_num
    # Categorical columns have no numeric bins: the numeric ones' lo / hi, in feature
    # order, are the whole data's (one array for both when every bin is exact).
    offsets = np.zeros(p + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(table)
    hi.resize(filled, refcheck=False)
    if source is not None and not (table < n_bins).any():
        source = None  # every column has its table: nothing to read from X
    return Schema(names, mask, categories), Bins(codes, n_bins, bin_lows(hi, lo_parts), hi,
                                                 offsets, source)


# Cells of the float64 columns binned at once by the column-by-column path (8 MB).
_BIN_CHUNK_CELLS = 1 << 20

# Cells per block of the no-copy checks: their boolean temporaries stay at 256 kB (a
# block of whole 65,536-row columns was a sizeable part of a mid-size fit's peak).
_BLOCK_CELLS = 1 << 18


def _row_blocks(arr):
    """Slices of about ``_BLOCK_CELLS`` cells covering ``arr``'s rows."""
    step = max(1, _BLOCK_CELLS // max(arr.shape[1], 1))
    return (slice(s, s + step) for s in range(0, arr.shape[0], step))


def frame_dtypes(X):
    """The dtypes of DataFrame ``X``'s columns, in order: pandas' own list of them where
    it has one (``DataFrame.dtypes`` builds a Series, a noticeable part of a small fit's
    checks), else ``X.dtypes``.

    Examples
    --------
    >>> import pandas as pd
    >>> [str(d) for d in frame_dtypes(pd.DataFrame({"a": [1.5], "b": [2]}))]
    ['float64', 'int64']
    """
    get = getattr(getattr(X, "_mgr", None), "get_dtypes", None)
    return get() if get is not None else X.dtypes


def is_float_matrix(X):
    """Whether X already is a float64 matrix (a float64 ndarray, or a DataFrame of float64
    columns), which the fit and prediction read without encoding a copy."""
    if isinstance(X, np.ndarray):
        return X.dtype == np.float64 and X.ndim == 2
    return isinstance(X, pd.DataFrame) and all(dt == np.float64 for dt in frame_dtypes(X))


def _float_view(X):
    """X as a float64 matrix where :func:`is_float_matrix`, else None."""
    if not is_float_matrix(X):
        return None
    return X if isinstance(X, np.ndarray) else X.to_numpy(dtype=np.float64, copy=False)


def _float32_view(X):
    """X as a float32 matrix when it is a 2-d float32 array, or a DataFrame whose columns
    are all float32, else None."""
    if isinstance(X, np.ndarray):
        return X if X.ndim == 2 and X.dtype == np.float32 else None
    if isinstance(X, pd.DataFrame) and X.shape[1] and all(
            d == np.float32 for d in frame_dtypes(X)):
        return X.to_numpy(dtype=np.float32, copy=False)
    return None


def readable_source(arr):
    """``arr``, the float64 (or float32) matrix read from training X, as a writable array a
    fit may keep reading for its thresholds instead of building value tables: X itself, a copy made
    from X (a DataFrame of several float64 blocks, or of other numeric columns), or a
    writable view of read-only memory that has a writable owner. pandas hands its float64
    blocks out read-only, through ``DataFrame.to_numpy`` too under copy-on-write (pandas 3),
    so the array a user gets from a frame is one; the fit never writes to it. A copy is
    held while the columns are binned either way, and the value tables it would leave
    instead take up to as much again at that peak (a column of distinct values: 8 bytes a
    row), so keeping it never costs more. None when ``arr`` cannot be read as it is (not
    contiguous), or its memory is read-only (an owner made read-only, a read-only memory
    map): then value tables.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> X = np.zeros((4, 2))
    >>> readable_source(X) is X, readable_source(X[:, :1]) is None
    (True, True)
    >>> frame = pd.DataFrame(X, columns=["a", "b"])
    >>> view = frame.to_numpy(copy=False)
    >>> readable_source(view).flags.writeable, np.shares_memory(readable_source(view), view)
    (True, True)
    >>> X.setflags(write=False)
    >>> readable_source(X) is None
    True
    """
    source = arr
    if not arr.flags.writeable:
        source = arr.view()
        try:
            source.flags.writeable = True
        except ValueError:  # the memory's owner is read-only
            return None
    return source if can_read_values(source) else None


def _no_inf(arr):
    """No infinite value (checked by blocks of rows: no full-size temporary)."""
    return not any(np.isinf(arr[rows]).any() for rows in _row_blocks(arr))


def _checked_float_matrix(X):
    """X as a float64 matrix that the kernels can read as it is (no copy) when it is one
    with every value finite or NaN and no column all NaN, else None: the column-by-column
    path then converts it or raises the precise error."""
    arr = _float_view(X)
    if arr is None or not _no_inf(arr):
        return None
    seen = np.zeros(arr.shape[1], dtype=bool)
    for rows in _row_blocks(arr):
        seen |= ~np.isnan(arr[rows]).all(axis=0)
    return arr if seen.all() or arr.shape[0] == 0 else None


def encode(X, schema, any_order=False, inf_checked_later=False):
    """Encode new X with a fitted schema (same columns, same order). A float64 matrix of
    finite or missing numbers is read as it is: in row order, or in any order with
    ``any_order`` (the routing kernels reorder it block by block). With
    ``inf_checked_later`` a float64 matrix is not searched for infinite values here: the
    caller's kernel does it as it reads the rows (``apply_tree(..., check_inf=True)``) and
    encodes again, to raise the column's error, when it finds one."""
    if X.shape[1] != schema.n_features:
        raise ValueError(f"X has {X.shape[1]} features, but the tree was fitted with "
                         f"{schema.n_features} features.")
    arr = None if schema.is_categorical.any() else _float_view(X)
    if arr is None and inf_checked_later and not schema.is_categorical.any():
        # A float32 matrix is routed as it is (the kernels compare each value, widened to
        # float64 exactly, with the float64 thresholds: the same routes as a float64 copy).
        arr = _float32_view(X)
    if arr is not None and (inf_checked_later or _no_inf(arr)):
        # Numbers only, finite or NaN: read as they are (a DataFrame's float64 block
        # without splitting it into columns, which took a sizeable part of a prediction).
        return arr if any_order and arr.flags.f_contiguous else np.ascontiguousarray(arr)
    _, cols = _columns(X)
    n = len(cols[0])
    # Column by column: in column order when the caller takes any order (each column is
    # then written contiguously).
    X_enc = np.empty((n, len(cols)), dtype=np.float64, order="F" if any_order else "C")
    for j, col in enumerate(cols):
        name = schema.feature_names[j]
        if not schema.is_categorical[j]:
            X_enc[:, j] = _numeric_column(col, name, "X")
            continue
        if isinstance(getattr(col, "dtype", None), pd.CategoricalDtype):
            # Each category looked up once, then spread by the column's own codes.
            np.take(schema.code_map(j, col.dtype.categories), _category_codes(col),
                    out=X_enc[:, j])
            continue
        known = schema.category_index(j)
        values = _object_values(col)
        codes = known.get_indexer(values).astype(float)
        if (codes < 0).any():  # missing: NaN; unseen category: -1
            codes[_missing_mask(values)] = np.nan
        X_enc[:, j] = codes
    return X_enc


def _target_vector(y, n_samples):
    """y as a 1-d array of the right length, and the first row whose value is missing."""
    if y is None:
        raise ValueError("requires y to be passed, but the target y is None.")
    if isinstance(y, pd.Series) and isinstance(y.dtype, (np.dtype, pd.StringDtype)):
        # A Series of a NumPy type, or of strings (pandas 3's default for text): its
        # values, the very array check_array makes of it (an object array of the strings
        # and the dtype's missing value), without check_array's slow path.
        y = y.to_numpy()
    if not (type(y) is np.ndarray and y.ndim == 1 and y.dtype.kind in "biufUO"):
        y = column_or_1d(y, warn=True)
    if y.shape[0] != n_samples:
        raise ValueError(f"X and y have inconsistent numbers of samples: X has {n_samples} "
                         f"rows, y has {y.shape[0]}.")
    if y.dtype.kind in "biuU":  # (NumPy's fixed-width kinds cannot hold a missing value)
        return y, None
    miss = np.flatnonzero(_missing_mask(y))
    return y, (int(miss[0]) if miss.size else None)


def encode_target(y, n_samples, priority=True):
    """Labels -> (classes_ sorted, codes, first-appearance priority of each class). Without
    ``priority`` the last is None (a fit takes it from the rows it keeps)."""
    y, i = _target_vector(y, n_samples)
    if i is not None:
        raise ValueError(f"Input y contains a missing label ({_plain_list([y[i]])[0]!r}) "
                         f"at row {i}; drop those rows or give them a label.")
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        i = int(np.flatnonzero(~np.isfinite(y))[0])
        raise ValueError(f"Input y contains infinity ({float(y[i])!r}) at row {i}; class "
                         f"labels must be finite.")
    if y.dtype.kind in "Ubiu" and y.shape[0] <= FEW_LABELS_MAX_ROWS:
        # A handful of rows (the book's tables): sorted and looked up as Python values,
        # which NumPy's sort and code compare alike (code points, numbers): the same
        # classes and codes, without np.unique's fixed cost.
        values = y.tolist()
        distinct = sorted(set(values))
        index = {v: i for i, v in enumerate(distinct)}
        codes = np.array([index[v] for v in values], dtype=np.int32)
        classes = np.array(distinct, dtype=y.dtype)
        return classes, codes, class_priority(codes, len(classes)) if priority else None
    if y.dtype.kind in "Ubiu" and y.shape[0] <= SORT_LABELS_MAX_ROWS:
        # Fixed-width strings, booleans and integers are classes as they are, and a short
        # column of them is sorted faster than pandas hashes it: the same classes, sorted.
        classes, codes = np.unique(y, return_inverse=True)
        codes = codes.reshape(-1).astype(np.int32)
        return classes, codes, class_priority(codes, len(classes)) if priority else None
    # Hash the labels once (pandas), then check and sort only the distinct ones: sorting
    # a column of strings was most of a small fit.
    first_codes, uniques = pd.factorize(y)
    n_unique = len(uniques)
    first_row = np.empty(n_unique, dtype=np.int64)
    first_row[first_codes[::-1]] = np.arange(y.shape[0] - 1, -1, -1)
    distinct = y[first_row]  # the labels themselves, in y's dtype
    if y.dtype == object:
        kinds = {"str" if isinstance(v, str) else
                 "bool" if isinstance(v, (bool, np.bool_)) else
                 "number" if isinstance(v, numbers.Number) else type(v).__name__
                 for v in distinct}
        if len(kinds) > 1:
            raise ValueError(f"y mixes label types ({', '.join(sorted(kinds))}); labels "
                             f"must be all strings or all numbers.")
    # scikit-learn's check (and its warnings) on float and object labels; strings (the kinds
    # check above: all strings), booleans and integers always are classes, and the check
    # is a noticeable part of a small fit.
    strings = y.dtype == object and y.shape[0] > 0 and isinstance(y[0], str)
    if not (strings or y.dtype.kind in "biuU"):
        check_classification_targets(y)
    try:
        order = np.argsort(distinct, kind="stable")
    except TypeError:
        raise ValueError("y mixes label types (for example strings and numbers); labels "
                         "must be all strings or all numbers.") from None
    classes = distinct[order]
    rank = np.empty(n_unique, dtype=np.int64)
    rank[order] = np.arange(n_unique)
    codes = rank[first_codes]
    codes = codes.astype(np.int32)
    return classes, codes, class_priority(codes, len(classes)) if priority else None


def class_priority(codes, n_classes):
    """Rank of each class by its first appearance in ``codes`` (absent classes last).

    Examples
    --------
    >>> class_priority(np.array([2, 0, 2]), 4).tolist()
    [1, 2, 0, 3]
    """
    n = codes.shape[0]
    if n <= FEW_LABELS_MAX_ROWS:  # (on Python ints: NumPy's calls cost more than the walk)
        seen = dict.fromkeys(codes.tolist())  # (in order of first appearance)
        # (then the absent classes, in class order)
        order = [*seen, *(c for c in range(n_classes) if c not in seen)]
        priority = [0] * n_classes
        for r, c in enumerate(order):
            priority[c] = r
        return np.array(priority, dtype=np.int64)
    first_seen = np.full(n_classes, n, dtype=np.int64)
    np.minimum.at(first_seen, codes, np.arange(n))
    return np.argsort(np.argsort(first_seen, kind="stable"), kind="stable").astype(np.int64)


def check_weights(sample_weight, n):
    """Validated float64 weights, one per row of the ``n`` rows of X.

    Missing, infinite and negative weights are errors, and so is a weight vector that is
    zero everywhere; individual zero weights are allowed (the estimator drops those rows).
    """
    if sample_weight is None:
        return np.ones(n, dtype=np.float64)
    if isinstance(sample_weight, numbers.Number):
        sample_weight = np.full(n, sample_weight, dtype=np.float64)
    shape = np.asarray(sample_weight).shape
    if len(shape) != 1:
        raise ValueError(f"sample_weight must be a 1-d array of length {n} (one weight "
                         f"per sample) or a scalar; got an array of shape {shape}.")
    if shape[0] != n:
        raise ValueError(f"sample_weight has {shape[0]} entries but X has {n} rows; "
                         f"give exactly one weight per sample.")
    if not (isinstance(sample_weight, np.ndarray) and sample_weight.dtype == np.float64
            and np.isfinite(sample_weight).all()):
        # check_array names sample_weight in its NaN / infinity messages (and is not free:
        # skipped for finite float64 weights, a fold's for one).
        try:
            sample_weight = check_array(sample_weight, ensure_2d=False, dtype=np.float64,
                                        order="C", ensure_min_samples=0,
                                        input_name="sample_weight")
        except (TypeError, ValueError) as exc:
            if "sample_weight" in str(exc):
                raise
            raise ValueError(f"sample_weight must hold numbers: {exc}") from None
    # always a copy: never alias the caller's
    w = np.array(sample_weight, dtype=np.float64, order="C")
    neg = w < 0
    if neg.any():
        i = int(np.flatnonzero(neg)[0])
        raise ValueError(f"sample_weight must be non-negative; got {float(w[i])!r} at row {i}.")
    if n and not (w > 0).any():
        raise ValueError("sample_weight is zero for every sample: at least one sample needs "
                         "a positive weight.")
    return w


def encode_regression_target(y, n_samples, criterion):
    """Targets of a regressor as float64, finite; Poisson targets non-negative."""
    y, i = _target_vector(y, n_samples)
    if i is not None:
        value = _plain_list([np.asarray(y, dtype=object)[i]])[0]
        raise ValueError(f"Input y contains a missing target ({value!r}) at row {i}; "
                         f"regression targets must be finite numbers: drop the rows whose "
                         f"target is missing.")
    try:
        y = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("y of a regressor must be numeric; got values that are not "
                         "numbers (use a classifier for labels).") from None
    bad = ~np.isfinite(y)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"Input y contains {float(y[i])!r} at row {i}; regression targets "
                         f"must be finite.")
    if criterion == "poisson":
        if (y < 0).any():
            i = int(np.flatnonzero(y < 0)[0])
            raise ValueError(f"Some value(s) of y are negative which is not allowed for "
                             f"Poisson regression: y[{i}] = {y[i]!r}.")
        if y.sum() <= 0:
            raise ValueError("Sum of y is not positive which is necessary for Poisson "
                             "regression.")
    return y


def second_statistic(y, criterion):
    """Per-sample second regression statistic: y*log(y) for Poisson deviance, y*y else."""
    if criterion == "poisson":
        return np.where(y > 0, y * np.log(np.where(y > 0, y, 1.0)), 0.0)
    return y * y
