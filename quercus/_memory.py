"""Fail early, with an estimate, when a fit cannot fit in memory (instead of being killed)."""

import os

from ._prepare import is_float_matrix

# Bytes per sample outside the (n, p) matrices: targets, weights, the root's index and
# weight lists, and the children's lists and branch codes while a node is split.
PER_SAMPLE_BYTES = 96


def available_bytes():
    """Memory the system can still give this process, or None where it cannot tell."""
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def fit_bytes(X, max_bins, lazy=False):
    """Estimated peak bytes of fitting ``X`` (beyond X itself), by part; ``lazy``: the fit
    may read long continuous columns' values from a float64 X instead of keeping tables."""
    n, p = X.shape
    is_float = is_float_matrix(X)
    return {
        "encoded copy of X (float64)": 0 if is_float else 8 * n * p,
        "bin codes": (1 if max_bins is not None and max_bins <= 255 else 4) * n * p,
        # exact bins keep every distinct value (at most one per cell), unless read from X
        "bin values": 8 * n * p if max_bins is None and not (lazy and is_float) else 0,
        "per-sample work arrays": PER_SAMPLE_BYTES * n,
    }


def check_fit_memory(X, max_bins, lazy=False):
    """Raise MemoryError, naming the estimate, when fitting ``X`` needs more memory than
    is available.

    Examples
    --------
    >>> import numpy as np
    >>> check_fit_memory(np.zeros((100, 3)), 255)  # small: nothing to say
    """
    free = available_bytes()
    parts = fit_bytes(X, max_bins, lazy)
    need = sum(parts.values())
    if free is None or need <= free:
        return
    gib = 2.0 ** 30
    detail = ", ".join(f"{k} {v / gib:.1f} GiB" for k, v in parts.items() if v)
    raise MemoryError(
        f"Fitting X of shape {X.shape} needs about {need / gib:.1f} GiB ({detail}), more "
        f"than the {free / gib:.1f} GiB available: fit on fewer rows or columns, pass X as "
        f"a float64 array (read without a copy), or keep max_bins <= 255 (1-byte codes).")
