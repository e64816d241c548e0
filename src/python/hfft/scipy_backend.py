"""scipy_backend.py: hfft as a backend of scipy.fft (the uarray protocol), so
that code written against scipy.fft runs on hfft without edits:

    import scipy.fft, hfft
    with scipy.fft.set_backend(hfft.scipy_backend):
        y = scipy.fft.fft2(x)

It takes fft, ifft, fft2, ifft2, fftn, ifftn and their real counterparts
(rfft ... irfftn), and dct, idct, dst, idst, dctn, idctn, dstn, idstn (types
1 to 4, norm, orthogonalize), in single and double precision.  Everything
else (hfft/ihfft, long double, a `plan` argument) is declined with
NotImplemented, and scipy runs its own.  s= and axes= are read as scipy reads them (a number
is one item; more sizes than axes is scipy's ValueError), where hfft's own
functions read them as numpy does.  workers=N sets hfft's CPU threads for the
call; workers=None leaves hfft's setting (all cores by default) and does not
read scipy.fft.set_workers.
"""
import numbers
import operator

import numpy as np

import hfft as _hfft

from . import _options
from ._transforms import UnsupportedType

__ua_domain__ = "numpy.scipy.fft"


_threads = _options.workers


def _one_axis(fn):
    def method(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None):
        if plan is not None:
            return NotImplemented
        with _threads(workers):
            return fn(x, n, axis, norm, overwrite_x=overwrite_x)
    return method


def _ints(value, name):
    """s= or axes= as scipy.fft reads them: a number is one item."""
    if value is None:
        return None
    if isinstance(value, numbers.Number):
        value = (value,)
    try:
        return [operator.index(v) for v in value]
    except TypeError as e:
        raise ValueError(f"{name} must be a scalar or iterable of integers") from e


def _axes(fn, default):
    def method(x, s=None, axes=default, norm=None, overwrite_x=False, workers=None, *,
               plan=None):
        if plan is not None:
            return NotImplemented
        s, axes = _ints(s, "shape"), _ints(axes, "axes")
        if s is not None and axes is None and len(s) > np.ndim(x):
            raise ValueError("shape requires more axes than are present")
        with _threads(workers):
            return fn(x, s, axes, norm, overwrite_x=overwrite_x)
    return method


_METHODS = {}
for _name in ("fft", "ifft", "rfft", "irfft"):
    _METHODS[_name] = _one_axis(getattr(_hfft, _name))
for _name in ("fft2", "ifft2", "rfft2", "irfft2"):
    _METHODS[_name] = _axes(getattr(_hfft, _name), (-2, -1))
for _name in ("fftn", "ifftn", "rfftn", "irfftn"):
    _METHODS[_name] = _axes(getattr(_hfft, _name), None)


def _cosine_one(fn):
    def method(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None,
               orthogonalize=None):
        return fn(x, type, n, axis, norm, overwrite_x, workers, orthogonalize)
    return method


def _cosine_many(fn):
    def method(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None,
               orthogonalize=None):
        s, axes = _ints(s, "shape"), _ints(axes, "axes")
        if s is not None and axes is None and len(s) > np.ndim(x):
            raise ValueError("shape requires more axes than are present")
        return fn(x, type, s, axes, norm, overwrite_x, workers, orthogonalize)
    return method


for _name in ("dct", "idct", "dst", "idst"):
    _METHODS[_name] = _cosine_one(getattr(_hfft, _name))
for _name in ("dctn", "idctn", "dstn", "idstn"):
    _METHODS[_name] = _cosine_many(getattr(_hfft, _name))


def __ua_function__(method, args, kwargs):
    fn = _METHODS.get(method.__name__)
    if fn is None:
        return NotImplemented
    try:
        return fn(*args, **kwargs)
    except UnsupportedType:
        return NotImplemented
