"""``python -m benchmarks``: the performance suite (``benchmarks/suite.py``; see its
``--help`` and docs/benchmarks.md)."""
import sys

from benchmarks.suite import main

# The guard matters: the suite's spawn processes import this module as __mp_main__.
if __name__ == "__main__":
    sys.exit(main())
