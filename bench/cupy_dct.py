"""cupy_dct.py: CuPy's dctn (type 2) host array to host array, as a GPU user
writes it (cp.asarray of a pinned array, dctn, .get into a pinned array), and
on the card alone against its own rfftn of the same reals; best of 3 after a
warm-up, f32, the arrays RESULTS.md compares with hfft-r2r-bench.  Needs CuPy
and a GPU: python3 bench/cupy_dct.py
"""
import time
import numpy as np
import cupy as cp
import cupyx
import cupyx.scipy.fft as cfft
print("cupy", cp.__version__)
for shape in [(16384, 16384), (1024, 1024, 1024), (512, 512, 512)]:
    h = cupyx.empty_pinned(shape, dtype=np.float32)
    h[...] = np.random.default_rng(1).standard_normal(shape, dtype=np.float32)
    o = cupyx.empty_pinned(shape, dtype=np.float32)
    def host_to_host():
        d = cp.asarray(h)
        y = cfft.dctn(d, type=2)
        y.get(out=o)
        cp.cuda.Device().synchronize()
    def on_card(d, f):
        f(d)
        cp.cuda.Device().synchronize()
    best = 1e9
    for r in range(4):
        t0 = time.perf_counter(); host_to_host(); t = time.perf_counter() - t0
        if r: best = min(best, t)
    d = cp.asarray(h)
    bd = br = 1e9
    for r in range(4):
        t0 = time.perf_counter(); on_card(d, lambda x: cfft.dctn(x, type=2)); t = time.perf_counter() - t0
        if r: bd = min(bd, t)
        t0 = time.perf_counter(); on_card(d, lambda x: cfft.rfftn(x)); t = time.perf_counter() - t0
        if r: br = min(br, t)
    print("%s f32: cupy asarray+dctn(type=2)+get %.4f s; on the card dctn %.4f s, rfftn %.4f s"
          % ("x".join(map(str, shape)), best, bd, br), flush=True)
    del d, h, o
    cp.get_default_memory_pool().free_all_blocks()
