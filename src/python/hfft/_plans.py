"""_plans.py: plans made through the guru interface, kept in a bounded LRU
cache and run on new arrays with the new-array executes (hfft_execute_dft,
_dft_r2c, _dft_c2r).  The key holds everything that changes a plan: kind,
precision, direction, every dimension's size and strides, in-place or not, the
arrays' alignment modulo 64 bytes, whether both are pinned (hfft.empty), the
flags and the settings in force.

A plan is taken out of the cache while it runs, so that no two threads run
one plan at once (the C API's rule); eviction and clear_cache() destroy only
plans at rest.  GPU plans register arrays that are not pinned (their own at
planning, new ones at execute, kept until the plan is destroyed), and
nothing would tell them when Python frees such an array.  So only plans that
register nothing are cached: CPU plans, GPU plans that stage (pinning
"stage"), and GPU plans on pinned arrays, which the key keeps apart from
those on NumPy's memory and which run only on pinned arrays.  A GPU plan on
NumPy arrays runs once and is destroyed.
"""
import atexit
import collections
import ctypes
import operator
import threading

from . import _lib, _options

DEFAULT_CACHE_SIZE = 16

_lock = threading.Lock()
_cache = collections.OrderedDict()  # key -> plan handle, most recently used last
_size = DEFAULT_CACHE_SIZE
_stats = {"hits": 0, "misses": 0}
_tls = threading.local()


def _destroy(plans):
    for key, handle in plans:
        _lib.api[key[1]].destroy(handle)


def _evict(keep):
    """Takes plans out of the cache, least recently used first, until `keep`
    remain; under _lock.  The caller destroys them after releasing it."""
    out = []
    while len(_cache) > keep:
        out.append(_cache.popitem(last=False))
    return out


def _take(key):
    with _lock:
        handle = _cache.pop(key, None)
        _stats["hits" if handle else "misses"] += 1
        return handle


def _give(key, handle):
    """Puts a plan at rest in the cache; destroys what does not fit."""
    with _lock:
        dropped = [(key, _cache.pop(key))] if key in _cache else []  # cached meanwhile
        _cache[key] = handle
        dropped += _evict(_size)
    _destroy(dropped)


def clear_cache():
    """Destroy every cached plan (plans running in other threads stay theirs)."""
    with _lock:
        dropped = _evict(0)
    _destroy(dropped)


def set_cache_size(n):
    """Keep at most n plans (default 16; 0 disables the cache)."""
    global _size
    n = operator.index(n)
    if n < 0:
        raise ValueError(f"cache size {n}: must be 0 or more")
    with _lock:
        _size = n
        dropped = _evict(n)
    _destroy(dropped)


def cache_info():
    """Plans cached, the bound, and hits and misses so far."""
    with _lock:
        return dict(_stats, size=len(_cache), max_size=_size)


def last_plan_info():
    """hfft_info (as a dict) of the plan that ran this thread's last transform,
    or None before the first."""
    inf = getattr(_tls, "info", None)
    return None if inf is None else _lib.info_dict(inf)


atexit.register(clear_cache)


def _iodims(dims):
    arr = (_lib.iodim * max(len(dims), 1))()
    for k, (n, s_in, s_out) in enumerate(dims):
        arr[k].n, arr[k].is_, arr[k].os = n, s_in, s_out
    return arr


def _make(kind, prec, sign, dims, hdims, src, dst, flags, opts):
    a = _lib.api[prec]
    args = (len(dims), _iodims(dims), len(hdims), _iodims(hdims), src, dst)
    if kind == _lib.KIND_C2C:
        handle = a.plan[kind](*args, sign, flags, opts)
    elif kind == _lib.KIND_R2R:  # sign: the kinds, one per dimension
        handle = a.plan[kind](*args, (ctypes.c_int * max(len(sign), 1))(*sign), flags, opts)
    else:
        handle = a.plan[kind](*args, flags, opts)
    if not handle:
        raise _lib.error(context="planning")
    return handle


def run(kind, prec, sign, dims, hdims, src, dst, pinned, flags):
    """Transforms the array at address src into the one at dst (equal: in
    place) with a plan from the cache, or a new one.  dims, hdims: tuples of
    (n, input stride, output stride) in elements, as hfft_iodim; pinned:
    whether both arrays are on hfft.empty's memory; sign: the direction, or for
    KIND_R2R a tuple of each dimension's hfft_r2r_kind."""
    okey, opts = _options.current()
    key = (kind, prec, sign, dims, hdims, src == dst, src & 63, dst & 63, pinned, flags, okey)
    a = _lib.api[prec]
    handle = _take(key)
    cached = bool(handle)
    if not cached:
        handle = _make(kind, prec, sign, dims, hdims, src, dst, flags, opts)
    try:
        st = a.execute[kind](handle, src, dst)
        if st:
            raise _lib.error(st, "execute")
        _finish(a, handle)
    except BaseException:
        a.destroy(handle)
        raise
    inf = _tls.info
    if cached or (_size and (inf.device == _lib.DEVICE_NONE or inf.host_pinned != 1)):
        _give(key, handle)
    else:
        a.destroy(handle)


def _finish(a, handle):
    """Keeps the plan's hfft_info for last_plan_info()."""
    inf = getattr(_tls, "info", None)
    if inf is None:
        inf = _tls.info = _lib.info()
    a.info(handle, ctypes.byref(inf))
