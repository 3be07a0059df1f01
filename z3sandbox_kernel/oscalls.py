"""The few Linux system calls the zygote and the child bootstrap share, through libc.

Hand-written: Python 3.11 has no os.unshare/os.setns/mount, and no maintained binding covers unshare,
setns, mount, pivot_root and prctl together (python-prctl and pyprctl cover prctl only).  Imported
by both the zygote and the child side, so it imports nothing else from this package.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

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

# pivot_root has no glibc wrapper: its system call number per architecture.
_SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "s390x": 217}

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
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


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    def c(text: str | None) -> bytes | None:
        return None if text is None else os.fsencode(text)

    _check(_libc.mount(c(source), c(target), c(fstype), ctypes.c_ulong(flags), c(data or None)),
           f"mount({target})")


def umount2(target: str, flags: int) -> None:
    _check(_libc.umount2(os.fsencode(target), ctypes.c_int(flags)), f"umount2({target})")


def pivot_root(new_root: str, put_old: str) -> None:
    number = _SYS_PIVOT_ROOT.get(os.uname().machine)
    if number is None:
        raise OSError(38, f"pivot_root: unknown system call number on {os.uname().machine}")
    _check(_libc.syscall(ctypes.c_long(number), os.fsencode(new_root), os.fsencode(put_old)),
           "pivot_root")


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
