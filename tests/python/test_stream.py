"""test_stream.py: hfft.Stream, a streaming image: after batches of points and
flushes, the image against its first contents plus the long-double DFT of the
grid of every point flushed (reference.py); both dtypes and signs, each way
and the cost model's, one point and a scalar value, points far outside the
shape, the caller's image array, info(), and argument errors.  On the CPU and
on the emulated device (the suite's two CTest runs), with the image on an
emulated card where it fits.
"""
import os

import numpy as np
import pytest

import hfft
import reference
from conftest import random

TOL = {np.complex64: 1e-5, np.complex128: 1e-13}  # the C tests' and the issue's bounds


def expected(i0, grid, sign):
    return i0.astype(reference.CLD) + reference._dft(grid.astype(reference.CLD),
                                                     list(range(grid.ndim)), sign)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("shape", [(32, 32), (12, 20), (30,), (4, 6, 5)])
@pytest.mark.parametrize("way", [None, "direct", "grid"])
def test_batches_of_points(dtype, shape, way):
    rng = np.random.default_rng()
    sign = -1 if len(shape) == 2 else +1
    image = random(shape, dtype)
    i0 = image.copy()
    grid = np.zeros(shape, np.complex128)
    with hfft.Stream(shape, dtype, sign=sign, image=image, way=way) as s:
        for count in (1, 0, 7, 300):
            index = rng.integers(-10**12, 10**12, size=(count, len(shape)))
            values = random((count,), dtype)
            before = image.copy()
            s.add(index, values)
            assert np.array_equal(before, image)  # add never writes the image
            np.add.at(grid, tuple((index % np.array(shape)).T), values.astype(np.complex128))
            out = s.flush()
            assert out is image
            want = expected(i0, grid, sign)
            assert reference.rel_rms(out, want) <= TOL[dtype], (count, way)
        info = s.info()
        assert info["points_added"] == info["points_applied"] == 308
        assert info["rank"] == len(shape) and info["n"] == list(shape)
        if way:
            assert info["last_strategy"] == way
        assert info["shift_keys"] == (shape == (32, 32))
        # the emulated run (a 1 MiB budget) holds these images on its card
        assert info["image_on_cards"] == (os.environ.get("HFFT_DEVICE") == "emulated")


def test_one_point_a_scalar_and_a_fresh_image():
    with hfft.Stream((8, 8), np.complex128) as s:  # sign +1: numpy's ifft2 times 64
        assert hfft.is_pinned(s.image) and not s.image.any()
        s.add([3, 5], 2.0)
        s.add([[3, 5], [3, 5 + 8]], 0.5j)
        grid = np.zeros((8, 8), complex)
        grid[3, 5] = 2 + 1j
        assert np.allclose(s.flush(), np.fft.ifft2(grid) * 64, atol=1e-13)
        assert s.info()["last_points"] == 3


def test_errors():
    with pytest.raises(ValueError):
        hfft.Stream((4, 0))
    with pytest.raises(ValueError):
        hfft.Stream((2, 2, 2, 2))
    with pytest.raises(ValueError):
        hfft.Stream((4, 4), np.float32)
    with pytest.raises(ValueError):
        hfft.Stream((4, 4), sign=2)
    with pytest.raises(ValueError):
        hfft.Stream((4, 4), way="fast")
    with pytest.raises(ValueError):
        hfft.Stream((4, 4), np.complex64, image=np.zeros((4, 4), np.complex128))
    with pytest.raises(ValueError):
        hfft.Stream((4, 4), np.complex128, image=np.zeros((4, 8), np.complex128)[:, ::2])
    s = hfft.Stream((4, 4))
    with pytest.raises(ValueError):
        s.add([[1, 2, 3]], [1])
    with pytest.raises(ValueError):
        s.add([[1, 2]], [1, 2])
    with pytest.raises(TypeError):
        s.add([[1.5, 2]], [1])
    assert s.info()["points_added"] == 0
    s.close()
    s.close()
    with pytest.raises(ValueError):
        s.flush()


def test_the_radio_imaging_example():
    """docs/python.md's example, smaller: the dirty image's brightest pixel is the
    brightest source."""
    rng = np.random.default_rng(1)
    N = 128
    sources = rng.integers(0, N, size=(5, 2))
    flux = np.array([1.0, 2.0, 5.0, 1.5, 3.0])
    with hfft.Stream((N, N), np.complex64, sign=+1) as s:
        for _ in range(3):
            uv = rng.integers(-N // 2, N // 2, size=(20_000, 2))
            phase = -2 * np.pi * (uv @ sources.T) / N
            vis = (flux * np.exp(1j * phase)).sum(axis=1) / len(uv)
            s.add(uv, vis)
            dirty = s.flush()
        peak = np.unravel_index(np.abs(dirty).argmax(), dirty.shape)
        assert tuple(peak) == tuple(sources[flux.argmax()])
