"""The zygote's event loop: single-threaded, so that forking it is safe.

It reads requests from the host on stdin and hands each to its handler: a run's and a cancel's
to the candidates' bookkeeping (candidates.py: a tree per candidate, its verifier, its one
``Done``); it hands the trees' events to the trees (trees.py: fork, pipes, deadlines, kills,
reaping), and forks standbys and spare verifiers ahead from the loop's top.  Selectors, not
threads: a forked copy of a threaded process can deadlock, and a kernel has threads -- which is
why the zygote exists.

A fork copies everything its parent holds, freed memory included, so the zygote forks no
candidate and no verifier: after its start-up probe and before its first request it forks the fork
server (forker.py), which never holds a request, and every tree is forked there and handed its
own request after the fork.  ``_forget`` (first thing in the fork server) drops the zygote's
selector and bookkeeping.
"""

from __future__ import annotations

import os
import selectors
import signal
import sys
import traceback
from collections import deque

from ..contracts.limits import Limits
from ..protocol import (
    HOST_REQUESTS,
    PROTOCOL_VERSION,
    Hello,
    HostRequest,
    ProtocolError,
    ShutdownRequest,
    UnknownMessage,
    VerifyRequest,
    frame_of,
    split_bodies,
)
from ..protocol.roles import Kill, Role
from . import scratch
from .candidates import Candidates, LoopState
from .fork_orders import ForkServerLost
from .host_link import HostLink
from .jobs import NO_CANDIDATE, Job
from .pipes import READ_CHUNK
from .sandboxing import SandboxPlan
from .standby import Standbys
from .trees import Trees
from .verifiers import Verifiers


class Zygote:
    """The event loop: the host's requests in, each to its handler; the trees' events to the
    trees; the candidates' bookkeeping is ``Candidates`` (candidates.py)."""

    def __init__(self, plan: SandboxPlan, scratch_base: str, control_in: int = 0,
                 control_out: int = 1) -> None:
        self.plan = plan
        self.control_in = control_in
        self.host = HostLink(control_out)
        self.state = LoopState()
        self.selector = selectors.DefaultSelector()
        # The trees and the verifiers call the candidates back, which are built on them: late-bound.
        self.trees = Trees(plan, scratch_base, self.selector, lambda job: self.candidates.job_ended(job),
                           lambda job: self.candidates.verify_early(job), self._forget, self.host.restarted)
        self.verifiers = Verifiers(self._spawn_verifier, self.trees.kill,
                                   lambda job: self.candidates.job_ended(job),
                                   lambda run, candidate_id: self.candidates.alone(run, candidate_id),
                                   self.host.restarted)
        self.trees.kill_ticket = self.verifiers.kill
        self.standbys = Standbys(self._spawn_standby, self.trees.kill, self.trees.hand_off,
                                 enabled=plan.pid_ns_fd is not None, restarted=self.host.restarted)
        self.candidates = Candidates(plan, self.host, self.trees, self.verifiers, self.standbys, self.state)
        self.control_buffer = bytearray()
        # host messages read, not yet acted on, each with its frame's body (a run's goes to its child)
        self.pending: deque[tuple[HostRequest, bytes]] = deque()
        self.scratch_base = scratch_base
        self.selector.register(control_in, selectors.EVENT_READ, ("control", None))

    # ------------------------------------------------------------------------------ host messages

    def serve(self) -> None:
        """After the zygote's start-up steps (recipe.py: the probe, the fork server)."""
        self.host.hello(Hello(v=PROTOCOL_VERSION, type="hello", pid=os.getpid(),
                              z3_version=self.plan.z3_version, isolation=self.plan.isolation_report(),
                              scratch=self.scratch_base))
        failure = ""
        trees = self.trees
        try:
            while self.state.running or trees.jobs_by_pid:
                self._dispatch(self.selector.select(trees.next_timeout()))
                trees.forkers.settle()
                if trees.forkers.broken:  # no process may fork a tree: the host starts a new zygote
                    raise ForkServerLost(trees.forkers.broken)
                self.verifiers.flush()
                if self.state.refill_wanted:  # before a waiting request: a run finds its spare forked
                    self._refill_now()
                self._act_on_pending()
                trees.enforce_deadlines()
        except Exception as exc:  # a zygote bug: its candidates are told, never "cancelled"
            failure = f"{type(exc).__name__}: {exc}"
            traceback.print_exc()
            raise
        finally:
            # Whatever ends us (the host's shutdown, its death: EOF and SIGTERM can race), the
            # cleanup itself must not be interrupted by a late signal.
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            self._kill_everything(Kill.DIED if failure else Kill.CANCEL, failure)
            scratch.remove(self.scratch_base)

    def _dispatch(self, events: list[tuple[selectors.SelectorKey, int]]) -> None:
        """One select's events; a method, so that no job stays referenced from the loop's frame."""
        for key, _ in events:
            kind, payload = key.data
            if kind == "control":
                self._on_control()
            elif kind == "wake":
                self.trees.on_wake()
            elif kind == "reaped":
                self.trees.on_reaped()
            elif kind == "handoff":
                self.trees.on_writable(payload[0])
            elif payload[1].fd is not None:
                self.trees.on_stream(*payload)
            self.trees.enforce_deadlines()  # between events: one job's work delays no deadline

    def _on_control(self) -> None:
        self.trees.forkers.pristine = False  # what we read is in our memory from now on
        chunk = os.read(self.control_in, READ_CHUNK)
        if not chunk:  # the host went away: nothing may outlive it
            signal.signal(signal.SIGTERM, signal.SIG_IGN)  # its death signal may follow: moot now
            self.state.running = False
            self.selector.unregister(self.control_in)
            self._kill_everything(Kill.CANCEL)
            return
        self.control_buffer.extend(chunk)
        try:
            for body in split_bodies(self.control_buffer):
                try:
                    self.pending.append((HOST_REQUESTS.decode(body), body))  # the host is trusted
                except UnknownMessage:
                    continue  # a later host's request: not ours to act on
        except ProtocolError as exc:
            print(f"z3sandbox zygote: bad request from host: {exc}", file=sys.stderr)
            self.state.running = False

    def _act_on_pending(self) -> None:
        """One host message at a time: a fork in ``Candidates.start`` then holds this request, no other.  A
        run's request waits while a finished run's verifiers exit (at most ``DRAIN_S`` and a kill):
        a run never starts beside what is left of an earlier one; what follows it waits in order."""
        while self.pending and self.state.running:
            if self.pending[0][0]["type"] == "run" and self.verifiers.pool.draining():
                return
            self._handle(*self.pending.popleft())

    def _handle(self, request: HostRequest, body: bytes) -> None:
        """The wire handler: each request type to its typed handler, as ipykernel's shell_handlers
        (the gate decoded the type; the tag narrows the union, so mypy checks each handler)."""
        if request["type"] == "run":
            self.candidates.start(request, frame_of(body))
        elif request["type"] == "cancel":
            self.candidates.cancel(request)
        else:
            self._on_shutdown(request)

    def _on_shutdown(self, _: ShutdownRequest) -> None:
        self.state.running = False
        self._kill_everything(Kill.CANCEL)

    # ------------------------------------------------------------------------------- processes

    def _spawn_verifier(self, candidate_id: int, request: VerifyRequest, limits: Limits,
                        spare: bool) -> Job:
        return self.trees.spawn(candidate_id, Role.SPARE if spare else Role.VERIFY, limits,
                                require=request.get("require") or [])

    def _spawn_standby(self) -> Job:
        return self.trees.spawn(NO_CANDIDATE, Role.STANDBY, Limits())  # its request comes at hand-off

    def _refill_now(self) -> None:
        """Fork the standby candidate and the spare verifier, from the loop's top (nothing of a
        candidate on the stack), unless a killed tree is still dying or a finished run's verifiers
        are exiting: a teardown takes CPU, and the fork server reaps at once rather than after a
        fork (the next event refills).  A fork that fails (no memory, no process slot) is tried
        again at the next event, never fatal."""
        self.state.refill_wanted = False
        if self.trees.dying() or self.verifiers.pool.draining():
            return
        try:
            busy = self.standbys.refill(self.state.running, self.trees.busy())
            self.verifiers.pool.refill(self.state.running, busy)
        except OSError as exc:
            print(f"z3sandbox zygote: could not fork ahead: {exc}", file=sys.stderr)

    def _forget(self) -> None:
        """In a freshly forked child, first thing: drop the zygote's references to every other
        candidate's request, output and report, so that user code cannot reach them from its stack
        or through ``gc`` (it is a fork: this changes only the child's copy)."""
        self.candidates.forget()
        self.pending.clear()
        del self.control_buffer[:]
        self.verifiers.forget()
        self.standbys.ready.clear()
        self.trees.forget()

    def _kill_everything(self, reason: Kill = Kill.CANCEL, detail: str = "") -> None:
        self.state.running = False  # the end: no spare, standby or verifier is forked while we reap
        self.verifiers.accepting = False
        self.trees.kill_all(reason, detail)

