"""_memory.py: NumPy arrays on hfft_malloc's memory: page-aligned, and pinned
(page-locked) where a GPU is usable, so a GPU plan copies them at the link's
full rate without registering them.  The array (through its base, a ctypes
buffer) owns the block: hfft_free runs when the last view is collected.
"""
import ctypes
import operator
import weakref

import numpy as np

from . import _lib

_live = [0]  # blocks not yet freed (for tests)
_blocks = weakref.WeakValueDictionary()  # address -> the ctypes buffer owning it


def _free(ptr, free, live):
    # free and live are bound when the block is made: no module globals at exit
    free(ptr)
    live[0] -= 1


def _shape(shape):
    try:
        return (operator.index(shape),)
    except TypeError:
        return tuple(operator.index(n) for n in shape)


def empty(shape, dtype=float, order="C"):
    """An uninitialized array on hfft_malloc's memory (pinned where a GPU is
    usable), like numpy.empty (float64 by default); freed with hfft_free when
    collected."""
    shape, dtype = _shape(shape), np.dtype(dtype)
    if order not in ("C", "F"):
        raise ValueError(f"order={order!r}: use 'C' or 'F'")
    if any(n < 0 for n in shape):
        raise ValueError(f"negative dimensions are not allowed: {shape}")
    nbytes = dtype.itemsize
    for n in shape:
        nbytes *= n
    ptr = _lib.malloc(max(nbytes, 1))
    if not ptr:
        raise _lib.error(context=f"hfft_malloc of {nbytes} bytes")
    _live[0] += 1
    buf = (ctypes.c_char * nbytes).from_address(ptr)
    weakref.finalize(buf, _free, ptr, _lib.free, _live).atexit = False  # exit frees it
    _blocks[ptr] = buf
    return np.frombuffer(buf, dtype=dtype).reshape(shape, order=order)


def zeros(shape, dtype=float, order="C"):
    """Like empty, filled with zeros."""
    a = empty(shape, dtype, order)
    a.fill(0)
    return a


def is_pinned(a):
    """Whether array a is a view of memory from hfft.empty/zeros."""
    while isinstance(a, np.ndarray):
        a = a.base
    return isinstance(a, ctypes.Array) and _blocks.get(ctypes.addressof(a)) is a
