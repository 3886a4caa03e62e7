"""Fail early, with an estimate, when a fit cannot fit in memory (instead of being killed)."""

import contextlib
import ctypes
import ctypes.util
import os

import numpy as np

from ._prepare import _BIN_CHUNK_CELLS, is_float_matrix

# Bytes per sample outside the (n, p) matrices: targets, weights, the root's index and
# weight lists, and the children's lists and branch codes while a node is split.
PER_SAMPLE_BYTES = 96


def available_bytes():
    """Memory the system can still give this process, or None where it cannot tell."""
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def fit_bytes(X, max_bins, lazy=False, from_columns=False):
    """Estimated peak bytes of fitting ``X`` (beyond X itself), by part; ``lazy``: the fit
    may read long continuous columns' values from a float64 X instead of keeping tables;
    ``from_columns``: X is binned from its columns, a few numeric columns gathered as
    float64 at a time, instead of encoded whole.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.zeros((1_000_000, 10), dtype=np.float32)
    >>> fit_bytes(X, 255)["encoded copy of X (float64)"] // 2**20
    76
    >>> fit_bytes(X, 255, from_columns=True)["encoded copy of X (float64)"] // 2**20
    7
    >>> fit_bytes(X, None, lazy=True, from_columns=True)["bin values"]  # read from X
    0
    """
    is_float = is_float_matrix(X)
    reads_x = is_float or (from_columns and isinstance(X, np.ndarray)
                           and X.dtype == np.float32)
    return _fit_bytes(X.shape, max_bins, lazy, from_columns, is_float, reads_x)


def _fit_bytes(shape, max_bins, lazy, from_columns, is_float, reads_x):
    """:func:`fit_bytes` of X of ``shape``; ``is_float``: X is a float64 matrix, read
    without a copy; ``reads_x``: the fit may read values from X."""
    n, p = shape
    copied = min(p, max(1, _BIN_CHUNK_CELLS // max(n, 1))) if from_columns else p
    return {
        "encoded copy of X (float64)": 0 if is_float else 8 * n * copied,
        "bin codes": (1 if max_bins is not None and max_bins <= 255 else 4) * n * p,
        # exact bins keep every distinct value (at most one per cell), unless read from X
        # (a float64 matrix, or a float32 array binned from its columns)
        "bin values": 8 * n * p if max_bins is None and not (lazy and reads_x) else 0,
        "per-sample work arrays": PER_SAMPLE_BYTES * n,
    }


def check_fit_memory(X, max_bins, lazy=False, from_columns=False):
    """Raise MemoryError, naming the estimate (:func:`fit_bytes`), when fitting ``X``
    needs more memory than is available.

    Examples
    --------
    >>> import numpy as np
    >>> check_fit_memory(np.zeros((100, 3)), 255)  # small: nothing to say
    """
    free = available_bytes()
    if free is None:
        return
    # The estimate is at its largest for X read through a copy: when even that fits, X's
    # dtypes (a pandas Series to make, for a DataFrame) need not be read.
    if sum(_fit_bytes(X.shape, max_bins, lazy, from_columns, False, False).values()) <= free:
        return
    parts = fit_bytes(X, max_bins, lazy, from_columns)
    need = sum(parts.values())
    if need <= free:
        return
    gib = 2.0 ** 30
    detail = ", ".join(f"{k} {v / gib:.1f} GiB" for k, v in parts.items() if v)
    raise MemoryError(
        f"Fitting X of shape {X.shape} needs about {need / gib:.1f} GiB ({detail}), more "
        f"than the {free / gib:.1f} GiB available: fit on fewer rows or columns, pass X as "
        f"a float64 array (read without a copy), or keep max_bins <= 255 (1-byte codes).")


# Fits of at least this many cells hand the memory they freed back to the system before
# they grow the tree, before its subtrees and at the end (a call is cheap beside such a
# fit, not beside a small one).
TRIM_MIN_CELLS = 1_000_000
_libc = None


def _glibc():
    """The C library when it is glibc (it has ``malloc_trim``), else False."""
    global _libc
    if _libc is None:
        try:
            lib = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            _libc = lib if hasattr(lib, "malloc_trim") else False
        except OSError:
            _libc = False
    return _libc


def release_free_memory():
    """Return the memory the C allocator keeps after frees to the system (glibc's
    ``malloc_trim``; nothing elsewhere). Returns whether it could.

    A big fit frees much of its memory in blocks its threads' allocator arenas keep for
    reuse by the same threads; the next fit in the process, or the caller, would only get
    part of it back. (Dask's workers trim the same way.)

    Examples
    --------
    >>> release_free_memory() in (True, False)
    True
    """
    lib = _glibc()
    if not lib:
        return False
    lib.malloc_trim(0)
    return True


def release_if_big(cells):
    """:func:`release_free_memory` when ``cells`` (the fit's n x p) is at least
    ``TRIM_MIN_CELLS``; whether it released.

    Examples
    --------
    >>> release_if_big(10)
    False
    """
    return cells >= TRIM_MIN_CELLS and release_free_memory()


@contextlib.contextmanager
def trimmed_after(cells):
    """Run the block, then :func:`release_free_memory` when ``cells`` (the fit's n x p) is
    at least ``TRIM_MIN_CELLS``, however the block ends.

    Examples
    --------
    >>> with trimmed_after(10):
    ...     pass
    """
    try:
        yield
    finally:
        release_if_big(cells)
