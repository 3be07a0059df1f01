"""The zygote's verifiers: each serves one run's answers in turn, in processes that ran no user code.

A verifier confirms a candidate's answer (child/confirm.py) in a process forked by the fork server
(forker.py), which holds no candidate's data; its requests come, one at a time, in a file of its
scratch folder and a "go" byte on its go pipe.  One process checks a run's answers one after the
other, each in a fresh z3 context (child/service.py), so a run of K candidates pays for one fork,
one bootstrap and one cold first check, not K (issue 32, bench/PROFILE.md).  What that shares:

* Only one run's answers: a verifier is given to a run at its first answer to check, and no other
  run's answer is ever checked in it.  It is told that no request will come when the run's last
  candidate has ended (``drain``): that candidate's result is sent at once (issue 32, decision 2:
  ``run()`` returns on its checked verdicts), and the verifier, which has answered everything, exits
  then, or is killed ``DRAIN_S`` later.  The next run's first request waits until it is reaped
  (server.py): no run, and no ``close()``, sees a verifier of an earlier run alive.
* Only data: the verifier gives z3 declarations, definitions and assertions (child/verify.py),
  never an option, a global parameter or an output channel.  So a candidate's answer can make the
  process fail (a crash, a timeout, an error), and so its siblings' checks: a verifier that did
  not confirm or refute an answer is replaced, and the answers it had not checked yet are checked
  in a fresh one.  A sibling's check can fail, never pass, because of another candidate.

A run's answers are checked by as many verifiers as there are cores at most: one is forked when
every verifier of the run is busy.  The spare, forked ahead once a request has asked for
verification (from the event loop's top, never inside a handler), becomes the next run's first.
The processes are verifier_pool.py's; this module hands them the answers and ends each answer's
ticket.
"""

from __future__ import annotations

import math
import os
import time
from collections import deque
from collections.abc import Callable
from typing import TypedDict

import msgspec

from ..contracts.limits import Limits
from ..protocol import SPARE_GO, SPARE_REQUEST_FILE, VerifyRequest
from ..protocol.roles import Kill, Role
from . import frames
from .fork_orders import Restarted
from .forker import Usage
from .jobs import NO_CANDIDATE, Job, close_go_pipe, verification_report
from .verifier_pool import CORES as CORES  # re-exported: the verifiers' count, read beside them
from .verifier_pool import Service, Spawner, VerifierPool, died_from_outside, setup_of

# How long a verifier of a finished run may take to exit before it is killed; what it had to say is
# said by then (every answer of the run was taken), so this bounds only its exit.
DRAIN_S = 0.05
AGAIN = 3  # how many times an answer is handed to another verifier when its verifier died

# (job, kill reason) -> None; an ended ticket -> None (the server finishes its candidate).
Killer = Callable[[Job, Kill], None]
Ended = Callable[[Job], None]
Alone = Callable[[int, int], bool]  # (run, candidate id): the run's last live candidate, none to come


class _Partial(TypedDict, total=False):
    partial: bool


_PARTIAL = msgspec.json.Decoder(_Partial)


def _partial(body: bytes) -> bool:
    """A verifier's result frame is z3's word before a second solver's (VerifyReport.partial);
    the frame is read whole later, through the gate (frames.parse)."""
    try:
        return _PARTIAL.decode(body).get("partial") is True
    except msgspec.DecodeError:
        return False


class Verifiers:
    """The answers to check, each a ticket (a ``Job`` that is no process): handed to a verifier
    of its run (verifier_pool.py), ended by its answer or by the verifier's end."""

    def __init__(self, spawn: Spawner, kill: Killer, ended: Ended, alone: Alone,
                 restarted: Restarted) -> None:
        self.pool = VerifierPool(spawn, self._answered, restarted)
        self._alone = alone
        self._kill = kill
        self._ended = ended
        # tickets handed again (at most AGAIN times): the verifiers they were handed to died
        self._again: dict[Job, int] = {}
        self.accepting = True  # False once the zygote is ending: nothing is re-checked then
        self._deferred: list[Job] = []  # tickets cancelled before they were handed: ended next

    # --------------------------------------------------------------------------------- requests

    def start(self, candidate_id: int, run: int, request: VerifyRequest, limits: Limits) -> Job:
        """A ticket for ``request``: a Job that ends (``ended``) when a verifier of ``run`` has
        answered it, or could not."""
        ticket = Job(candidate_id, Role.VERIFY, 0, "", time.monotonic(), math.inf, {}, ticket=True)
        try:
            service = self.pool.service_for(run, limits)
        except OSError:  # no memory, no process slot: this answer stays unconfirmed
            self._end(ticket, None, None)
            self._deferred.append(ticket)
            return ticket
        service.queue.append((ticket, request, limits))
        self._hand(service)
        return ticket

    def _hand(self, service: Service) -> None:
        """The next queued request to an idle verifier: written to its scratch folder, then "go"."""
        process = service.process
        if service.current is not None or not service.queue or service.retired:
            return
        ticket, request, limits = service.queue.popleft()
        service.current, service.checking = ticket, (ticket, request, limits)
        service.partial = None
        process.candidate_id = ticket.candidate_id  # busy (Trees.busy) while it checks
        ticket.started = time.monotonic()
        process.deadline = ticket.started + float(limits.verify_s)  # never waits past its budget
        try:
            with open(os.path.join(process.scratch, SPARE_REQUEST_FILE), "wb") as out:
                out.write(msgspec.json.encode({**request, "limits": limits}))
            if process.go_fd is None:
                raise BrokenPipeError("the verifier's go pipe is closed")
            os.write(process.go_fd, SPARE_GO)
        except OSError as exc:  # its answers, this one first, go to another (``ended``)
            if self._hand_again(ticket):
                service.current, service.checking = None, None
                service.queue.appendleft((ticket, request, limits))
            if isinstance(exc, BrokenPipeError):  # it died: its death is told when it is reaped
                self._retire(service)
            else:  # it waits for a request it cannot be given
                self._kill(process, Kill.REPORT)
            return
        if self._alone(service.run, ticket.candidate_id):  # the run's last answer: the verifier
            self._retire(service)  # exits once it has sent it, and the run ends with it

    def _answered(self, service: Service, body: bytes) -> None:
        """A result frame: the current ticket ends with it.  A verifier that did not decide (an
        error, a timeout, an inconclusive check) is replaced before its next request.  A partial
        one (z3's word, a second solver's to come) is kept, and the second solver gets its own
        ``verify_s``."""
        if service.current is not None and _partial(body):
            service.partial = body
            limits = service.checking[2] if service.checking else Limits()
            service.process.deadline = time.monotonic() + float(limits.verify_s)
            return
        ticket, service.current, service.partial = service.current, None, None
        service.checking = None
        process = service.process
        process.deadline, process.candidate_id = math.inf, NO_CANDIDATE
        if ticket is None:  # a result nobody asked for: this verifier is not used again
            self._retire(service)
            return
        self._end(ticket, None, body, setup_of(process))
        _, report, _ = verification_report(ticket)
        if report is None or report.get("verified") is None:
            self._retire(service)
        self._ended(ticket)
        self._hand(service)

    def _end(self, ticket: Job, kill: Kill | None, body: bytes | None, setup: bytes | None = None) -> None:
        """The ticket as a reaped job: its result descriptor the verifier's setup frame and this
        answer's frame (when there is one), its kill (or none: a crash)."""
        self._again.pop(ticket, None)
        reader = frames.ResultReader(0)
        reader.frames = [part for part in (setup, body) if part is not None]
        reader.whole = body is not None
        ticket.result, ticket.verification = reader, None
        ticket.kill = ticket.kill or kill
        ticket.wait_status, ticket.rusage, ticket.ended = 0, Usage(0.0, 0.0, 0), time.monotonic()

    def _hand_again(self, ticket: Job) -> bool:
        """The verifier its answer went to died: hand it to another, ``AGAIN`` times at most (one
        death can take two: a fork server takes its verifiers along; a verifier that cannot start
        must not make the zygote fork them for ever)."""
        self._again[ticket] = self._again.get(ticket, 0) + 1
        return self._again[ticket] <= AGAIN

    def _retire(self, service: Service) -> None:
        """No request more: its go pipe closed, it exits; what it had queued goes to another."""
        service.retired = True
        close_go_pipe(service.process)
        queued, service.queue = list(service.queue), deque()
        for ticket, request, limits in queued:
            self._requeue(ticket, service.run, request, limits)

    def _requeue(self, ticket: Job, run: int, request: VerifyRequest, limits: Limits) -> None:
        if not self.accepting:
            self._end(ticket, Kill.CANCEL, None)
            self._ended(ticket)
            return
        try:
            service = self.pool.service_for(run, limits)
        except OSError:  # no verifier could be forked: unconfirmed, said so
            self._end(ticket, None, None)
            self._ended(ticket)
            return
        service.queue.append((ticket, request, limits))
        self._hand(service)

    # ------------------------------------------------------------------------------- cancelling

    def kill(self, ticket: Job, reason: Kill) -> None:
        """Stop checking a ticket: a queued one ends at the next ``flush``; the one being checked
        ends with its verifier, killed now (its queue goes to another)."""
        for service in self.pool.services.values():
            if service.current is ticket:
                ticket.kill = ticket.kill or reason
                self._kill(service.process, reason)
                return
            for entry in service.queue:
                if entry[0] is ticket:
                    service.queue.remove(entry)
                    self._end(ticket, reason, None)
                    self._deferred.append(ticket)
                    return

    def flush(self) -> None:
        """End the tickets cancelled before they were handed (from the event loop's top)."""
        deferred, self._deferred = self._deferred, []
        for ticket in deferred:
            self._ended(ticket)

    # ------------------------------------------------------------------------------------- ends

    def drain(self, run: int) -> None:
        """The run's last candidate has ended: its verifiers are told no request will come, and
        get ``DRAIN_S`` to exit before they are killed (every answer of theirs is taken)."""
        for service in self.pool.drain(run):
            if not service.retired:
                self._retire(service)
            service.process.deadline = min(service.process.deadline, time.monotonic() + DRAIN_S)

    def ended(self, job: Job) -> None:
        """A verifier process was reaped (its pipes drained: every answer it wrote is taken): the
        ticket it was checking ends without an answer, its queue goes to a fresh verifier.  One
        that died under its check, by a signal from outside or with its fork server, is told to
        the host (verifier_pool.py), and the answer it was checking is checked again in a fresh
        one (``AGAIN`` times at most)."""
        service = self.pool.reaped(job)
        if service is None:
            return
        job.candidate_id = NO_CANDIDATE
        service.retired = True
        ticket, service.current = service.current, None
        setup = setup_of(job)
        queued, service.queue = list(service.queue), deque()
        cut = died_from_outside(job) or job.kill is Kill.DIED  # or its fork server died under it
        checking = service.checking if service.partial is None else None  # z3's word stands
        if checking and ticket is not None and cut and self.accepting and self._hand_again(ticket):
            queued.insert(0, checking)
            ticket = None
        for entry in queued:
            self._requeue(entry[0], service.run, entry[1], entry[2])
        if ticket is not None:
            if service.partial is not None:  # z3's word stands; the partial report says why alone
                self._end(ticket, None, service.partial, setup)
            else:
                self._end(ticket, job.kill, None, setup)
            self._ended(ticket)
        self.pool.settled(service.run)

    def forget(self) -> None:
        """In a freshly forked child (server.py ``_forget``)."""
        self.pool.forget()
        self._deferred.clear()
        self._again.clear()
