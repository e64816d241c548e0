"""conftest.py: what the Python tests share: the error bounds, check() that
runs one hfft function and compares it with numpy.fft and with the
long-double reference, and a summary of the largest errors measured, printed
at the end of the run.

The package is the one on sys.path (PYTHONPATH=src/python, with HFFT_LIBRARY
naming the library, as CTest runs it), or an installed one.
"""
import collections
import os

import numpy as np
import pytest

import hfft
import reference

# The library's bounds (relative RMS error): 5e-7 single, 5e-16 double, met
# against the long-double reference.  Against numpy.fft, whose own double
# error (~1e-16 here) adds to hfft's, double gets 1e-15.
BOUND = {4: 5e-7, 8: 5e-16}
BOUND_NUMPY = {4: 5e-7, 8: 1e-15}
# The long-double reference runs direct DFTs: used up to this many elements.
EXACT_MAX = 1 << 14

DEVICE = os.environ.get("HFFT_DEVICE", "auto")
_worst = collections.defaultdict(lambda: [0.0, 0.0, 0])


def precision(dtype):
    """Bytes of one real hfft computes this dtype in."""
    dtype = np.dtype(dtype)
    return 4 if dtype.itemsize <= 4 or (dtype.kind == "c" and dtype.itemsize == 8) else 8


def check(name, x, **kw):
    """hfft.<name>(x, **kw) against numpy.fft and the exact reference; returns
    hfft's result."""
    prec = precision(x.dtype)
    want = reference.numpy_result(name, x, kw)
    got = getattr(hfft, name)(x, **kw)
    assert got.shape == want.shape
    kind = "f" if name.startswith("irfft") else "c"
    if kw.get("out") is not None:
        assert got is kw["out"]
    else:
        assert got.dtype == np.dtype(f"{kind}{2 * prec if kind == 'c' else prec}")
    e_np = reference.rel_rms(got, want)
    assert e_np <= BOUND_NUMPY[prec], f"{name}: error {e_np:.3g} against numpy.fft"
    w = _worst[(name, prec)]
    w[0] = max(w[0], e_np)
    if want.size <= EXACT_MAX:
        e = reference.rel_rms(got, reference.exact(name, x, kw))
        assert e <= BOUND[prec], f"{name}: error {e:.3g} against the long-double reference"
        w[1] = max(w[1], e)
        w[2] += 1
    return got


def random(shape, dtype, seed=None):
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    x = rng.standard_normal(shape)
    if dtype.kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def pytest_report_header(config):
    return (f"hfft {hfft.__version__} from {hfft.library_path}; HFFT_DEVICE={DEVICE}, "
            f"HFFT_DEVICE_MEMORY={os.environ.get('HFFT_DEVICE_MEMORY', 'default')}")


def pytest_terminal_summary(terminalreporter):
    if not _worst:
        return
    tr = terminalreporter
    tr.write_sep("-", f"largest relative RMS errors (HFFT_DEVICE={DEVICE})")
    tr.write_line(f"{'function':<8} {'prec':<6} {'vs numpy.fft':>13} {'vs long double':>15}"
                  f" {'cases':>6}")
    for (name, prec), (e_np, e, n) in sorted(_worst.items()):
        tr.write_line(f"{name:<8} {'single' if prec == 4 else 'double':<6} {e_np:13.3g} "
                      f"{e:15.3g} {n:6d}")


@pytest.fixture(autouse=True)
def _fresh_options():
    """Every test starts from the process defaults, and leaves them so."""
    hfft.set_options(**{k: None for k in hfft.get_options()})
    yield
    hfft.set_options(**{k: None for k in hfft.get_options()})
