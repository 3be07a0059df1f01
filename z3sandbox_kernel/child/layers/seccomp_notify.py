"""Seccomp user notification: the refusals the sandbox observes itself.

A candidate can raise ``PermissionError("... seccomp ...")`` on its own, so neither an exception nor
anything the candidate reports says that the filter refused a call.  Where the candidate has an
init (PID 1 of its PID namespace, which runs no user code: zygote/spawn.py), the filter's refusals
are ``SECCOMP_RET_USER_NOTIF`` instead of ``EPERM``: the kernel stops the calling thread and asks
the holder of the filter's listener, the init, which answers EPERM (what the candidate sees is
unchanged) and counts the call (zygote/supervisor.py).  The count is the init's, outside the
candidate; the verdict ``blocked`` needs it (zygote/classify.py).

The child loads its filter with ``SECCOMP_FILTER_FLAG_NEW_LISTENER`` (Linux 5.0) and hands the
listener to its init over a socket pair the init made before the fork (``SCM_RIGHTS``), before any
user code, then closes both.  Only refused calls reach the init: a candidate that makes none runs
as fast as under the plain filter.  A kernel that refuses the flag gets the plain EPERM filter, and
the init learns that nothing is observed (the socket closes with nothing on it).
"""

from __future__ import annotations

import errno
import os
import socket
import struct
import sys

from ...contracts.oscalls import syscall
from ...protocol import SUPERVISOR_FD

RET_USER_NOTIF = 0x7FC00000
_SET_MODE_FILTER = 1
_FLAG_NEW_LISTENER = 1 << 3
_SYS_SECCOMP = {"x86_64": 317, "aarch64": 277}
# struct seccomp_notif (id, pid, flags, then seccomp_data: nr, arch, ip, args[6]) and
# struct seccomp_notif_resp (id, val, error, flags); their ioctls, _IOWR('!', 0 and 1, size).
NOTIF = struct.Struct("=QIIiIQ6Q")
NOTIF_RESP = struct.Struct("=QqiI")
IOCTL_NOTIF_RECV = 0xC0000000 | (NOTIF.size << 16) | (ord("!") << 8) | 0
IOCTL_NOTIF_SEND = 0xC0000000 | (NOTIF_RESP.size << 16) | (ord("!") << 8) | 1
HANDED = b"L"  # the one message on the socket pair, carrying the listener


def load_with_listener(fprog_address: int) -> int:
    """Load the filter at ``fprog_address`` (a ``sock_fprog``); its listener's descriptor.
    ``OSError`` when this kernel has no user notification (EINVAL, or ENOSYS: no seccomp(2))."""
    number = _SYS_SECCOMP.get(os.uname().machine)
    if number is None or sys.platform != "linux":
        raise OSError(errno.ENOSYS, "seccomp(2): unknown system call number here")
    return syscall(number, _SET_MODE_FILTER, _FLAG_NEW_LISTENER, fprog_address, what="seccomp")


def hand_over(listener: int) -> None:
    """Send ``listener`` to the init over ``SUPERVISOR_FD`` and close ours (the bootstrap closes
    ``SUPERVISOR_FD`` after the last layer, sent or not: no user code holds either)."""
    try:
        channel = socket.socket(fileno=SUPERVISOR_FD)
        try:
            socket.send_fds(channel, [HANDED], [listener])
        finally:
            channel.detach()
    finally:
        os.close(listener)
