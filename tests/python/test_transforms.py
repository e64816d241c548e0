"""test_transforms.py: the twelve transforms against numpy.fft and the
long-double reference: every function with each axis combination (negative
axes included), norm and precision; then memory layouts (Fortran order,
strided, negative-stride and transposed views, broadcast, misaligned and
byte-swapped arrays), s= and n= cropping and padding with odd sizes, out= of
every kind, overwrite_x and the inputs it does not apply to (read-only,
broadcast, self-overlapping), empty arrays, no axes, and argument errors as
NumPy raises them.
"""
import subprocess
import sys

import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

import hfft
import reference
from conftest import BOUND_NUMPY, check, random

AxisError = getattr(np, "exceptions", np).AxisError

SHAPE = (5, 6, 8)  # odd and even sizes; the last axis halves to 5 in rfftn
ONE = {"fft": "c", "ifft": "c", "rfft": "r", "irfft": "c"}
TWO = {"fft2": "c", "ifft2": "c", "rfft2": "r", "irfft2": "c"}
ND = {"fftn": "c", "ifftn": "c", "rfftn": "r", "irfftn": "c"}
ALL = {**ONE, **TWO, **ND}
DTYPES = {("c", 4): np.complex64, ("c", 8): np.complex128, ("r", 4): np.float32,
          ("r", 8): np.float64}
NORMS = [None, "ortho", "forward"]
PRECS = [4, 8]


def data(name, prec, shape=SHAPE, seed=None):
    return random(shape, DTYPES[(ALL[name], prec)], seed)


@pytest.mark.parametrize("prec", PRECS)
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("axis", [-1, 0, 1, 2, -3])
@pytest.mark.parametrize("name", ONE)
def test_one_axis(name, axis, norm, prec):
    check(name, data(name, prec), axis=axis, norm=norm)


@pytest.mark.parametrize("prec", PRECS)
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("axes", [(-2, -1), (0, 1), (1, 0), (0, 2), (-1, -3)])
@pytest.mark.parametrize("name", TWO)
def test_two_axes(name, axes, norm, prec):
    check(name, data(name, prec), axes=axes, norm=norm)


@pytest.mark.parametrize("prec", PRECS)
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("axes", [None, (0,), (-1,), (1, 2), (2, 0, 1), (-1, -2, -3), (0, -1)])
@pytest.mark.parametrize("name", ND)
def test_n_axes(name, axes, norm, prec):
    check(name, data(name, prec), axes=axes, norm=norm)


@pytest.mark.parametrize("name", ALL)
def test_backward_is_default(name):
    x = data(name, 8)
    np.testing.assert_array_equal(getattr(hfft, name)(x, norm="backward"),
                                  getattr(hfft, name)(x))


@pytest.mark.parametrize("shape", [(1,), (7,), (1, 1), (3, 1), (1, 9), (2, 3, 1, 5)])
@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn"])
def test_small_and_unit_shapes(name, shape):
    if name == "irfftn" and shape[-1] == 1:
        check(name, data(name, 8, shape), s=shape[:-1] + (1,))  # n = 1 from one point
    else:
        check(name, data(name, 8, shape))


# ---- layouts: the guru interface takes them without copies ----

def layout(x, kind):
    """x (C order) laid out another way, with the same shape and values."""
    if kind == "C":
        return x
    if kind == "F":
        return np.asfortranarray(x)
    if kind == "strided":  # every other element of a larger array, on two axes
        big = np.zeros((x.shape[0] * 2, x.shape[1], x.shape[2] * 3), x.dtype)
        v = big[::2, :, 1::3]
        v[...] = x
        return v
    if kind == "negative":
        big = np.ascontiguousarray(x[::-1, :, ::-1])
        return big[::-1, :, ::-1]
    if kind == "transposed":  # axes in memory in the order 1, 2, 0
        return np.ascontiguousarray(x.transpose(1, 2, 0)).transpose(2, 0, 1)
    if kind == "broadcast":  # zero strides (read-only); values differ from x
        return np.broadcast_to(x[:1], x.shape)
    if kind == "misaligned":  # one byte off: copied
        raw = np.zeros(x.nbytes + 1, np.uint8)
        v = raw[1:].view(x.dtype).reshape(x.shape)
        v[...] = x
        return v
    if kind == "byteswapped":  # non-native byte order: copied
        return x.astype(x.dtype.newbyteorder())
    raise ValueError(kind)


LAYOUTS = ["F", "strided", "negative", "transposed", "broadcast", "misaligned", "byteswapped"]


@pytest.mark.parametrize("prec", PRECS)
@pytest.mark.parametrize("kind", LAYOUTS)
@pytest.mark.parametrize("name,kw", [
    ("fft", {"axis": 1}), ("ifft", {"axis": -1}), ("fft2", {}), ("ifftn", {"axes": (0, 2)}),
    ("fftn", {}), ("rfft", {"axis": 0}), ("rfftn", {}), ("rfft2", {"axes": (2, 0)}),
    ("irfft", {"axis": 2}), ("irfftn", {}), ("irfft2", {"axes": (1, 0)})])
def test_layouts(name, kw, kind, prec):
    x = layout(data(name, prec), kind)
    before = x.copy()
    check(name, x, **kw)
    np.testing.assert_array_equal(x, before)  # the input is kept


# ---- s= and n=: cropping is a view, padding a copy ----

@pytest.mark.parametrize("prec", PRECS)
@pytest.mark.parametrize("name,kw", [
    ("fft", {"n": 3}), ("fft", {"n": 11, "axis": 0}), ("ifft", {"n": 7, "axis": 1}),
    ("rfft", {"n": 5}), ("rfft", {"n": 13, "axis": 0}),
    ("irfft", {"n": 9}), ("irfft", {"n": 4}), ("irfft", {"n": 15}), ("irfft", {"n": 1}),
    ("fftn", {"s": (3, 9, 8)}), ("ifftn", {"s": (7, 4), "axes": (0, 2)}),
    ("fft2", {"s": (2, 11)}), ("ifft2", {"s": (6, 6), "axes": (2, 1)}),
    ("rfftn", {"s": (4, 7, 9)}), ("rfft2", {"s": (3, 3)}), ("rfftn", {"s": (7,), "axes": (0,)}),
    ("irfftn", {"s": (5, 6, 9)}), ("irfftn", {"s": (3, 3, 3)}), ("irfft2", {"s": (9, 20)}),
    ("irfftn", {"s": (4, 13), "axes": (2, 0)}), ("fftn", {"s": (4, 4)})])
def test_sizes(name, kw, prec):
    x = data(name, prec)
    before = x.copy()
    check(name, x, **kw)
    np.testing.assert_array_equal(x, before)


@pytest.mark.parametrize("poisoned_out", [False, True])
@pytest.mark.parametrize("name,shape,kw", [
    ("fft", (2, 1), {"axis": 1}), ("ifft", (5, 97), {"n": 1, "axis": 0}),
    ("fft", (3, 1, 4), {"axis": 1, "norm": "ortho"}), ("fftn", (1, 6), {"axes": (0,)})])
def test_length_one_transforms_in_a_batch(name, shape, kw, poisoned_out):
    # one point transforms to itself: every output of the batch must be written
    x = random(shape, np.complex128)
    if poisoned_out:
        want = reference.numpy_result(name, x, kw)
        kw = dict(kw, out=np.full(want.shape, np.nan, np.complex128))
    check(name, x, **kw)


def test_size_minus_one_keeps_the_input_size():
    # as scipy.fft: -1 in s is the input's size along that axis
    x = data("fftn", 8)
    np.testing.assert_array_equal(hfft.fftn(x, s=(-1, 3), axes=(0, 1)),
                                  hfft.fftn(x, s=(5, 3), axes=(0, 1)))


def test_crop_reads_a_view_without_copy():
    # A crop needs no copy: the plan reads the input where it lies, with its strides.
    x = data("fft", 8, (4, 64))
    check("fft", x, n=16)
    info = hfft.last_plan_info()
    assert info["n"] == [16] and info["howmany"] == 4


# ---- out= ----

def out_array(shape, dtype, kind):
    if kind == "C":
        return np.empty(shape, dtype)
    if kind == "F":
        return np.empty(shape, dtype, order="F")
    if kind == "strided":
        return np.empty([2 * n for n in shape], dtype)[(slice(None, None, 2),) * len(shape)]
    if kind == "negative":
        return np.empty(shape, dtype)[::-1]
    if kind == "pinned":
        return hfft.empty(shape, dtype)
    if kind == "wider":  # another dtype: the result is copied into it
        return np.empty(shape, np.complex128 if np.dtype(dtype).kind == "c" else np.float64)
    raise ValueError(kind)


@pytest.mark.parametrize("kind", ["C", "F", "strided", "negative", "pinned", "wider"])
@pytest.mark.parametrize("name,kw", [("fft", {}), ("ifft2", {"s": (4, 9)}), ("fftn", {}),
                                     ("rfftn", {"axes": (0, 1)}), ("rfft", {"n": 5}),
                                     ("irfftn", {}), ("irfft", {"axis": 0})])
def test_out(name, kw, kind):
    x = data(name, 4)
    want = getattr(hfft, name)(x, **kw)
    out = out_array(want.shape, want.dtype, kind)
    got = check(name, x, out=out, **kw)
    assert got is out


def test_out_is_input_runs_in_place():
    x = data("fft2", 8)
    want = np.fft.fft2(x)
    y = hfft.fft2(x, out=x)
    assert y is x
    assert np.allclose(x, want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft"])
def test_out_overlapping_input(name):
    # out shares memory with the input, shifted: the input is copied first
    n = 16
    buf = random(2 * n + 4, np.complex128)
    x = buf.real[:n] if name == "rfft" else buf[: n // 2 + 1] if name == "irfft" else buf[:n]
    out = {"rfft": buf[1: n // 2 + 2], "irfft": buf.real[2: n + 2]}.get(name, buf[1: n + 1])
    want = getattr(np.fft, name)(x.copy())
    got = getattr(hfft, name)(x, out=out)
    assert got is out
    assert np.abs(got - want).max() < 1e-12 * np.abs(want).max()


def test_out_overlapping_itself():
    # hfft cannot write such an out= (the library rejects aliasing output strides): the
    # result is copied into it, as NumPy copies into any array
    x = data("fft", 8, (4, 8))
    got, want = (np.zeros(11, np.complex128) for _ in range(2))
    hfft.fft(x, out=as_strided(got, (4, 8), (16, 16)))
    np.copyto(as_strided(want, (4, 8), (16, 16)), np.fft.fft(x))
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * np.abs(want).max())


@pytest.mark.parametrize("bad,error", [
    ([0] * 8, TypeError), (np.empty(7, np.complex128), ValueError),
    (np.empty(8, np.float64), TypeError), (np.empty(8, np.int32), TypeError)])
def test_out_rejected(bad, error):
    with pytest.raises(error):
        hfft.fft(np.ones(8), out=bad)


def test_out_read_only():
    out = np.empty(8, np.complex128)
    out.flags.writeable = False
    with pytest.raises(ValueError):
        hfft.fft(np.ones(8), out=out)


# ---- overwrite_x and kept inputs ----

@pytest.mark.parametrize("name", ["fft", "ifftn", "fft2"])
def test_overwrite_x_runs_in_place(name):
    x = data(name, 4)
    want = reference_numpy(name, x)
    y = getattr(hfft, name)(x, overwrite_x=True)
    assert y is x or np.shares_memory(y, x)
    assert np.abs(y - want).max() < 1e-4 * np.abs(want).max()


def reference_numpy(name, x):
    return getattr(np.fft, name)(x.astype(np.complex128))


@pytest.mark.parametrize("name,kw", [("irfft", {}), ("irfftn", {}), ("irfft2", {"axes": (0, 2)}),
                                     ("rfftn", {}), ("fftn", {}), ("irfftn", {"s": (4, 4, 4)})])
@pytest.mark.parametrize("overwrite_x", [False, True])
def test_input_kept_unless_overwrite(name, kw, overwrite_x):
    x = data(name, 8)
    before = x.copy()
    want = getattr(hfft, name)(x.copy(), **kw)
    got = getattr(hfft, name)(x, overwrite_x=overwrite_x, **kw)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * np.abs(want).max())
    if not overwrite_x:
        np.testing.assert_array_equal(x, before)


# Where the emulated device streams the transform in passes (4 x 1024 complex128 is
# 64 KiB), its c2c transforms use an input they may destroy as scratch.
WHERE = {"cpu": {"device": "none"}, "emulated": {"device": "emulated", "device_memory": "16KiB"}}


def unwritable(x, kind):
    """x's values in an array hfft must not write even under overwrite_x=True, and
    the array whose memory it views."""
    if kind == "read-only":  # flagged only: a write changes values instead of faulting
        x = x.copy()
        x.flags.writeable = False
        return x, x
    if kind == "zero-stride":  # a writeable view repeating one row
        row = x[:1].copy()
        return as_strided(row, x.shape, (0, row.strides[1])), row
    if kind == "overlapping":  # a writeable sliding window: row i is flat[i: i + n]
        flat = np.ascontiguousarray(x.reshape(-1)[: x.shape[0] + x.shape[1] - 1])
        return as_strided(flat, x.shape, (flat.strides[0], flat.strides[0])), flat
    raise ValueError(kind)


@pytest.mark.parametrize("where", WHERE)
@pytest.mark.parametrize("kind", ["read-only", "zero-stride", "overlapping"])
@pytest.mark.parametrize("overwrite_x", [False, True])
@pytest.mark.parametrize("name", ["fft", "ifft", "fft2", "fftn", "rfft", "rfftn", "irfft",
                                  "irfft2", "irfftn"])
def test_input_hfft_may_not_write(name, overwrite_x, kind, where):
    # as scipy: overwrite_x=True is a permission, which such an input cannot grant
    x, memory = unwritable(data(name, 8, (4, 1024)), kind)
    before = memory.copy()
    want = reference.numpy_result(name, np.array(x), {})
    with hfft.options(**WHERE[where]):
        got = getattr(hfft, name)(x, overwrite_x=overwrite_x)
    np.testing.assert_array_equal(memory, before)
    assert reference.rel_rms(got, want) <= BOUND_NUMPY[8]


def test_read_only_memory_map(tmp_path):
    # np.load(mmap_mode="r") maps the file read-only: a write would be a fault, so the
    # transforms run in a child process
    code = """if 1:
        import sys
        import numpy as np
        import hfft
        x = np.load(sys.argv[1], mmap_mode="r")
        with hfft.options(device="emulated", device_memory="16KiB"):
            for name in ("fft", "fft2", "fftn", "irfft", "irfft2", "irfftn"):
                got = getattr(hfft, name)(x, overwrite_x=True)
                want = getattr(np.fft, name)(np.array(x))
                assert np.abs(got - want).max() <= 1e-12 * np.abs(want).max(), name
        """
    path = tmp_path / "x.npy"
    np.save(path, data("fft", 8, (4, 1024)))
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr


# ---- dtypes ----

@pytest.mark.parametrize("dtype,prec", [(np.float16, 4), (np.float32, 4), (np.int32, 8),
                                        (np.int64, 8), (np.bool_, 8), (np.uint8, 8),
                                        (np.float64, 8)])
def test_input_dtypes(dtype, prec):
    x = (np.arange(24).reshape(4, 6) % 5).astype(dtype)
    y = hfft.fft2(x)
    assert y.dtype == (np.complex64 if prec == 4 else np.complex128)
    np.testing.assert_allclose(y, np.fft.fft2(x.astype(np.float64)), rtol=0,
                               atol=2e-5 if prec == 4 else 1e-12)
    if dtype is not np.bool_:
        r = hfft.rfft2(x)
        assert r.dtype == y.dtype
        np.testing.assert_allclose(r, y[:, :4], rtol=0, atol=2e-5 if prec == 4 else 1e-12)


@pytest.mark.parametrize("dtype", [np.longdouble, np.clongdouble, object, "U3"])
def test_unsupported_dtypes(dtype):
    if np.dtype(dtype) in (np.dtype(np.float64), np.dtype(np.complex128)):
        pytest.skip("long double is double on this platform")
    with pytest.raises(TypeError):
        hfft.fft(np.ones(4, dtype=dtype))


def test_lists_and_scalars_inputs():
    np.testing.assert_allclose(hfft.fft([1, 2, 3, 4]), np.fft.fft([1, 2, 3, 4]))
    np.testing.assert_allclose(hfft.irfft([[1, 2, 3]]), np.fft.irfft([[1, 2, 3]]))


# ---- empty arrays and no axes ----

@pytest.mark.parametrize("name", ALL)
def test_empty_batch(name):
    x = data(name, 8, (0, 4, 6))
    kw = {"axes": (1, 2)} if name in ND else {}
    y = getattr(hfft, name)(x, **kw)
    assert y.shape == getattr(np.fft, name)(x, **kw).shape and y.size == 0


NO_AXES = [("fftn", {"axes": ()}), ("ifftn", {"axes": (), "norm": "ortho"}), ("fft2", {"axes": ()}),
           ("ifft2", {"s": (), "axes": ()}), ("fftn", {"s": ()})]
ZERO_D = [np.array(2.5), np.array(1 - 2j), np.array(3)]


@pytest.mark.parametrize("x,name,kw", [
    (x, name, kw) for x in [data("fftn", 8), data("rfftn", 4), np.arange(6).reshape(2, 3),
                            np.float16([1, 2])] + ZERO_D for name, kw in NO_AXES] + [
    (x, name, {}) for x in ZERO_D for name in ("fftn", "ifftn")])
def test_no_axes_returns_the_input(x, name, kw):
    # as numpy.fft and scipy.fft: no transform, the input itself (its dtype kept)
    assert getattr(hfft, name)(x, **kw) is x
    assert getattr(np.fft, name)(x, **kw) is x


def test_no_axes_into_out():
    x = np.arange(6.0).reshape(2, 3)
    out = np.zeros((2, 3), np.complex64)
    assert hfft.fftn(x, axes=(), out=out) is out
    np.testing.assert_array_equal(out, x)


# ---- argument errors, as NumPy raises them ----

@pytest.mark.parametrize("call,error", [
    (lambda x: hfft.fft(x, n=0), ValueError),
    (lambda x: hfft.fft(x, n=-2), ValueError),
    (lambda x: hfft.fft(x, axis=3), IndexError),
    (lambda x: hfft.fft(x, axis=-4), ValueError),
    (lambda x: hfft.fft(x, norm="bad"), ValueError),
    (lambda x: hfft.fftn(x, axes=(0, 0)), ValueError),
    (lambda x: hfft.fftn(x, s=(3,), axes=(0, 1)), ValueError),
    (lambda x: hfft.fftn(x, s=(3, 0)), ValueError),
    (lambda x: hfft.fftn(x[0, 0], s=(3, 3)), AxisError),  # len(s) > ndim
    (lambda x: hfft.irfftn(x, s=(2, 2, 2, 2)), AxisError),
    (lambda x: hfft.rfft(x), TypeError),
    (lambda x: hfft.irfft(x[..., :1]), ValueError),
    (lambda x: hfft.rfftn(x.real, axes=()), ValueError),
    (lambda x: hfft.fft(x, n=2.5), TypeError),
])
def test_argument_errors(call, error):
    with pytest.raises(error):
        call(data("fft", 8))


def test_more_sizes_than_axes_as_numpy():
    x = data("fft", 8, (4,))
    with pytest.raises(AxisError) as want:
        np.fft.fftn(x, s=(3, 3))
    with pytest.raises(AxisError) as got:
        hfft.fftn(x, s=(3, 3))
    assert str(got.value) == str(want.value)
