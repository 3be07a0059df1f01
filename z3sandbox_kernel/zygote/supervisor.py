"""A candidate's init answers the refusals of its child's seccomp filter, and counts them.

The init (PID 1 of the candidate's PID namespace, spawn.py) runs no user code, so what it counts is
the sandbox's own observation: the verdict ``blocked`` rests on it (classify.py), never on an
exception or a report the candidate could shape.  Before forking the child, the init makes a socket
pair; the child loads its filter with a listener and sends it over (child/layers/seccomp_notify.py)
before user code.  The init then waits on three things at once: the child's pidfd (it ended), the
socket (the listener arrives, or the socket closes with nothing: nothing is observed) and the
listener (a refused call waits for its answer: EPERM, as the plain filter gives).  A candidate that
makes no refused call never wakes the init.
"""

from __future__ import annotations

import errno
import fcntl
import os
import select
import socket
from typing import Any

from ..child.layers.seccomp_notify import IOCTL_NOTIF_RECV, IOCTL_NOTIF_SEND, NOTIF, NOTIF_RESP
from ..protocol import REFUSALS_NOT_SUPERVISED

_GONE = select.POLLHUP | select.POLLERR | select.POLLNVAL


class Supervisor:
    """One candidate's: made in its init before the fork (``start``), waited on after it."""

    def __init__(self, ours: socket.socket, theirs: socket.socket) -> None:
        self._ours = ours
        self.theirs = theirs  # the child's end: handed to it, closed in the init after the fork
        self._listener: int | None = None
        self.refused = REFUSALS_NOT_SUPERVISED  # 0 and up once the listener is here
        self.first = -1  # the first refused call's number

    @classmethod
    def start(cls) -> Supervisor | None:
        """A supervisor, or None where this kernel cannot wait on a pidfd (before Linux 5.3) or no
        socket pair can be made (out of descriptors): the candidate then runs unobserved."""
        try:
            os.close(os.pidfd_open(os.getpid()))
            return cls(*socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET))
        except (AttributeError, OSError):
            return None

    def in_child(self) -> None:
        """The child keeps only its end."""
        self._ours.close()

    def wait(self, child: int) -> tuple[int, Any] | None:
        """Answer refusals until ``child`` ends: its wait status and rusage.  None as soon as the
        socket closes with no listener on it (no filter: the child may fork, and the init's plain
        loop, which reaps orphans as they come, waits instead)."""
        self.theirs.close()
        pidfd = os.pidfd_open(child)
        poll = select.poll()
        poll.register(pidfd, select.POLLIN)
        poll.register(self._ours, select.POLLIN)
        try:
            while True:
                for fd, events in poll.poll():
                    if fd == pidfd:
                        if self._listener is None:  # sent, or closed: never blocks once it ended
                            self._receive()
                        _pid, status, rusage = os.wait4(child, 0)
                        return status, rusage
                    if fd == self._listener:
                        if events & select.POLLIN:
                            self._answer()
                        elif events & _GONE:
                            poll.unregister(fd)
                    elif fd == self._ours.fileno():
                        self._receive()
                        if self._listener is None:
                            return None
                        poll.unregister(fd)
                        poll.register(self._listener, select.POLLIN)
        finally:
            os.close(pidfd)
            self._ours.close()
            if self._listener is not None:
                os.close(self._listener)

    def _receive(self) -> None:
        try:
            _message, fds, _flags, _address = socket.recv_fds(self._ours, 16, 1)
        except OSError:
            return
        if fds:
            self._listener, self.refused = fds[0], 0

    def _answer(self) -> None:
        """One refused call: count it, answer EPERM."""
        assert self._listener is not None
        notification = bytearray(NOTIF.size)  # zeroed, as the kernel requires
        try:
            fcntl.ioctl(self._listener, IOCTL_NOTIF_RECV, notification, True)
        except OSError:
            return  # ENOENT: the calling thread died before it was read
        ident, _pid, _flags, number = NOTIF.unpack_from(notification)[:4]
        self.refused += 1
        if self.first < 0:
            self.first = number
        try:
            fcntl.ioctl(self._listener, IOCTL_NOTIF_SEND, NOTIF_RESP.pack(ident, 0, -errno.EPERM, 0))
        except OSError:
            return  # the caller died meanwhile
