"""Numbers and tables printed the way R prints ``summary(glm)``.

R chooses one format for a whole vector (``formatReal``): enough decimals that every
element shows up to ``digits`` significant digits, fixed notation unless scientific is
narrower. ``printCoefmat`` rounds estimates and standard errors together, z values to
``digits - 1`` decimals, and p-values with ``format.pval``. Widths count East Asian wide
characters as two columns, as R does, so Chinese coefficient names line up.
"""

import math
import unicodedata

import numpy as np

_EPS = float(np.finfo(np.float64).eps)


def display_width(s):
    """Terminal columns of ``s``: wide and full-width characters count two.

    Examples
    --------
    >>> display_width("色泽浅白"), display_width("wt")
    (8, 2)
    """
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in s)


def _pad_left(s, width):
    return " " * (width - display_width(s)) + s


def _pad_right(s, width):
    return s + " " * (width - display_width(s))


def _sci_parts(x, digits):
    """(negative, exponent, significant digits) of ``x`` rounded to ``digits``
    significant digits, trailing zeros dropped (R's ``scientific``)."""
    if x == 0:
        return False, 0, 1
    mant, exp = f"{abs(x):.{digits - 1}e}".split("e")
    sig = mant.replace(".", "").rstrip("0")
    return x < 0, int(exp), max(1, len(sig))


def format_real(values, digits):
    """Format numbers with one common format, as R's ``format(x, digits = digits)``.

    Examples
    --------
    >>> format_real([18.8663, 0.03626, -8.083], 4)
    ['18.86630', ' 0.03626', '-8.08300']
    >>> format_real([43.23, 3.4817e-09], 5)
    ['4.3230e+01', '3.4817e-09']
    """
    vals = [float(v) for v in values]
    finite = [v for v in vals if math.isfinite(v)]
    if not finite:
        return _common_width(["NA" if math.isnan(v) else ("Inf" if v > 0 else "-Inf")
                              for v in vals])
    neg = 0
    rgt = mxsl = mxns = mxe = -(10 ** 9)
    mne = 10 ** 9
    mxl = -(10 ** 9)
    for v in finite:
        is_neg, kpower, nsig = _sci_parts(v, digits)
        left = kpower + 1
        if kpower > 0 and abs(v) < 10.0 ** kpower:  # rounding widened the number
            left -= 1
        sleft = int(is_neg) + (1 if left <= 0 else left)
        right = nsig - left
        neg = neg or int(is_neg)
        rgt, mxl, mxsl = max(rgt, right), max(mxl, left), max(mxsl, sleft)
        mxns, mxe, mne = max(mxns, nsig), max(mxe, kpower), min(mne, kpower)
    if mxl < 0:
        mxsl = 1 + neg
    rgt = max(rgt, 0)
    width_fixed = mxsl + rgt + (rgt != 0)
    e = 2 if (mxe >= 100 or mne <= -99) else 1
    d = mxns - 1
    width_sci = neg + (d > 0) + d + 4 + e
    out = []
    for v in vals:
        if not math.isfinite(v):
            out.append("NA" if math.isnan(v) else ("Inf" if v > 0 else "-Inf"))
        elif width_fixed <= width_sci:
            out.append(f"{v:.{rgt}f}")
        else:
            out.append(f"{v:.{d}e}")
    return _common_width(out)


def _common_width(strings):
    w = max(display_width(s) for s in strings)
    return [_pad_left(s, w) for s in strings]


def format_pval(pvalues, digits=3, eps=_EPS):
    """p-values as R's ``format.pval``: ``< 2e-16`` below machine epsilon, the others in
    two groups (from 0.0001 up, and below) each with one common format.

    Examples
    --------
    >>> format_pval([0.11073, 3.38e-08, 0.00623, 1e-20])
    ['0.11073', '3.38e-08', '0.00623', '< 2e-16']
    """
    pv = [float(p) for p in pvalues]
    out = [""] * len(pv)
    rest = [i for i, p in enumerate(pv) if not p < eps]
    tiny = [i for i, p in enumerate(pv) if p < eps]
    def expo(p):
        return math.floor(math.log10(p if p > 0 else 1e-50))
    fixp = [i for i in rest if expo(pv[i]) >= -3 or (expo(pv[i]) == -4 and digits > 1)]
    small = [i for i in rest if i not in fixp]
    for group in (fixp, small):
        if group:
            for i, s in zip(group, format_real([pv[i] for i in group], digits)):
                out[i] = s.strip()
    if tiny:
        dig = max(1, digits - 2)
        if rest:
            nc = max(len(out[i]) for i in rest)
            if dig > 1 and dig + 6 > nc:
                dig = max(1, nc - 7)
            sep = "" if dig == 1 and nc <= 6 else " "
        else:
            sep = "" if dig == 1 else " "
        text = "<" + sep + format_real([eps], dig)[0].strip()
        for i in tiny:
            out[i] = text
    return out


def zapsmall(values, digits):
    """R's ``zapsmall``: round so that values tiny beside the largest print as 0."""
    arr = np.asarray(values, dtype=np.float64)
    mx = float(np.max(np.abs(arr))) if arr.size else 0.0
    if mx > 0:
        digits = max(0, int(math.floor(digits - math.log10(mx) + 0.5)))
    return np.round(arr, digits)


def signif_stars(p):
    if not math.isfinite(p):
        return ""
    for cut, sym in ((0.001, "***"), (0.01, "**"), (0.05, "*"), (0.1, ".")):
        if p <= cut:
            return sym
    return " "


SIGNIF_LEGEND = "Signif. codes:  0 ‘***’ 0.001 ‘**’ 0.01 ‘*’ 0.05 ‘.’ 0.1 ‘ ’ 1"


def print_matrix(row_names, col_names, cells, gap=1):
    """Lines of a character matrix as R's ``print.default(quote = FALSE, right = TRUE)``:
    row names left-aligned, cells and headers right-aligned."""
    rw = max(display_width(r) for r in row_names)
    widths = [max([display_width(h)] + [display_width(row[c]) for row in cells])
              for c, h in enumerate(col_names)]
    sp = " " * gap
    lines = [" " * rw + "".join(sp + _pad_left(h, w) for h, w in zip(col_names, widths))]
    for r, row in zip(row_names, cells):
        lines.append(_pad_right(r, rw) + "".join(sp + _pad_left(s, w)
                                                 for s, w in zip(row, widths)))
    return lines


def coef_table_lines(names, est, se, z, p, digits=4):
    """The coefficient table of ``print.summary.glm`` (R's ``printCoefmat``); NaN rows
    (aliased coefficients) print as NA."""
    est, se, z, p = (np.asarray(a, dtype=np.float64) for a in (est, se, z, p))
    ok = np.isfinite(est)
    k = len(names)
    cells = [["NA"] * 4 for _ in range(k)]
    acs = np.abs(np.concatenate([est[ok], se[ok]]))
    acs = acs[np.isfinite(acs) & (acs != 0)]
    if ok.any():
        digmin = 1 + (np.floor(np.log10([acs.min(), acs.max()])) if acs.size
                      else np.zeros(2))
        dec = int(max(1, *(digits - digmin)))
        both = format_real(np.round(np.concatenate([est[ok], se[ok]]), dec), digits)
        n_ok = int(ok.sum())
        zs = format_real(np.round(z[ok], max(1, min(5, digits - 1))), digits)
        ps = format_pval(p[ok], digits=max(1, min(5, digits - 1)))
        for r, i in enumerate(np.flatnonzero(ok)):
            cells[i] = [both[r], both[n_ok + r], zs[r], ps[r]]
    header = ["Estimate", "Std. Error", "z value", "Pr(>|z|)"]
    stars = ok.any() and bool((p[ok] < 0.1).any())
    if stars:
        sym = [signif_stars(v) if np.isfinite(v) else "" for v in p]
        w = max(len(s) for s in sym)
        for row, s in zip(cells, sym):
            row.append(s.ljust(w))
        header = header + [""]
    lines = print_matrix(list(names), header, cells)
    if stars:
        lines += ["---", SIGNIF_LEGEND]
    return lines


def deviance_residual_lines(resid, df_residual, digits=4):
    """The 'Deviance Residuals' block: their quantiles (R's type 7) when there are more
    than 5 residual degrees of freedom, else every residual."""
    resid = np.asarray(resid, dtype=np.float64)
    if df_residual > 5:
        names = ["Min", "1Q", "Median", "3Q", "Max"]
        vals = np.quantile(resid, [0.0, 0.25, 0.5, 0.75, 1.0])
    else:
        names = [str(i + 1) for i in range(resid.size)]
        vals = resid
    cells = format_real(zapsmall(vals, digits + 1), digits)
    widths = [max(display_width(n), display_width(c)) for n, c in zip(names, cells)]
    return ["".join(_pad_left(n, w) + "  " for n, w in zip(names, widths)),
            "".join(_pad_left(c, w) + "  " for c, w in zip(cells, widths))]


def deviance_lines(null_dev, dev, df_null, df_res, digits=4):
    nums = format_real([null_dev, dev], max(5, digits + 1))
    dfs = _common_width([str(int(df_null)), str(int(df_res))])
    return [f"{label} deviance: {num}  on {df}  degrees of freedom"
            for label, num, df in zip(["    Null", "Residual"], nums, dfs)]


def aic_text(aic, digits=4):
    return format_real([aic], max(4, digits + 1))[0].strip()
