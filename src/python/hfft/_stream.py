"""_stream.py: streaming images (hfft_stream_*): an image kept equal to its
first contents plus the unnormalized DFT of every point added, brought up to
date at each flush (docs/streaming.md).
"""
import ctypes
import operator

import numpy as np

from . import _lib, _memory, _options

_WAYS = {None: 0, "auto": 0, "direct": _lib.STREAM_DIRECT, "grid": _lib.STREAM_GRID}
_STRATEGIES = {0: None, 1: "direct", 2: "grid"}


class Stream:
    """A streaming image of `shape` (rank 1 to 3), complex64 or complex128.

    ``image``: the array the stream keeps up to date (C-contiguous, writeable,
    of that shape and dtype); its contents when the stream is made are I0.
    None: a zeroed array from hfft.zeros (pinned where a GPU is usable).
    ``sign``: the exponent's sign, +1 (numpy's ifft without the 1/n, the dirty
    image of radio imaging) or -1.  ``way``: "direct" or "grid" forces how every
    flush runs; None (or "auto") lets the cost model choose per flush.
    Settings come from hfft.options()/set_options() as for transforms.

    ``add(index, values)`` adds points: ``index`` an integer array of shape
    (count, rank) (any integers, taken modulo the shape; one point may be given
    as (rank,)), ``values`` count complex values (a scalar is repeated).
    ``flush()`` brings the image up to date and returns it.  The image array is
    written only by flush; read it between flushes, do not write it (a flush may
    write all of it from the stream's own state).  ``info()`` says what the
    stream did.  A stream is a
    context manager; close() frees it (points not flushed are dropped).  One
    call per stream at a time.
    """

    def __init__(self, shape, dtype=np.complex64, sign=+1, image=None, *, way=None):
        shape = _memory._shape(shape)
        if not 1 <= len(shape) <= 3 or any(n < 1 for n in shape):
            raise ValueError(f"shape {shape}: rank 1 to 3, every size at least 1")
        dtype = np.dtype(dtype)
        if dtype not in (np.complex64, np.complex128):
            raise ValueError(f"dtype {dtype}: use complex64 or complex128")
        if sign not in (1, -1):
            raise ValueError(f"sign={sign!r}: use +1 or -1")
        if way not in _WAYS:
            raise ValueError(f"way={way!r}: use None, 'auto', 'direct' or 'grid'")
        if image is None:
            image = _memory.zeros(shape, dtype)
        elif not isinstance(image, np.ndarray):
            raise TypeError("image: a NumPy array, or None")
        elif image.shape != shape or image.dtype != dtype:
            raise ValueError(f"image of shape {image.shape} and dtype {image.dtype}: the "
                             f"stream's are {shape} and {dtype}")
        elif not (image.flags.c_contiguous and image.flags.writeable):
            raise ValueError("image: must be C-contiguous and writeable")
        self._prec = 4 if dtype == np.complex64 else 8
        self._api = _lib.api[self._prec]
        self._dtype = dtype
        self._rank = len(shape)
        self.image = image
        n = (ctypes.c_int64 * self._rank)(*shape)
        _, opts = _options.current()
        self._s = self._api.stream(self._rank, n, image.ctypes.data, sign, _WAYS[way], opts)
        if not self._s:
            raise _lib.error(context=f"hfft stream of shape {shape}")

    def _live(self):
        if not self._s:
            raise ValueError("the stream is closed")
        return self._s

    def add(self, index, values):
        s = self._live()
        index = np.asarray(index)
        if index.ndim == 1 and index.shape[0] == self._rank:
            index = index[None, :]
        if index.ndim != 2 or index.shape[1] != self._rank:
            raise ValueError(f"index of shape {index.shape}: use (count, {self._rank})")
        if index.size and not np.issubdtype(index.dtype, np.integer):
            raise TypeError(f"index of dtype {index.dtype}: integers")
        index = np.ascontiguousarray(index, dtype=np.int64)
        count = index.shape[0]
        values = np.asarray(values)
        if values.ndim == 0:
            values = np.full(count, values, dtype=self._dtype)
        if values.shape != (count,):
            raise ValueError(f"values of shape {values.shape}: use ({count},)")
        values = np.ascontiguousarray(values, dtype=self._dtype)
        if self._api.stream_add(s, count, index.ctypes.data, values.ctypes.data):
            raise _lib.error(context="hfft stream add")

    def flush(self):
        if self._api.stream_flush(self._live()):
            raise _lib.error(context="hfft stream flush")
        return self.image

    def info(self):
        st = _lib.stream_stats()
        if self._api.stream_info(self._live(), ctypes.byref(st)):
            raise _lib.error(context="hfft stream info")
        out = {}
        for name, _ in _lib.stream_stats._fields_:
            v = getattr(st, name)
            if name == "n":
                v = list(v[: self._rank])
            elif name == "card_ids":
                v = list(v[: max(st.cards, 0)])
            elif name == "link_bytes":
                v = list(v)
            elif name == "last_strategy":
                v = _STRATEGIES.get(v, v)
            out[name] = v
        return out

    def close(self):
        if self._s:
            self._api.stream_destroy(self._s)
            self._s = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_s", None):
            self.close()
