"""Readable renderings of a fitted tree."""

from .code import export_code
from .dict import export_dict
from .graphviz import export_graphviz
from .html import export_html
from .plot import plot_tree
from .rules import export_rules
from .text import export_text

__all__ = ["export_text", "export_dict", "export_code", "export_rules", "export_html", "export_graphviz", "plot_tree"]
