"""The package's version, in a module of its own: the modules that write it into files
read it here rather than from the package, which imports them."""

__version__ = "0.1.0"
