"""The ``quercus`` command line (``demo`` and ``warmup`` for now)."""

import argparse
import os
import sys

# The exit status of a command whose reader went away: 128 + SIGPIPE, as a shell reports a
# program that signal ended.
EXIT_BROKEN_PIPE = 141


def _demo(args):
    import pandas as pd

    from . import C45Classifier, CARTClassifier, ID3Classifier, export_text
    from .datasets import load_watermelon

    X, y = load_watermelon("2.0")
    print("quercus demo: watermelon 2.0 (《机器学习》 table 4.1), 17 melons, target 好瓜\n")
    id3 = ID3Classifier().fit(X, y)
    table = id3.explain(0)
    print(f"Root node: Ent(D) = {table.attrs['entropy']:.3f}, Gini(D) = "
          f"{table.attrs['gini']:.3f}. Every candidate split:\n")
    cols = ["split", "entropy", "gain", "intrinsic_value", "gain_ratio", "gini_index", "chosen"]
    with pd.option_context("display.width", 200, "display.unicode.east_asian_width", True):
        print(table[cols].round(3).to_string(index=False))
    for name, est in (("ID3 (information gain, multiway)", id3),
                      ("C4.5 (gain ratio among above-average gains; unpruned, as in the book)",
                       C45Classifier(pruning=None).fit(X, y)),
                      ("C4.5 with its default pessimistic pruning (as Weka's J48)",
                       C45Classifier().fit(X, y)),
                      ("CART (Gini, binary a == v / a != v)", CARTClassifier().fit(X, y))):
        print(f"\n{name}: {est.get_n_leaves()} leaves, depth {est.get_depth()}\n")
        print(export_text(est))
    return 0


def _warmup(args):
    """Compile every kernel once so later processes load them from numba's disk cache."""
    import time

    import numpy as np

    from . import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier
    from .datasets import load_golf, load_watermelon

    t0 = time.perf_counter()
    for data in (load_watermelon("3.0"), load_golf()):
        for cls in (ID3Classifier, C45Classifier, CARTClassifier):
            est = cls().fit(*data)
            est.predict(data[0])
            est.decision_path(data[0])
            est.explain(0)
            cls(splitter="random", random_state=0).fit(*data)
    # Large enough for the parallel kernels, the histograms and the wider codes.
    X = np.random.default_rng(0).normal(size=(6000, 40))
    for max_bins in (255, None):
        CARTClassifier(max_bins=max_bins).fit(X, X[:, 0] > 0).predict(X)
        CARTRegressor(max_bins=max_bins).fit(X, X[:, 1]).predict(X)
        # The subtree kernel (no surrogates), presorted in exact mode; column-ordered
        # prediction; C4.5's pruning and the cost-complexity sequence.
        CARTClassifier(max_bins=max_bins, max_surrogate=0).fit(X, X[:, 0] > 0).predict(
            np.asfortranarray(X))
        CARTRegressor(max_bins=max_bins, max_surrogate=0).fit(X, X[:, 1])
        c45 = C45Classifier(max_bins=max_bins).fit(X, X[:, 0] > 0)
        # C4.5's prediction, which may spread a row over branches: another set of kernels.
        c45.predict(X)
        c45.predict(np.asfortranarray(X))
    CARTClassifier(max_surrogate=0, pruning="cost_complexity", cv=3).fit(X[:2000],
                                                                         X[:2000, 0] > 0)
    # The streamed split search of big exact nodes, made to run here by narrow slices, and
    # the parallel coding of quantile bins cut from a sample of a long column (above
    # 200,000 rows), made to run by a small sample.
    from . import _binning, _grower
    wide, sample = _grower.STREAM_BYTES, _binning._EDGE_SAMPLE
    try:
        _grower.STREAM_BYTES = 1 << 14
        CARTClassifier(max_bins=None).fit(X, X[:, 0] > 0)
        _binning._EDGE_SAMPLE = 1000
        long = np.random.default_rng(1).normal(size=(2 * _binning._ROWS, 2))
        for order in ("C", "F"):
            CARTClassifier(max_depth=1).fit(np.asarray(long, order=order), long[:, 0] > 0)
    finally:
        _grower.STREAM_BYTES, _binning._EDGE_SAMPLE = wide, sample
    print(f"quercus kernels ready ({time.perf_counter() - t0:.1f} s)")
    return 0


def main(argv=None):
    """Entry point of the ``quercus`` command.

    Examples
    --------
    >>> from quercus.cli import main
    >>> main(["warmup"])  # doctest: +ELLIPSIS
    quercus kernels ready (...)
    0
    """
    parser = argparse.ArgumentParser(prog="quercus", description="Decision trees, exact to "
                                     "the textbook: ID3, C4.5 and CART.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("demo", help="the watermelon 2.0 split table and the ID3, C4.5 and CART trees")
    sub.add_parser("warmup", help="compile the numba kernels into the on-disk cache")
    args = parser.parse_args(argv)
    try:
        status = {"demo": _demo, "warmup": _warmup}[args.command](args)
        sys.stdout.flush()  # (a reader gone shows here, not at the interpreter's exit)
    except BrokenPipeError:
        # ``quercus demo | head``: stop quietly, as shell tools do. stdout goes to devnull
        # so that the interpreter's last flush does not fail again with a traceback.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    return status


if __name__ == "__main__":
    sys.exit(main())
