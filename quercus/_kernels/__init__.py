"""Compiled kernels (numba only). Pure functions of arrays and scalars; callers validate."""
