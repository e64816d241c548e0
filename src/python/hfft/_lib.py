"""_lib.py: libhfft loaded with ctypes, the C declarations this package uses
(only those of the public header, include/hfft.h), and the library's failures
as Python exceptions.  ctypes releases the GIL around every foreign call, so
planning and executing run while other Python threads go on.
"""
import ctypes
import ctypes.util
import os

# Statuses and flags, as include/hfft.h defines them.
ERR_INVALID_ARGUMENT = -1
ERR_HOST_MEMORY = -2
FORWARD = -1
BACKWARD = +1
ESTIMATE = 1 << 0
PRESERVE_INPUT = 1 << 12
DESTROY_INPUT = 1 << 13
DEVICE_NONE = 1
MAX_RANK = 16
MAX_ROUNDS = 8
MAX_CARDS = 16

KIND_C2C, KIND_R2C, KIND_C2R, KIND_R2R = 0, 1, 2, 3
# hfft_r2r_kind (FFTW's values)
R2HC, HC2R, DHT = 0, 1, 2
REDFT00, REDFT01, REDFT10, REDFT11 = 3, 4, 5, 6
RODFT00, RODFT01, RODFT10, RODFT11 = 7, 8, 9, 10
STREAM_DIRECT = 1 << 20
STREAM_GRID = 1 << 21


class HfftError(RuntimeError):
    """A failure reported by libhfft.

    ``status`` is the library's negative ``hfft_status``, ``message`` its
    message (``hfft_last_error_message()``), ``strerror`` the status's text.
    """

    def __init__(self, status, message, strerror=""):
        self.status = status
        self.message = message
        self.strerror = strerror
        super().__init__(f"{message} [{strerror}, status {status}]" if strerror else message)


HfftError.__module__ = "hfft"  # where users catch it


class iodim(ctypes.Structure):
    _fields_ = [("n", ctypes.c_int64), ("is_", ctypes.c_int64), ("os", ctypes.c_int64)]


class options(ctypes.Structure):
    _fields_ = [
        ("device_memory", ctypes.c_int64),
        ("threads", ctypes.c_int),
        ("device", ctypes.c_int),
        ("wisdom", ctypes.c_char_p),
        ("ratio", ctypes.c_double),
        ("round_ratio", ctypes.c_double * 3),
        ("pass_bytes", ctypes.c_int64),
        ("slots", ctypes.c_int),
        ("pinning", ctypes.c_int),
        ("trace", ctypes.c_int),
        ("devices", ctypes.c_char_p),
    ]


class info(ctypes.Structure):
    _fields_ = [
        ("kind", ctypes.c_int),
        ("rank", ctypes.c_int),
        ("n", ctypes.c_int64 * MAX_RANK),
        ("howmany", ctypes.c_int64),
        ("split", ctypes.c_int64 * 2),
        ("precision", ctypes.c_int),
        ("device", ctypes.c_int),
        ("cards", ctypes.c_int),
        ("card_ids", ctypes.c_int * MAX_CARDS),
        ("placement", ctypes.c_int),
        ("schedule", ctypes.c_int),
        ("rounds", ctypes.c_int),
        ("passes", ctypes.c_int * MAX_ROUNDS),
        ("streams", ctypes.c_int),
        ("transposed", ctypes.c_int),
        ("ratio", ctypes.c_double * MAX_ROUNDS),
        ("threads", ctypes.c_int),
        ("cpu_plan", ctypes.c_int),
        ("device_budget", ctypes.c_int64),
        ("device_bytes", ctypes.c_int64),
        ("resident_bytes", ctypes.c_int64),
        ("host_bytes", ctypes.c_int64),
        ("host_pinned", ctypes.c_int),
        ("link_bytes", ctypes.c_int64 * 2),
        ("pin_seconds", ctypes.c_double),
        ("pinned_bytes", ctypes.c_int64),
        ("predicted_seconds", ctypes.c_double * MAX_ROUNDS),
        ("measured_seconds", ctypes.c_double * MAX_ROUNDS),
        ("measured_gpu", ctypes.c_double * MAX_ROUNDS),
        ("measured_cpu", ctypes.c_double * MAX_ROUNDS),
        ("wisdom", ctypes.c_int),
        ("wisdom_note", ctypes.c_char * 160),
        ("note", ctypes.c_char * 256),
        ("device_name", ctypes.c_char * 96),
        ("done_ratio", ctypes.c_double * MAX_ROUNDS),
        ("r2r_kinds", ctypes.c_int * MAX_RANK),
        ("r2r_paired", ctypes.c_int),
    ]


class stream_stats(ctypes.Structure):
    _fields_ = [
        ("rank", ctypes.c_int),
        ("n", ctypes.c_int64 * 3),
        ("points_added", ctypes.c_int64),
        ("points_applied", ctypes.c_int64),
        ("flushes", ctypes.c_int64),
        ("last_strategy", ctypes.c_int),
        ("last_keys", ctypes.c_int64),
        ("last_points", ctypes.c_int64),
        ("last_seconds", ctypes.c_double),
        ("flush_seconds", ctypes.c_double),
        ("add_seconds", ctypes.c_double),
        ("link_bytes", ctypes.c_int64 * 2),
        ("shift_keys", ctypes.c_int),
        ("image_on_cards", ctypes.c_int),
        ("cards", ctypes.c_int),
        ("card_ids", ctypes.c_int * MAX_CARDS),
        ("threads", ctypes.c_int),
    ]


def info_dict(inf):
    """An hfft_info as a dict, per-round arrays cut to the plan's rounds."""
    rounds = max(inf.rounds, 0)
    out = {}
    for name, _ in info._fields_:
        v = getattr(inf, name)
        if isinstance(v, bytes):
            v = v.decode("utf-8", "replace")
        elif name in ("n", "r2r_kinds"):
            v = list(v[: inf.rank])
        elif name == "card_ids":
            v = list(v[: max(inf.cards, 0)])
        elif name in ("passes", "ratio", "predicted_seconds", "measured_seconds",
                      "measured_gpu", "measured_cpu", "done_ratio"):
            v = list(v[:rounds])
        elif name in ("link_bytes", "split"):
            v = list(v)
        out[name] = v
    return out


def _candidates():
    """Where libhfft may be, in the order tried (see src/python/README.md)."""
    env = os.environ.get("HFFT_LIBRARY")
    if env:
        yield env  # an explicit choice: nothing else is tried
        return
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, "libhfft.so")  # installed by pip next to this file
    # a source tree, src/python/hfft, whose build/ has the library
    yield os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(here))), "build",
                       "libhfft.so")
    system = ctypes.util.find_library("hfft")  # runs ldconfig: only when needed
    if system:
        yield system


def _load():
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(f"{path} (absent)")
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append(f"{path} ({e})")
    raise ImportError("hfft: libhfft not found; set HFFT_LIBRARY to its path. Tried: "
                      + "; ".join(tried))


lib, path = _load()

_vp, _i, _u, _i64 = ctypes.c_void_p, ctypes.c_int, ctypes.c_uint, ctypes.c_int64
_dims = ctypes.POINTER(iodim)
_opts = ctypes.POINTER(options)


def _declare(name, restype, argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = argtypes
    return f


class _Api:
    """One precision's functions (prefix hfft_ or hfftf_); arrays are addresses."""

    def __init__(self, prefix):
        d = lambda n, r, a: _declare(prefix + n, r, a)  # noqa: E731
        self.plan = {
            KIND_C2C: d("plan_guru_dft", _vp, [_i, _dims, _i, _dims, _vp, _vp, _i, _u, _opts]),
            KIND_R2C: d("plan_guru_dft_r2c", _vp, [_i, _dims, _i, _dims, _vp, _vp, _u, _opts]),
            KIND_C2R: d("plan_guru_dft_c2r", _vp, [_i, _dims, _i, _dims, _vp, _vp, _u, _opts]),
            KIND_R2R: d("plan_guru_r2r", _vp,
                        [_i, _dims, _i, _dims, _vp, _vp, ctypes.POINTER(_i), _u, _opts]),
        }
        self.execute = {
            KIND_C2C: d("execute_dft", _i, [_vp, _vp, _vp]),
            KIND_R2C: d("execute_dft_r2c", _i, [_vp, _vp, _vp]),
            KIND_C2R: d("execute_dft_c2r", _i, [_vp, _vp, _vp]),
            KIND_R2R: d("execute_r2r", _i, [_vp, _vp, _vp]),
        }
        self.destroy = d("destroy_plan", None, [_vp])
        self.info = d("plan_info", _i, [_vp, ctypes.POINTER(info)])
        self.stream = d("stream_dft", _vp, [_i, ctypes.POINTER(_i64), _vp, _i, _u, _opts])
        self.stream_add = d("stream_add", _i, [_vp, _i64, _vp, _vp])
        self.stream_flush = d("stream_flush", _i, [_vp])
        self.stream_info = d("stream_info", _i, [_vp, ctypes.POINTER(stream_stats)])
        self.stream_destroy = d("stream_destroy", None, [_vp])


api = {8: _Api("hfft_"), 4: _Api("hfftf_")}
malloc = _declare("hfft_malloc", _vp, [ctypes.c_size_t])
free = _declare("hfft_free", None, [_vp])
options_init = _declare("hfft_options_init", None, [_opts])
strerror = _declare("hfft_strerror", ctypes.c_char_p, [_i])
last_error = _declare("hfft_last_error", _i, [])
last_error_message = _declare("hfft_last_error_message", ctypes.c_char_p, [])
parse_bytes = _declare("hfft_parse_bytes", _i, [ctypes.c_char_p, ctypes.POINTER(_i64)])
version = _declare("hfft_version", ctypes.c_char_p, [])().decode()


def error(status=None, context=""):
    """The HfftError for this thread's last failure (or for `status`)."""
    if status is None:
        status = last_error()
    message = (last_error_message() or b"").decode("utf-8", "replace")
    if not message:
        message = context or "hfft call failed"
    elif context:
        message = f"{context}: {message}"
    return HfftError(status, message, strerror(status).decode("utf-8", "replace"))
