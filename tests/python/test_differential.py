"""test_differential.py: random problems, each run on hfft and on numpy.fft in
double precision: the twelve transforms on 1 to 4 axes of sizes 1 to 40
(primes, odd and unit lengths), random axes (negative too), n= and s= that
crop and pad, every norm, float32/float64/complex64/complex128 input laid out
in C or Fortran order, transposed, sliced with steps and reversed, with
overwrite_x and out= or not.  Each problem checks the result's relative RMS
error against the bounds of conftest.py, its dtype and shape as
src/python/README.md says, that out= is the result, that the input is kept
without overwrite_x, and that nothing beside the input's elements is written.

Problem i is drawn from numpy's default_rng([seed, i]), so each is reproduced
alone from the seed and its index.  HFFT_DIFF_SEED picks the seed,
HFFT_DIFF_COUNT the number of problems, for longer runs by hand:

    HFFT_DIFF_COUNT=3000 HFFT_DIFF_SEED=7 python3 tests/python/test_differential.py

The problems run in a child process, so that one that crashes the library is
reported (and the rest still run) instead of ending the test run.
"""
import json
import os
import signal
import subprocess
import sys

import numpy as np

import hfft
import reference
from conftest import BOUND_NUMPY, precision

SEED = int(os.environ.get("HFFT_DIFF_SEED", "20250"))
COUNT = int(os.environ.get("HFFT_DIFF_COUNT", "1200"))
PRIMES = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37]
MAX_ELEMENTS = 1 << 15  # keeps a problem of four axes to milliseconds
KINDS = {"fft": "c2c", "ifft": "c2c", "fft2": "c2c", "ifft2": "c2c", "fftn": "c2c",
         "ifftn": "c2c", "rfft": "r2c", "rfft2": "r2c", "rfftn": "r2c", "irfft": "c2r",
         "irfft2": "c2r", "irfftn": "c2r"}
REAL_DTYPES = [np.float32, np.float64]
DTYPES = REAL_DTYPES + [np.complex64, np.complex128]


# ---- drawing a problem ----

def _size(rng):
    r = rng.random()
    return 1 if r < 0.15 else int(rng.choice(PRIMES)) if r < 0.5 else int(rng.integers(1, 41))


def _shape(rng):
    shape = [_size(rng) for _ in range(int(rng.integers(1, 5)))]
    while np.prod(shape) > MAX_ELEMENTS:
        ax = int(rng.integers(len(shape)))
        shape[ax] = max(1, shape[ax] // 2)
    return shape


def _signed(rng, axes, ndim):
    return [ax - ndim if rng.random() < 0.4 else ax for ax in axes]


def _axes_and_sizes(rng, name, shape):
    """numpy.fft's keyword arguments for the axes and sizes of `name`."""
    ndim = len(shape)
    kw = {}
    if name in ("fft", "ifft", "rfft", "irfft"):
        axis = int(rng.integers(ndim))
        if rng.random() < 0.7:
            kw["axis"] = _signed(rng, [axis], ndim)[0]
        else:
            axis = ndim - 1
        if rng.random() < 0.4 or (name == "irfft" and shape[axis] == 1):
            kw["n"] = _size(rng)  # the default would be 0 points
        return kw
    if name.endswith("2") and ndim >= 2 and rng.random() < 0.5:
        axes = [ndim - 2, ndim - 1]  # the default
    elif name.endswith("n") and rng.random() < 0.3:
        axes = list(range(ndim))
    else:
        count = 1 + int(rng.integers(min(ndim, 2 if name.endswith("2") else ndim)))
        axes = [int(a) for a in rng.permutation(ndim)[:count]]
        kw["axes"] = tuple(_signed(rng, axes, ndim))
    if rng.random() < 0.4 or (name.startswith("irfft") and shape[axes[-1]] == 1):
        kw["s"] = tuple(_size(rng) for _ in axes)
        if "axes" not in kw and len(axes) < ndim:
            kw["axes"] = tuple(axes)  # numpy 2 reads s without axes otherwise
    return kw


def _layout(rng, shape, dtype, fill):
    """An array of this shape and dtype, filled by fill(shape), laid out at
    random: Fortran order, axes transposed in memory, steps, reversed axes.
    Returns it, the array it views, and that view taken of another array."""
    ndim = len(shape)
    perm = rng.permutation(ndim) if rng.random() < 0.3 else np.arange(ndim)
    steps = [int(rng.choice([1, 1, 2, 3])) for _ in shape] if rng.random() < 0.4 else [1] * ndim
    cut = tuple(slice(None, None, -s if rng.random() < 0.25 else s) for s in steps)
    base = np.asarray(fill([shape[p] * steps[p] for p in perm]), dtype)
    if rng.random() < 0.25:
        base = np.asfortranarray(base)

    def view_of(a):
        return a.transpose(np.argsort(perm))[cut]
    return view_of(base), base, view_of


def _result_dtype(kind, prec):
    """The dtype src/python/README.md gives the result: single precision for
    float32 and complex64 input, double for the others."""
    return np.dtype(f"f{prec}" if kind == "c2r" else f"c{2 * prec}")


def problem(index):
    """Problem `index` of this seed: (name, x, the array x views, a mask of
    x's elements in it, keyword arguments, overwrite_x, out or None)."""
    rng = np.random.default_rng([SEED, index])
    name = str(rng.choice(list(KINDS)))
    kind = KINDS[name]
    shape = _shape(rng)
    kw = _axes_and_sizes(rng, name, shape)
    kw["norm"] = rng.choice([None, "backward", "ortho", "forward"])
    dtype = np.dtype(rng.choice(REAL_DTYPES if kind == "r2c" else DTYPES))

    def values(shape):
        x = rng.standard_normal(shape)
        return x + 1j * rng.standard_normal(shape) if dtype.kind == "c" else x
    x, base, view_of = _layout(rng, shape, dtype, values)
    overwrite_x = bool(rng.random() < 0.3)
    out = None
    if rng.random() < 0.25:
        prec = precision(dtype)
        if prec == 4 and rng.random() < 0.3:
            prec = 8  # a wider out=: the result is cast into it
        rdtype = _result_dtype(kind, prec)
        rshape = reference.numpy_result(name, np.zeros(shape), kw).shape
        out = _layout(rng, rshape, rdtype, lambda s: np.full(s, np.nan))[0]
    inside = np.zeros(base.shape, bool)
    view_of(inside)[...] = True
    return name, x, base, inside, kw, overwrite_x, out


def describe(index):
    name, x, _, _, kw, overwrite_x, out = problem(index)
    args = "".join(f", {k}={v!r}" for k, v in kw.items())
    text = (f"{name}(x: {x.dtype} {x.shape} strides {x.strides}{args}, "
            f"overwrite_x={overwrite_x}")
    if out is not None:
        text += f", out: {out.dtype} {out.shape} strides {out.strides}"
    return text + ")"


def check(index):
    """Runs problem `index`; an AssertionError says what differs."""
    name, x, base, inside, kw, overwrite_x, out = problem(index)
    want = reference.numpy_result(name, x, kw)
    before = base.copy()
    got = getattr(hfft, name)(x, out=out, overwrite_x=overwrite_x, **kw)
    prec = precision(x.dtype)
    assert got.shape == want.shape, f"shape {got.shape}, numpy's {want.shape}"
    if out is not None:
        assert got is out, "the result is not out="
    else:
        assert got.dtype == _result_dtype(KINDS[name], prec), f"dtype {got.dtype}"
    err = reference.rel_rms(got, want)
    assert err <= BOUND_NUMPY[prec], f"relative RMS error {err:.3g} > {BOUND_NUMPY[prec]:g}"
    if overwrite_x:
        assert np.array_equal(base[~inside], before[~inside]), "wrote beside the input"
    else:
        assert np.array_equal(base, before), "the input changed"


# ---- running them ----

def _child(first):
    """Runs problems first... in this process, one line each on stdout."""
    for i in range(first, COUNT):
        print(f"run {i}", flush=True)
        try:
            check(i)
        except Exception as e:  # any error is this problem's failure
            print(f"fail {i} {json.dumps(f'{type(e).__name__}: {e}')}", flush=True)


def run_all():
    """Every problem, in child processes, a new one after one that crashed:
    (problems run, failures as text)."""
    failures, first, ran = [], 0, 0
    while first < COUNT:
        child = subprocess.run([sys.executable, __file__, "--child", str(first)],
                               capture_output=True, text=True)
        running = None
        for line in child.stdout.splitlines():
            word, index, *rest = line.split(" ", 2)
            if word == "run":
                running, ran = int(index), ran + 1
            elif word == "fail":
                failures.append(f"problem {index}: {describe(int(index))}: {json.loads(rest[0])}")
        if child.returncode == 0:
            break
        if running is None:
            raise RuntimeError(f"the child failed before its first problem:\n{child.stderr}")
        code = child.returncode
        how = f"signal {signal.Signals(-code).name}" if code < 0 else f"exit status {code}"
        said = child.stderr.strip()[-2000:]
        failures.append(f"problem {running}: {describe(running)}: crashed ({how})"
                        + (f"; its stderr:\n{said}" if said else ""))
        first = running + 1
    return ran, failures


def _summary(ran, failures):
    where = ", ".join(f"{v}={os.environ[v]}" for v in ("HFFT_DEVICE", "HFFT_DEVICE_MEMORY",
                                                       "HFFT_DEVICES") if v in os.environ)
    head = f"HFFT_DIFF_SEED={SEED} HFFT_DIFF_COUNT={COUNT} ({where or 'defaults'}): " \
           f"{ran} problems, {len(failures)} failed"
    return "\n".join([head] + failures)


def test_against_numpy():
    ran, failures = run_all()
    assert ran == COUNT and not failures, _summary(ran, failures)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        _child(int(sys.argv[2]))
    else:
        ran, failures = run_all()
        print(_summary(ran, failures))
        sys.exit(1 if failures else 0)
