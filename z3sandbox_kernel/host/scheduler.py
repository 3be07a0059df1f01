"""One run's scheduling: keep ``jobs`` candidates in flight, race, cancel, survive a dying zygote.

Everything here runs on the Sandbox's event-loop thread; ``emit`` hands state changes to whoever
listens (the calling thread's queue, or the awaiting loop).
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from ..protocol import PROTOCOL_VERSION
from ..results import CandidateResult, RunResult
from ..verdicts import Verdict
from .plan import RunPlan


class Run:
    def __init__(self, plan: RunPlan, emit: Callable[[CandidateResult], None]) -> None:
        self.plan = plan
        self.emit = emit
        self.candidates = [CandidateResult(index=i, state="queued") for i in range(len(plan.scripts))]
        self.queue: deque[int] = deque(range(len(plan.scripts)))
        self.in_flight: dict[int, int] = {}  # request id -> candidate index
        self.cancelled: str | None = None
        self.notes: list[str] = []
        self.isolation: Any = None
        self.finished = asyncio.Event()
        self.started = time.monotonic()
        self._send: Callable[[dict[str, Any]], bool] | None = None

    # ---------------------------------------------------------------------------------- driving

    async def execute(self, connect: Callable[[Run], Awaitable[Callable[[dict[str, Any]], bool]]],
                      next_id: Callable[[], int]) -> RunResult:
        """Fill the slots until every candidate has ended; reconnect if the zygote died."""
        while not self._complete():
            if self.queue and not self.cancelled and len(self.in_flight) < self.plan.jobs:
                if self._send is None:
                    self._send = await connect(self)
                self._submit(self.queue.popleft(), next_id())
                continue
            self.finished.clear()
            await self.finished.wait()
        return RunResult(candidates=self.candidates, limits=self.plan.limits,
                         language=self.plan.language, isolation=self.isolation, notes=self.notes,
                         interrupted=self.cancelled == "interrupt",
                         elapsed_s=time.monotonic() - self.started)

    def _complete(self) -> bool:
        return not self.in_flight and (not self.queue or self.cancelled is not None)

    def _submit(self, index: int, request_id: int) -> None:
        assert self._send is not None
        plan = self.plan
        self.in_flight[request_id] = index
        self._send({
            "v": PROTOCOL_VERSION, "type": "run", "id": request_id, "index": index,
            "script": plan.scripts[index], "language": plan.language,
            "limits": plan.limits.to_dict(), "random_seed": plan.random_seeds[index],
            "cores": plan.cores, "verify": plan.verify,
            "seed_hex": plan.seed.hex() if plan.seed is not None else None,
            "require": list(plan.require),
        })

    def _wake(self) -> None:
        self.finished.set()

    def _update(self, index: int, candidate: CandidateResult) -> None:
        candidate.limits = self.plan.limits
        self.candidates[index] = candidate
        self.emit(dataclasses.replace(candidate))

    # ------------------------------------------------------------------------- zygote messages

    def on_started(self, request_id: int) -> None:
        index = self.in_flight.get(request_id)
        if index is not None:
            self._update(index, dataclasses.replace(self.candidates[index], state="running"))

    def on_done(self, request_id: int, result: dict[str, Any]) -> None:
        index = self.in_flight.pop(request_id, None)
        if index is None:
            return
        candidate = CandidateResult.from_dict(result)
        if self.isolation is None:
            self.isolation = candidate.isolation
        self._update(index, candidate)
        if self.plan.race and candidate.verdict is not None and candidate.verdict.decisive:
            self.cancel("race")
        self._wake()

    def on_zygote_died(self, how: str) -> None:
        """Candidates in flight are lost with the zygote; the rest run on a new one."""
        self._send = None
        if not self.in_flight:
            return
        self.notes.append(f"the zygote process {how} during this run and was restarted")
        for request_id, index in list(self.in_flight.items()):
            self._update(index, CandidateResult(
                index=index, verdict=Verdict.INTERNAL_ERROR,
                reason=f"the zygote process {how} while this candidate ran; it was restarted"))
            del self.in_flight[request_id]
        self._wake()

    # ----------------------------------------------------------------------------- cancellation

    def cancel(self, reason: str) -> None:
        """Kill what runs, drop what waits.  ``reason``: "race", "cancel" or "interrupt"."""
        if self.cancelled is not None:
            return
        self.cancelled = reason
        while self.queue:
            index = self.queue.popleft()
            self._update(index, CandidateResult(index=index, verdict=Verdict.CANCELLED,
                                                reason=f"{reason} before it started"))
        for request_id in self.in_flight:
            if self._send is not None:
                self._send({"v": PROTOCOL_VERSION, "type": "cancel", "id": request_id,
                            "reason": reason})
        self._wake()
