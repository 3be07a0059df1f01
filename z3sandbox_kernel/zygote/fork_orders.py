"""The zygote's side of the fork server (forker.py): its orders, what it reaped, its successor.

Everything here runs in the zygote, on its one thread.  The fork server answers each order at once,
so an order is one send and one receive; what it reaped comes on a pipe the zygote's selector
watches (trees.py).  A closed socket or the end of that pipe is its death (``ForkServerGone``,
``gone``), never "nothing new": ``ForkServers`` then hands over to its successor.
"""

from __future__ import annotations

import math
import os
import select
import selectors
import signal
import socket
import sys
import traceback
from collections.abc import Callable
from typing import Any

import msgspec

from ..contracts.limits import DEFAULT_LIMITS
from ..contracts.oscalls import set_process_name
from ..protocol.roles import Kill, Role
from .forker import (
    FORKED,
    FORKER_NAME,
    MAX_FDS,
    ORDER_MAX_BYTES,
    REAPED,
    SOCKET_TYPE,
    Forked,
    ForkServerGone,
    Order,
    Usage,
    serve,
)
from .jobs import Job
from .sandboxing import SandboxPlan
from .spawn import ZYGOTE_NAME, Spawned, kill_group

_EXIT_WAIT_S = 5.0  # the fork server's own exit at the end, before it is killed
_DEAD_WAIT_S = 1.0  # a fork server whose socket closed is exiting: how long its exit may take


class ForkServer:
    """The zygote's side of one fork server: send it orders, read what it reaped, and hold the
    ends of its successor's socket and reaped pipe (the module docstring)."""

    def __init__(self, pid: int, sock: socket.socket, reaped_fd: int, life_w: int = -1) -> None:
        os.set_blocking(reaped_fd, False)
        self.pid, self.sock, self.reaped_fd = pid, sock, reaped_fd
        self.life_w = life_w  # never written: held, then closed with the zygote (or handed on)
        self.pending = bytearray()
        self.gone = False  # EOF on its reaped pipe: it died
        self.status: int | None = None  # its wait status, once reaped
        self.successor: ForkServer | None = None

    @classmethod
    def start(cls, plan: SandboxPlan, forget: Callable[[], None]) -> ForkServer:
        """The first fork server, forked by the zygote before it reads any request."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, SOCKET_TYPE)
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
                serve(plan, theirs, reaped_w, life_r, first=True)
            except BaseException:
                traceback.print_exc()
            finally:
                os._exit(1)
        set_process_name(ZYGOTE_NAME)
        theirs.close()
        os.close(reaped_w)
        os.close(life_r)
        return cls(pid, ours, reaped_r, life_w)

    def order_successor(self) -> None:
        """Have the fork server fork its successor, on a socket and a reaped pipe made here."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, SOCKET_TYPE)
        reaped_r, reaped_w = os.pipe()
        order = Order(role=Role.NEXT_FORK_SERVER, ahead=False, folder="", limits=DEFAULT_LIMITS,
                      require=[])
        try:
            reply, fds = self._ask(order, (theirs.fileno(), reaped_w))
            for fd in fds:
                os.close(fd)
            if reply.error is not None:
                raise OSError(reply.errno, reply.error)
        except BaseException:
            ours.close()
            os.close(reaped_r)
            raise
        finally:
            theirs.close()
            os.close(reaped_w)
        self.successor = ForkServer(reply.pid, ours, reaped_r)

    def _ask(self, order: Order, fds: tuple[int, ...] = ()) -> tuple[Forked, list[int]]:
        """One order and its answer; ``ForkServerGone`` if the fork server is dead."""
        try:
            socket.send_fds(self.sock, [msgspec.json.encode(order)], list(fds))
            message, given, _, _ = socket.recv_fds(self.sock, ORDER_MAX_BYTES, MAX_FDS)
        except (BrokenPipeError, ConnectionResetError) as exc:
            raise ForkServerGone(exc.errno, f"the fork server is gone ({exc.strerror})") from None
        if not message:
            raise ForkServerGone("the fork server is gone")
        return FORKED.decode(message), given

    def fork(self, order: Order) -> Spawned:
        """One tree, forked by the fork server; its read ends (non-blocking) are ours."""
        reply, fds = self._ask(order)
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
        """The trees the fork server reaped since the last call (``gone`` once it has died: the
        end of its pipe, after the last record it wrote)."""
        try:
            while chunk := os.read(self.reaped_fd, REAPED.size * 256):
                self.pending += chunk
            self.gone = True
        except BlockingIOError:
            pass
        whole = len(self.pending) - len(self.pending) % REAPED.size
        records = [REAPED.unpack_from(self.pending, at) for at in range(0, whole, REAPED.size)]
        del self.pending[:whole]
        return [(pid, status, Usage(utime, stime, maxrss)) for pid, status, utime, stime, maxrss in records]

    def reap_dead(self) -> int:
        """It died (its socket or its pipe closed): its wait status, reaped here unless the
        zygote's SIGCHLD loop did first (``status``).  Once reaped, its orphans are ours."""
        if self.status is None:
            self.status = _await_exit(self.pid, _DEAD_WAIT_S)
        self.pid = 0
        return self.status if self.status is not None else signal.SIGKILL

    def take_over(self) -> ForkServer | None:
        """Its successor, now the fork server (it holds the life pipe from here on); this one's
        ends are closed.  Call after ``reap_dead``."""
        successor, self.successor = self.successor, None
        if successor is not None:
            successor.life_w, self.life_w = self.life_w, -1
        self.close()
        return successor

    def close(self) -> None:
        """EOF: the fork server kills its trees and its successor and exits, and is reaped here,
        so that it never outlives the zygote (the host's ``close()`` waits for the zygote's exit).
        Idempotent: the zygote's end kills everything twice (on the host's shutdown, then in its
        finally)."""
        self.sock.close()
        if self.reaped_fd >= 0:
            os.close(self.reaped_fd)
            self.reaped_fd = -1
        if self.life_w >= 0:
            os.close(self.life_w)
            self.life_w = -1
        if self.successor is not None:  # its parent kills it: ours are only its two ends
            self.successor.sock.close()
            os.close(self.successor.reaped_fd)
            self.successor = None
        if self.pid:
            _await_exit(self.pid, _EXIT_WAIT_S)
            self.pid = 0


def describe_death(status: int) -> str:
    """A wait status as the host's notes say it: "was killed by SIGKILL", "exited with code 1"."""
    code = os.waitstatus_to_exitcode(status)
    if code >= 0:
        return f"exited with code {code}"
    try:
        return f"was killed by {signal.Signals(-code).name}"
    except ValueError:
        return f"was killed by signal {-code}"


def _await_exit(pid: int, timeout_s: float) -> int | None:
    """Wait ``timeout_s`` at most for ``pid`` to exit (a pidfd where there is one), kill it if it
    has not, and reap it: its wait status (None: it was reaped elsewhere)."""
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
        return os.waitpid(pid, 0)[1]
    except ChildProcessError:
        return None


class ForkServerLost(RuntimeError):
    """The fork server died and no successor could take over: the zygote can fork nothing more."""


Reaped = Callable[[int, int, Any], None]  # (pid, wait status, rusage): a tree ended
Restarted = Callable[[Role, str], None]  # (the role, how it died): it was restarted


class ForkServers:
    """The fork server the zygote uses now, and the hand-over to its successor when it dies.

    Its death is seen three ways, whichever comes first: the end of its reaped pipe, its socket
    closed under an order (``ForkServerGone``), or its own SIGCHLD (``on_child``).  Then: it is
    reaped (so its orphans are the zygote's), what it reaped before it died is taken, every tree
    it forked is killed and ends as "died" (``settle``: they are ended from the loop's top, as
    their ends call back into the server), its successor takes over and forks the next one, and
    the host is told (``restarted``).  With no successor, ``broken`` says why, and the zygote
    ends (server.py): nothing else may fork a tree."""

    def __init__(self, plan: SandboxPlan, selector: selectors.BaseSelector, jobs: dict[int, Job],
                 reaped: Reaped, restarted: Restarted) -> None:
        self.plan, self.selector, self.jobs = plan, selector, jobs
        self._reaped, self._restarted = reaped, restarted
        self.current: ForkServer | None = None
        self.broken = ""  # why no fork server is left
        # No request read yet (the zygote's start): the zygote itself may fork a fork server.
        self.pristine = True
        self._forget: Any = None
        self._late: list[tuple[int, int, Any]] = []  # a dead one's last records
        self._orphans: list[Job] = []  # its trees, to end once they are reaped (or cannot be)

    @property
    def started(self) -> bool:
        """Trees are forked by a fork server (or by none, once ``broken``): never by the zygote."""
        return self.current is not None or bool(self.broken)

    def start(self, forget: Callable[[], None]) -> None:
        self._forget = forget
        self._use(ForkServer.start(self.plan, forget))

    def _use(self, forker: ForkServer) -> None:
        self.current = forker
        self.selector.register(forker.reaped_fd, selectors.EVENT_READ, ("reaped", None))
        try:
            forker.order_successor()
        except ForkServerGone:
            self._died()
        except OSError as exc:  # no memory, no process slot: if it dies, the zygote ends
            print(f"z3sandbox zygote: the fork server has no successor: {exc}", file=sys.stderr)

    def fork(self, order: Order) -> Spawned:
        """A tree from the fork server, or from its successor if it has just died."""
        for _ in range(2):
            if self.current is None:
                break
            try:
                return self.current.fork(order)
            except ForkServerGone:
                self._died()
        raise OSError(self.broken or "the fork server is gone")

    def on_reaped(self) -> None:
        forker = self.current
        assert forker is not None
        for pid, status, usage in forker.reaped():
            if forker.successor is not None and pid == forker.successor.pid:
                self._successor_died(forker, status)
            else:
                self._reaped(pid, status, usage)
        if forker.gone and forker is self.current:
            self._died()

    def on_child(self, pid: int, status: int) -> bool:
        """A child of the zygote's own was reaped: True if it was the fork server (now replaced)."""
        if self.current is None or pid != self.current.pid:
            return False
        self.current.status = status
        self._died()
        return True

    def _died(self) -> None:
        old = self.current
        assert old is not None
        self.selector.unregister(old.reaped_fd)
        how = describe_death(old.reap_dead())  # reaped: its trees are the zygote's children now
        self._late += old.reaped()
        self.current = old.take_over()
        if self.current is None and self.pristine:  # it died as the zygote started: a new one
            self.current = ForkServer.start(self.plan, self._forget)
        restarted = "and was restarted" if self.current is not None else "and could not be restarted"
        for job in self.jobs.values():  # its trees die with it (their parent-death signal)
            if job.kill is None:
                job.kill, job.kill_detail = Kill.DIED, f"its fork server {how} under it {restarted}"
            job.deadline = math.inf
            kill_group(job.pid)
            self._orphans.append(job)
        if self.plan.pid_ns_fd is None:  # what user code left is re-parented to the zygote
            self.plan.kill_orphans(set(self.jobs) | ({self.current.pid} if self.current else set()))
        if self.current is None:
            self.broken = f"the fork server {how} and no successor could take over"
            return
        self._restarted(Role.FORK_SERVER, how)
        self._use(self.current)

    def _successor_died(self, forker: ForkServer, status: int) -> None:
        """The next fork server died before it was needed: the fork server forks another."""
        dead, forker.successor = forker.successor, None
        assert dead is not None
        dead.close()
        self._restarted(Role.NEXT_FORK_SERVER, describe_death(status))
        try:
            forker.order_successor()
        except OSError as exc:  # its own death is seen at its pipe's end
            print(f"z3sandbox zygote: the fork server has no successor: {exc}", file=sys.stderr)

    def settle(self) -> None:
        """End what a dead fork server left: the trees it reaped before it died, then those it
        reaped but could not report (the others are the zygote's children: its SIGCHLD ends them)."""
        late, self._late = self._late, []
        for pid, status, usage in late:
            self._reaped(pid, status, usage)
        orphans, self._orphans = self._orphans, []
        for job in orphans:
            if job.pid in self.jobs and not _our_child(job.pid):
                self._reaped(job.pid, signal.SIGKILL, Usage(0.0, 0.0, 0))

    def wait(self, timeout_s: float) -> None:
        """Take what the fork server reaped, waiting ``timeout_s`` at most for it (at the end)."""
        if self.current is not None:
            select.select([self.current.reaped_fd], [], [], timeout_s)
            self.on_reaped()

    def close(self) -> None:
        if self.current is not None:
            self.selector.unregister(self.current.reaped_fd)
            self.current.close()
            self.current = None


def _our_child(pid: int) -> bool:
    """``pid`` is a child of this process, ended or not (it is not reaped by this)."""
    try:
        os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return False
    return True
