"""One run's scheduling: keep ``jobs`` candidates in flight, race, cancel, survive a dying zygote.

Everything here runs on the Sandbox's event-loop thread; ``emit`` hands state changes to whoever
listens (the calling thread's queue, or the awaiting loop).

The run always returns, whatever the zygote does: each candidate has a watchdog (its wall limit, the
verification's, and ``Graces.watchdog_grace_s``), and a cancel that the zygote does not confirm within
``Graces.cancel_grace_s`` ends the candidates here.  Either way the zygote is then taken for wedged:
``on_unresponsive`` kills it, and the next candidate starts a new one.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import itertools
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

from ..contracts.limits import Limits
from ..contracts.record import CandidateRecord, checked_as
from ..contracts.results import CandidateResult, RunResult
from ..protocol import (
    PROTOCOL_VERSION,
    CancelRequest,
    HostRequest,
    IsolationReport,
    RunRequest,
    ZygoteEvent,
    ZygoteResult,
)
from ..protocol.byte_runs import expand_model
from ..protocol.roles import Kill
from ..protocol.verdicts import Verdict
from .plan import Graces, RunPlan

SANDBOX_DIED = "the sandbox process died"
_RUN_NUMBERS = itertools.count(1)
log = logging.getLogger("z3sandbox")
Send = Callable[[HostRequest], bool]  # False: the zygote is gone (its exit is being handled)
Deliver = Callable[[ZygoteEvent], None]
T = TypeVar("T")


class Remote(Protocol):
    """Where candidates run when not on the local zygote (a Dask cluster, any Executor).

    It speaks the zygote's protocol: ``send`` takes "run" and "cancel" requests, and ``deliver``
    receives "started" and "done" messages, called on the Sandbox's loop.
    """

    async def connect(self, deliver: Deliver) -> Send: ...

    async def close(self) -> None: ...

    def default_jobs(self) -> int: ...

    def notes(self) -> list[str]:
        """What the run's notes say of the cluster once it has ended (a worker that died)."""
        ...


def run_request(plan: RunPlan, index: int, request_id: int, run_number: int, last: bool) -> RunRequest:
    """The "run" request of candidate ``index`` of ``plan`` (``last``: no candidate of the run
    waits after it)."""
    options = plan.options
    return RunRequest(
        v=PROTOCOL_VERSION, type="run", id=request_id, index=index,
        script=plan.scripts[index], language=options.language,
        limits=options.limits, random_seed=plan.random_seeds[index],
        cores=options.cores, verify=options.verify,
        seed_hex=options.seed.hex() if options.seed is not None else None,
        require=list(options.require), models=options.models, cross_check=options.cross_check,
        plain=options.plain, run=run_number, last=last,
    )


def read_result(result: ZygoteResult, index: int, limits: Limits) -> CandidateResult:
    """Candidate ``index`` as the zygote reported it; a malformed result fails its candidate,
    never the reader."""
    try:
        record = checked_as(_with_byte_constants(result, limits), CandidateRecord, "a candidate's result")
        candidate = CandidateResult.from_record(record)
        candidate.index = index
        return candidate
    except Exception as exc:
        log.exception("z3sandbox: the result of candidate %d could not be read", index)
        return CandidateResult(index=index, verdict=Verdict.INTERNAL_ERROR,
                               reason=f"the sandbox sent a result the host could not read: {exc!r}")


class Watchdogs:
    """A timer per request on a local zygote: a result that does not come long after its limits
    means the zygote is wedged (a cluster may queue candidates: none there)."""

    def __init__(self) -> None:
        self._timers: dict[int, asyncio.TimerHandle] = {}

    def arm(self, request_id: int, seconds: float, overdue: Callable[[int, float], None]) -> None:
        """``overdue(request_id, seconds)`` in ``seconds``, unless stopped first (on the loop)."""
        self._timers[request_id] = asyncio.get_running_loop().call_later(
            seconds, overdue, request_id, seconds)

    def stop(self, request_id: int) -> None:
        timer = self._timers.pop(request_id, None)
        if timer is not None:
            timer.cancel()


def _nothing() -> None:
    """What a run on a cluster does when a cancel goes unconfirmed: its zygotes are the workers'."""


class ScheduledRun:
    """One run as the scheduler drives it: its candidates' states, the queue, those in flight.
    What it sends and reads are ``run_request`` and ``read_result``; ``Watchdogs`` time it."""

    def __init__(self, plan: RunPlan, emit: Callable[[CandidateResult], None],
                 graces: Graces | None = None) -> None:
        self.plan = plan
        self.graces = graces or Graces()
        self.emit = emit
        self.candidates = [CandidateResult(index=i, state="queued") for i in range(len(plan.scripts))]
        self.queue: deque[int] = deque(range(len(plan.scripts)))
        self.in_flight: dict[int, int] = {}  # request id -> candidate index
        self._started: set[int] = set()  # request ids the zygote said it started
        self._sent_again: set[int] = set()  # candidate indices sent again to a new zygote
        self.cancelled: Kill | None = None
        self.notes: list[str] = []
        self.isolation: IsolationReport | None = None
        self.finished = asyncio.Event()
        self.started = time.monotonic()
        self._send: Send | None = None
        self.on_unresponsive: Callable[[], None] = _nothing  # a local run: the Sandbox kills its zygote
        self._watchdogs = Watchdogs()
        self.on_settled: Callable[[], None] | None = None  # once nothing is in flight, if no one awaits
        self.number = next(_RUN_NUMBERS)  # the zygote checks a run's answers in its own verifiers
        self.local = False  # on the Sandbox's own zygote (not a cluster): its restarts are ours

    # ---------------------------------------------------------------------------------- driving

    async def execute(self, connect: Callable[[ScheduledRun], Awaitable[Send]],
                      next_id: Callable[[], int]) -> RunResult:
        """Fill the slots until every candidate has ended; reconnect if the zygote died."""
        while self.in_flight or (self.queue and self.cancelled is None):  # not yet complete
            if self.queue and not self.cancelled and len(self.in_flight) < self.plan.jobs:
                if self._send is None:
                    self._send = await self.unless_cancelled(connect(self))
                    continue  # the run may have been cancelled while the zygote started
                self._submit(self.queue.popleft(), next_id())
                continue
            self.finished.clear()
            await self.finished.wait()
        return RunResult(candidates=self.candidates, limits=self.plan.options.limits,
                         language=self.plan.options.language, isolation=self.isolation, notes=self.notes,
                         interrupted=self.cancelled == Kill.INTERRUPT,
                         elapsed_s=time.monotonic() - self.started)

    async def unless_cancelled(self, awaitable: Awaitable[T]) -> T | None:
        """``awaitable``'s result, or None as soon as the run is cancelled (a zygote that is
        starting goes on starting, for the next run; what it ends with is no one's)."""
        task = asyncio.ensure_future(awaitable)
        while not task.done():
            if self.cancelled is not None:
                task.add_done_callback(_retrieved)
                return None
            self.finished.clear()
            woken = asyncio.ensure_future(self.finished.wait())
            await asyncio.wait({task, woken}, return_when=asyncio.FIRST_COMPLETED)
            woken.cancel()
        return task.result()

    def _submit(self, index: int, request_id: int) -> None:
        assert self._send is not None
        options = self.plan.options
        self.in_flight[request_id] = index
        if self.local:
            verify_s = options.limits.verify_s if options.verify else 0
            self._watchdogs.arm(request_id, options.limits.wall_s + verify_s + self.graces.watchdog_grace_s,
                                self._overdue)
        sent = self._send(run_request(self.plan, index, request_id, self.number, last=not self.queue))
        if not sent:  # the zygote is gone, its end not yet handled: to its successor
            self._end(request_id)
            self.queue.appendleft(index)
            self._send = None

    def _wake(self) -> None:
        self.finished.set()
        if self.on_settled is not None and not self.in_flight:
            self.on_settled()

    def _update(self, index: int, candidate: CandidateResult) -> None:
        candidate.limits = self.plan.options.limits
        self.candidates[index] = candidate
        self.emit(copy.copy(candidate))  # a copy of its fields as they are: a model stays encoded

    # ------------------------------------------------------------------------- zygote messages

    def on_started(self, request_id: int) -> None:
        index = self.in_flight.get(request_id)
        self._started.add(request_id)
        if index is not None:
            self._update(index, dataclasses.replace(self.candidates[index], state="running"))

    def _end(self, request_id: int) -> int | None:
        """The candidate index of a request that is over, its watchdog stopped."""
        self._watchdogs.stop(request_id)
        return self.in_flight.pop(request_id, None)

    def on_done(self, request_id: int, result: ZygoteResult) -> None:
        index = self._end(request_id)
        if index is None:
            return
        candidate = read_result(result, index, self.plan.options.limits)
        if self.isolation is None:
            self.isolation = candidate.isolation
        self._update(index, candidate)
        if (self.plan.options.race and candidate.verdict is not None and candidate.verdict.decisive
                and not candidate.disputed):  # a contradicted answer wins no race
            self.cancel(Kill.RACE)
        self._wake()

    def on_zygote_died(self, how: str) -> None:
        """Candidates the zygote had started are lost with it (internal_error, never cancelled:
        nobody cancelled them); the ones it had not started (it says so before it forks) and the
        rest run on a new one, each sent again once at most."""
        self._send = None
        self.notes.append(f"the zygote process {how} during this run and was restarted")
        for request_id, index in list(self.in_flight.items()):
            if request_id not in self._started and index not in self._sent_again and not self.cancelled:
                self._end(request_id)
                self._sent_again.add(index)
                self.queue.appendleft(index)
                continue
            self._fail(request_id, Verdict.INTERNAL_ERROR,
                       f"{SANDBOX_DIED} (the zygote {how}) while this candidate ran; it is restarted "
                       "for the next one", kill=Kill.DIED)
        self._wake()

    def abandon(self, reason: str) -> None:
        """End here what is still in flight: no result can come for it any more (the Sandbox is
        closed, its zygote gone)."""
        for request_id in list(self.in_flight):
            self._fail(request_id, Verdict.CANCELLED, reason, kill=Kill.CANCEL)

    def _fail(self, request_id: int, verdict: Verdict, reason: str, kill: Kill | None = None) -> None:
        index = self._end(request_id)
        if index is not None:
            self._update(index, CandidateResult(index=index, verdict=verdict, reason=reason,
                                                kill=kill))
            self._wake()

    def _overdue(self, request_id: int, limit: float) -> None:
        """The watchdog: no result long after the zygote should have killed the candidate."""
        if request_id not in self.in_flight:
            return
        log.warning("z3sandbox: no result for request %d within %.1f s: the zygote is unresponsive",
                    request_id, limit)
        self._fail(request_id, Verdict.INTERNAL_ERROR,
                   f"no result within {limit:g} s (the wall limit, verification and "
                   f"{self.graces.watchdog_grace_s:g} s of grace): the sandbox process was unresponsive "
                   "and is restarted",
                   kill=Kill.DIED)
        self.on_unresponsive()

    # ----------------------------------------------------------------------------- cancellation

    def cancel(self, reason: Kill) -> None:
        """Kill what runs, drop what waits.  ``reason``: race, cancel or interrupt."""
        if self.cancelled is not None:
            return
        self.cancelled = reason
        while self.queue:
            index = self.queue.popleft()
            self._update(index, CandidateResult(index=index, verdict=Verdict.CANCELLED,
                                                reason=f"{reason} before it started"))
        for request_id in self.in_flight:
            if self._send is not None:
                self._send(CancelRequest(v=PROTOCOL_VERSION, type="cancel", id=request_id,
                                         reason=reason))
        if self.in_flight:
            asyncio.get_running_loop().call_later(self.graces.cancel_grace_s, self._cancel_overdue, reason)
        self._wake()

    def stop_one(self, index: int) -> bool:
        """Stop one candidate, the others going on: drop it from the queue ("skipped"), or kill
        it if it runs (its result comes back as cancelled, kill "cancel").  False: it is over."""
        if index in self.queue:
            self.queue.remove(index)
            self._update(index, CandidateResult(index=index, verdict=Verdict.CANCELLED,
                                                reason="skipped before it started"))
            self._wake()
            return True
        for request_id, running in self.in_flight.items():
            if running == index and self._send is not None:
                self._send(CancelRequest(v=PROTOCOL_VERSION, type="cancel", id=request_id,
                                         reason=Kill.CANCEL))
                return True
        return False

    def _cancel_overdue(self, reason: Kill) -> None:
        """The zygote did not confirm the cancel: end the candidates here, so the kernel is free."""
        if not self.in_flight:
            return
        for request_id in list(self.in_flight):
            self._fail(request_id, Verdict.CANCELLED,
                       f"{reason}; the sandbox process did not confirm within "
                       f"{self.graces.cancel_grace_s:g} s and is restarted")
        self.on_unresponsive()


def _retrieved(task: asyncio.Future[Any]) -> None:
    """A done callback: the task's exception is taken (no one awaits it), so none is logged."""
    if not task.cancelled():
        task.exception()


def _with_byte_constants(result: ZygoteResult, limits: Limits) -> ZygoteResult:
    """The zygote's result with the hex-only byte_N put back into its model (done here, not on the
    zygote's single loop: a million of them take a second)."""
    runs, model = result.get("byte_runs"), result.get("model")
    if not runs or not isinstance(model, dict):
        return result
    expanded, omitted = expand_model(model, runs, int(limits.payload_max_bytes))
    return {**result, "model": expanded, "model_omitted": int(result.get("model_omitted") or 0) + omitted}
