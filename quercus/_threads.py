"""Feature-parallel calls of the serial kernels on Python threads.

The split and surrogate searches work one feature at a time and release the GIL, so the
features of a big node are shared out to threads here rather than in a ``parallel=True``
kernel: numba compiles a parallel kernel's loop body a second time (as a gufunc), which
made a first fit's compile much longer. Each feature's result comes from the same serial
code whichever thread runs it, so the merged result does not depend on the number of
threads.
"""

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

_lock = threading.Lock()
_pool = None
_pool_size = 0


def _executor(workers):
    """A process-wide pool of at least ``workers`` threads, created on first use."""
    global _pool, _pool_size
    with _lock:
        if _pool is None or _pool_size < workers:
            if _pool is not None:
                _pool.shutdown(wait=False)
            _pool = ThreadPoolExecutor(workers, thread_name_prefix="quercus")
            _pool_size = workers
        return _pool


def _forget_pool():
    # A forked child has none of the parent's threads: a pool copied into it would never
    # run a task.
    global _pool, _pool_size
    _pool, _pool_size = None, 0


os.register_at_fork(after_in_child=_forget_pool)


def over_features(run, n, threads):
    """Run ``run(positions)`` on ``threads`` interleaved chunks of ``range(n)`` at once
    (one chunk in the calling thread) and merge each output array back into position
    order. ``run`` returns a tuple of arrays whose first axis follows ``positions``, or
    None (it wrote its results in place): then so does this.

    Examples
    --------
    >>> import numpy as np
    >>> square = lambda pos: (pos * pos, pos.astype(float))
    >>> over_features(square, 5, 2)[0].tolist()
    [0, 1, 4, 9, 16]
    """
    chunks = [np.arange(j, n, threads, dtype=np.int64) for j in range(min(threads, n))]
    if len(chunks) <= 1:
        return run(np.arange(n, dtype=np.int64))
    pool = _executor(len(chunks) - 1)
    futures = [pool.submit(run, c) for c in chunks[1:]]
    parts = [run(chunks[0])] + [f.result() for f in futures]
    if parts[0] is None:
        return None
    merged = []
    for k, first in enumerate(parts[0]):
        out = np.empty((n,) + first.shape[1:], dtype=first.dtype)
        for c, part in zip(chunks, parts):
            out[c] = part[k]
        merged.append(out)
    return tuple(merged)


def in_order(run, n, threads):
    """Yield ``run(i)`` for ``i`` in ``range(n)``, in that order, computed on the calling
    thread and ``threads - 1`` workers of the shared pool, each taking the next ``i`` as it
    gets free. The calling thread takes part (and the pool's threads are reused) so that
    memory the allocator keeps for these threads from earlier work serves this work too.

    Examples
    --------
    >>> list(in_order(lambda i: i * i, 5, 2))
    [0, 1, 4, 9, 16]
    """
    if threads <= 1 or n <= 1:
        for i in range(n):
            yield run(i)
        return
    cond = threading.Condition()
    state = {"next": 0}
    results = {}

    def take():
        with cond:
            i = state["next"]
            state["next"] += 1
            return i

    def work(i):
        try:
            r = (True, run(i))
        except BaseException as exc:  # handed to the caller in order
            r = (False, exc)
        with cond:
            results[i] = r
            cond.notify_all()

    def worker():
        while (i := take()) < n:
            work(i)

    pool = _executor(threads - 1)
    futures = [pool.submit(worker) for _ in range(threads - 1)]
    try:
        for out in range(n):
            while True:
                with cond:
                    if out in results:
                        ok, r = results.pop(out)
                        break
                i = take()
                if i < n:
                    work(i)
                    continue
                with cond:
                    while out not in results:
                        cond.wait()
            if not ok:
                raise r
            yield r
    finally:
        with cond:  # no new item starts; the ones running finish
            state["next"] = n
        for f in futures:
            f.result()
