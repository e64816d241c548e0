"""reference.py: what the tests compare hfft with.  numpy.fft in double
precision (on the input promoted to double), and an independent reference in
long double (x86's 80-bit extended): direct DFTs along each axis, with the
twiddles reduced exactly modulo n, accurate to ~1e-19 for the small sizes the
tests use, so that hfft's double-precision error is measured against a
reference far more precise than the 5e-16 bound, which numpy's own double
error (~1e-16) would blur.  Both follow numpy's semantics for n, s, axes and
norm, written here independently of the package.
"""
import math

import numpy as np

LD, CLD = np.longdouble, np.clongdouble
PI = np.arccos(LD(-1))
ONE_AXIS = ("fft", "ifft", "rfft", "irfft")


def resolve(name, x, kw):
    """(axes, sizes) numpy.fft reads from these arguments."""
    c2r = name.startswith("irfft")
    if name in ONE_AXIS:
        axis = kw.get("axis", -1) % x.ndim
        n = kw.get("n")
        if n is None:
            n = 2 * (x.shape[axis] - 1) if c2r else x.shape[axis]
        return [axis], [n]
    axes = kw.get("axes", (-2, -1) if name.endswith("2") else None)
    s = kw.get("s")
    if axes is None:
        axes = range(x.ndim) if s is None else range(x.ndim - len(s), x.ndim)
    axes = [a % x.ndim for a in axes]
    if s is None:
        s = [x.shape[a] for a in axes]
        if c2r:
            s[-1] = 2 * (s[-1] - 1)
    return axes, list(s)


def numpy_result(name, x, kw):
    """numpy.fft's result in double precision."""
    kw = {k: v for k, v in kw.items() if k not in ("out", "overwrite_x")}
    x = np.asarray(x)
    x = x.astype(np.float64 if name.startswith("rfft") else np.complex128)
    return getattr(np.fft, name)(x, **kw)


def _fit(x, axes, sizes):
    """x cut or zero-padded to sizes along axes."""
    shape = list(x.shape)
    for a, n in zip(axes, sizes):
        shape[a] = n
    y = np.zeros(shape, x.dtype)
    region = tuple(slice(0, min(m, n)) for m, n in zip(x.shape, shape))
    y[region] = x[region]
    return y


def _dft(x, axes, sign):
    for a in axes:
        n = x.shape[a]
        k = np.arange(n)
        angle = (2 * PI / LD(n)) * (np.outer(k, k) % n).astype(LD)
        m = np.empty((n, n), CLD)
        m.real, m.imag = np.cos(angle), sign * np.sin(angle)
        x = np.moveaxis(np.tensordot(x, m, axes=([a], [1])), -1, a)
    return x


def _hermitian(x, axis, n):
    """The full n-point spectrum whose first n//2 + 1 points are x along
    axis, as a c2r transform reads them (DC and Nyquist taken as real)."""
    x = np.moveaxis(x, axis, -1)
    full = np.zeros(x.shape[:-1] + (n,), CLD)
    full[..., 0] = x[..., 0].real
    for k in range(1, (n + 1) // 2):
        full[..., k] = x[..., k]
        full[..., n - k] = np.conj(x[..., k])
    if n % 2 == 0:
        full[..., n // 2] = x[..., n // 2].real
    return np.moveaxis(full, -1, axis)


def exact(name, x, kw):
    """The long-double reference of numpy.fft.<name>(x, **kw)."""
    axes, sizes = resolve(name, x, kw)
    norm = kw.get("norm") or "backward"
    inverse = name.startswith("i")
    x = np.asarray(x).astype(CLD)
    if name.startswith("irfft"):
        x = _fit(x, axes, sizes[:-1] + [sizes[-1] // 2 + 1])
        x = _dft(x, axes[:-1], +1)
        x = _dft(_hermitian(x, axes[-1], sizes[-1]), axes[-1:], +1).real
    else:
        x = _dft(_fit(x, axes, sizes), axes, +1 if inverse else -1)
        if name.startswith("rfft"):
            x = np.take(x, range(sizes[-1] // 2 + 1), axis=axes[-1])
    n = LD(math.prod(sizes))
    if norm == "ortho":
        x = x / np.sqrt(n)
    elif (norm == "backward") == inverse:
        x = x / n
    return x


def rel_rms(y, ref):
    """Relative RMS error ||y - ref|| / ||ref|| (in long double)."""
    ref = np.asarray(ref)
    d = np.asarray(y).astype(ref.dtype) - ref
    den = np.sqrt(np.sum(np.abs(ref) ** 2))
    return float(np.sqrt(np.sum(np.abs(d) ** 2)) / den) if den else float(np.abs(d).max())
