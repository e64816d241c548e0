"""_transforms.py: numpy.fft's twelve transforms over hfft's guru interface.

Every call becomes one guru problem: the transformed axes are its dimensions
and the other axes its batch, each with the input's and the output's strides
in elements, so views of any strides, Fortran order, negative strides and
out= arrays of any layout are transformed where they lie.  A copy is made
only where the guru layout cannot say what NumPy asks (the list is in
src/python/README.md, "When a copy is made"): s= padding, a dtype or byte
order hfft does not compute in, a misaligned array or strides that are not a
whole number of elements, input and output that overlap, the input of a
c2r transform of rank 2 or more that must be kept, and an out= of another
dtype or layout.  A copy the package made is transformed in place.
"""
import math
import operator

import numpy as np

from . import _lib, _memory, _plans

AxisError = getattr(np, "exceptions", np).AxisError

_COMPLEX = {4: np.dtype(np.complex64), 8: np.dtype(np.complex128)}
_REAL = {4: np.dtype(np.float32), 8: np.dtype(np.float64)}
_NORMS = ("backward", "ortho", "forward")


class UnsupportedType(TypeError):
    """An array type hfft does not compute in (the scipy backend declines it)."""


def _precision(dtype):
    """Bytes of one real (4 or 8) hfft computes an array of this dtype in:
    single for float16, float32 and complex64, double for float64, complex128,
    integers and booleans, as scipy.fft."""
    if dtype.kind in "biu":
        return 8
    if dtype.kind == "f" and dtype.itemsize in (2, 4, 8):
        return max(dtype.itemsize, 4)
    if dtype.kind == "c" and dtype.itemsize in (8, 16):
        return dtype.itemsize // 2
    raise UnsupportedType(f"hfft computes in single and double precision; {dtype} is not "
                          "supported")


def _factor(norm, n, inverse):
    """The scale NumPy's norm= puts on a transform of n points."""
    if norm is None:
        norm = "backward"
    if norm not in _NORMS:
        raise ValueError(f'Invalid norm value {norm!r}; should be "backward", "ortho" or '
                         '"forward".')
    if norm == "ortho":
        return 1.0 / math.sqrt(n)
    return 1.0 / n if (norm == "backward") == inverse else 1.0


def _axis(ax, ndim):
    ax = operator.index(ax)
    if not -ndim <= ax < ndim:
        raise AxisError(ax, ndim)
    return ax % ndim


def _points(n):
    n = operator.index(n)
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    return n


def axes_1d(a, n, axis, c2r=False):
    """([axis], [n]) of a one-dimensional transform, numpy's defaults filled in."""
    ax = _axis(axis, a.ndim)
    if n is None:
        n = 2 * (a.shape[ax] - 1) if c2r else a.shape[ax]
    return [ax], [_points(n)]


def axes_nd(a, s, axes, c2r=False):
    """(axes, sizes) of a transform over several axes, as numpy.fft.fftn reads
    them; as scipy.fft, a size of -1 keeps the input's."""
    if axes is None:
        # numpy's: s longer than the input has axes names one out of bounds
        axes = range(a.ndim) if s is None else range(-len(s), 0)
    axes = [_axis(ax, a.ndim) for ax in axes]
    if len(set(axes)) != len(axes):
        raise ValueError("all axes must be unique")
    if s is None:
        s = [a.shape[ax] for ax in axes]
        if c2r and axes:
            s[-1] = 2 * (s[-1] - 1)
    else:
        s = [operator.index(n) for n in s]
        if len(s) != len(axes):
            raise ValueError("Shape and axes have different lengths.")
        s = [a.shape[ax] if n == -1 else n for n, ax in zip(s, axes)]
    return axes, [_points(n) for n in s]


# ---- arrays ----

def _usable(a, dtype):
    """Whether hfft can take `a` as it lies: this dtype (native byte order),
    aligned, every stride a whole number of elements."""
    if a.dtype != dtype or not a.flags.aligned:
        return False
    size = dtype.itemsize
    return all(st % size == 0 for st, n in zip(a.strides, a.shape) if n > 1)


def _overlaps(a):
    """Whether two elements of `a` may lie at one place: a broadcast (zero
    stride) or sliding-window (as_strided) view, which is neither an output
    nor scratch.  Sufficient, not exact: axes taken by growing stride must
    each step past all that the smaller ones reach, which dense, sliced and
    transposed arrays do."""
    reach = a.itemsize
    for st, n in sorted((abs(st), n) for st, n in zip(a.strides, a.shape) if n > 1):
        if st < reach:
            return True
        reach += st * (n - 1)
    return False


def _scratch(a, overwrite_x):
    """Whether hfft may write into the input `a`: overwrite_x says the caller
    allows it, but only an array that is writeable and holds each element once
    can take it (scipy ignores overwrite_x elsewhere, and so does hfft)."""
    return overwrite_x and a.flags.writeable and not _overlaps(a)


def _empty(shape, dtype):
    """numpy.empty, 64-byte aligned: the alignment class plans are cached by
    (hfft's new-array executes take arrays of the plan's alignment modulo 64)."""
    count = math.prod(shape)
    raw = np.empty(count * dtype.itemsize + 64, np.uint8)
    skip = -raw.ctypes.data % 64
    return raw[skip: skip + count * dtype.itemsize].view(dtype).reshape(shape)


def _alloc(shape, dtype, like):
    """An empty array of this shape whose axes lie in memory in the order of
    like's (numpy's order='K'), so that a dense input gives a dense output of
    the same layout."""
    if like.flags.c_contiguous or like.ndim < 2:
        return _empty(shape, dtype)
    order = sorted(range(like.ndim), key=lambda ax: -abs(like.strides[ax]))
    a = _empty([shape[ax] for ax in order], dtype)
    return a.transpose(np.argsort(order))


def _fit(a, axes, sizes):
    """`a` cut to sizes along axes (a view), and whether some axis is shorter
    (then a zero-padded copy is needed)."""
    cut = [slice(None)] * a.ndim
    for ax, n in zip(axes, sizes):
        if a.shape[ax] > n:
            cut[ax] = slice(0, n)
    pad = any(a.shape[ax] < n for ax, n in zip(axes, sizes))
    return (a[tuple(cut)] if any(c.stop is not None for c in cut) else a), pad


def _fill(target, view):
    """view copied into target's first elements, the rest of target zeroed."""
    if view.shape != target.shape:
        if np.may_share_memory(view, target):
            view = view.copy()  # the zeros must not land on it first
        target.fill(0)
        target = target[tuple(slice(0, n) for n in view.shape)]
    np.copyto(target, view, casting="unsafe")


def _copy(view, dtype, shape=None):
    """A copy of view in dtype (zero-padded to shape), laid out as view is."""
    c = _alloc(view.shape if shape is None else shape, dtype, view)
    _fill(c, view)
    return c


def _out(out, shape, dtype):
    """out= checked against the result: returns it where hfft can write into it
    directly, None where the result must be copied into it afterwards."""
    if not isinstance(out, np.ndarray):
        raise TypeError(f"out must be a numpy.ndarray, not {type(out).__name__}")
    if out.shape != tuple(shape):
        raise ValueError(f"out has shape {out.shape}; the result has {tuple(shape)}")
    if not out.flags.writeable:
        raise ValueError("out is read-only")
    if not np.can_cast(dtype, out.dtype, "same_kind"):
        raise TypeError(f"cannot write a {dtype} result into out of dtype {out.dtype}")
    return out if _usable(out, dtype) and not _overlaps(out) else None


def _same(a, b):
    return a.ctypes.data == b.ctypes.data and a.strides == b.strides and a.shape == b.shape


def _strides(a, size):
    # a dimension of one element has no stride that matters: 1 keeps plans alike
    return [st // size if n > 1 else 1 for st, n in zip(a.strides, a.shape)]


def _run(kind, prec, sign, src, dst, axes, sizes, flags):
    """The guru problem of src -> dst over axes (transform sizes: the real ones)."""
    si, so = _strides(src, src.itemsize), _strides(dst, dst.itemsize)
    dims = tuple((n, si[ax], so[ax]) for ax, n in zip(axes, sizes))
    hdims = tuple((src.shape[ax], si[ax], so[ax]) for ax in range(src.ndim)
                  if ax not in axes and src.shape[ax] > 1)
    pinned = _memory.is_pinned(src) and _memory.is_pinned(dst)
    _plans.run(kind, prec, sign, dims, hdims, src.ctypes.data, dst.ctypes.data, pinned, flags)


def _finish(res, factor, out):
    """Scales the result on the host (norm=) and copies it into out= where
    hfft could not write there."""
    if factor != 1.0:
        np.multiply(res, factor, out=res)
    if out is not None and res is not out:
        np.copyto(out, res, casting="same_kind")
        return out
    return res


def _place(a, view, copy, shape, dtype, out, scratch):
    """Where a transform of the same shape and dtype on both sides reads and
    writes: (res, src).  A copy (padded, of another dtype or layout, or asked
    for), made where the result goes and transformed there in place; else out=,
    the input itself where it may be overwritten, or a new array."""
    direct = None if out is None else _out(out, shape, dtype)
    if copy or not _usable(view, dtype) or (direct is not None and not _same(view, direct)
                                           and np.may_share_memory(view, direct)):
        res = direct if direct is not None else _alloc(shape, dtype, a)
        _fill(res, view)
        return res, res
    if direct is not None:
        return direct, view
    if out is None and scratch:
        return view, view
    return _alloc(shape, dtype, a), view


# ---- the kinds ----

def _untransformed(a, out):
    """A transform over no axes: numpy.fft and scipy.fft return the input itself,
    whatever its dtype and norm; out= gets a copy."""
    if out is None:
        return a
    _out(out, a.shape, a.dtype)
    np.copyto(out, a, casting="same_kind")
    return out


def c2c(x, axes, sizes, norm, out, overwrite_x, sign):
    a = np.asarray(x)
    if not axes:
        return _untransformed(a, out)
    prec = _precision(a.dtype)
    cdt = _COMPLEX[prec]
    factor = _factor(norm, math.prod(sizes), sign == _lib.BACKWARD)
    shape = list(a.shape)
    for ax, n in zip(axes, sizes):
        shape[ax] = n
    view, pad = _fit(a, axes, sizes)
    scratch = _scratch(view, overwrite_x)
    res, src = _place(a, view, pad, shape, cdt, out, scratch)
    if res.size:
        in_place = src.ctypes.data == res.ctypes.data
        flags = _lib.ESTIMATE | (_lib.DESTROY_INPUT if scratch and not in_place else 0)
        _run(_lib.KIND_C2C, prec, sign, src, res, axes, sizes, flags)
    return _finish(res, factor, out)


def r2c(x, axes, sizes, norm, out, overwrite_x):
    a = np.asarray(x)
    if a.dtype.kind == "c":
        raise TypeError(f"x must be a real sequence, not {a.dtype}")
    if not axes:
        raise ValueError("a real-to-complex transform needs at least one axis")
    prec = _precision(a.dtype)
    rdt, cdt = _REAL[prec], _COMPLEX[prec]
    factor = _factor(norm, math.prod(sizes), False)
    rshape = list(a.shape)
    for ax, n in zip(axes, sizes):
        rshape[ax] = n
    shape = list(rshape)
    shape[axes[-1]] = sizes[-1] // 2 + 1
    view, pad = _fit(a, axes, sizes)
    own = pad or not _usable(view, rdt)
    scratch = own or _scratch(view, overwrite_x)
    src = _copy(view, rdt, rshape) if own else view
    direct = None if out is None else _out(out, shape, cdt)
    res = direct if direct is not None else _alloc(shape, cdt, a)
    if not own and np.may_share_memory(src, res):
        src, scratch = _copy(src, rdt), True
    if res.size:
        flags = _lib.ESTIMATE | (_lib.DESTROY_INPUT if scratch else 0)
        _run(_lib.KIND_R2C, prec, _lib.FORWARD, src, res, axes, sizes, flags)
    return _finish(res, factor, out)


def c2r(x, axes, sizes, norm, out, overwrite_x):
    a = np.asarray(x)
    if not axes:
        raise ValueError("a complex-to-real transform needs at least one axis")
    prec = _precision(a.dtype)
    rdt, cdt = _REAL[prec], _COMPLEX[prec]
    factor = _factor(norm, math.prod(sizes), True)
    half = list(sizes)
    half[-1] = sizes[-1] // 2 + 1
    cshape, shape = list(a.shape), list(a.shape)
    for ax, h, n in zip(axes, half, sizes):
        cshape[ax], shape[ax] = h, n
    view, pad = _fit(a, axes, half)
    own = pad or not _usable(view, cdt)
    scratch = own or _scratch(view, overwrite_x)
    src = _copy(view, cdt, cshape) if own else view
    direct = None if out is None else _out(out, shape, rdt)
    res = direct if direct is not None else _alloc(shape, rdt, a)
    # FFTW's c2r transforms of rank 2 or more overwrite their input, and keeping it
    # would cost the plan a copy it holds while cached: the copy is made here instead.
    if not own and (np.may_share_memory(src, res) or (len(axes) > 1 and not scratch)):
        src, scratch = _copy(src, cdt), True
    if res.size:
        keep = _lib.DESTROY_INPUT if scratch else _lib.PRESERVE_INPUT
        _run(_lib.KIND_C2R, prec, _lib.BACKWARD, src, res, axes, sizes, _lib.ESTIMATE | keep)
    return _finish(res, factor, out)


def r2r(x, axes, sizes, kinds, out, overwrite_x, pre=None, post=None):
    """FFTW's real-to-real kinds (one per axis) over axes, of x cropped or padded to
    sizes; pre(a) and post(a) scale the array before and after the transform (in
    place, on hfft's own copy or result)."""
    a = np.asarray(x)
    if a.dtype.kind == "c":
        raise TypeError(f"x must be a real sequence, not {a.dtype}")
    prec = _precision(a.dtype)
    rdt = _REAL[prec]
    shape = list(a.shape)
    for ax, n in zip(axes, sizes):
        shape[ax] = n
    view, pad = _fit(a, axes, sizes)
    scratch = _scratch(view, overwrite_x)
    # (a step before the transform needs a copy of its own to scale)
    res, src = _place(a, view, pad or pre is not None, shape, rdt, out, scratch)
    if pre is not None:
        pre(res)
    if res.size:
        in_place = src.ctypes.data == res.ctypes.data
        flags = _lib.ESTIMATE | (_lib.DESTROY_INPUT if scratch and not in_place else 0)
        _run(_lib.KIND_R2R, prec, tuple(kinds), src, res, axes, sizes, flags)
    if post is not None:
        post(res)
    return _finish(res, 1.0, out)
