"""The memory a fit's own arrays take at its peak, as Python's ``tracemalloc`` traces it:
numpy's and Python's allocations, including those numba's kernels make through numpy's
allocator, but not the C allocator's free lists nor a thread's stack. Unlike the peak RSS
that ``benchmarks.ab`` reports, it does not move with glibc's mmap threshold, so it tells
whether a change made quercus's own arrays bigger.

    python -m benchmarks.traced_peak synth_cat_100k cart-exact cart-hist --reps 8
    PYTHONPATH=/path/to/checkout python benchmarks/traced_peak.py ...   # another build

A data set and learners of the suite (``benchmarks/suite.py``: its training rows, its
estimator settings). One untimed fit first (kernels compiled or loaded), then ``--reps``
fits, each traced on its own; prints each fit's peak above the traced memory before it, in
MB (2**20 bytes), and their median. With one thread the figure is exact to the byte from
run to run; with several, subtrees grown side by side make it move by a few tenths of a MB,
so compare medians of several fits. Run with ``QUERCUS_JIT=compile``: a small fit's kernels
otherwise run as Python at first.
"""

import argparse
import gc
import statistics
import sys
import tracemalloc
from pathlib import Path

if __package__ in (None, ""):  # run as a file: the checkout's benchmarks and quercus
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def traced_peaks(fit, reps):
    """The traced peak (MB above the traced memory before it) of each of ``reps`` calls
    of ``fit()``.

    Examples
    --------
    >>> import numpy as np
    >>> peaks = traced_peaks(lambda: np.ones(2**20).sum(), 2)   # an 8 MB array, freed
    >>> [round(p) for p in peaks]
    [8, 8]
    """
    peaks = []
    for _ in range(reps):
        gc.collect()
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            fit()
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        peaks.append((peak - before) / 2**20)
    return peaks


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", help="a data set of benchmarks/suite.py")
    parser.add_argument("learners", nargs="+", help="learner keys of the suite "
                        "(cart-exact, cart-hist, c45, ccp)")
    parser.add_argument("--reps", type=int, default=8)
    parser.add_argument("--n-jobs", type=int, default=None,
                        help="the estimators' n_jobs (default: the suite's)")
    args = parser.parse_args(argv)
    import numpy as np
    from sklearn.base import clone

    import quercus
    from benchmarks import suite
    ds = suite.BY_NAME.get(args.dataset)
    if ds is None:
        raise SystemExit(f"{args.dataset!r}: no such data set in benchmarks/suite.py")
    X, X_test, y, y_test = suite.split(ds)
    n_classes = 0 if ds.task == suite.REG else len(np.unique(np.concatenate([y, y_test])))
    print(f"quercus {quercus.__version__} from {Path(quercus.__file__).parent}; "
          f"{args.dataset}: {X.shape[0]:,} training rows x {X.shape[1]}")
    for key in args.learners:
        est, settings = suite.quercus_estimator(key, ds.task, len(y), n_classes,
                                                suite.categorical(X))
        if args.n_jobs is not None:
            est.set_params(n_jobs=args.n_jobs)
        clone(est).fit(X, y)  # (kernels compiled or loaded)
        peaks = traced_peaks(lambda: clone(est).fit(X, y), args.reps)
        print(f"{key}: {settings}\n  traced peak MB: "
              + " ".join(f"{p:.3f}" for p in peaks)
              + f"; median {statistics.median(peaks):.3f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
