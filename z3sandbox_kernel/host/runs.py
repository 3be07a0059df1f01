"""A ``Sandbox``'s runs (host/sandbox.py): which are admitted, which are going, and what the life of
its zygote does to them.  The Sandbox owns the zygote (zygote_owner.py); these two keep the runs.

``Admission`` is thread-safe: a run is submitted before ``close()``, or refused, and ``close()``
waits for every run it admitted.  ``Runs`` lives on the Sandbox's loop thread, as the runs do."""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from concurrent.futures import Future

from ..contracts.results import RunResult
from ..protocol import Done, Started
from ..protocol.roles import Kill
from .scheduler import Remote, ScheduledRun, Send
from .zygote_owner import LoopThread

Connect = Callable[[ScheduledRun], Awaitable[Send]]


class Admission:
    """The runs submitted to a Sandbox's loop, each before ``close()`` or refused; ``close()``
    ends every one it admitted."""

    def __init__(self, loop: LoopThread) -> None:
        self._loop = loop
        self._lock = threading.Lock()  # a run is submitted before close(), or refused
        self._futures: set[Future[RunResult]] = set()  # every run not yet returned
        self._closed = False

    def submit(self, execute: Coroutine[object, object, RunResult]) -> Future[RunResult]:
        """A run on the loop, unless admission is closed (then ``execute`` never starts)."""
        with self._lock:
            if self._closed:
                execute.close()
                raise RuntimeError("this Sandbox is closed")
            future = self._loop.submit(execute)
            self._futures.add(future)
        future.add_done_callback(self._futures.discard)
        return future

    def close(self) -> bool:
        """Refuse every run from now on.  False: it was already closed."""
        with self._lock:
            if self._closed:
                return False
            self._closed = True
            return True

    async def returned(self, timeout: float) -> None:
        """Until every admitted run has returned (at most ``timeout`` seconds)."""
        pending = [asyncio.wrap_future(future) for future in list(self._futures)]
        if pending:
            await asyncio.wait(pending, timeout=timeout)


class Runs:
    """The runs of one Sandbox that are going (on its loop): where a zygote's message goes, what a
    zygote that died or a process that was restarted does to them, and the notes the next run
    inherits when none was going."""

    def __init__(self) -> None:
        self._going: set[ScheduledRun] = set()
        self._later_notes: list[str] = []  # said by the next local run: no run was going
        self._ids = itertools.count(1)  # request ids, unique across the Sandbox's runs

    def __iter__(self) -> Iterator[ScheduledRun]:
        return iter(list(self._going))

    def _local(self) -> list[ScheduledRun]:
        """The runs on the Sandbox's own zygote (not a cluster): its restarts are theirs."""
        return [run for run in self._going if run.local]

    def adopt(self, run: ScheduledRun, on_unresponsive: Callable[[], None] | None) -> None:
        """``run`` is going from now on; ``on_unresponsive`` (a local run: the Sandbox kills its
        zygote) or None (a run on a cluster)."""
        self._going.add(run)
        run.local = on_unresponsive is not None
        if on_unresponsive is not None:
            run.on_unresponsive = on_unresponsive
            run.notes += self._later_notes
            self._later_notes.clear()

    def release(self, run: ScheduledRun) -> None:
        """A run that returned, unless results still come for what it killed: those must reach it
        (else its unconfirmed cancel is taken for a wedged zygote)."""
        if run.in_flight:
            run.on_settled = lambda: self._going.discard(run)
        else:
            self._going.discard(run)

    async def drive(self, run: ScheduledRun, connect: Connect, remote: Remote | None) -> RunResult:
        """Run ``run`` on what ``connect`` reaches; a cluster's notes join its result."""
        self._going.add(run)
        try:
            result = await run.execute(connect, lambda: next(self._ids))
            if remote is not None:
                result.notes += remote.notes()
            return result
        finally:
            self.release(run)  # (its awaiting task may have been cancelled)
            if remote is not None:
                await remote.close()

    def deliver(self, msg: Started | Done) -> None:
        """A zygote's message to the run whose request it answers."""
        request_id = msg["id"]
        for run in self:
            if request_id in run.in_flight:
                if msg["type"] == "started":
                    run.on_started(request_id)
                else:
                    run.on_done(request_id, msg["result"])
                return

    def zygote_lost(self, how: str, tell_next: bool) -> None:
        """The zygote died (``how``): what it ran in every local run is lost or sent again; with
        no run going, ``tell_next`` says so in the next one."""
        local = self._local()
        for run in local:
            run.on_zygote_died(how)
        if not local and tell_next:
            self._later_notes.append(f"the zygote process {how} before this run and was restarted")

    def restarted(self, what: str) -> None:
        """A process of the sandbox died and another took its place: each local run going on says
        so in its notes, or else the next one."""
        local = self._local()
        for run in local:
            run.notes.append(f"the {what} during this run and was restarted")
        if not local:
            self._later_notes.append(f"the {what} before this run and was restarted")

    def cancel(self, reason: Kill) -> None:
        """Every run cancelled (on the loop)."""
        for run in self:
            run.cancel(reason)

    def abandon(self, reason: str) -> None:
        """The zygote is closed: what it did not answer is answered here."""
        for run in self:
            run.abandon(reason)
