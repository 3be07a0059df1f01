"""The few Linux system calls the zygote and the child bootstrap share, through libc.

Hand-written: Python 3.11 has no os.unshare/os.setns, and no maintained binding covers unshare, setns
and prctl together (python-prctl and pyprctl cover prctl only).  Imported by both the zygote and the
child side, so it imports nothing else from this package.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

PR_SET_PDEATHSIG = 1
PR_SET_NAME = 15
PR_SET_CHILD_SUBREAPER = 36

_libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def unshare(flags: int) -> None:
    _check(_libc.unshare(ctypes.c_int(flags)), "unshare")


def setns(fd: int, nstype: int) -> None:
    _check(_libc.setns(ctypes.c_int(fd), ctypes.c_int(nstype)), "setns")


def prctl(option: int, arg: int = 0) -> None:
    _check(_libc.prctl(ctypes.c_int(option), ctypes.c_ulong(arg), 0, 0, 0), "prctl")


def set_parent_death_signal(signum: int) -> None:
    prctl(PR_SET_PDEATHSIG, signum)


def set_child_subreaper() -> None:
    """Orphaned descendants are re-parented to us, so we can reap and kill them."""
    prctl(PR_SET_CHILD_SUBREAPER, 1)


def set_process_name(name: str) -> None:
    buffer = ctypes.create_string_buffer(name.encode()[:15])
    _libc.prctl(PR_SET_NAME, buffer, 0, 0, 0)
