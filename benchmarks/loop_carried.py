"""What a numba loop pays for a record of arrays that it may reassign: the design rule of
the subtree kernel's node record (docs/internals.md, "One builder").

    python -m benchmarks.loop_carried

Each variant makes 100 leaves' worth of two-child splits into a ``Nodes`` record of 203
slots (``init_nodes`` then ``write_split``, the subtree kernel's writes), 100 times, and
prints nanoseconds a split (the fastest of 5 repeats):

- ``argument``: the record is the function's argument, never reassigned;
- ``grown at each split``: ``nodes = with_room(...)`` then ``init_nodes`` at each split
  (the kernel before 764a96d, as ``new_nodes``), never growing here;
- ``grown if full, in the loop``: ``if full: nodes = with_room(...)`` in the same loop;
- ``grown before an inner loop``: an outer loop makes room, an inner loop splits while it
  lasts (the kernel since 764a96d);
- ``two tables``: two arrays in place of the record, grown if full in the loop (the
  kernel's int and float tables before 5773b21).
"""

import timeit

import numba
import numpy as np

from quercus._kernels.builder import init_nodes, leaf_nodes, with_room, write_split
from quercus._kernels.tables import grown

SLOTS = 203


@numba.njit
def _two_children(nodes, count):
    """The subtree kernel's writes of one split: node ``count - 1`` split into two new
    leaves at slots ``count`` and ``count + 1`` (compiled into each variant)."""
    init_nodes(nodes, count, 2, 3)
    write_split(nodes, count - 1, 1, 2, 0.5, -1, count, 2, 1.0, 1, 0, 0, 0, -1)


@numba.njit
def argument(nodes, m):
    for _ in range(m):
        count = 1
        while count < 200:
            _two_children(nodes, count)
            count += 2
    return nodes.kind.shape[0]


@numba.njit
def grown_at_each_split(nodes, m):
    for _ in range(m):
        count = 1
        while count < 200:
            nodes = with_room(nodes, count, 2)
            _two_children(nodes, count)
            count += 2
    return nodes.kind.shape[0]


@numba.njit
def grown_if_full_in_the_loop(nodes, m):
    for _ in range(m):
        count = 1
        while count < 200:
            if count + 2 > nodes.kind.shape[0]:
                nodes = with_room(nodes, count, 2)
            _two_children(nodes, count)
            count += 2
    return nodes.kind.shape[0]


@numba.njit
def grown_before_an_inner_loop(nodes, m):
    for _ in range(m):
        count = 1
        while count < 200:
            nodes = with_room(nodes, count, 2)
            while count < 200 and count + 2 <= nodes.kind.shape[0]:
                _two_children(nodes, count)
                count += 2
    return nodes.kind.shape[0]


@numba.njit
def two_tables(ints, flts, m):
    for _ in range(m):
        count = 1
        while count < 200:
            if count + 2 > ints.shape[0]:
                ints, flts = grown(ints, count + 2, count), grown(flts, count + 2, count)
            for c in range(count, count + 2):
                ints[c, :] = -1
                flts[c, :] = 0.0
            ints[count - 1, 0] = 1
            flts[count - 1, 0] = 0.5
            count += 2
    return ints.shape[0]


def main():
    nodes = leaf_nodes(SLOTS, 2)
    ints, flts = np.zeros((SLOTS, 11), dtype=np.int32), np.zeros((SLOTS, 6))
    runs = [("argument", lambda m: argument(nodes, m)),
            ("grown at each split", lambda m: grown_at_each_split(nodes, m)),
            ("grown if full, in the loop", lambda m: grown_if_full_in_the_loop(nodes, m)),
            ("grown before an inner loop", lambda m: grown_before_an_inner_loop(nodes, m)),
            ("two tables", lambda m: two_tables(ints, flts, m))]
    print(f"numba {numba.__version__}: ns a split (100 splits x 100, fastest of 5)")
    for name, run in runs:
        run(1)  # compiled
        seconds = min(timeit.repeat(lambda: run(100), number=5, repeat=5)) / 5
        print(f"{name:28s} {seconds / (100 * 100) * 1e9:7.1f}")


if __name__ == "__main__":
    main()
