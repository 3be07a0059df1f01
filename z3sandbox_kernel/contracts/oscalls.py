"""Every Linux system call the package makes through libc, in one module.

Hand-written with ctypes because nothing else covers them: Python 3.11 has no os.unshare, os.setns,
mount, pivot_root, prctl or capset (3.12 adds only unshare and setns), and no maintained library
binds these together with the raw ``syscall(2)`` Landlock needs (python-prctl and pyprctl cover
prctl and capabilities only; the ``landlock`` package is a pre-release).

Imported by the zygote and by every candidate's bootstrap, so it stays cheap: it imports ctypes,
errno, os and sys only, never ``ctypes.util`` (``find_library`` imports subprocess and runs
ldconfig, about 20 ms; ``CDLL(None)`` finds the libc the interpreter runs on), and nothing from
this package.  Every wrapper raises ``OSError`` with the kernel's errno and a message naming the
call.
"""

from __future__ import annotations

import ctypes
import errno
import os
import sys

TYPE_CHECKING = False  # not typing's: that import alone costs more than this module
if TYPE_CHECKING:
    from collections.abc import Callable
    from ctypes import _Pointer, _SimpleCData
    from typing import Any, NoReturn

    # an argument's or result's C type: c_int, c_char_p, a pointer to a structure ...
    CType = _SimpleCData[Any] | _Pointer[Any]

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_NOATIME = 1024
MS_NODIRATIME = 2048
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MS_RELATIME = 1 << 21
MNT_DETACH = 2

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_NAME = 15
PR_SET_CHILD_SUBREAPER = 36

# pivot_root has no glibc wrapper: its system call number per architecture.
_SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "s390x": 217}

_LINUX_CAPABILITY_VERSION_3 = 0x20080522


class _CapHeader(ctypes.Structure):
    _fields_ = (("version", ctypes.c_uint32), ("pid", ctypes.c_int))


class _CapData(ctypes.Structure):
    _fields_ = (
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    )


_CapDataPair = _CapData * 2  # version 3: two 32-bit halves of each 64-bit set

_libc = ctypes.CDLL(None, use_errno=True)  # the C library the interpreter runs on


def _bind(name: str, argtypes: tuple[type[CType], ...] | None,
          restype: type[CType] | None) -> Callable[..., Any]:
    """libc's ``name`` with its prototype, so that ctypes converts and checks every argument.

    Where this C library has no such function (macOS: no unshare, prctl, capset; it runs at
    process level, which calls none of them), a stand-in that raises ``OSError(ENOSYS)``: the
    module still imports on every platform the package runs on."""
    try:
        function = getattr(_libc, name)
    except AttributeError:
        def missing(*_args: object) -> NoReturn:
            raise OSError(errno.ENOSYS, f"{name}: not in this C library ({sys.platform})")

        return missing
    if argtypes is not None:
        function.argtypes = argtypes
    function.restype = restype
    bound: Callable[..., Any] = function
    return bound


_int, _ulong, _path = ctypes.c_int, ctypes.c_ulong, ctypes.c_char_p
_caps = (ctypes.POINTER(_CapHeader), ctypes.POINTER(_CapData))
_unshare = _bind("unshare", (_int,), _int)
_setns = _bind("setns", (_int, _int), _int)
_mount = _bind("mount", (_path, _path, _path, _ulong, _path), _int)
_umount2 = _bind("umount2", (_path, _int), _int)
_prctl = _bind("prctl", (_int, _ulong, _ulong, _ulong, _ulong), _int)
_capget = _bind("capget", _caps, _int)
_capset = _bind("capset", _caps, _int)
_fflush = _bind("fflush", (ctypes.c_void_p,), _int)
_mallopt = _bind("mallopt", (_int, _int), _int)
_malloc = _bind("malloc", (ctypes.c_size_t,), ctypes.c_void_p)
_free = _bind("free", (ctypes.c_void_p,), None)
_memset = _bind("memset", (ctypes.c_void_p, _int, ctypes.c_size_t), ctypes.c_void_p)
_syscall = _bind("syscall", None, ctypes.c_long)  # variadic: syscall() makes every argument a long

def _check(result: int, what: str) -> int:
    """The result when it is not negative, else ``OSError`` with the errno libc left."""
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")
    return result


def syscall(number: int, *args: int | bytes, what: str = "syscall") -> int:
    """``syscall(2)``: integers (addresses included) go as C longs, bytes as C strings."""
    converted = [ctypes.c_long(a) if isinstance(a, int) else a for a in args]
    return _check(int(_syscall(ctypes.c_long(number), *converted)), what)


def prctl(option: int, arg2: int = 0, arg3: int = 0, arg4: int = 0, arg5: int = 0) -> int:
    """``prctl(2)``; a pointer argument is given as its address (``ctypes.addressof``)."""
    return _check(int(_prctl(option, arg2, arg3, arg4, arg5)), f"prctl({option})")


def unshare(flags: int) -> None:
    _check(int(_unshare(flags)), "unshare")


def setns(fd: int, nstype: int) -> None:
    _check(int(_setns(fd, nstype)), "setns")


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    def c(text: str | None) -> bytes | None:
        return os.fsencode(text) if text else None

    _check(int(_mount(c(source), os.fsencode(target), c(fstype), flags, c(data))),
           f"mount({target})")


def umount2(target: str, flags: int) -> None:
    _check(int(_umount2(os.fsencode(target), flags)), f"umount2({target})")


def pivot_root(new_root: str, put_old: str) -> None:
    number = _SYS_PIVOT_ROOT.get(os.uname().machine)
    if number is None:
        raise OSError(errno.ENOSYS, f"pivot_root: unknown system call number on {os.uname().machine}")
    syscall(number, os.fsencode(new_root), os.fsencode(put_old), what="pivot_root")


def set_parent_death_signal(signum: int) -> None:
    prctl(PR_SET_PDEATHSIG, signum)


def set_child_subreaper() -> None:
    """Orphaned descendants are re-parented to us, so we can reap and kill them."""
    prctl(PR_SET_CHILD_SUBREAPER, 1)


def set_process_name(name: str) -> None:
    """The name ps and /proc/PID/comm show (the kernel keeps 15 bytes)."""
    buffer = ctypes.create_string_buffer(name.encode()[:15])
    prctl(PR_SET_NAME, ctypes.addressof(buffer))


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
    _check(int(_capset(ctypes.byref(header), _CapDataPair())), "capset")


def flush_c_stdio() -> None:
    """``fflush(NULL)``: every C stdio stream (z3 writes echo and verbose output there); a process
    that ends with ``os._exit`` flushes none."""
    _fflush(None)


# glibc's mallopt parameters (malloc.h).
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3


def keep_freed_memory(trim_threshold: int, mmap_threshold: int) -> None:
    """Keep freed heap memory instead of returning it to the kernel (glibc's ``mallopt``), so pages
    faulted in once serve later allocations.  Where the C library has no mallopt: nothing."""
    try:
        _mallopt(_M_TRIM_THRESHOLD, trim_threshold)
        _mallopt(_M_MMAP_THRESHOLD, mmap_threshold)
    except OSError:
        return


def prefault_heap(size: int) -> None:
    """Allocate ``size`` bytes, touch every page, free them: with ``keep_freed_memory`` the heap
    keeps them, faulted in, for what this process allocates next."""
    block = _malloc(size)
    if block:
        _memset(block, 0, size)
        _free(block)
