"""Finding an installed font that has glyphs for Chinese (and other CJK) labels.

Matplotlib's default font, DejaVu Sans, has no Han characters, so ``纹理`` would be drawn
as empty boxes. The drawing exporters ask :func:`cjk_font_family` for a family that covers
their labels and pass it per text object (and as Graphviz's ``fontname``); the user's global
matplotlib settings are never changed.

Examples
--------
>>> from quercus.export._fonts import needs_cjk
>>> needs_cjk(["密度 <= 0.381"]), needs_cjk(["petal length <= 2.45"])
(True, False)
"""

import functools
import shutil
import subprocess
import warnings

# Families tried first, most common across Linux, macOS and Windows.
PREFERRED = (
    "Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "Source Han Sans CN",
    "Noto Sans CJK JP", "Noto Sans CJK TC", "WenQuanYi Zen Hei", "WenQuanYi Micro Hei",
    "Microsoft YaHei", "SimHei", "PingFang SC", "Hiragino Sans GB", "Heiti SC", "STHeiti",
    "Arial Unicode MS", "Noto Serif CJK SC", "AR PL UMing CN", "AR PL UKai CN", "SimSun",
)

INSTALL_HINT = ("install a CJK font, e.g. `apt-get install fonts-noto-cjk` on Debian/Ubuntu, "
                "`dnf install google-noto-sans-cjk-fonts` on Fedora, or Noto Sans CJK from "
                "https://github.com/notofonts/noto-cjk, or pass font=<family>")


class MissingFontWarning(UserWarning):
    """No installed font has glyphs for some labels; they would be drawn as boxes."""


# East Asian scripts and full-width forms: the characters Latin fonts lack.
_CJK_RANGES = (
    (0x1100, 0x11FF), (0x2E80, 0x2FDF), (0x3000, 0x30FF), (0x3100, 0x31FF),
    (0x3200, 0x4DBF), (0x4E00, 0x9FFF), (0xA960, 0xA97F), (0xAC00, 0xD7FF),
    (0xF900, 0xFAFF), (0xFE30, 0xFE4F), (0xFF00, 0xFFEF), (0x20000, 0x3134F),
)


def _is_cjk(ch):
    o = ord(ch)
    return any(lo <= o <= hi for lo, hi in _CJK_RANGES)


def _chars(texts):
    if isinstance(texts, str):
        texts = [texts]
    return {ch for t in texts for ch in str(t)}


def needs_cjk(texts):
    """Whether any of ``texts`` holds a Chinese, Japanese or Korean character.

    Parameters
    ----------
    texts : str or iterable of objects (converted with ``str``)

    Returns
    -------
    bool

    Examples
    --------
    >>> from quercus.export._fonts import needs_cjk
    >>> needs_cjk("色泽"), needs_cjk(["x", 1.5])
    (True, False)
    """
    return any(_is_cjk(ch) for ch in _chars(texts))


@functools.lru_cache(maxsize=None)
def _charmap(path):
    from matplotlib import ft2font
    try:
        return frozenset(ft2font.FT2Font(path).get_charmap())
    except Exception:  # an unreadable font file is simply not a candidate
        return frozenset()


def _matplotlib_fonts():
    """(family, path) of every font matplotlib knows, preferred families first."""
    from matplotlib import font_manager
    entries = [(f.name, f.fname) for f in font_manager.fontManager.ttflist]
    rank = {name: i for i, name in enumerate(PREFERRED)}
    # Known CJK families first; then anything whose name hints at CJK; then the rest.
    def key(e):
        name = e[0]
        hint = any(s in name for s in ("CJK", "Han", "Hei", "Song", "Ming", "Kai", "Gothic"))
        return (rank.get(name, len(PREFERRED)), not hint, name)
    return sorted(entries, key=key)


def _fc_families(chars):
    """Without matplotlib: fontconfig's families covering ``chars`` (or [])."""
    if not shutil.which("fc-list"):
        return []
    charset = " ".join(f"{ord(c):x}" for c in sorted(chars))
    try:
        out = subprocess.run(["fc-list", f":charset={charset}", "family"], capture_output=True,
                             text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    fams = {f.strip() for line in out.splitlines() for f in line.split(",") if f.strip()}
    return sorted(fams, key=lambda n: (PREFERRED.index(n) if n in PREFERRED else 99, n))


@functools.lru_cache(maxsize=256)
def _find_family(chars):
    try:
        entries = _matplotlib_fonts()
    except ImportError:
        fams = _fc_families(chars)
        return fams[0] if fams else None
    codes = {ord(c) for c in chars}
    for name, path in entries:
        if codes <= _charmap(path):
            return name
    return None


def cjk_font_family(texts=None, font=None):
    """The installed font family that has glyphs for every CJK character of ``texts``.

    Parameters
    ----------
    texts : str or iterable, optional
        The labels to draw. If none of them needs a CJK font the answer is None (keep the
        default font). Without ``texts``, any family with common Chinese characters.
    font : str, optional
        A family chosen by the user: returned unchanged.

    Returns
    -------
    str or None
        The family name, or None. When labels need a CJK font and none is installed, one
        :class:`MissingFontWarning` names the package to install.

    Examples
    --------
    >>> from quercus.export._fonts import cjk_font_family
    >>> cjk_font_family(["age <= 30"]) is None
    True
    >>> cjk_font_family(["x"], font="DejaVu Sans")
    'DejaVu Sans'
    """
    if font is not None:
        return font
    if texts is None:
        texts = ["中文字体"]
    chars = frozenset(ch for ch in _chars(texts) if _is_cjk(ch))
    if not chars:
        return None
    family = _find_family(chars)
    if family is None:
        sample = "".join(sorted(chars)[:8])
        warnings.warn(f"No installed font has glyphs for the labels' characters ({sample}...), "
                      f"so they would be drawn as empty boxes: {INSTALL_HINT}.",
                      MissingFontWarning, stacklevel=3)
    return family
