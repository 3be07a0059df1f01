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

Its successor.  The zygote cannot fork a new fork server once it has read a request (the new one
would hold what the zygote holds), so the fork server forks one ahead, before it is needed: the
*next fork server*, a copy of a process that never held a request, idle on a socket and a reaped
pipe of its own that the zygote made and sent with the order.  It has no parent-death signal (it
must outlive its parent) and ends when the zygote does (the life pipe).  If the fork server dies,
its trees die with it (their parent-death signal), the next one is re-parented to the zygote (PID
1 of its namespace, or its subreaper) and takes over, and the zygote has it fork the next one in
turn (trees.py).  A fork server with no successor to take over ends the zygote, which the host
then restarts.

This module is the fork server's side (its loop, ``serve``) and what both sides share (the order,
the answer, the reaped record); fork_orders.py is the zygote's.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import socket
import struct
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import msgspec

from ..child.bootstrap import ChildJob
from ..child.steps import WITH_REQUEST
from ..contracts.limits import Limits
from ..contracts.oscalls import set_child_subreaper, set_parent_death_signal, set_process_name
from ..protocol import VerifyRequest
from ..protocol.roles import Role
from .sandboxing import SandboxPlan
from .spawn import (
    CANDIDATE_NAME,
    SPARE_NAME,
    STANDBY_NAME,
    Spawned,
    kill_group,
    reap_ready,
    spawn,
)

FORKER_NAME = Role.FORK_SERVER.process_name
NEXT_NAME = Role.NEXT_FORK_SERVER.process_name  # its successor's, until it takes over
# The names the fork server carries: its own, and for the instant of a fork the tree's (a name is
# inherited at fork, spawn.py).  It is the serving zygote's one child of these names.
FORKER_NAMES = frozenset({FORKER_NAME, NEXT_NAME, SPARE_NAME, STANDBY_NAME, CANDIDATE_NAME})
# One reaped tree: pid, wait status, user and system CPU seconds, peak RSS in KB.  Smaller than
# PIPE_BUF, so each record is written whole.
REAPED = struct.Struct(">iiddq")
ORDER_MAX_BYTES = 1 << 16
# One order, one answer, each a message (macOS has no SOCK_SEQPACKET for AF_UNIX: datagrams there,
# untested; the life pipe still ends the fork server).
SOCKET_TYPE = socket.SOCK_SEQPACKET if sys.platform == "linux" else socket.SOCK_DGRAM
MAX_FDS = 5


class ForkServerGone(OSError):
    """The fork server's socket is closed: it died, and its trees with it (trees.py takes over)."""


class Order(msgspec.Struct, frozen=True):
    """zygote -> fork server: what a tree is, never what it will run (the module docstring)."""

    role: Role
    ahead: bool  # forked before its request: it gets a go pipe
    folder: str  # its scratch folder
    limits: Limits
    require: list[str]  # layers that must be active (a verifier's; a run's come with its request)


class Forked(msgspec.Struct, frozen=True):
    """fork server -> zygote: the tree's pid and which pipe ends came with it, or why it failed."""

    pid: int = 0
    status: bool = False  # its init's status pipe
    go: bool = False  # its go pipe
    error: str | None = None
    errno: int = 0


ORDERS = msgspec.json.Decoder(Order)
FORKED = msgspec.json.Decoder(Forked)


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
    limits = order.limits
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


class Forget(Protocol):
    """Closes the zygote's descriptors first thing in a fork (``keep_life``: but the life pipe)."""

    def __call__(self, keep_life: bool = False) -> None: ...


def fork_tree(plan: SandboxPlan, order: Order, forget: Callable[[], None], name: str) -> Spawned:
    """Fork the tree an order describes (in the fork server, or in the zygote for its probe)."""
    role = order.role
    ahead = role if order.ahead else None

    def make_job(out_w: int, err_w: int, res_w: int, go_r: int | None, in_pid_ns: bool) -> ChildJob:
        return child_job(plan, order, (out_w, err_w, res_w, go_r), in_pid_ns)

    # Only user code needs a PID namespace of its own (and its init); a verifier or the probe
    # runs none and cannot fork (seccomp), so it saves a fork and a namespace teardown.
    return spawn(make_job, plan.pid_ns_fd if role in (Role.RUN, Role.STANDBY) else None, ahead=ahead,
                 forget=forget, name=name)


@dataclass
class _Served:
    """What one fork server's loop keeps: its live trees and its successor's pid (0: none)."""

    live: set[int]
    successor: int = 0
    serving: bool = False  # a successor has taken over (its first order came)


def serve(plan: SandboxPlan, sock: socket.socket, reaped_w: int, life_r: int, first: bool) -> None:
    """The fork server's loop: an order in, a tree out; a tree reaped, a record out.  ``first``:
    forked by the zygote, it dies with it; a successor must outlive its parent (the fork server it
    replaces), so only the life pipe ends it."""
    if first:
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
    served = _Served(set(), serving=first)

    def forget(keep_life: bool = False) -> None:  # first thing in every fork: none of our descriptors
        selector.close()
        sock.close()
        for fd in (reaped_w, wake_r, wake_w) if keep_life else (reaped_w, wake_r, wake_w, life_r):
            os.close(fd)

    try:
        while True:
            for key, _ in selector.select():
                if key.data == "life" or (key.data == "order" and not _take_order(plan, sock, served, forget,
                                                                                 life_r)):
                    return
                if key.data == "wake":
                    _reap(plan, wake_r, reaped_w, served)
    finally:
        for pid in served.live:
            kill_group(pid)
        if served.successor:  # ours to end: the zygote is closing us (a dead one cannot)
            kill_group(served.successor)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(served.successor, 0)


def _take_order(plan: SandboxPlan, sock: socket.socket, served: _Served, forget: Forget, life_r: int) -> bool:
    message, fds, _, _ = socket.recv_fds(sock, ORDER_MAX_BYTES, 2)
    if not message:
        return False
    if not served.serving:  # a successor's first order: it has taken over
        served.serving = True
        set_process_name(FORKER_NAME)
    order = ORDERS.decode(message)
    if order.role is Role.NEXT_FORK_SERVER:
        sock.send(msgspec.json.encode(_fork_successor(plan, fds, served, forget, life_r)))
        return True
    for fd in fds:  # a tree's order comes with none
        os.close(fd)
    try:
        spawned = fork_tree(plan, order, forget, FORKER_NAME)
    except OSError as exc:
        sock.send(msgspec.json.encode(Forked(error=str(exc), errno=exc.errno or 0)))
        return True
    served.live.add(spawned.pid)
    ends = [spawned.stdout_fd, spawned.stderr_fd, spawned.result_fd]
    ends += [fd for fd in (spawned.status_fd, spawned.go_fd) if fd is not None]
    reply = Forked(pid=spawned.pid, status=spawned.status_fd is not None, go=spawned.go_fd is not None)
    try:
        socket.send_fds(sock, [msgspec.json.encode(reply)], ends)
    finally:
        for fd in ends:
            os.close(fd)
    return True


def _fork_successor(plan: SandboxPlan, fds: list[int], served: _Served, forget: Forget,
                    life_r: int) -> Forked:
    """Fork the next fork server: it serves on the socket and reaped pipe the zygote sent (``fds``)."""
    try:
        if len(fds) != 2 or served.successor:
            return Forked(error="a successor is ordered once, with its socket and its reaped pipe")
        set_process_name(NEXT_NAME)  # from its first instant: a name is inherited at fork
        try:
            pid = os.fork()
        except OSError as exc:
            set_process_name(FORKER_NAME)
            return Forked(error=str(exc), errno=exc.errno or 0)
        if pid == 0:
            try:
                forget(keep_life=True)
                serve(plan, socket.socket(fileno=fds[0]), fds[1], life_r, first=False)
            except BaseException:
                traceback.print_exc()
            finally:
                os._exit(1)
        set_process_name(FORKER_NAME)
        served.successor = pid
        return Forked(pid=pid)
    finally:
        for fd in fds:
            os.close(fd)


def _reap(plan: SandboxPlan, wake_r: int, reaped_w: int, served: _Served) -> None:
    for pid, status, rusage in reap_ready(wake_r):
        if pid == served.successor:  # the zygote orders another
            served.successor = 0
        elif pid not in served.live:
            continue  # an orphan inherited as subreaper: now reaped
        served.live.discard(pid)
        os.write(reaped_w, REAPED.pack(pid, status, rusage.ru_utime, rusage.ru_stime, rusage.ru_maxrss))
        if plan.pid_ns_fd is None:  # no init took the tree down: its orphans are ours
            plan.kill_orphans(served.live | {served.successor})
