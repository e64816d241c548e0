"""test_runtime.py: everything around the transforms: pinned arrays
(hfft.empty/zeros), settings (set_options, options), the plan cache, errors
as HfftError, transforms from several threads at once, the GPU schedule on the
emulated device with budgets small enough for many passes, and the ctypes
declarations against the C header (abi.c).
"""
import bisect
import gc
import json
import os
import subprocess
import threading
import time

import numpy as np
import pytest

import hfft
from hfft import _lib, _memory, _options
from conftest import BOUND_NUMPY, random
from reference import numpy_result, rel_rms

EMULATED = {"device": "emulated", "device_memory": "256KiB"}


# ---- pinned arrays ----

@pytest.mark.parametrize("dtype", [np.complex64, np.complex128, np.float32, np.float64])
@pytest.mark.parametrize("order", ["C", "F"])
def test_empty_and_zeros(dtype, order):
    a = hfft.empty((3, 1000), dtype, order=order)
    z = hfft.zeros((3, 1000), dtype, order=order)
    for x in (a, z):
        assert x.shape == (3, 1000) and x.dtype == dtype and x.flags.writeable
        assert x.flags.c_contiguous if order == "C" else x.flags.f_contiguous
        assert x.ctypes.data % 4096 == 0
        assert hfft.is_pinned(x) and hfft.is_pinned(x[1:, ::2])
    assert not z.any()
    assert not hfft.is_pinned(np.zeros(3)) and not hfft.is_pinned(np.zeros(3)[1:])


def test_pinned_memory_is_freed_with_its_last_view():
    gc.collect()
    live = _memory._live[0]
    a = hfft.zeros(1 << 16, np.complex64)
    view = a[10:20]
    del a
    gc.collect()
    assert _memory._live[0] == live + 1  # the view keeps it
    view[:] = 1  # still usable
    del view
    gc.collect()
    assert _memory._live[0] == live


def test_empty_shapes():
    for make, like in ((hfft.empty, np.empty), (hfft.zeros, np.zeros)):
        # numpy's default dtype, float64
        assert make(5).shape == (5,) and make(5).dtype == like(5).dtype
        assert make(5, None).dtype == like(5, None).dtype
    assert hfft.empty((0, 3), np.float32).shape == (0, 3)
    assert hfft.empty(()).shape == ()
    with pytest.raises(ValueError):
        hfft.empty((-1, 2))
    with pytest.raises(ValueError):
        hfft.empty(3, order="K")


def test_pinned_in_and_out_reuse_the_plan():
    x = hfft.empty((64, 48), np.complex64)
    x[...] = random(x.shape, np.complex64)
    out = hfft.empty(x.shape, np.complex64)
    hfft.clear_cache()
    before = hfft.cache_info()
    for _ in range(3):
        hfft.fft2(x, out=out)
    info = hfft.cache_info()
    assert info["misses"] == before["misses"] + 1 and info["hits"] == before["hits"] + 2
    assert info["size"] == 1
    assert rel_rms(out, np.fft.fft2(x.astype(np.complex128))) <= BOUND_NUMPY[4]


# ---- settings ----

def test_options_context_and_get_options():
    assert hfft.get_options() == {}
    hfft.set_options(threads=1)
    with hfft.options(device="none", budget="64MiB"):
        assert hfft.get_options() == {"threads": 1, "device": "none",
                                      "device_memory": 64 << 20}
        with hfft.options(threads=2):
            assert hfft.get_options()["threads"] == 2
        assert hfft.get_options()["threads"] == 1
    assert hfft.get_options() == {"threads": 1}
    hfft.set_options(threads=None)
    assert hfft.get_options() == {}


def test_readme_lists_every_setting():
    # src/python/README.md's table of settings is the package's documentation of them
    readme = os.path.join(os.path.dirname(__file__), "..", "..", "src", "python", "README.md")
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    start = text.index("## Settings")
    section = text[start: text.index("\n## ", start)]
    table = section.split("\n\n")[2]
    rows = {line.split("`")[1] for line in table.splitlines()[2:]}
    assert rows == set(_options._SETTINGS)
    assert "NotImplementedError" not in section  # every row is a setting that works


def test_options_are_local_to_a_thread():
    seen = []
    with hfft.options(threads=1):
        t = threading.Thread(target=lambda: seen.append(hfft.get_options()))
        t.start()
        t.join()
    assert seen == [{}]


@pytest.mark.parametrize("kw,error", [
    ({"device": "tpu"}, ValueError), ({"pinning": "always"}, ValueError),
    ({"threads": 0}, ValueError), ({"threads": 1.5}, TypeError),
    ({"device_memory": "lots"}, ValueError), ({"device_memory": 0}, ValueError),
    ({"colour": 1}, TypeError), ({"devices": []}, ValueError),
    ({"devices": [0.5]}, TypeError)])
def test_bad_options(kw, error):
    with pytest.raises(error):
        hfft.set_options(**kw)
    with pytest.raises(error):
        with hfft.options(**kw):
            pass


def test_options_reach_the_plan():
    x = random((16, 32), np.complex128)
    with hfft.options(device="none", threads=1):
        hfft.fft2(x)
        info = hfft.last_plan_info()
        assert info["device"] == _lib.DEVICE_NONE and info["threads"] == 1
    with hfft.options(**EMULATED):
        hfft.fft2(x)
        info = hfft.last_plan_info()
        assert info["device_name"] == "emulated" and info["device_budget"] == 256 << 10
    with hfft.options(**EMULATED, devices=[0, 2]):
        y = hfft.fft2(x)
        info = hfft.last_plan_info()
        assert info["cards"] == 2 and info["card_ids"] == [0, 2], info
        assert info["device_budget"] == 2 * (256 << 10)
        assert hfft.get_options()["devices"] == "0,2"
    assert rel_rms(y, np.fft.fft2(x)) < BOUND_NUMPY[8]


def test_options_and_environment_are_part_of_the_key():
    x = random(64, np.complex128)
    misses = hfft.cache_info()["misses"]
    hfft.fft(x)
    with hfft.options(threads=1):
        hfft.fft(x)
    old = os.environ.get("HFFT_THREADS")
    os.environ["HFFT_THREADS"] = "1"
    try:
        hfft.fft(x)
    finally:
        if old is None:
            del os.environ["HFFT_THREADS"]
        else:
            os.environ["HFFT_THREADS"] = old
    assert hfft.cache_info()["misses"] == misses + 3


# ---- errors ----

def test_library_errors_are_hfft_errors():
    # a wisdom file that cannot be read (a directory) is an error, not a silent default
    with hfft.options(device="emulated", wisdom="/"):
        with pytest.raises(hfft.HfftError) as e:
            hfft.fft(np.ones(64, np.complex128))
    assert isinstance(e.value, RuntimeError)
    assert e.value.status == -13  # HFFT_ERR_IO
    assert "wisdom" in e.value.message and "wisdom" in str(e.value)


def test_a_named_device_runs_what_its_engine_cannot_take():
    # a line of 2^14 elements does not fit one pass of a 4 KiB budget: it runs on
    # the CPU instead of failing, with the same answer
    x = np.random.default_rng(7).standard_normal(1 << 14) + 0j
    with hfft.options(device="emulated", device_memory=4096):
        y = hfft.fft(x)
    ref = np.fft.fft(x)
    assert np.linalg.norm(y - ref) <= 1e-14 * np.linalg.norm(ref)


def test_no_gpu_is_an_hfft_error():
    try:
        with hfft.options(device="cuda"):
            hfft.fft(np.ones(16))
    except hfft.HfftError as e:
        assert e.status == -4 and "CUDA" in e.message  # HFFT_ERR_NO_DEVICE
    else:
        pytest.skip("a CUDA GPU is usable here")


# ---- the plan cache ----

def test_cache_hits_bound_and_clear():
    hfft.clear_cache()
    x = random((8, 8), np.complex64)
    with hfft.options(device="none"):
        for _ in range(3):
            hfft.fft2(x)
        info = hfft.cache_info()
        assert info["size"] == 1 and info["hits"] >= 2
        hfft.set_cache_size(2)
        for n in range(2, 8):
            hfft.fft(np.ones(n))
        assert hfft.cache_info()["size"] == 2
        hfft.set_cache_size(0)
        hfft.fft(np.ones(9))
        assert hfft.cache_info()["size"] == 0
    hfft.set_cache_size(16)
    hfft.clear_cache()
    assert hfft.cache_info()["size"] == 0
    with pytest.raises(ValueError):
        hfft.set_cache_size(-1)


def test_plans_holding_registered_memory_are_not_cached():
    # On the (emulated) GPU, NumPy arrays are registered for the plan's life: such a
    # plan runs once.  Pinned arrays are not; their plan is cached, and runs other
    # pinned arrays without registering anything.
    hfft.clear_cache()
    x = random((128, 64), np.complex64)
    with hfft.options(**EMULATED):
        hfft.fft2(x)
        assert hfft.last_plan_info()["host_pinned"] == 1
        assert hfft.cache_info()["size"] == 0
        p = hfft.empty(x.shape, np.complex64)
        p[...] = x
        q = hfft.empty(x.shape, np.complex64)
        hfft.fft2(p, out=q)
        assert hfft.last_plan_info()["host_pinned"] == 2
        assert hfft.cache_info()["size"] == 1
        hits = hfft.cache_info()["hits"]
        r = hfft.empty(x.shape, np.complex64)
        hfft.fft2(p, out=r)  # the cached plan, on other pinned arrays
        np.testing.assert_array_equal(r, q)
        assert hfft.cache_info()["hits"] == hits + 1
        assert hfft.last_plan_info()["pinned_bytes"] == 0
        y = np.empty_like(x)
        hfft.fft2(x, out=y)  # the same layout on NumPy's memory: its own plan, run once
        assert hfft.last_plan_info()["host_pinned"] == 1
        assert hfft.cache_info()["size"] == 1 and hfft.cache_info()["hits"] == hits + 1
        assert rel_rms(y, q) <= BOUND_NUMPY[4]
    hfft.clear_cache()
    with hfft.options(pinning="stage", **EMULATED):  # staged, not registered: cached
        assert rel_rms(hfft.fft2(x), q) <= BOUND_NUMPY[4]
        assert hfft.last_plan_info()["host_pinned"] == 0
        assert hfft.cache_info()["size"] == 1
        hfft.fft2(x.copy())  # new NumPy arrays: staged too
        assert hfft.last_plan_info()["pinned_bytes"] == 0


def test_last_plan_info_is_per_thread():
    hfft.fft(np.ones(8))
    seen = []
    t = threading.Thread(target=lambda: seen.append(hfft.last_plan_info()))
    t.start()
    t.join()
    assert seen == [None] and hfft.last_plan_info()["n"] == [8]


def test_many_threads_share_the_cache():
    xs = [random((32, 48), np.complex128, seed=k) for k in range(8)]
    want = [np.fft.fft2(x) for x in xs]
    errors = []

    def work(k):
        try:
            for _ in range(20):
                assert rel_rms(hfft.fft2(xs[k]), want[k]) <= BOUND_NUMPY[8]
        except BaseException as e:  # noqa: B036
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_the_gil_is_released_while_a_transform_runs():
    # Another thread notes the time as often as it runs: it must run during the
    # middle half of a transform (with the GIL held it could not).
    stamps = []
    running, done = threading.Event(), threading.Event()

    def spin():
        running.set()
        while not done.is_set():
            stamps.append(time.perf_counter())

    x = random((1024, 1024), np.complex128)
    t = threading.Thread(target=spin)
    seen = False
    with hfft.options(device="none", threads=1):
        hfft.fft2(x)  # planned here
        t.start()
        running.wait()
        try:
            for _ in range(3):  # a loaded machine may not run the thread every time
                t0 = time.perf_counter()
                hfft.fft2(x)
                t1 = time.perf_counter()
                q = (t1 - t0) / 4
                i = bisect.bisect_right(stamps, t0 + q)  # the stamps are in order
                seen = seen or (i < len(stamps) and stamps[i] < t1 - q)
        finally:
            done.set()
            t.join()
    assert seen


# ---- the GPU schedule, on the emulated device ----

@pytest.mark.parametrize("name,shape,kw,prec", [
    ("fft2", (128, 256), {}, 4),
    ("ifft2", (96, 400), {"norm": "ortho"}, 8),
    ("fftn", (16, 32, 64), {}, 4),
    ("fft", (512, 256), {"axis": 0}, 4),  # strided columns
    ("ifft", (64, 512), {}, 8),
    ("fftn", (8, 64, 64), {"axes": (0, 2)}, 4),  # a batch in the middle
])
@pytest.mark.parametrize("order", ["C", "F"])
def test_emulated_gpu_schedule(name, shape, kw, prec, order):
    x = random(shape, np.complex64 if prec == 4 else np.complex128)
    x = np.asfortranarray(x) if order == "F" else x
    with hfft.options(**EMULATED):
        y = getattr(hfft, name)(x, **kw)
        info = hfft.last_plan_info()
    assert info["device_name"] == "emulated" and info["placement"] == 1, info["note"]
    assert sum(info["passes"]) > 2
    assert y.flags.f_contiguous if order == "F" else y.flags.c_contiguous
    assert rel_rms(y, numpy_result(name, x, kw)) <= BOUND_NUMPY[prec]


def test_emulated_gpu_in_place_on_pinned_memory():
    a = hfft.empty((128, 256), np.complex64)
    a[...] = random(a.shape, np.complex64)
    want = np.fft.fft2(a.astype(np.complex128))
    with hfft.options(**EMULATED):
        y = hfft.fft2(a, overwrite_x=True)
        info = hfft.last_plan_info()
    assert y is a and info["host_pinned"] == 2 and sum(info["passes"]) > 2
    assert rel_rms(a, want) <= BOUND_NUMPY[4]


# ---- the C declarations ----

def test_ctypes_declarations_match_the_header():
    program = os.environ.get("HFFT_ABI_PROGRAM")
    if not program:
        pytest.skip("HFFT_ABI_PROGRAM not set (CTest sets it)")
    c = json.loads(subprocess.run([program], check=True, capture_output=True,
                                  text=True).stdout)
    structs = {"hfft_iodim": _lib.iodim, "hfft_options": _lib.options, "hfft_info": _lib.info,
               "hfft_stream_stats": _lib.stream_stats}
    for key, (offset, size) in ((k, v) for k, v in c.items() if "." in k):
        struct, field = key.split(".")
        f = getattr(structs[struct], "is_" if field == "is" else field)
        assert (f.offset, f.size) == (offset, size), key
    assert [_lib.ctypes.sizeof(s) for s in structs.values()] == c["sizeof"]
    names = {f for k in c if "." in k for f in [k]}
    for struct, cls in structs.items():  # no field the header lacks
        for field, _ in cls._fields_:
            assert f"{struct}.{'is' if field == 'is_' else field}" in names
    for name in ("FORWARD", "BACKWARD", "ESTIMATE", "PRESERVE_INPUT", "DESTROY_INPUT",
                 "ERR_INVALID_ARGUMENT", "ERR_HOST_MEMORY", "DEVICE_NONE",
                 "MAX_RANK", "MAX_ROUNDS", "MAX_CARDS", "STREAM_DIRECT", "STREAM_GRID"):
        assert getattr(_lib, name) == c["HFFT_" + name], name
    for name, value in _options._DEVICES.items():
        assert value == c["HFFT_DEVICE_" + {"cpu": "NONE", "gpu": "CUDA"}.get(
            name, name.upper())], name
    for name, value in _options._PINNINGS.items():
        assert value == c["HFFT_PINNING_" + name.upper()], name


def test_version():
    assert hfft.__version__ == _lib.version and hfft.__version__.count(".") == 2
