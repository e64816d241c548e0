"""test_scipy_backend.py: scipy.fft.set_backend(hfft.scipy_backend): each of
the twelve transforms runs on hfft (the plan cache sees it) and agrees with
scipy's own; positional and keyword arguments as scipy takes them (a number
for s= or axes=), and its errors; no axes returns the input; workers=
sets hfft's threads; what hfft declines (hfft, long double, plan=) runs
on scipy's own backend (dct and dst run on hfft: test_r2r.py).
"""
import numpy as np
import pytest

import hfft
from conftest import BOUND_NUMPY, random
from reference import rel_rms

fft = pytest.importorskip("scipy.fft")

CALLS = [
    ("fft", (), {}), ("ifft", (6, 0), {}), ("rfft", (), {"axis": 1}), ("irfft", (9,), {}),
    ("fft2", (), {"norm": "ortho"}), ("ifft2", ((4, 6),), {}), ("rfft2", (None, (0, 2)), {}),
    ("irfft2", (), {"s": (5, 6)}), ("fftn", (), {"axes": (0, 2), "norm": "forward"}),
    ("ifftn", (None, None, "ortho"), {}), ("rfftn", (), {"s": (3, 4, 5)}), ("irfftn", (), {}),
]


@pytest.mark.parametrize("prec", [4, 8])
@pytest.mark.parametrize("name,args,kw", CALLS)
def test_backend_runs_on_hfft(name, args, kw, prec):
    real = name.startswith("rfft")
    x = random((5, 6, 8), (np.float32 if real else np.complex64) if prec == 4 else
               (np.float64 if real else np.complex128))
    want = getattr(fft, name)(x, *args, **kw)  # scipy's own (pocketfft)
    misses = hfft.cache_info()
    with fft.set_backend(hfft.scipy_backend, only=True):
        got = getattr(fft, name)(x, *args, **kw)
    after = hfft.cache_info()
    assert after["hits"] + after["misses"] > misses["hits"] + misses["misses"]
    assert got.dtype == want.dtype and got.shape == want.shape
    assert rel_rms(got, want) <= BOUND_NUMPY[prec]


@pytest.mark.parametrize("name,kw", [
    ("fftn", {"axes": 0}), ("fftn", {"s": 5}), ("ifftn", {"s": 7, "axes": -2}),
    ("fft2", {"axes": 1}), ("rfftn", {"s": 9}), ("irfftn", {"s": 4, "axes": 0}),
    ("fftn", {"axes": np.int64(2)}), ("rfft2", {"s": np.array([3, 4])})])
def test_scalar_axes_and_sizes(name, kw):
    # scipy.fft reads a number as one axis or size
    x = random((5, 6, 8), np.float64 if name.startswith("rfft") else np.complex128)
    want = getattr(fft, name)(x, **kw)
    with fft.set_backend(hfft.scipy_backend, only=True):
        got = getattr(fft, name)(x, **kw)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert rel_rms(got, want) <= BOUND_NUMPY[8]


@pytest.mark.parametrize("kw", [{"s": (3, 3)}, {"s": (2, 2, 2), "axes": None},
                                {"axes": 2.5}, {"s": "ab"}])
def test_errors_as_scipy(kw):
    x = random(4, np.complex128)
    with pytest.raises(Exception) as want:
        fft.fftn(x, **kw)
    with fft.set_backend(hfft.scipy_backend, only=True):
        with pytest.raises(type(want.value)) as got:
            fft.fftn(x, **kw)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("x", [random((3, 4), np.float64), random(5, np.complex64),
                               np.array(2.0)])
def test_no_axes_returns_the_input(x):
    with fft.set_backend(hfft.scipy_backend, only=True):
        assert fft.fftn(x, axes=()) is x and fft.ifft2(x, axes=()) is x
        if x.ndim == 0:
            assert fft.fftn(x) is x


def test_workers_sets_threads():
    x = random((16, 16), np.complex128)
    with fft.set_backend(hfft.scipy_backend, only=True), hfft.options(device="none"):
        fft.fft2(x, workers=1)
        assert hfft.last_plan_info()["threads"] == 1
        fft.fft2(x, workers=-1)
        with pytest.raises(ValueError):
            fft.fft2(x, workers=0)


def test_overwrite_x():
    x = random((8, 8), np.complex128)
    want = np.fft.fft(x)
    with fft.set_backend(hfft.scipy_backend, only=True):
        y = fft.fft(x, overwrite_x=True)
    np.testing.assert_allclose(y, want, atol=1e-12)


@pytest.mark.parametrize("call", [
    lambda x: fft.hfft(x), lambda x: fft.ihfft(x.real),
    lambda x: fft.fft(x.astype(np.clongdouble)),
])
def test_declined_calls_run_on_scipy(call):
    x = random(16, np.complex128)
    want = call(x)
    hfft.clear_cache()
    with fft.set_backend(hfft.scipy_backend):
        got = call(x)
    np.testing.assert_allclose(got, want)


def test_plan_argument_is_declined():
    # scipy's own backend refuses plans too
    with fft.set_backend(hfft.scipy_backend):
        with pytest.raises(NotImplementedError):
            fft.fft(np.ones(8), plan=object())


def test_declined_with_only_raises():
    with fft.set_backend(hfft.scipy_backend, only=True):
        with pytest.raises(Exception):
            fft.hfft(np.ones(8))


def test_set_global_backend():
    x = random(32, np.complex64)
    fft.set_global_backend(hfft.scipy_backend)
    try:
        before = hfft.cache_info()
        y = fft.fft(x)
        assert hfft.cache_info()["hits"] + hfft.cache_info()["misses"] > \
            before["hits"] + before["misses"]
    finally:
        fft.set_global_backend("scipy")
    assert rel_rms(y, np.fft.fft(x.astype(np.complex128))) <= BOUND_NUMPY[4]
