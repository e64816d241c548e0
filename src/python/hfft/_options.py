"""_options.py: the settings plans are made with (hfft_options), set for the
process with set_options() or for a block of code (and its thread or task)
with the options() context manager.  A setting left unset falls back, as in
C, to its HFFT_* environment variable, then to the library's default.

Each setting is one row of _SETTINGS: its name, how a Python value becomes the
hfft_options field, and the field.  A field the C API gains later is one more
row (and one more row of src/python/README.md's table, which a test compares).
"""
import contextlib
import contextvars
import ctypes
import operator
import os
import threading

from . import _lib

_DEVICES = {"auto": 0, "none": 1, "cpu": 1, "cuda": 2, "gpu": 2, "emulated": 3}
_PINNINGS = {"auto": 0, "register": 1, "stage": 2}
# Environment variables a plan reads where a setting is unset: part of the plan
# cache's key, so that a plan made under other values is not reused.
ENVIRONMENT = ("HFFT_DEVICE", "HFFT_DEVICE_MEMORY", "HFFT_THREADS", "HFFT_WISDOM",
               "HFFT_PINNING", "HFFT_DEVICES", "HFFT_TRACE")


def _choice(table, name):
    def convert(value):
        key = str(value).lower()
        if key not in table:
            raise ValueError(f"{name}={value!r}: use one of {', '.join(sorted(table))}")
        return table[key]
    return convert


def _bytes(value):
    if isinstance(value, str):
        n = ctypes.c_int64()
        if _lib.parse_bytes(value.encode(), ctypes.byref(n)):
            raise ValueError(f"device_memory={value!r}: "
                             + _lib.last_error_message().decode("utf-8", "replace"))
        value = n.value
    value = operator.index(value)
    if value < 1:
        raise ValueError(f"device_memory={value}: must be positive")
    return value


def _threads(value):
    value = operator.index(value)
    if value < 1:
        raise ValueError(f"threads={value}: must be 1 or more")
    return value


def _path(value):
    return os.fsencode(value)


def _devices(value):
    """"all", a comma list "0,1", or a sequence of card ordinals."""
    if isinstance(value, str):
        text = value
    else:
        cards = [operator.index(v) for v in value]
        if not cards:
            raise ValueError("devices=[]: name at least one card, or 'all'")
        text = ",".join(str(v) for v in cards)
    return text.encode()


# name -> (conversion to the C value, hfft_options field or None)
_SETTINGS = {
    "device": (_choice(_DEVICES, "device"), "device"),
    "device_memory": (_bytes, "device_memory"),
    "threads": (_threads, "threads"),
    "wisdom": (_path, "wisdom"),
    "pinning": (_choice(_PINNINGS, "pinning"), "pinning"),
    "devices": (_devices, "devices"),
}
_ALIASES = {"budget": "device_memory"}

_lock = threading.Lock()
_global = {}  # set_options(): name -> C value
_local = contextvars.ContextVar("hfft_options", default=None)


def _convert(kwargs):
    out = {}
    for name, value in kwargs.items():
        name = _ALIASES.get(name, name)
        if name not in _SETTINGS:
            raise TypeError(f"unknown hfft option {name!r}; known: "
                            + ", ".join(sorted(set(_SETTINGS) | set(_ALIASES))))
        out[name] = None if value is None else _SETTINGS[name][0](value)
    return out


def set_options(**kwargs):
    """Set the process-wide defaults of the plan settings.

    device: "auto", "none" (or "cpu"), "cuda" (or "gpu"), "emulated";
    device_memory (alias budget): bytes, as an int or a string such as "2GiB";
    threads: CPU threads; wisdom: a wisdom file's path, or "none";
    pinning: "auto", "register", "stage".  None unsets a setting (its
    environment variable, then the library's default, applies again).
    devices: the cards GPU plans use, "all" (the default) or card ordinals
    ("0,1" or [0, 1]).
    """
    values = _convert(kwargs)
    with _lock:
        for name, v in values.items():
            if v is None:
                _global.pop(name, None)
            else:
                _global[name] = v


@contextlib.contextmanager
def options(**kwargs):
    """Settings for the plans made inside the block (this thread or task
    only), over those of set_options(); same names and values."""
    values = _convert(kwargs)
    merged = dict(_local.get() or {})
    merged.update(values)
    token = _local.set(merged)
    try:
        yield
    finally:
        _local.reset(token)


def _effective():
    local = _local.get()
    if not local and not _global:
        return ()
    merged = dict(_global)
    if local:
        merged.update(local)
    return tuple(sorted((k, v) for k, v in merged.items() if v is not None))


def get_options():
    """The settings in force here (set_options() and any options() block);
    the names unset fall back to the environment, then to the defaults."""
    inv = {"device": {v: k for k, v in _DEVICES.items() if k not in ("cpu", "gpu")},
           "pinning": {v: k for k, v in _PINNINGS.items()}}
    out = {}
    for name, v in _effective():
        if name in inv:
            v = inv[name][v]
        elif name in ("wisdom", "devices"):
            v = os.fsdecode(v)
        out[name] = v
    return out


_structs = {}  # key -> hfft_options; a handful at most


def current():
    """(key, pointer to an hfft_options or None) for the settings in force."""
    eff = _effective()
    key = (eff, tuple(os.environ.get(v) for v in ENVIRONMENT))
    if not eff:
        return key, None
    opts = _structs.get(eff)
    if opts is None:
        opts = _lib.options()
        _lib.options_init(ctypes.byref(opts))
        for name, v in eff:
            setattr(opts, _SETTINGS[name][1], v)
        if len(_structs) > 64:
            _structs.clear()
        _structs[eff] = opts
    return key, ctypes.byref(opts)


def workers(value):
    """scipy.fft's workers= as a context: None leaves hfft's threads, N sets them
    for the call (negative: counted back from every CPU, -1 all of them)."""
    if value is None:
        return contextlib.nullcontext()
    w = operator.index(value)
    if w < 0:
        w += (os.cpu_count() or 1) + 1
    if w <= 0:
        raise ValueError(f"workers value out of range; got {value}")
    return options(threads=w)
