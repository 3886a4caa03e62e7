"""Readable renderings of a fitted tree."""

from .dict import export_dict
from .text import export_text

__all__ = ["export_text", "export_dict"]
