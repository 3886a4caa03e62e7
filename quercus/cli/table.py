"""Aligned plain-text tables for a terminal, Chinese labels included."""

import math
import numbers

from ..export.text import display_width


def _cell(v, decimals):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if isinstance(v, bool) or type(v).__name__ == "bool_":
        return "yes" if v else "no"
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, numbers.Real):
        return f"{float(v):.{decimals}f}"
    try:
        import pandas as pd
        if pd.isna(v):
            return ""
    except (TypeError, ValueError):
        pass
    return str(v)


def _pad(s, width, right):
    gap = " " * (width - display_width(s))
    return gap + s if right else s + gap


def format_table(df, columns=None, *, decimals=3, mark=None, marker="*", gap=2):
    """Render a DataFrame as an aligned text table, measuring wide characters as two columns.

    Numbers are right-aligned with ``decimals`` digits (integers as they are), text
    left-aligned, missing cells empty, booleans ``yes`` / ``no``. A header line and a line
    of dashes come first. The index is not shown.

    Parameters
    ----------
    df : pandas.DataFrame
    columns : list of str, optional
        Columns to show, in this order; default all.
    decimals : int or dict, default=3
        Digits after the point; a dict gives them per column (others keep 3).
    mark : sequence of bool, optional
        Rows to flag: their line starts with ``marker``, the others with spaces.
    marker : str, default="*"
    gap : int, default=2
        Spaces between columns.

    Returns
    -------
    str
        The table, lines joined by newlines, no trailing spaces and no final newline.

    Examples
    --------
    >>> import pandas as pd
    >>> from quercus.cli.table import format_table
    >>> t = pd.DataFrame({"split": ["色泽", "纹理"], "gain": [0.10812, 0.38059], "n": [3, 3]})
    >>> print(format_table(t, mark=[False, True]))
      split   gain  n
      -----  -----  -
      色泽   0.108  3
    * 纹理   0.381  3
    """
    columns = list(df.columns) if columns is None else list(columns)
    digits = [decimals.get(c, 3) if isinstance(decimals, dict) else decimals
              for c in columns]
    body = [[_cell(v, d) for v, d in zip(row, digits)] for row in
            df[columns].itertuples(index=False, name=None)]
    right = []
    for j, c in enumerate(columns):
        values = df[c].dropna().tolist()
        right.append(bool(values) and all(
            isinstance(v, numbers.Real) and not isinstance(v, bool)
            and type(v).__name__ != "bool_" for v in values))
    head = [str(c) for c in columns]
    widths = [max([display_width(h)] + [display_width(r[j]) for r in body])
              for j, h in enumerate(head)]
    sep = " " * gap
    prefix_w = display_width(marker) + 1 if mark is not None else 0
    flags = list(mark) if mark is not None else [False] * len(body)

    def line(cells, flag=False):
        text = sep.join(_pad(s, w, r) for s, w, r in zip(cells, widths, right))
        if prefix_w:
            text = (marker + " " if flag else " " * prefix_w) + text
        return text.rstrip()

    out = [line(head), line(["-" * w for w in widths])]
    out += [line(r, f) for r, f in zip(body, flags)]
    return "\n".join(out)
