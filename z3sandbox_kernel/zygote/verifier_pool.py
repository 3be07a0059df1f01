"""The zygote's verifier processes: the spare forked ahead, and each run's own (``Service``).

A verifier is forked by the fork server (forker.py) before any answer exists, waits on its go pipe,
and is given to a run at the run's first answer to check (verifiers.py hands it the answers).  A
run has as many verifiers as there are cores at most; the spare becomes the next run's first.  A
run whose last candidate has ended is draining until every verifier of it has been reaped.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from ..contracts.limits import Limits
from ..protocol import ProtocolError, VerifyRequest, report_budget, split_bodies
from ..protocol.roles import Role
from . import frames
from .fork_orders import Restarted, describe_death
from .jobs import NO_CANDIDATE, Job

CORES = os.cpu_count() or 1

# (candidate id, request, limits, spare) -> the forked process
Spawner = Callable[[int, VerifyRequest, Limits, bool], Job]
Queued = tuple[Job, VerifyRequest, Limits]  # a ticket (jobs.Job), its request and its limits


@dataclass(eq=False)
class Service:
    """One verifier process and the answers of its run it has yet to report."""

    process: Job
    run: int
    current: Job | None = None  # the ticket whose request it was handed
    checking: Queued | None = None  # that ticket, its request and limits
    # z3's word on the current ticket, sent before a second solver's (VerifyReport.partial): it
    # stands if the second solver's never comes.
    partial: bytes | None = None
    queue: deque[Queued] = field(default_factory=deque)
    retired: bool = False  # its go pipe is closed: it exits once it has answered


Answered = Callable[[Service, bytes], None]  # a verifier's result frame, whole


class ServiceReader(frames.ResultReader):
    """A verifier's result descriptor: its setup frame, then one result frame per request, each
    handed on as it is whole (``on_result``), each under one report's budget."""

    def __init__(self, budget: int, on_result: Callable[[bytes], None]) -> None:
        super().__init__(budget)
        self.on_result = on_result
        self.setup: bytes | None = None

    def feed(self, chunk: bytes) -> str | None:
        if self.error is not None:
            return None
        self.pending.extend(chunk)
        try:
            bodies = split_bodies(self.pending, self.budget)
        except ProtocolError as exc:  # a verifier runs no user code: one of ours, cut all the same
            self.error = f"a verifier's {exc}"
            return self.error
        for body in bodies:
            if self.setup is None:
                self.setup = body
            else:
                self.on_result(body)
        return None


def setup_of(process: Job) -> bytes | None:
    """The verifier's setup frame, once it has come."""
    reader = process.result
    return reader.setup if isinstance(reader, ServiceReader) else None


def died_from_outside(job: Job) -> bool:
    """A verifier that we did not kill and that did not end as one does (exit 0 once told no
    request will come): a signal, or a failure."""
    status = job.wait_status
    return job.kill is None and status is not None and (os.WIFSIGNALED(status) or os.WEXITSTATUS(status) != 0)


class VerifierPool:
    """The spare and the live verifiers by pid; ``reaped`` once per ended verifier process."""

    def __init__(self, spawn: Spawner, answered: Answered, restarted: Restarted) -> None:
        self._spawn = spawn
        self._answered = answered
        self._restarted = restarted
        self.spare: Job | None = None  # forked ahead, waiting for a run
        self.wanted = False  # a request asked for verification: keep a spare from then on
        self._set_aside: set[int] = set()  # spares found dead before their end was handled
        self.services: dict[int, Service] = {}  # by the process's pid
        self._draining: set[int] = set()  # finished runs whose verifiers are exiting

    def refill(self, running: bool, jobs: int) -> None:
        """Fork the spare if one is wanted, none is waiting and fewer than CORES jobs run."""
        if self.wanted and self.spare is None and running and jobs < CORES:
            self.spare = self._fork()

    def _fork(self) -> Job:
        process = self._spawn(NO_CANDIDATE, {"spare": True}, Limits(), True)
        # before any of its bytes are read (one thread): its setup frame comes to this reader
        process.result = ServiceReader(report_budget(0), lambda body: None)
        return process

    def of_run(self, run: int) -> list[Service]:
        return [s for s in self.services.values() if s.run == run]

    def service_for(self, run: int, limits: Limits) -> Service:
        """An idle verifier of the run; else a new one (the spare, or forked now) while the run has
        fewer than CORES; else the one with the shortest queue."""
        mine = [s for s in self.of_run(run) if not s.retired]
        idle = [s for s in mine if s.current is None and not s.queue]
        if idle:
            return idle[0]
        if len(mine) < CORES:
            spare, self.spare = self.spare, None
            if spare is None or spare.reaped or spare.kill is not None or spare.go_fd is None:
                if spare is not None:  # not ended yet: its end (``reaped``) still tells its death
                    self._set_aside.add(spare.pid)
                spare = self._fork()
            service = Service(spare, run)
            spare.role = Role.VERIFY
            reader = spare.result
            assert isinstance(reader, ServiceReader)  # ours since its fork (``_fork``)
            reader.budget = report_budget(int(limits.payload_max_bytes))
            reader.on_result = lambda body: self._answered(service, body)
            self.services[spare.pid] = service
            return service
        return min(mine, key=lambda s: len(s.queue))

    def drain(self, run: int) -> list[Service]:
        """The run's verifiers, its last candidate having ended: the run drains until they are
        reaped (``settled``)."""
        mine = self.of_run(run)
        if mine:
            self._draining.add(run)
        return mine

    def draining(self) -> bool:
        """A finished run's verifier is still exiting: the next run waits for it (server.py)."""
        return bool(self._draining)

    def settled(self, run: int) -> None:
        """A verifier of the run was reaped: once none is left, the run has drained."""
        if not self.of_run(run):
            self._draining.discard(run)

    def reaped(self, job: Job) -> Service | None:
        """A process ended: the service it was, if it was one.  A spare or a verifier that died
        from outside is told to the host."""
        died = died_from_outside(job)
        if job is self.spare or job.pid in self._set_aside:
            self._set_aside.discard(job.pid)
            if job is self.spare:
                self.spare = None
            if died:
                self._restarted(Role.SPARE, describe_death(job.wait_status or 0))
        service = self.services.pop(job.pid, None)
        if service is not None and died:  # exiting or not, it was a process of ours killed from outside
            self._restarted(Role.VERIFY, describe_death(job.wait_status or 0))
        return service

    def forget(self) -> None:
        """In a freshly forked child (server.py ``_forget``)."""
        self.spare = None
        self._set_aside.clear()
        self.services.clear()
        self._draining.clear()
