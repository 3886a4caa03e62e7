"""Lending arrays to compiled helpers without numba's reference counts
(quercus/_kernels/borrow.py)."""

import numba
import numpy as np
from numba import types
from numba.extending import intrinsic

from quercus._kernels.borrow import borrowed, keep_alive


@intrinsic
def _meminfo_address(typingctx, a):
    """The address of an array's memory record (numba's meminfo); 0 for none."""
    def codegen(context, builder, signature, args):
        ary = context.make_array(a)(context, builder, value=args[0])
        return builder.ptrtoint(ary.meminfo, context.get_value_type(types.intp))
    return types.intp(a), codegen


@numba.njit
def _records(a):
    lent = borrowed(a)
    pair = borrowed((a, (a[1:], 2.5), None))
    out = (_meminfo_address(a), _meminfo_address(lent), _meminfo_address(lent[1:]),
           _meminfo_address(pair[0]), _meminfo_address(pair[1][0]))
    keep_alive((a,))
    return out, pair[1][1]


@numba.njit
def _write_through(a):
    lent = borrowed(a)
    lent[0] = 7.0
    inner = borrowed((a[1:], np.int64(3)))
    inner[0][0] = inner[1]
    keep_alive((a,))
    return lent.sum()


def test_a_lent_array_and_its_views_carry_no_memory_record():
    (own, lent, view, first, nested), number = _records(np.arange(4.0))
    assert own != 0
    assert (lent, view, first, nested) == (0, 0, 0, 0)
    assert number == 2.5  # (numbers in a lent tuple pass as they are)


def test_a_lent_array_reads_and_writes_its_owner_s_memory():
    a = np.zeros(3)
    assert _write_through(a) == 10.0
    assert a.tolist() == [7.0, 3.0, 0.0]


def test_borrowed_is_the_array_itself_when_run_as_python():
    a = np.arange(3)
    assert borrowed(a) is a
    assert keep_alive((a,)) is None
    assert _write_through.py_func(np.zeros(2)) == 10.0
