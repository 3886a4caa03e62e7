"""Reading data files for the command line: CSV/TSV, Excel, Parquet and Weka ARFF.

Every failure raises :class:`DataError` with a one-line message naming the file (and the
line, column or byte where there is one); the command line turns it into exit status 2.
The readers of the ``cli`` extra (charset-normalizer, openpyxl, pyarrow, liac-arff) are
imported only when a file needs them.
"""

import codecs
import csv
import io
import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

INSTALL_HINT = 'pip install "quercus[cli]"'

#: File name endings and the reader each one takes.
FORMATS = {
    ".csv": "csv", ".tsv": "csv", ".tab": "csv", ".txt": "csv", ".data": "csv",
    ".xlsx": "excel", ".xlsm": "excel",
    ".parquet": "parquet", ".pq": "parquet",
    ".arff": "arff",
}
# Compressed text: pandas would read it, but encoding detection needs the bytes.
_COMPRESSED = (".gz", ".bz2", ".xz", ".zip", ".zst")
# Cells read as missing besides pandas' defaults (empty, NA, NaN, null, ...): Weka's "?".
NA_VALUES = ["?"]
_DELIMITERS = ",\t;|"
_SNIFF_LINES = 50
_DETECT_BYTES = 1 << 20  # charset detection looks at the first megabyte


class DataError(Exception):
    """A data file that cannot be read: bad usage or bad data (exit status 2)."""


@dataclass
class Loaded:
    """A data file read into a DataFrame, and how it was read (for ``--verbose``)."""

    frame: pd.DataFrame
    path: str
    format: str
    encoding: str | None = None
    delimiter: str | None = None
    notes: list = field(default_factory=list)

    def describe(self):
        """One line: the format, and the encoding and delimiter of a text file.

        Examples
        --------
        >>> import pandas as pd
        >>> Loaded(pd.DataFrame(), "a.csv", "csv", "utf-8", ",").describe()
        "a.csv: csv, encoding utf-8, delimiter ','"
        """
        out = f"{self.path}: {self.format}"
        if self.encoding:
            out += f", encoding {self.encoding}"
        if self.delimiter:
            out += f", delimiter {self.delimiter!r}"
        return out


def data_format(path):
    """The reader a file name asks for: ``"csv"``, ``"excel"``, ``"parquet"`` or ``"arff"``.

    Examples
    --------
    >>> data_format("melons.TSV"), data_format("soybean.arff")
    ('csv', 'arff')
    """
    name = os.path.basename(str(path)).lower()
    for ending in _COMPRESSED:
        if name.endswith(ending):
            raise DataError(f"{path}: compressed files are not read; decompress it first")
    ext = os.path.splitext(name)[1]
    if ext == ".xls":
        raise DataError(f"{path}: the old Excel format (.xls) is not read; save it as .xlsx "
                        "or CSV")
    if ext not in FORMATS:
        # A file without a known ending is read as delimited text, the common case.
        return "csv"
    return FORMATS[ext]


def read_table(path, *, encoding=None, delimiter=None, sheet=None):
    """Read a data file into a DataFrame, choosing the reader by the file's ending.

    CSV and other delimited text (.csv, .tsv, .txt, .data, or no known ending): the encoding
    is UTF-8 (with or without a byte order mark) when the bytes decode so, else detected
    (GBK/GB18030 and others) with charset-normalizer, unless ``encoding`` is given; the
    delimiter is sniffed among ``, TAB ; |`` unless given. Empty cells, ``?`` and pandas'
    usual markers (NA, NaN, null, ...) are missing. Excel (.xlsx) needs openpyxl, Parquet
    pyarrow, ARFF liac-arff: the ``cli`` extra. ARFF nominal attributes become pandas
    categoricals with the declared order.

    Parameters
    ----------
    path : str or path-like
    encoding : str, optional
        Text encoding of a CSV or ARFF file (Python's codec names: ``gbk``, ``latin-1``...).
    delimiter : str, optional
        Field delimiter of a CSV file; ``"tab"`` or ``"\\t"`` for a tab.
    sheet : str or int, optional
        Excel sheet name or 0-based position; default the first sheet.

    Returns
    -------
    Loaded

    Raises
    ------
    DataError
        The file is missing, empty, undecodable, malformed, or needs a reader that is not
        installed; the message names the file and, where known, the line.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
    >>> _ = open(path, "wb").write("色泽;密度\\n青绿;0.697\\n乌黑;\\n".encode("gbk"))
    >>> t = read_table(path)
    >>> t.encoding, t.delimiter, t.frame["密度"].isna().tolist()
    ('gb18030', ';', [False, True])
    """
    path = os.fspath(path)
    fmt = data_format(path)
    if not os.path.exists(path):
        raise DataError(f"{path}: no such file")
    if os.path.isdir(path):
        raise DataError(f"{path}: is a directory, not a data file")
    if fmt == "csv":
        loaded = _read_csv(path, encoding, delimiter)
    elif fmt == "arff":
        loaded = _read_arff(path, encoding)
    elif fmt == "excel":
        loaded = _read_excel(path, sheet)
    else:
        loaded = _read_parquet(path)
    df = loaded.frame
    if df.shape[1] == 0:
        raise DataError(f"{path}: no columns")
    if df.shape[0] == 0:
        raise DataError(f"{path}: no data rows (only a header)")
    names = [str(c) for c in df.columns]
    seen = set()
    for name in names:
        if name in seen:
            raise DataError(f"{path}: column {name!r} appears twice in the header")
        seen.add(name)
    df.columns = names
    return loaded


# ---------------------------------------------------------------- text
def _line_of(raw, pos):
    return raw.count(b"\n", 0, pos) + 1


def decode_bytes(raw, path, encoding=None):
    """Decode a text file's bytes: the given encoding, else UTF-8, else detected.

    Returns ``(text, encoding name)``. Among charset-normalizer's candidates the least
    chaotic wins, ties going to GB18030; GBK and GB2312 are read as GB18030, the superset,
    so that a rare character does not fail the whole file.

    Examples
    --------
    >>> decode_bytes("编号\\n1\\n".encode("gbk"), "x.csv")
    ('编号\\n1\\n', 'gb18030')
    >>> decode_bytes(b"\\xef\\xbb\\xbfa\\n", "x.csv")
    ('a\\n', 'utf-8-sig')
    """
    if encoding:
        try:
            codecs.lookup(encoding)
        except LookupError:
            raise DataError(f"--encoding {encoding!r}: unknown encoding (Python codec names: "
                            "utf-8, gbk, gb18030, latin-1, ...)") from None
        return _decode(raw, path, encoding), encoding
    if raw.startswith(codecs.BOM_UTF8):
        return _decode(raw[len(codecs.BOM_UTF8):], path, "utf-8"), "utf-8-sig"
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return _decode(raw, path, "utf-16"), "utf-16"
    try:
        return raw.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        import charset_normalizer
    except ImportError:
        raise DataError(f"{path}: the file is not UTF-8; pass --encoding (for example gbk), "
                        f"or {INSTALL_HINT} to detect it") from None
    sample = raw[:_DETECT_BYTES]
    if len(raw) > _DETECT_BYTES and b"\n" in sample:
        sample = sample[:sample.rindex(b"\n") + 1]  # whole lines: no character cut in two
    name = _guess(charset_normalizer.from_bytes(sample))
    if name is None:
        raise DataError(f"{path}: cannot tell the text encoding (binary data?); pass "
                        "--encoding")
    return _decode(raw, path, name), name


def _guess(matches):
    """The encoding among charset-normalizer's candidates: the least chaotic, ties going
    to GB18030 (a few words of Chinese are also valid Big5, Korean or Japanese bytes, and
    GBK is what a Chinese spreadsheet saves). UTF-16/32 without a byte order mark is left
    out: short single-byte text passes for it, and such a data file is rare."""
    candidates = []
    for m in matches:
        name = codecs.lookup(m.encoding).name
        if name.startswith(("utf-16", "utf-32")):
            continue
        if name in ("gbk", "gb2312"):
            name = "gb18030"
        candidates.append((m.chaos, name != "gb18030", len(candidates), name))
    return min(candidates)[3] if candidates else None


def _decode(raw, path, encoding):
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not valid {encoding} at line {_line_of(raw, exc.start)} "
                        f"(byte {exc.start}); pass --encoding") from None


def sniff_delimiter(text):
    """The field delimiter among ``, TAB ; |`` that splits the first lines most evenly.

    A delimiter that gives every sampled line the same number of fields (more than one) wins,
    the one giving the most fields first; quoted fields are respected. Comma when nothing
    splits.

    Examples
    --------
    >>> sniff_delimiter("a;b;c\\n1;2,5;3\\n")
    ';'
    >>> sniff_delimiter("only\\none column\\n")
    ','
    """
    lines = [ln for ln in text.splitlines()[:_SNIFF_LINES] if ln.strip()]
    best, best_key = ",", None
    for d in _DELIMITERS:
        try:
            counts = [len(r) for r in csv.reader(lines, delimiter=d)]
        except csv.Error:
            continue
        if not counts or max(counts) < 2:
            continue
        consistent = len(set(counts)) == 1
        key = (consistent, int(np.median(counts)))
        if best_key is None or key > best_key:
            best, best_key = d, key
    return best


def _read_csv(path, encoding, delimiter):
    with open(path, "rb") as fh:
        raw = fh.read()
    if not raw.strip():
        raise DataError(f"{path}: the file is empty")
    text, enc = decode_bytes(raw, path, encoding)
    del raw
    if delimiter is not None:
        delimiter = {"tab": "\t", "\\t": "\t"}.get(delimiter.lower(), delimiter)
        if len(delimiter) != 1:
            raise DataError(f"--delimiter {delimiter!r}: must be one character (or 'tab')")
    elif os.path.splitext(path)[1].lower() in (".tsv", ".tab"):
        delimiter = "\t"
    else:
        delimiter = sniff_delimiter(text[:1 << 16])
    try:
        df = pd.read_csv(io.StringIO(text), sep=delimiter, na_values=NA_VALUES,
                         skipinitialspace=True)
    except pd.errors.EmptyDataError:
        raise DataError(f"{path}: the file is empty") from None
    except (pd.errors.ParserError, ValueError) as exc:
        msg = str(exc).strip().splitlines()[-1]
        raise DataError(f"{path}: {msg}") from None
    header = next(csv.reader([text.split("\n", 1)[0].lstrip("\ufeff")],
                             delimiter=delimiter, skipinitialspace=True), [])
    _check_header(path, header)
    return Loaded(df, path, "csv", enc, delimiter)


def _check_header(path, header):
    # pandas renames a repeated column 'a' to 'a.1'; a model must not learn from that.
    seen = set()
    for name in header:
        name = name.strip()
        if name in seen:
            raise DataError(f"{path}: column {name!r} appears twice in the header")
        if name:
            seen.add(name)


# ---------------------------------------------------------------- ARFF
def _read_arff(path, encoding):
    try:
        import arff
    except ImportError:
        raise DataError(f"{path}: reading ARFF needs liac-arff: {INSTALL_HINT}") from None
    with open(path, "rb") as fh:
        raw = fh.read()
    if not raw.strip():
        raise DataError(f"{path}: the file is empty")
    text, enc = decode_bytes(raw, path, encoding)
    try:
        data = arff.loads(text)
    except arff.ArffException as exc:
        raise DataError(f"{path}: {exc}") from None
    columns = {}
    for j, (name, kind) in enumerate(data["attributes"]):
        values = [row[j] for row in data["data"]]
        if isinstance(kind, (list, tuple)):
            # Nominal: a categorical with the declared order, as Weka keeps it.
            columns[name] = pd.Categorical(values, categories=list(kind))
        elif str(kind).upper() in ("NUMERIC", "REAL", "INTEGER"):
            columns[name] = pd.array([np.nan if v is None else float(v) for v in values],
                                     dtype="float64")
        else:
            columns[name] = pd.Series(values, dtype=object)
    df = pd.DataFrame(columns)
    return Loaded(df, path, "arff", enc)


# ---------------------------------------------------------------- Excel, Parquet
def _read_excel(path, sheet):
    try:
        import openpyxl  # noqa: F401
    except ImportError:
        raise DataError(f"{path}: reading .xlsx needs openpyxl: {INSTALL_HINT}") from None
    if isinstance(sheet, str) and sheet.isdigit():
        sheet = int(sheet)
    try:
        df = pd.read_excel(path, sheet_name=0 if sheet is None else sheet, engine="openpyxl",
                           na_values=NA_VALUES)
    except ValueError as exc:  # an unknown sheet
        raise DataError(f"{path}: {exc}") from None
    except Exception as exc:  # openpyxl's errors for a file that is not a workbook vary
        raise DataError(f"{path}: not a readable .xlsx workbook ({type(exc).__name__}: "
                        f"{exc})") from None
    return Loaded(df, path, "excel")


def _read_parquet(path):
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise DataError(f"{path}: reading Parquet needs pyarrow: {INSTALL_HINT}") from None
    try:
        df = pd.read_parquet(path)
    except Exception as exc:  # pyarrow's errors for a file that is not Parquet vary
        raise DataError(f"{path}: not a readable Parquet file ({type(exc).__name__}: "
                        f"{exc})") from None
    return Loaded(df, path, "parquet")
