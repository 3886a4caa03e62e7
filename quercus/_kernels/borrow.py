"""Arrays a kernel lends to its hot loops without numba's reference counts.

numba counts a reference to an array's memory each time the array is handed to a function,
unpacked from a tuple or sliced, and releases it after: an atomic update of a counter each
way. An inlined helper of the split search takes a dozen arrays, once for every (node,
feature), and LLVM's pass that removes such pairs gives up wherever another array is
released between the two ends of a pair.

:func:`borrowed` gives the same array without its memory's record (numba's ``meminfo``),
so that counting it is a test of a null pointer: the owner, a variable of the caller that
outlives every use of the borrowed array, keeps the memory alive. A borrowed array (or a
view of one) must never be returned to Python or stored where it could outlive its
owner. As Python (a kernel run uncompiled) it is the array itself.
"""

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload
from numba.np.arrayobj import populate_array


def borrowed(a):
    """``a`` itself; compiled, ``a`` without its memory's reference count (see the module).
    ``a``: an array, or a (named, nested) tuple of arrays, numbers and None, whose arrays
    are lent alike.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.arange(3)
    >>> borrowed(a) is a
    True
    """
    return a


def _lendable(t):
    """Whether :func:`borrowed` takes values of numba type ``t``: an array, None, a number
    or a (named, nested) tuple of them."""
    if isinstance(t, (types.Array, types.NoneType, types.Number, types.Boolean)):
        return True
    if isinstance(t, types.BaseTuple):
        return all(_lendable(e) for e in t.types)
    return False


def _lend_value(context, builder, t, value):
    if isinstance(t, types.Array):
        src = context.make_array(t)(context, builder, value=value)
        out = context.make_array(t)(context, builder)
        # (numba's own filling of an array struct; no meminfo: a null one)
        populate_array(out, data=src.data, shape=src.shape, strides=src.strides,
                       itemsize=src.itemsize, meminfo=None)
        return out._getvalue()
    if isinstance(t, types.BaseTuple):
        items = cgutils.unpack_tuple(builder, value, len(t.types))
        return context.make_tuple(builder, t, [
            _lend_value(context, builder, e, v) for e, v in zip(t.types, items)])
    return value  # a number or None: nothing counted


@intrinsic
def _lend(typingctx, a):
    if not _lendable(a):
        return None

    def codegen(context, builder, signature, args):
        return _lend_value(context, builder, a, args[0])

    return a(a), codegen


@overload(borrowed, inline="always")
def _borrowed(a):
    if _lendable(a):
        def lend(a):
            return _lend(a)
        return lend
    return None


def keep_alive(owners):
    """Nothing: called after the last use of the arrays lent from ``owners`` (a tuple), it
    keeps numba from releasing them earlier.

    Examples
    --------
    >>> keep_alive(()) is None
    True
    """
    return None


@overload(keep_alive)
def _keep_alive(owners):
    def keep(owners):
        return None
    return keep
