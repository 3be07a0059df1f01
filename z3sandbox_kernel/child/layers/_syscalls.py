"""The few raw system calls the layers need, through ctypes on the C library.

Private to the layers.  Every wrapper raises ``OSError`` with the kernel's errno, so the layers can
turn a refusal into a ``LayerSetupError`` that names the errno.  Nothing here allocates per call
beyond a ctypes argument, so the wrappers are cheap enough to run in every candidate.
"""

from __future__ import annotations

import ctypes
import os
from typing import Any

_libc = ctypes.CDLL(None, use_errno=True)

_syscall = _libc.syscall
_syscall.restype = ctypes.c_long

_prctl = _libc.prctl
_prctl.restype = ctypes.c_int
_prctl.argtypes = (ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong)


def _check(result: int, what: str) -> int:
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")
    return result


def syscall(number: int, *args: Any, what: str = "syscall") -> int:
    """``syscall(2)``; integer arguments are passed as C longs, pointers as they are."""
    converted = [ctypes.c_long(a) if isinstance(a, int) else a for a in args]
    return _check(int(_syscall(ctypes.c_long(number), *converted)), what)


def prctl(option: int, arg2: int = 0, arg3: int = 0, arg4: int = 0, arg5: int = 0) -> int:
    return _check(int(_prctl(option, arg2, arg3, arg4, arg5)), f"prctl({option})")


def prctl_pointer(option: int, arg2: int, address: int) -> int:
    """``prctl`` whose third argument is a pointer (PR_SET_SECCOMP), given as an address."""
    return _check(int(_prctl(option, arg2, address, 0, 0)), f"prctl({option})")


# ------------------------------------------------------------------------------------- capabilities

_LINUX_CAPABILITY_VERSION_3 = 0x20080522


class _CapHeader(ctypes.Structure):
    _fields_ = (("version", ctypes.c_uint32), ("pid", ctypes.c_int))


class _CapData(ctypes.Structure):
    _fields_ = (
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    )


_CapDataPair = _CapData * 2

_capget = _libc.capget
_capget.restype = ctypes.c_int
_capset = _libc.capset
_capset.restype = ctypes.c_int


def capget() -> tuple[int, int, int]:
    """The calling thread's (effective, permitted, inheritable) sets as 64-bit masks."""
    header = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0)
    data = _CapDataPair()
    _check(int(_capget(ctypes.byref(header), data)), "capget")
    return (
        data[0].effective | (data[1].effective << 32),
        data[0].permitted | (data[1].permitted << 32),
        data[0].inheritable | (data[1].inheritable << 32),
    )


def capset_empty() -> None:
    """Empty the effective, permitted and inheritable sets of the calling thread."""
    header = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0)
    data = _CapDataPair()  # zero-initialised
    _check(int(_capset(ctypes.byref(header), data)), "capset")
