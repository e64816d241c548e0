"""test_r2r.py: hfft.dct, idct, dst, idst and their n-dimensional forms against
their definitions summed in long double (FFTW's kinds, scipy's norm= and
orthogonalize=), and against scipy.fft where it is installed; n and s cropping
and padding, axes, overwrite_x, both precisions, the scipy backend, errors.
Runs on the CPU (python_cpu) and on the emulated device (python_emulated).
"""
import numpy as np
import pytest

import hfft

LD = np.longdouble
PI = np.arccos(LD(-1))
TOL = {np.float32: 5e-7, np.float64: 5e-16}


def _kernel(sine, t, n):
    """The n x n matrix of the unnormalized kind (FFTW's definitions), long double."""
    j = np.arange(n, dtype=LD)[None, :]
    k = np.arange(n, dtype=LD)[:, None]
    if not sine:
        if t == 1:
            m = 2 * np.cos(PI * j * k / (n - 1))
            m[:, 0] /= 2
            m[:, -1] = (-1.0) ** np.arange(n)
            return m
        if t == 2:
            return 2 * np.cos(PI * (j + LD(0.5)) * k / n)
        if t == 3:
            m = 2 * np.cos(PI * j * (k + LD(0.5)) / n)
            m[:, 0] = 1
            return m
        return 2 * np.cos(PI * (j + LD(0.5)) * (k + LD(0.5)) / n)
    if t == 1:
        return 2 * np.sin(PI * (j + 1) * (k + 1) / (n + 1))
    if t == 2:
        return 2 * np.sin(PI * (j + LD(0.5)) * (k + 1) / n)
    if t == 3:
        m = 2 * np.sin(PI * (j + 1) * (k + LD(0.5)) / n)
        m[:, -1] = (-1.0) ** np.arange(n)
        return m
    return 2 * np.sin(PI * (j + LD(0.5)) * (k + LD(0.5)) / n)


def _logical(sine, t, n):
    return 2 * (n + 1) if (t == 1 and sine) else 2 * (n - 1) if t == 1 else 2 * n


def reference(x, sine, t, axes, norm, orthogonalize, inverse):
    """The transform by its definition along each axis, in long double."""
    y = np.asarray(x, dtype=LD)
    kind = {1: 1, 2: 3, 3: 2, 4: 4}[t] if inverse else t
    orth = norm == "ortho" if orthogonalize is None else orthogonalize
    for ax in axes:
        n = y.shape[ax]
        y = np.moveaxis(y, ax, -1).copy()
        scale = LD(1)
        N = _logical(sine, t, n)
        if norm == "ortho":
            scale = 1 / np.sqrt(LD(N))
        elif (norm in (None, "backward")) == inverse:
            scale = 1 / LD(N)
        if orth and kind in (1, 3) and not (sine and kind == 1):
            y[..., 0] *= np.sqrt(LD(2))
            if kind == 1:
                y[..., -1] *= np.sqrt(LD(2))
        y = y @ _kernel(sine, kind, n).T
        if orth and kind in (1, 2) and not (sine and kind == 1):
            y[..., 0] /= np.sqrt(LD(2))
            if kind == 1:
                y[..., -1] /= np.sqrt(LD(2))
        y = np.moveaxis(y * scale, -1, ax)
    return y


def _err(a, want):
    a = np.asarray(a, dtype=LD)
    return float(np.sqrt(np.sum((a - want) ** 2) / np.sum(want ** 2)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["dct", "idct", "dst", "idst"])
@pytest.mark.parametrize("t", [1, 2, 3, 4])
def test_one_axis_every_type_and_norm(name, t, dtype):
    rng = np.random.default_rng(abs(hash((name, t))) % 2**32)
    sine, inverse = "s" in name[:3], name.startswith("i")
    for n in (2, 5, 8, 12, 17, 64):
        if t == 1 and not sine and n < 2:
            continue
        x = rng.standard_normal((3, n)).astype(dtype)
        for norm in (None, "ortho", "forward"):
            for orth in (None, True, False):
                y = getattr(hfft, name)(x, type=t, norm=norm, orthogonalize=orth)
                assert y.dtype == dtype and y.shape == x.shape
                want = reference(x, sine, t, [1], norm, orth, inverse)
                assert _err(y, want) <= TOL[dtype], (name, t, n, norm, orth)


@pytest.mark.parametrize("name", ["dctn", "idctn", "dstn", "idstn"])
def test_several_axes(name):
    rng = np.random.default_rng(7)
    sine, inverse = "s" in name[:3], name.startswith("i")
    x = rng.standard_normal((6, 8, 10))
    for t in (1, 2, 3, 4):
        for axes in ((0, 2), (1,), None):
            y = getattr(hfft, name)(x, type=t, axes=axes, norm="ortho")
            ax = [0, 1, 2] if axes is None else list(axes)
            assert _err(y, reference(x, sine, t, ax, "ortho", None, inverse)) <= 5e-16


def test_n_and_s_crop_and_pad_and_overwrite():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 10))
    y = hfft.dct(x, n=6)
    assert _err(y, reference(x[:, :6], False, 2, [1], None, None, False)) <= 5e-16
    padded = np.zeros((4, 14))
    padded[:, :10] = x
    y = hfft.dst(x, type=3, n=14)
    assert _err(y, reference(padded, True, 3, [1], None, None, False)) <= 5e-16
    y = hfft.dctn(x, s=(4, 8))
    assert _err(y, reference(x[:, :8], False, 2, [0, 1], None, None, False)) <= 5e-16
    keep = x.copy()
    hfft.dct(x, type=4, axis=0)
    assert np.array_equal(x, keep), "the input was written without overwrite_x"
    z = x.copy()
    y = hfft.idct(z, overwrite_x=True)
    assert _err(y, reference(keep, False, 2, [1], None, None, True)) <= 5e-16
    # a transform then its inverse
    assert np.allclose(hfft.idctn(hfft.dctn(x, type=1), type=1), x, atol=1e-13)
    assert np.allclose(hfft.idstn(hfft.dstn(x, type=3, norm="ortho"), type=3, norm="ortho"), x,
                       atol=1e-13)


def test_against_scipy_and_its_backend():
    sfft = pytest.importorskip("scipy.fft")
    rng = np.random.default_rng(11)
    x = rng.standard_normal((5, 12))
    for name in ("dct", "idct", "dst", "idst"):
        for t in (1, 2, 3, 4):
            for norm in ("backward", "ortho", "forward"):
                want = getattr(sfft, name)(x, type=t, norm=norm)
                assert np.allclose(getattr(hfft, name)(x, type=t, norm=norm), want,
                                   rtol=1e-12, atol=1e-12)
                with sfft.set_backend(hfft.scipy_backend, only=True):
                    got = getattr(sfft, name)(x, t, None, -1, norm)
                assert np.allclose(got, want, rtol=1e-12, atol=1e-12)
                assert hfft.last_plan_info()["kind"] == 3
    with sfft.set_backend(hfft.scipy_backend, only=True):
        got = sfft.dctn(x.astype(np.float32), type=2, axes=0, workers=2)
    assert got.dtype == np.float32
    assert np.allclose(got, sfft.dctn(x, type=2, axes=0), rtol=1e-5, atol=1e-4)


def test_complex_input_as_scipy():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((4, 9)) + 1j * rng.standard_normal((4, 9))
    for name in ("dct", "idst", "dctn"):
        y = getattr(hfft, name)(x, type=3, norm="ortho")
        assert y.dtype == np.complex128
        want_re = getattr(hfft, name)(x.real, type=3, norm="ortho")
        want_im = getattr(hfft, name)(x.imag, type=3, norm="ortho")
        assert np.array_equal(y.real, want_re) and np.array_equal(y.imag, want_im)
    y = hfft.dst(x.astype(np.complex64), type=2)
    assert y.dtype == np.complex64
    sfft = pytest.importorskip("scipy.fft")
    assert np.allclose(hfft.dctn(x, type=2), sfft.dctn(x, type=2), rtol=1e-12, atol=1e-12)


def test_errors():
    x = np.ones((4, 4))
    with pytest.raises(ValueError):
        hfft.dct(x, type=5)
    with pytest.raises(ValueError):
        hfft.dst(x, norm="sideways")
    with pytest.raises(ValueError):
        hfft.dct(np.ones(1), type=1)
    with pytest.raises(ValueError):
        hfft.dct(x, workers=0)
