"""_realtr.py: scipy.fft's cosine and sine transforms (dct, idct, dctn, idctn,
dst, idst, dstn, idstn) over hfft's real-to-real transforms: types 1 to 4 are
FFTW's REDFT00, REDFT10, REDFT01, REDFT11 (and RODFT for the sines), each
unnormalized as FFTW's and scipy's "backward".  norm= scales as scipy does by
the kind's logical size (2(n - 1) for DCT-I, 2(n + 1) for DST-I, 2n for the
others); orthogonalize= (default: norm == "ortho") scales the end points as
scipy's orthogonalized variants do (the first point of types II and III, both
of DCT-I), before the transform (types III and I) or after it (types II and
I).  An inverse is the other type of the pair (II and III; I and IV are their
own), with the inverse's scale.  Complex input is transformed as scipy does
it: its real and imaginary parts, each a real transform.
"""
import math
import operator

import numpy as np

from . import _lib, _options
from ._transforms import axes_1d, axes_nd, r2r

_KINDS = {
    False: {1: _lib.REDFT00, 2: _lib.REDFT10, 3: _lib.REDFT01, 4: _lib.REDFT11},
    True: {1: _lib.RODFT00, 2: _lib.RODFT10, 3: _lib.RODFT01, 4: _lib.RODFT11},
}
_INVERSE = {1: 1, 2: 3, 3: 2, 4: 4}
_NORMS = ("backward", "ortho", "forward")
_SQRT2 = math.sqrt(2.0)


def _type(t):
    t = operator.index(t)
    if t not in (1, 2, 3, 4):
        raise ValueError(f"invalid type {t}: must be 1, 2, 3 or 4")
    return t


def _logical(sine, t, n):
    """The logical size N of a kind of n points: a transform and its inverse
    multiply by it."""
    if t == 1:
        return 2 * (n + 1) if sine else 2 * (n - 1)
    return 2 * n


def _ends(a, ax, last, factor):
    """a's first index along ax, and its last with `last`, times factor, in place."""
    idx = [slice(None)] * a.ndim
    for at in (0, -1) if last else (0,):
        idx[ax] = at
        a[tuple(idx)] *= factor


def _transform(x, sine, t, axes, sizes, norm, overwrite_x, workers, orthogonalize, inverse):
    t = _type(t)
    if norm is None:
        norm = "backward"
    if norm not in _NORMS:
        raise ValueError(f'Invalid norm value {norm!r}; should be "backward", "ortho" or '
                         '"forward".')
    if orthogonalize is None:
        orthogonalize = norm == "ortho"
    a = np.asarray(x)
    if not axes:
        return a
    if a.dtype.kind == "c":
        # scipy's way: the real and imaginary parts, each a real transform
        args = (sine, t, axes, sizes, norm, False, workers, orthogonalize, inverse)
        re = _transform(np.ascontiguousarray(a.real), *args)
        im = _transform(np.ascontiguousarray(a.imag), *args)
        out = np.empty(re.shape, np.result_type(re.dtype, np.complex64))
        out.real, out.imag = re, im
        return out
    for n in sizes:
        if n < 1 or (t == 1 and not sine and n < 2):
            raise ValueError(f"invalid number of data points ({n}) for a "
                             f"{'DST' if sine else 'DCT'} of type {t}")
    kind = _INVERSE[t] if inverse else t  # the kind computed
    scale = 1.0
    for n in sizes:
        N = _logical(sine, t, n)
        if norm == "ortho":
            scale /= math.sqrt(N)
        elif (norm == "backward") == inverse:
            scale /= N
    pre = post = None
    if orthogonalize and kind != 4 and not (sine and kind == 1):
        # end points of each axis: DCT-I both, types II and III the first (scipy's
        # orthogonalized DST-II and III scale their first point too)
        last = kind == 1
        if kind in (1, 3):
            def pre(r):
                for ax in axes:
                    _ends(r, ax, last, _SQRT2)
        if kind in (1, 2):
            def post(r):
                for ax in axes:
                    _ends(r, ax, last, 1 / _SQRT2)
    if scale != 1.0:
        ends = post

        def post(r):
            if ends is not None:
                ends(r)
            np.multiply(r, scale, out=r)
    kinds = [_KINDS[sine][kind]] * len(axes)
    with _options.workers(workers):
        return r2r(a, axes, sizes, kinds, None, overwrite_x, pre, post)


def _one(x, sine, type, n, axis, norm, overwrite_x, workers, orthogonalize, inverse):
    a = np.asarray(x)
    axes, s = axes_1d(a, n, axis)
    return _transform(a, sine, type, axes, s, norm, overwrite_x, workers, orthogonalize, inverse)


def _many(x, sine, type, s, axes, norm, overwrite_x, workers, orthogonalize, inverse):
    a = np.asarray(x)
    axes, s = axes_nd(a, s, axes)
    return _transform(a, sine, type, axes, s, norm, overwrite_x, workers, orthogonalize, inverse)


def dct(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None,
        orthogonalize=None):
    """Discrete cosine transform of `x` along `axis`, as scipy.fft.dct (types 1-4)."""
    return _one(x, False, type, n, axis, norm, overwrite_x, workers, orthogonalize, False)


def idct(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None,
         orthogonalize=None):
    """Inverse of dct, as scipy.fft.idct."""
    return _one(x, False, type, n, axis, norm, overwrite_x, workers, orthogonalize, True)


def dst(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None,
        orthogonalize=None):
    """Discrete sine transform of `x` along `axis`, as scipy.fft.dst (types 1-4)."""
    return _one(x, True, type, n, axis, norm, overwrite_x, workers, orthogonalize, False)


def idst(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None,
         orthogonalize=None):
    """Inverse of dst, as scipy.fft.idst."""
    return _one(x, True, type, n, axis, norm, overwrite_x, workers, orthogonalize, True)


def dctn(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None,
         orthogonalize=None):
    """Multidimensional discrete cosine transform, as scipy.fft.dctn."""
    return _many(x, False, type, s, axes, norm, overwrite_x, workers, orthogonalize, False)


def idctn(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None,
          orthogonalize=None):
    """Inverse of dctn, as scipy.fft.idctn."""
    return _many(x, False, type, s, axes, norm, overwrite_x, workers, orthogonalize, True)


def dstn(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None,
         orthogonalize=None):
    """Multidimensional discrete sine transform, as scipy.fft.dstn."""
    return _many(x, True, type, s, axes, norm, overwrite_x, workers, orthogonalize, False)


def idstn(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None,
          orthogonalize=None):
    """Inverse of dstn, as scipy.fft.idstn."""
    return _many(x, True, type, s, axes, norm, overwrite_x, workers, orthogonalize, True)
