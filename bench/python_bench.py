#!/usr/bin/env python3
"""python_bench.py: the Python package against C, in one run, on the same
arrays: hfft.fft2 of an N x N complex64 array (default 32768 x 32768, 8 GiB)
through the package (its plan cache and pinned arrays from hfft.empty), and
the same transform planned and executed from C (python_bench.c, compiled
here into a shared library and called on the same arrays with the same
options and flags).  Prints each side's planning time and median execute,
their ratio (the issue's target: Python within 3% of C), the plans' choices
side by side, and the package's overhead per call on a small transform.

    cmake --build build
    PYTHONPATH=src/python python3 bench/python_bench.py            # 8 GiB, in place and out of place
    PYTHONPATH=src/python python3 bench/python_bench.py --size 4096 --reps 10 --place out

The arrays hold zeros: an FFT's time does not depend on the values, and
repeated in-place transforms of anything else overflow.  C runs first and
destroys its plan before Python plans, so that each plan has the whole
device (its default budget is the free memory at plan time).
"""
import argparse
import ctypes
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "src", "python"))
import hfft  # noqa: E402
from hfft import _lib, _options  # noqa: E402


def build_helper(cc):
    """python_bench.c as a shared library linked to the libhfft the package loaded."""
    lib = os.path.realpath(hfft.library_path)
    with tempfile.TemporaryDirectory(prefix="hfft-pybench-") as tmp:
        out = os.path.join(tmp, "libpybench.so")
        subprocess.run([cc, "-O2", "-shared", "-fPIC", "-I",
                        os.path.join(os.path.dirname(HERE), "include"),
                        os.path.join(HERE, "python_bench.c"), "-o", out, lib,
                        "-Wl,-rpath," + os.path.dirname(lib)], check=True)
        helper = ctypes.CDLL(out)  # loaded: the file may go
    helper.pybench_fft2.restype = ctypes.c_int
    helper.pybench_fft2.argtypes = [ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p,
                                    ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p,
                                    ctypes.POINTER(ctypes.c_double), ctypes.POINTER(_lib.info)]
    return helper


def time_c(helper, a, b, reps):
    """(planning seconds, execute seconds list, plan info) from C."""
    _, opts = _options.current()  # the settings the package would plan with
    seconds = (ctypes.c_double * (reps + 1))()
    inf = _lib.info()
    st = helper.pybench_fft2(a.dtype.itemsize // 2, a.shape[0], a.shape[1], a.ctypes.data,
                             b.ctypes.data, reps, opts, seconds, ctypes.byref(inf))
    if st:
        raise _lib.error(st, "C side")
    return seconds[0], list(seconds[1:]), _lib.info_dict(inf)


def time_python(a, b, reps):
    """(first call seconds: plan + execute, execute seconds list, plan info)."""
    hfft.clear_cache()
    t0 = time.perf_counter()
    hfft.fft2(a, out=b)
    first = time.perf_counter() - t0
    hits = hfft.cache_info()["hits"]
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        hfft.fft2(a, out=b)
        times.append(time.perf_counter() - t0)
    info = hfft.last_plan_info()
    reused = hfft.cache_info()["hits"] - hits
    hfft.clear_cache()
    if reused != reps:
        print(f"  warning: the plan was reused {reused} times of {reps} "
              f"(cache {hfft.cache_info()})")
    return first, times, info


def size(b):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if b >= 1 << shift:
            return f"{b / (1 << shift):.4g} {unit}"
    return f"{b} B"


def plan_summary(info):
    passes = "+".join(str(p) for p in info["passes"])
    return (f"{info['device_name']}, placement {info['placement']}, schedule "
            f"{info['schedule']}, passes {passes or '-'}, budget "
            f"{size(info['device_budget'])}, host_pinned {info['host_pinned']}, "
            f"threads {info['threads']}")


def compare(helper, n, dtype, place, reps):
    a = hfft.zeros((n, n), dtype)
    b = a if place == "in" else hfft.zeros((n, n), dtype)
    gib = a.nbytes / 2**30
    c_plan, c_times, c_info = time_c(helper, a, b, reps)
    py_first, py_times, py_info = time_python(a, b, reps)
    c_med, py_med = statistics.median(c_times), statistics.median(py_times)
    where = "in place" if place == "in" else "out of place"
    print(f"\n{n} x {n} {np.dtype(dtype).name} ({gib:.2f} GiB), {where}, {reps} executes each")
    print(f"  C       plan {c_plan:8.3f} s   execute median {c_med:9.4f} s  "
          f"min {min(c_times):9.4f} s")
    print(f"  Python  first call (plan + execute) {py_first:8.3f} s   execute median "
          f"{py_med:9.4f} s  min {min(py_times):9.4f} s")
    print(f"  ratio Python / C (medians) {py_med / c_med:.4f}   (min: "
          f"{min(py_times) / min(c_times):.4f}; target <= 1.03)")
    print(f"  C plan:      {plan_summary(c_info)}")
    print(f"  Python plan: {plan_summary(py_info)}")
    del a, b
    return py_med / c_med


def overhead(helper, n, dtype, calls):
    """Per-call cost of the package: a small transform, many calls, against C."""
    a, b = hfft.zeros((n, n), dtype), hfft.zeros((n, n), dtype)
    _, c_times, _ = time_c(helper, a, b, calls)
    hfft.clear_cache()
    hfft.fft2(a, out=b)
    t0 = time.perf_counter()
    for _ in range(calls):
        hfft.fft2(a, out=b)
    py = (time.perf_counter() - t0) / calls
    c = sum(c_times) / calls
    hfft.clear_cache()
    print(f"\noverhead per call, {n} x {n} {np.dtype(dtype).name}, {calls} calls: Python "
          f"{py * 1e6:.1f} us, C {c * 1e6:.1f} us, difference {(py - c) * 1e6:.1f} us")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=32768, help="N of the N x N array (32768)")
    ap.add_argument("--dtype", default="complex64", choices=["complex64", "complex128"])
    ap.add_argument("--place", default="in,out", help="in, out, or in,out (default)")
    ap.add_argument("--reps", type=int, default=5, help="timed executes per side (5)")
    ap.add_argument("--small", type=int, default=256, help="N of the overhead test (256)")
    ap.add_argument("--calls", type=int, default=200, help="calls of the overhead test")
    ap.add_argument("--device", help="hfft option device (default: HFFT_DEVICE, else auto)")
    ap.add_argument("--budget", help="hfft option device_memory, e.g. 16GiB")
    ap.add_argument("--threads", type=int, help="hfft option threads")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"), help="C compiler (cc)")
    args = ap.parse_args()
    hfft.set_options(device=args.device, device_memory=args.budget, threads=args.threads)
    print(f"hfft {hfft.__version__} ({hfft.library_path}), numpy {np.__version__}, "
          f"Python {sys.version.split()[0]}; options {hfft.get_options()}, HFFT_DEVICE="
          f"{os.environ.get('HFFT_DEVICE', 'unset')}")
    helper = build_helper(args.cc)
    ratios = [compare(helper, args.size, args.dtype, place, args.reps)
              for place in args.place.split(",")]
    overhead(helper, args.small, args.dtype, args.calls)
    worst = max(ratios)
    print(f"\nworst ratio {worst:.4f}: {'within' if worst <= 1.03 else 'OUTSIDE'} the 3% target")


if __name__ == "__main__":
    main()
