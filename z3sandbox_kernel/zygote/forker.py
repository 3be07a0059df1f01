"""The fork server: the one process candidates and verifiers are forked from.

A fork copies everything its parent holds, freed memory included.  The serving zygote holds the
requests, outputs, reports and results of every candidate, and a script that reads its own memory
with ctypes found them there (the previous candidate's script 5 times of 5, a running sibling's 6
of 6).  So the zygote forks this process once, after the start-up probe and before it reads its
first request, and from then on asks it for every tree::

    zygote (holds requests) --order (JSON, no candidate data)--> fork server (holds none)
                            <--pid + the tree's pipe ends (SCM_RIGHTS)--
                            <--(pid, wait status, rusage) per reaped tree, on a pipe--

An order says only what the tree is (run, verify; a standby or a spare), its scratch folder, its
limits and its required layers: numbers and names that the zygote also puts in every process's
command of the sandbox.  Every tree then waits for its request on its go pipe, which only the
zygote writes (standby.py, verifiers.py): a candidate receives its own request after the fork,
and nothing of another.

The fork server is a child of the zygote, in its namespaces and filesystem view; the trees are its
children (it reaps them and reports each one, and as a subreaper it kills what a tree without a PID
namespace left behind).  It dies with the zygote (parent-death signal), and its trees with it.
"""

from __future__ import annotations

import os
import select
import selectors
import signal
import socket
import struct
import sys
import traceback
from dataclasses import dataclass
from typing import Any

import msgspec

from ..child.bootstrap import ChildJob
from ..child.steps import WITH_REQUEST
from ..limits import Limits
from ..oscalls import set_child_subreaper, set_parent_death_signal, set_process_name
from ..protocol import LimitValues, VerifyRequest
from ..roles import Role
from .sandboxing import SandboxPlan
from .spawn import (
    CANDIDATE_NAME,
    SPARE_NAME,
    STANDBY_NAME,
    ZYGOTE_NAME,
    Spawned,
    kill_group,
    reap_ready,
    spawn,
)

FORKER_NAME = Role.FORK_SERVER.process_name
# The names the fork server carries: its own, and for the instant of a fork the tree's (a name is
# inherited at fork, spawn.py).  It is the serving zygote's one child of these names.
FORKER_NAMES = frozenset({FORKER_NAME, SPARE_NAME, STANDBY_NAME, CANDIDATE_NAME})
# One reaped tree: pid, wait status, user and system CPU seconds, peak RSS in KB.  Smaller than
# PIPE_BUF, so each record is written whole.
REAPED = struct.Struct(">iiddq")
_ORDER_MAX_BYTES = 1 << 16
# One order, one answer, each a message (macOS has no SOCK_SEQPACKET for AF_UNIX: datagrams there,
# untested; the life pipe still ends the fork server).
_SOCKET_TYPE = socket.SOCK_SEQPACKET if sys.platform == "linux" else socket.SOCK_DGRAM
_MAX_FDS = 5
_EXIT_WAIT_S = 5.0  # the fork server's own exit at the end, before it is killed


class Order(msgspec.Struct, frozen=True):
    """zygote -> fork server: what a tree is, never what it will run (the module docstring)."""

    role: Role
    ahead: bool  # forked before its request: it gets a go pipe
    folder: str  # its scratch folder
    limits: LimitValues
    require: list[str]  # layers that must be active (a verifier's; a run's come with its request)


class Forked(msgspec.Struct, frozen=True):
    """fork server -> zygote: the tree's pid and which pipe ends came with it, or why it failed."""

    pid: int = 0
    status: bool = False  # its init's status pipe
    go: bool = False  # its go pipe
    error: str | None = None
    errno: int = 0


_ORDERS = msgspec.json.Decoder(Order)
_FORKED = msgspec.json.Decoder(Forked)


@dataclass
class Usage:
    """What the zygote reads of a reaped tree's rusage."""

    ru_utime: float
    ru_stime: float
    ru_maxrss: int


def child_job(plan: SandboxPlan, order: Order, fds: tuple[int, int, int, int | None],
              in_pid_ns: bool) -> ChildJob:
    """The ChildJob for an order, built from nothing but the order."""
    out_w, err_w, res_w, go_r = fds
    role = order.role
    limits = Limits.from_dict(order.limits)
    required = frozenset(order.require)
    if role is Role.SPARE:  # every layer required but those that come with its request (child/steps.py)
        required = frozenset(layer.NAME for layer in plan.layers if layer.NAME not in WITH_REQUEST)
    verify: VerifyRequest | None = None
    if role in (Role.RUN, Role.STANDBY) and go_r is not None:
        # its request comes on its go pipe (bootstrap._stand_by): a standby until then, even one
        # forked for a request at hand
        role = Role.STANDBY
    elif role is Role.VERIFY:
        verify = {"require": sorted(required)}
    return ChildJob(role=role, request=None, verify=verify,
                    policy=plan.policy(order.folder, limits, in_pid_ns), stdout_fd=out_w,
                    stderr_fd=err_w, result_fd=res_w, layers=plan.layers, required=required,
                    in_pid_namespace=in_pid_ns, preset_reports=plan.namespace_reports, go_fd=go_r)


def fork_tree(plan: SandboxPlan, order: Order, forget: Any, name: str) -> Spawned:
    """Fork the tree an order describes (in the fork server, or in the zygote for its probe)."""
    role = order.role
    ahead = role if order.ahead else None

    def make_job(out_w: int, err_w: int, res_w: int, go_r: int | None, in_pid_ns: bool) -> ChildJob:
        return child_job(plan, order, (out_w, err_w, res_w, go_r), in_pid_ns)

    # Only user code needs a PID namespace of its own (and its init); a verifier or the probe
    # runs none and cannot fork (seccomp), so it saves a fork and a namespace teardown.
    return spawn(make_job, plan.pid_ns_fd if role in (Role.RUN, Role.STANDBY) else None, ahead=ahead,
                 forget=forget, name=name)


class ForkServer:
    """The zygote's side: start the fork server, send it orders, read what it reaped."""

    def __init__(self, plan: SandboxPlan, forget: Any) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, _SOCKET_TYPE)
        reaped_r, reaped_w = os.pipe()
        life_r, life_w = os.pipe()  # EOF when the zygote is gone (macOS has no death signal)
        set_process_name(FORKER_NAME)  # from its first instant: a name is inherited at fork
        try:
            pid = os.fork()
        except BaseException:
            set_process_name(ZYGOTE_NAME)
            raise
        if pid == 0:
            try:
                ours.close()
                os.close(reaped_r)
                os.close(life_w)
                forget()  # the zygote's selector, its wake pipe, its host pipes
                _serve(plan, theirs, reaped_w, life_r)
            except BaseException:
                traceback.print_exc()
            finally:
                os._exit(1)
        set_process_name(ZYGOTE_NAME)
        theirs.close()
        os.close(reaped_w)
        os.close(life_r)
        os.set_blocking(reaped_r, False)
        self.life_w = life_w  # never written: held, then closed with the zygote
        self.pid, self.sock, self.reaped_fd = pid, ours, reaped_r
        self.pending = bytearray()

    def fork(self, order: Order) -> Spawned:
        """One tree, forked by the fork server; its read ends (non-blocking) are ours."""
        self.sock.send(msgspec.json.encode(order))
        message, fds, _, _ = socket.recv_fds(self.sock, _ORDER_MAX_BYTES, _MAX_FDS)
        if not message:
            raise OSError("the fork server is gone")
        reply = _FORKED.decode(message)
        if reply.error is not None:
            for fd in fds:
                os.close(fd)
            raise OSError(reply.errno, reply.error)
        given = iter(fds)
        out_r, err_r, res_r = next(given), next(given), next(given)
        status_r = next(given) if reply.status else None
        go_w = next(given) if reply.go else None
        return Spawned(reply.pid, out_r, err_r, res_r, status_r, go_w)

    def reaped(self) -> list[tuple[int, int, Usage]]:
        """The trees the fork server reaped since the last call."""
        try:
            while chunk := os.read(self.reaped_fd, REAPED.size * 256):
                self.pending += chunk
        except BlockingIOError:
            pass
        whole = len(self.pending) - len(self.pending) % REAPED.size
        records = [REAPED.unpack_from(self.pending, at) for at in range(0, whole, REAPED.size)]
        del self.pending[:whole]
        return [(pid, status, Usage(utime, stime, maxrss)) for pid, status, utime, stime, maxrss in records]

    def wait_reaped(self, timeout_s: float) -> list[tuple[int, int, Usage]]:
        select.select([self.reaped_fd], [], [], timeout_s)
        return self.reaped()

    def close(self) -> None:
        """EOF: the fork server kills its trees and exits, and is reaped here, so that it never
        outlives the zygote (the host's ``close()`` waits for the zygote's exit).  Idempotent: the
        zygote's end kills everything twice (on the host's shutdown, then in its finally)."""
        self.sock.close()
        if self.life_w >= 0:
            os.close(self.life_w)
            self.life_w = -1
        if self.pid:
            _await_exit(self.pid, _EXIT_WAIT_S)
            self.pid = 0


def _await_exit(pid: int, timeout_s: float) -> None:
    """Wait ``timeout_s`` at most for ``pid`` to exit (a pidfd where there is one), kill it if it
    has not, and reap it."""
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):  # not Linux, or already reaped: waitpid says which
        pidfd = -1
    if pidfd >= 0:
        try:
            if not select.select([pidfd], [], [], timeout_s)[0]:
                os.kill(pid, signal.SIGKILL)
        finally:
            os.close(pidfd)
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def _serve(plan: SandboxPlan, sock: socket.socket, reaped_w: int, life_r: int) -> None:
    """The fork server's loop: an order in, a tree out; a tree reaped, a record out."""
    set_parent_death_signal(signal.SIGKILL)
    if sys.platform == "linux":
        set_child_subreaper()  # what a tree without a PID namespace leaves is ours to kill
    for stream in (0, 1):  # the host's control pipes are the zygote's alone
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, stream)
        os.close(null)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    selector = selectors.DefaultSelector()
    selector.register(sock, selectors.EVENT_READ, "order")
    selector.register(wake_r, selectors.EVENT_READ, "wake")
    selector.register(life_r, selectors.EVENT_READ, "life")
    live: set[int] = set()

    def forget() -> None:  # first thing in every tree: none of the fork server's own descriptors
        selector.close()
        sock.close()
        for fd in (reaped_w, wake_r, wake_w, life_r):
            os.close(fd)

    while True:
        for key, _ in selector.select():
            if key.data in ("order", "life"):
                if key.data == "life" or not _take_order(plan, sock, live, forget):
                    for pid in live:
                        kill_group(pid)
                    return
            else:
                _reap(plan, wake_r, reaped_w, live)


def _take_order(plan: SandboxPlan, sock: socket.socket, live: set[int], forget: Any) -> bool:
    message = sock.recv(_ORDER_MAX_BYTES)
    if not message:
        return False
    order = _ORDERS.decode(message)
    try:
        spawned = fork_tree(plan, order, forget, FORKER_NAME)
    except OSError as exc:
        sock.send(msgspec.json.encode(Forked(error=str(exc), errno=exc.errno or 0)))
        return True
    live.add(spawned.pid)
    ends = [spawned.stdout_fd, spawned.stderr_fd, spawned.result_fd]
    ends += [fd for fd in (spawned.status_fd, spawned.go_fd) if fd is not None]
    reply = Forked(pid=spawned.pid, status=spawned.status_fd is not None, go=spawned.go_fd is not None)
    try:
        socket.send_fds(sock, [msgspec.json.encode(reply)], ends)
    finally:
        for fd in ends:
            os.close(fd)
    return True


def _reap(plan: SandboxPlan, wake_r: int, reaped_w: int, live: set[int]) -> None:
    for pid, status, rusage in reap_ready(wake_r):
        if pid not in live:
            continue  # an orphan inherited as subreaper: now reaped
        live.discard(pid)
        os.write(reaped_w, REAPED.pack(pid, status, rusage.ru_utime, rusage.ru_stime, rusage.ru_maxrss))
        if plan.pid_ns_fd is None:  # no init took the tree down: its orphans are ours
            plan.kill_orphans(live)
