"""hfft: FFTs of NumPy arrays larger than GPU memory, streamed through the GPU
while FFTW threads on the CPU take a share (the C library libhfft).

The transforms take numpy.fft's arguments (axes, s, norm, out) and scipy.fft's
overwrite_x, compute in single precision for float32/complex64 input and in
double otherwise, and keep plans in a cache.  dct, dst and their inverses and
n-dimensional forms take scipy.fft's arguments (types 1 to 4, norm,
orthogonalize, workers) over FFTW's real-to-real kinds.  hfft.empty/zeros give arrays on
pinned memory; set_options/options choose the device, budget, threads and
wisdom; scipy.fft.set_backend(hfft.scipy_backend) sends scipy.fft's calls
here.  See src/python/README.md for what is copied when.
"""
import numpy as _np
from numpy.fft import fftfreq, fftshift, ifftshift, rfftfreq  # noqa: F401

from . import _lib
from ._lib import HfftError
from ._memory import empty, is_pinned, zeros
from ._options import get_options, options, set_options
from ._plans import cache_info, clear_cache, last_plan_info, set_cache_size
from ._realtr import dct, dctn, dst, dstn, idct, idctn, idst, idstn
from ._stream import Stream
from ._transforms import axes_1d as _axes_1d, axes_nd as _axes_nd
from ._transforms import c2c as _c2c, c2r as _c2r, r2c as _r2c

__version__ = _lib.version
library_path = _lib.path

__all__ = [
    "fft", "ifft", "fft2", "ifft2", "fftn", "ifftn",
    "rfft", "irfft", "rfft2", "irfft2", "rfftn", "irfftn",
    "dct", "idct", "dctn", "idctn", "dst", "idst", "dstn", "idstn",
    "fftfreq", "rfftfreq", "fftshift", "ifftshift",
    "empty", "zeros", "is_pinned",
    "set_options", "options", "get_options",
    "clear_cache", "set_cache_size", "cache_info", "last_plan_info",
    "Stream", "HfftError", "scipy_backend",
]

_FORWARD, _BACKWARD = _lib.FORWARD, _lib.BACKWARD


def fft(a, n=None, axis=-1, norm=None, out=None, *, overwrite_x=False):
    """One-dimensional discrete Fourier transform, as numpy.fft.fft.

    overwrite_x=True lets hfft transform `a` in place (and return it) or use it
    as scratch, where `a` is writeable and holds each element once."""
    a = _asarray(a)
    axes, s = _axes_1d(a, n, axis)
    return _c2c(a, axes, s, norm, out, overwrite_x, _FORWARD)


def ifft(a, n=None, axis=-1, norm=None, out=None, *, overwrite_x=False):
    """Inverse of fft, as numpy.fft.ifft."""
    a = _asarray(a)
    axes, s = _axes_1d(a, n, axis)
    return _c2c(a, axes, s, norm, out, overwrite_x, _BACKWARD)


def fftn(a, s=None, axes=None, norm=None, out=None, *, overwrite_x=False):
    """N-dimensional discrete Fourier transform, as numpy.fft.fftn."""
    a = _asarray(a)
    axes, s = _axes_nd(a, s, axes)
    return _c2c(a, axes, s, norm, out, overwrite_x, _FORWARD)


def ifftn(a, s=None, axes=None, norm=None, out=None, *, overwrite_x=False):
    """Inverse of fftn, as numpy.fft.ifftn."""
    a = _asarray(a)
    axes, s = _axes_nd(a, s, axes)
    return _c2c(a, axes, s, norm, out, overwrite_x, _BACKWARD)


def fft2(a, s=None, axes=(-2, -1), norm=None, out=None, *, overwrite_x=False):
    """Two-dimensional discrete Fourier transform, as numpy.fft.fft2."""
    return fftn(a, s, axes, norm, out, overwrite_x=overwrite_x)


def ifft2(a, s=None, axes=(-2, -1), norm=None, out=None, *, overwrite_x=False):
    """Inverse of fft2, as numpy.fft.ifft2."""
    return ifftn(a, s, axes, norm, out, overwrite_x=overwrite_x)


def rfft(a, n=None, axis=-1, norm=None, out=None, *, overwrite_x=False):
    """Transform of real input, as numpy.fft.rfft: n//2 + 1 complex outputs."""
    a = _asarray(a)
    axes, s = _axes_1d(a, n, axis)
    return _r2c(a, axes, s, norm, out, overwrite_x)


def irfft(a, n=None, axis=-1, norm=None, out=None, *, overwrite_x=False):
    """Inverse of rfft, as numpy.fft.irfft: n real outputs (default
    2 (m - 1) for m inputs).  The input is kept unless overwrite_x."""
    a = _asarray(a)
    axes, s = _axes_1d(a, n, axis, c2r=True)
    return _c2r(a, axes, s, norm, out, overwrite_x)


def rfftn(a, s=None, axes=None, norm=None, out=None, *, overwrite_x=False):
    """N-dimensional transform of real input, as numpy.fft.rfftn (the last
    axis is halved)."""
    a = _asarray(a)
    axes, s = _axes_nd(a, s, axes)
    return _r2c(a, axes, s, norm, out, overwrite_x)


def irfftn(a, s=None, axes=None, norm=None, out=None, *, overwrite_x=False):
    """Inverse of rfftn, as numpy.fft.irfftn."""
    a = _asarray(a)
    axes, s = _axes_nd(a, s, axes, c2r=True)
    return _c2r(a, axes, s, norm, out, overwrite_x)


def rfft2(a, s=None, axes=(-2, -1), norm=None, out=None, *, overwrite_x=False):
    """Two-dimensional transform of real input, as numpy.fft.rfft2."""
    return rfftn(a, s, axes, norm, out, overwrite_x=overwrite_x)


def irfft2(a, s=None, axes=(-2, -1), norm=None, out=None, *, overwrite_x=False):
    """Inverse of rfft2, as numpy.fft.irfft2."""
    return irfftn(a, s, axes, norm, out, overwrite_x=overwrite_x)


def _asarray(a):
    return a if type(a) is _np.ndarray else _np.asarray(a)


from . import scipy_backend  # noqa: E402  (it uses the functions above)
