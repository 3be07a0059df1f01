"""The worker side of a distributed run: one zygote per worker, and the task that runs one candidate.

Roles (see protocol/ for the messages)::

    Sandbox (host) --Dask / any Executor--> worker process --exec--> zygote --fork--> child

* A worker process never forks: it has many threads, and a forked copy of a threaded process can
  deadlock, which is why the zygote exists.  ``WorkerZygote`` starts the zygote with exec, exactly
  as a local ``Sandbox`` does, and talks to it from its own event-loop thread.
* Lifetimes.  On a Dask worker, ``ZygotePlugin`` owns the zygote: started in ``setup``, stopped in
  ``teardown``.  Anywhere else (a ThreadPoolExecutor in this process, an ipyparallel engine, a
  ProcessPoolExecutor worker) there is one zygote per process and isolation level, started on first
  use and closed at exit.
* Dying with the worker.  The zygote gets ``--parent <worker pid>`` and sets PR_SET_PDEATHSIG
  (SIGKILL); it is PID 1 of its PID namespace, so its candidates die with it.  prctl(2): the signal
  fires when the *thread* that created the zygote exits, so it is created from the loop thread,
  which lives until ``close()``.  A closed stdin (the worker died) also makes it kill everything.
* Cancelling.  Dask does not interrupt a running task (dask/distributed#4694): measured, a
  cancelled long candidate held its worker thread for 29 s.  ``ZygotePlugin.transition`` sees the
  task leave "executing" and tells the zygote to kill that candidate, which frees the thread.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import logging
import os
import socket
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from ..contracts.results import CandidateResult
from ..protocol import (
    PROTOCOL_VERSION,
    CancelRequest,
    Done,
    Hello,
    Restarted,
    RunRequest,
    Started,
    ZygoteEvent,
    ZygoteResult,
    zygote_result,
)
from ..protocol.roles import Kill, Level
from ..protocol.verdicts import Verdict
from .zygote_client import ZygoteProcess
from .zygote_owner import PerLevel, ZygoteOwner, default_isolation, warn_degraded

try:  # distributed is optional; without it this module still serves plain Executors
    from distributed.diagnostics.plugin import WorkerPlugin
except ImportError:  # pragma: no cover - exercised in the test that hides distributed
    WorkerPlugin = object  # type: ignore[misc,assignment]

# Dask transitions that take a task away from a worker thread that still runs it.  The worker
# reports "executing -> released" when the scheduler frees a running key and then parks it as
# "cancelled" (worker_state_machine._transition_executing_released).  These names are not a stable
# API: tests/host/test_distributed.py pins the behaviour (a cancelled candidate frees its worker).
RUNNING_STATES = frozenset({"executing", "long-running"})
LEAVING_STATES = frozenset({"released", "cancelled", "forgotten"})
log = logging.getLogger("z3sandbox")
STARTED_TOPIC = "z3sandbox-started"  # Dask event: a candidate began on a worker (for "running")
# A Dask Worker.  distributed is optional, and this module also serves plain Executors without it,
# so its classes are not types here.
DaskWorker = Any


def plugin_name(isolation: Level) -> str:
    return f"z3sandbox-zygote-{isolation}"


def synthesized(index: int, verdict: Verdict, reason: str, *, host: str | None = None,
                kill: Kill | None = None) -> ZygoteResult:
    """A CandidateDict for a candidate that has no zygote verdict (cancelled in a queue, lost);
    ``kill``: a cancel's reason."""
    candidate = CandidateResult(index=index, verdict=verdict, reason=reason, host=host, kill=kill)
    return zygote_result(candidate.to_dict())


def task_failure(index: int, error: object, host: str | None = None) -> ZygoteResult:
    """A task that raised instead of returning a CandidateDict (``error``: what it raised)."""
    if type(error).__name__ == "KilledWorker":  # distributed.scheduler.KilledWorker
        return synthesized(index, Verdict.CRASHED, "every worker that ran this candidate died; Dask "
                           f"gave up on it after its allowed failures (KilledWorker: {error})", host=host)
    return synthesized(index, Verdict.INTERNAL_ERROR,
                       f"the task failed on the cluster: {type(error).__name__}: {error}", host=host)


class _Tokens:
    """Candidates by *token* (the Dask key, or one the host made), so that a cancel reaches one
    from any thread, even one whose request is not sent yet.  Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # guards the two tables below
        self._ids: dict[str, int | None] = {}  # token -> zygote id (None: not yet sent)
        self._cancelled: dict[str, Kill] = {}  # token -> reason, for a cancel that came first

    def __contains__(self, token: str) -> bool:
        return token in self._ids

    def expect(self, token: str) -> None:
        with self._lock:
            self._ids.setdefault(token, None)

    def sending(self, token: str, zygote_id: int) -> Kill | None:
        """The cancel that came first, or None: then a cancel from now on finds ``zygote_id``."""
        with self._lock:  # a cancel either came before this (and is seen here) or sees the id
            reason = self._cancelled.get(token)
            if reason is None:
                self._ids[token] = zygote_id
            return reason

    def cancel(self, token: str, reason: Kill) -> tuple[bool, int | None]:
        """(whether ``token`` is known here, its zygote id if its request was sent)."""
        with self._lock:
            if token not in self._ids:
                return False, None
            self._cancelled.setdefault(token, reason)
            return True, self._ids[token]

    def forget(self, token: str) -> None:
        with self._lock:
            self._ids.pop(token, None)
            self._cancelled.pop(token, None)


class _Requests:
    """The requests sent to this process's zygote, by zygote id (local to this process: several
    hosts may share a worker), until their result.  On the loop thread."""

    def __init__(self) -> None:
        self._waiting: dict[int, asyncio.Future[ZygoteResult]] = {}  # zygote id -> result
        self._on_started: dict[int, Callable[[], None]] = {}  # zygote id -> "it started"
        self._began: set[int] = set()  # zygote ids it said it started, until they end

    def __contains__(self, zygote_id: int) -> bool:
        return zygote_id in self._waiting

    def started(self, msg: Started) -> None:
        if msg["id"] in self._waiting:
            self._began.add(msg["id"])
        started = self._on_started.pop(msg["id"], None)
        if started is not None:
            started()

    def done(self, msg: Done) -> None:
        waiter = self._waiting.get(msg["id"])
        if waiter is not None and not waiter.done():
            waiter.set_result(msg["result"])

    def lost(self, how: str) -> None:
        """The zygote ended (``how``): every request waiting is lost with it."""
        for zygote_id, waiter in self._waiting.items():
            if not waiter.done():
                waiter.set_exception(_ZygoteLost(f"the zygote on this worker {how} while this "
                                                 "candidate ran; it was restarted",
                                                 started=zygote_id in self._began))

    async def sent(self, zygote: ZygoteProcess, request: RunRequest,
                   on_started: Callable[[], None] | None) -> ZygoteResult:
        """Its result; ``_ZygoteLost`` if the zygote ended first (or was gone)."""
        zygote_id = request["id"]
        waiter: asyncio.Future[ZygoteResult] = asyncio.get_running_loop().create_future()
        self._waiting[zygote_id] = waiter
        if on_started is not None:
            self._on_started[zygote_id] = on_started
        try:
            if not zygote.send(request):  # this zygote's own id
                raise _ZygoteLost("the worker's zygote is gone", started=False)
            return await waiter
        finally:
            self._waiting.pop(zygote_id, None)
            self._on_started.pop(zygote_id, None)
            self._began.discard(zygote_id)


def _log_restarted(msg: Restarted) -> None:
    """A process of this worker's zygote was replaced: its candidates say so in their results;
    the worker's log says it too."""
    log.warning("z3sandbox: a %s process of this worker's zygote %s and was restarted",
                msg["role"], msg["how"])


class WorkerZygote(ZygoteOwner):
    """One zygote for this process and the loop thread that talks to it.  Thread-safe.

    Candidates are named by a token (``_Tokens``) so that a cancel can reach a candidate from
    any thread; what was sent waits in ``_Requests``.
    """

    pid = ZygoteOwner.zygote_pid  # the name diagnostics and tests use

    def __init__(self, isolation: Level) -> None:
        super().__init__(isolation)
        self._ids = itertools.count(1)
        self._requests = _Requests()
        self._tokens = _Tokens()

    def start(self) -> Future[ZygoteProcess]:
        return self._loop.submit(self._ensure_zygote())

    def _new_zygote(self) -> ZygoteProcess:
        if self._closed:
            raise RuntimeError("this worker's zygote is closed")
        return ZygoteProcess(self.level, self._on_message, self._on_exit, self.graces)

    def _started(self, zygote: ZygoteProcess, hello: Hello) -> None:
        warn_degraded(hello["isolation"])  # once, in the worker's log

    def _on_message(self, msg: ZygoteEvent) -> None:
        """Each zygote event to its typed handler (the gate decoded it: zygote_client.py)."""
        if msg["type"] == "started":
            self._requests.started(msg)
        elif msg["type"] == "done":
            self._requests.done(msg)
        else:
            _log_restarted(msg)

    def _on_exit(self, zygote: ZygoteProcess, how: str) -> None:
        """Its candidates are lost with it; the next one starts a new zygote."""
        if self._zygote is zygote:
            self._zygote = None
        self._requests.lost(how)

    # ------------------------------------------------------------------------------------ runs

    def expect(self, token: str) -> None:
        """From now on ``cancel(token)`` is remembered, even before ``run`` sends the request."""
        self._tokens.expect(token)

    def run(self, request: RunRequest, token: str,
            on_started: Callable[[], None] | None = None) -> ZygoteResult:
        """Run one "run" request and wait for its CandidateDict (blocks the calling thread).
        ``on_started`` is called on the loop thread when the zygote starts it (it forks next)."""
        self.expect(token)
        try:
            return self._loop.submit(self._run(request, token, on_started)).result()
        finally:
            self._tokens.forget(token)

    async def _run(self, request: RunRequest, token: str,
                   on_started: Callable[[], None] | None) -> ZygoteResult:
        """One request on this process's zygote; one the zygote had not started when it died
        (it says "started" before it forks) runs again on the next zygote, once."""
        index = int(request["index"])
        for attempt in range(2):
            try:
                zygote = await self._ensure_zygote()
            except Exception as exc:
                return synthesized(index, Verdict.INTERNAL_ERROR, f"the worker's zygote did not start: {exc}")
            zygote_id = next(self._ids)
            reason = self._tokens.sending(token, zygote_id)
            if reason is not None:
                return synthesized(index, Verdict.CANCELLED, f"{reason} before it started", kill=reason)
            try:
                return await self._requests.sent(zygote, {**request, "id": zygote_id}, on_started)
            except _ZygoteLost as exc:
                if exc.started or attempt:
                    return synthesized(index, Verdict.INTERNAL_ERROR, str(exc))
        raise AssertionError("unreachable")

    def knows(self, token: str) -> bool:
        return token in self._tokens

    def cancel(self, token: str, reason: Kill = Kill.CANCEL) -> bool:
        """Kill the candidate ``token`` now (any thread).  False if it is not running here."""
        known, zygote_id = self._tokens.cancel(token, reason)
        if zygote_id is not None:
            self._loop.call(self._send_cancel, zygote_id, reason)
        return known

    def _send_cancel(self, zygote_id: int, reason: Kill) -> None:
        if self._zygote is not None and zygote_id in self._requests:
            self._zygote.send(CancelRequest(v=PROTOCOL_VERSION, type="cancel", id=zygote_id,
                                            reason=reason))

    def close(self) -> None:
        """The zygote's shutdown ladder (zygote_client.py), then the loop thread."""
        if self._closed:
            return
        self._closed = True
        self._close_zygote_and_loop()


class _ZygoteLost(Exception):
    def __init__(self, message: str, started: bool) -> None:
        super().__init__(message)
        self.started = started  # the zygote said it started it: it is lost, not run again


class ZygotePlugin(WorkerPlugin):
    """Registered by the host with ``Client.register_plugin``: one zygote per worker and level."""

    idempotent = True  # every run registers it; workers that have it keep their zygote

    def __init__(self, isolation: str | None = None) -> None:
        self.isolation = Level(isolation or default_isolation())
        self.name = plugin_name(self.isolation)
        self.zygote: WorkerZygote | None = None

    def __getstate__(self) -> dict[str, str | None]:
        return {"isolation": self.isolation, "name": self.name, "zygote": None}

    async def setup(self, worker: DaskWorker) -> None:
        self.zygote = WorkerZygote(self.isolation)
        await asyncio.wrap_future(self.zygote.start())

    async def teardown(self, worker: DaskWorker) -> None:
        if self.zygote is not None:
            await asyncio.get_running_loop().run_in_executor(None, self.zygote.close)

    def transition(self, key: object, start: str, finish: str, **kwargs: object) -> None:
        """On the worker's event loop: a running candidate whose task was cancelled is killed."""
        zygote = self.zygote
        if (start in RUNNING_STATES and finish in LEAVING_STATES and zygote is not None
                and isinstance(key, str) and zygote.knows(key)):
            zygote.cancel(key, Kill.CANCEL)


# -------------------------------------------------------------------------------------- the task

# This process's own zygote per isolation level, outside a Dask worker with the plugin (closed at
# exit; the next task starts a new one).
_process_zygotes: PerLevel[WorkerZygote] = PerLevel(WorkerZygote, WorkerZygote.close)
process_zygote = _process_zygotes.get
close_process_zygotes = _process_zygotes.close_all


def _dask_worker() -> DaskWorker | None:
    try:
        from distributed import get_worker

        return get_worker()
    except (ImportError, ValueError):
        return None


def _task_state(worker: DaskWorker, key: str) -> str | None:
    task = worker.state.tasks.get(key)  # read from a task thread: one dict lookup, one attribute
    return getattr(task, "state", None)


def run_candidate(request: RunRequest, isolation: Level, token: str,
                  announce: bool = False) -> ZygoteResult:
    """The task: run one "run" request here; its ``CandidateDict`` with ``host`` set.

    On a Dask worker the token is the task's key, which the plugin's transition hook cancels by.
    ``announce``: log a Dask event when the zygote starts it, so the host shows it running.
    """
    worker = _dask_worker()
    plugin = worker.plugins.get(plugin_name(isolation)) if worker is not None else None
    on_started = None
    if worker is not None and plugin is not None and plugin.zygote is not None:
        token = worker.get_current_task()
        zygote = plugin.zygote
        host = str(worker.address)
        zygote.expect(token)
        if _task_state(worker, token) == "cancelled":  # cancelled before expect(): no hook saw it
            zygote.cancel(token, Kill.CANCEL)
        if announce:
            event = {"key": token, "worker": host}
            on_started = functools.partial(worker.log_event, STARTED_TOPIC, event)  # thread-safe
    else:
        zygote = process_zygote(isolation)
        host = str(worker.address) if worker is not None else f"{socket.gethostname()}:{os.getpid()}"
    result: ZygoteResult = zygote.run(request, token, on_started)
    result["host"] = host
    return result


def zygote_pids(dask_worker: DaskWorker | None = None) -> list[int]:
    """The zygotes of this process (for tests and diagnostics: ``client.run(zygote_pids)``)."""
    worker = dask_worker if dask_worker is not None else _dask_worker()
    zygotes = _process_zygotes.owners()
    if worker is not None:
        zygotes += [p.zygote for p in worker.plugins.values()
                    if isinstance(p, ZygotePlugin) and p.zygote is not None]
    return [z.pid for z in zygotes if z.pid is not None]
