"""Running a Sandbox's candidates on a Dask cluster or any ``concurrent.futures.Executor``.

Both remotes speak the zygote's protocol to the scheduler (sandbox.py's ``Remote``): ``send`` takes
"run" and "cancel" requests; "started" and "done" messages go to ``deliver`` on the Sandbox's loop.
Each request becomes one task, ``worker.run_candidate``, on a worker that has its own zygote.

Which loop runs what (a Dask ``Client`` belongs to its own event loop)::

    Sandbox loop (S)        Run, send(), deliver()          submit() is thread-safe: called on S
    client loop  (C)        as_completed, events, cancel    results are handed to S with
                                                            call_soon_threadsafe
    caller (cell/thread)    waits on run()'s queue          never runs Dask code

A synchronous ``Client`` has its own loop thread.  An asynchronous one belongs to the caller's loop,
which a synchronous ``run()`` blocks: that would deadlock, so ``resolve_client`` lends such a
client's scheduler to a private synchronous client (one per address, closed at exit).

Not protected: a generic Executor cannot interrupt a running task.  There, cancelling a running
candidate is best effort (executor_remote.py); the per-candidate wall limit in the zygote is the
guarantee.
"""

from __future__ import annotations

import asyncio
import atexit
import threading
import uuid
from collections.abc import Coroutine
from concurrent.futures import Executor
from types import ModuleType
from typing import Any, TypeVar

from ..protocol import (
    PROTOCOL_VERSION,
    CancelRequest,
    Done,
    RunRequest,
    Started,
    ZygoteResult,
    zygote_result,
)
from ..protocol.roles import Kill, Level
from ..protocol.verdicts import Verdict
from .executor_remote import KEY_PREFIX, ExecutorRemote, TaskRemote
from .scheduler import Deliver, Remote, Send
from .worker import STARTED_TOPIC, ZygotePlugin, run_candidate, synthesized, task_failure
from .zygote_owner import default_isolation

MISSING_DASK = ("running on a Dask cluster needs the 'distributed' package: "
                "pip install distributed (the [dask] extra)")
CLOSE_TIMEOUT_S = 10.0
T = TypeVar("T")
# distributed's Client and Future.  distributed is optional (see worker.DaskWorker), so they are not
# types here; resolve_client checks what it is given.
DaskClient = Any
DaskFuture = Any


def _distributed() -> ModuleType:  # the distributed module, imported when a cluster is asked for
    try:
        import distributed
    except ImportError:
        raise ImportError(MISSING_DASK) from None
    return distributed


# ------------------------------------------------------------------------------------- clients

_private: dict[str, DaskClient] = {}  # scheduler address -> our synchronous Client
_private_lock = threading.Lock()


def resolve_client(address_or_client: object) -> DaskClient:
    """A ``distributed.Client`` a synchronous ``run()`` can use, from a Client or an address.

    An address ("tcp://host:8786", "localhost:8786") gets a Client of its own, kept for the process;
    an asynchronous Client's scheduler is reached through such a private client (see the module
    docstring).  Raises ImportError saying how to install the extra when distributed is missing.
    """
    distributed = _distributed()
    if isinstance(address_or_client, distributed.Client):
        client = address_or_client
        if not getattr(client, "_asynchronous", False):
            return client
        address, security = client.scheduler.address, client.security
    elif isinstance(address_or_client, str) and address_or_client.strip():
        address, security = address_or_client.strip(), None
    else:
        raise TypeError("expected a distributed.Client or a scheduler address, "
                        f"not {type(address_or_client).__name__}")
    with _private_lock:
        client = _private.get(address)
        if client is None or client.status not in ("running", "connecting", "newly-created"):
            client = _private[address] = distributed.Client(address, security=security,
                                                            set_as_default=False)
        return client


@atexit.register
def _close_private_clients() -> None:
    for client in list(_private.values()):
        try:
            client.close()
        except Exception:  # the scheduler may be gone first; nothing left to release
            pass


def make_remote(client: object = None, executor: object = None, isolation: str | None = None) -> Remote:
    """The Remote for ``run(client=...)`` or ``run(executor=...)``."""
    if client is not None and executor is not None:
        raise ValueError("pass client= or executor=, not both")
    level = Level(isolation or default_isolation())
    if client is not None:
        return DaskRemote(resolve_client(client), level)
    if not isinstance(executor, Executor):
        raise TypeError(f"executor must be a concurrent.futures.Executor, not {type(executor).__name__}")
    return ExecutorRemote(executor, level)


# ----------------------------------------------------------------------------------------- Dask

_started_routes: dict[str, DaskRemote] = {}  # Dask key -> the DaskRemote that submitted it
_subscribed: set[str] = set()  # ids of the clients whose STARTED_TOPIC we handle


_pings: dict[str, asyncio.Event] = {}  # subscription checks waiting for their own event
SUBSCRIBE_TIMEOUT_S = 10.0
PING_INTERVAL_S = 0.05


def _route_started(event: tuple[object, object]) -> None:
    """On a client loop: a worker began a candidate (``run_candidate(announce=True)``)."""
    _, msg = event  # (time, what was logged: any msgpack data)
    if not isinstance(msg, dict) or not isinstance(msg.get("key"), str):
        return
    key: str = msg["key"]
    if key in _pings:
        _pings[key].set()
        return
    remote = _started_routes.get(key)
    if remote is not None:
        remote._on_started(key, str(msg.get("worker")))


async def _subscribed_for_sure(client: DaskClient) -> None:
    """subscribe_topic returns before the scheduler knows, and events published meanwhile are lost
    (a candidate's "running" with them): publish one of our own and wait until it comes back."""
    key = f"z3sandbox-ping-{uuid.uuid4().hex}"
    _pings[key] = asyncio.Event()
    try:
        client.subscribe_topic(STARTED_TOPIC, _route_started)
        for _ in range(int(SUBSCRIBE_TIMEOUT_S / PING_INTERVAL_S)):
            # On the client's loop, Client.log_event returns a coroutine: awaited, or nothing is sent.
            await client.log_event(STARTED_TOPIC, {"key": key})
            try:
                await asyncio.wait_for(_pings[key].wait(), PING_INTERVAL_S)
                return
            except asyncio.TimeoutError:
                continue
    finally:
        del _pings[key]


class DaskRemote(TaskRemote):
    """Candidates as Dask tasks, one zygote per worker (``ZygotePlugin``)."""

    def __init__(self, client: DaskClient, isolation: Level) -> None:
        super().__init__(isolation)
        self.client = client
        self._futures: dict[int, DaskFuture] = {}  # request id -> distributed.Future
        self._requests: dict[str, tuple[int, int]] = {}  # key -> (request id, candidate index)
        self._where: dict[int, str] = {}  # request id -> the worker it started on
        self._left: dict[str, list[int]] = {}  # a worker that left -> the candidates it ran
        self._gave_up: set[tuple[str, int]] = set()  # (worker, candidate) not run again: KilledWorker
        self._as_completed: Any = None  # a distributed.as_completed (distributed is optional)
        self._more: asyncio.Event | None = None  # on C: futures were added
        self._pump: asyncio.Task[None] | None = None

    def default_jobs(self) -> int:
        """Candidates in flight when the run does not say: one per worker thread."""
        return max(1, int(sum(self.client.nthreads().values())))

    def _on_client_loop(self, coroutine: Coroutine[object, object, T]) -> asyncio.Future[T]:
        loop = self.client.loop.asyncio_loop
        return asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coroutine, loop))

    async def connect(self, deliver: Deliver) -> Send:
        self._sandbox_loop = asyncio.get_running_loop()
        self._deliver = deliver
        await self._on_client_loop(self._start())
        return self.send

    async def _start(self) -> None:
        """On C: the plugin (idempotent: workers that have it keep their zygote), events, pump."""
        distributed = _distributed()
        await self.client.register_plugin(ZygotePlugin(self.level))
        if self.client.id not in _subscribed:
            await _subscribed_for_sure(self.client)
            _subscribed.add(self.client.id)
        self._more = asyncio.Event()
        self._as_completed = distributed.as_completed(loop=self.client.loop, with_results=True,
                                                      raise_errors=False)
        self._pump = asyncio.ensure_future(self._drain())

    def _on_cancel(self, msg: CancelRequest) -> None:
        if msg["id"] in self._futures:
            self._cancelled.setdefault(msg["id"], msg["reason"])
            self._on_client_loop(self._cancel_on_client(self._futures[msg["id"]]))

    def _submit(self, request: RunRequest) -> None:
        key = f"{KEY_PREFIX}{uuid.uuid4().hex}"
        self._requests[key] = (request["id"], request["index"])
        _started_routes[key] = self
        # A unique key, and pure=False: identical scripts must stay two tasks (measured: with
        # pure=True they merged, and cancelling one cancelled its twin).
        future = self.client.submit(run_candidate, request, self.level, key, True, key=key, pure=False)
        self._futures[request["id"]] = future
        self._as_completed.add(future)
        assert self._more is not None
        self.client.loop.asyncio_loop.call_soon_threadsafe(self._more.set)

    async def _cancel_on_client(self, future: DaskFuture) -> None:
        # The scheduler frees the key; the worker's transition hook kills the running candidate.
        await self.client.cancel([future], asynchronous=True)

    def _on_started(self, key: str, worker: str) -> None:
        entry = self._requests.get(key)
        if entry is not None and self._sandbox_loop is not None and self._deliver is not None:
            before = self._where.get(entry[0])
            if before is not None and before != worker:  # started again: its worker left with it
                self._left.setdefault(before, []).append(entry[1])
            self._where[entry[0]] = worker
            self._sandbox_loop.call_soon_threadsafe(
                self._deliver, Started(v=PROTOCOL_VERSION, type="started", id=entry[0]))

    async def _drain(self) -> None:
        """On C: every finished future, as it finishes, to S.  Runs until close()."""
        assert self._more is not None
        while True:
            async for future, result in self._as_completed:
                self._finished(future, result)
            self._more.clear()
            if self._as_completed.is_empty():
                await self._more.wait()

    def _finished(self, future: DaskFuture, result: object) -> None:
        entry = self._requests.pop(future.key, None)
        _started_routes.pop(future.key, None)
        if entry is None or self._sandbox_loop is None or self._deliver is None:
            return
        request_id, index = entry
        self._futures.pop(request_id, None)
        host = self._where.pop(request_id, None)
        reason = self._cancelled.pop(request_id, None)
        try:
            candidate = _outcome(future.status, result, index, host, reason)
            if host is not None and "(KilledWorker" in candidate.get("reason", ""):
                self._left.setdefault(host, []).append(index)
                self._gave_up.add((host, index))
        except Exception as exc:  # never leave the run waiting on a candidate
            candidate = synthesized(index, Verdict.INTERNAL_ERROR, f"bad task result: {exc!r}", host=host)
        self._sandbox_loop.call_soon_threadsafe(
            self._deliver, Done(v=PROTOCOL_VERSION, type="done", id=request_id, result=candidate))

    def notes(self) -> list[str]:
        """Each worker that left the cluster while it ran a candidate of this run (it died: a
        candidate's task starts again only then), and what became of those candidates."""
        return [_worker_left(worker, indices, {i for w, i in self._gave_up if w == worker})
                for worker, indices in self._left.items()]

    async def close(self) -> None:
        """On S, after the run: stop the pump, cancel anything left (a run that raised)."""
        if self._pump is not None and self.client.status == "running":
            try:  # bounded: a client closed under us must not hang the run's end
                await asyncio.wait_for(self._on_client_loop(self._stop()), CLOSE_TIMEOUT_S)
            except (asyncio.TimeoutError, RuntimeError):
                pass
        for key in list(self._requests):
            _started_routes.pop(key, None)
        self._requests.clear()
        self._futures.clear()

    async def _stop(self) -> None:
        assert self._pump is not None
        self._pump.cancel()
        left = list(self._futures.values())
        if left:
            await self.client.cancel(left, asynchronous=True)


def _worker_left(worker: str, indices: list[int], gave_up: set[int]) -> str:
    """A run's note: the worker, the candidates it ran when it left, which Dask ran again."""
    def named(group: list[int]) -> str:
        return f"candidate{'s' if len(group) > 1 else ''} {', '.join(map(str, sorted(group)))}"

    again = [index for index in indices if index not in gave_up]
    told = [f"{named(again)} ran again on another worker"] if again else []
    lost = [index for index in indices if index in gave_up]
    told += [f"{named(lost)} did not: Dask gave up after its allowed failures"] if lost else []
    return (f"the Dask worker {worker} died (left the cluster) while {named(indices)} ran on it; "
            + "; ".join(told))


def _outcome(status: str, result: object, index: int, host: str | None,
             reason: Kill | None) -> ZygoteResult:
    """The CandidateDict for a finished Dask future (as_completed with_results, raise_errors=False):
    ``result`` is what run_candidate returned, or (type, exception, traceback) if it raised."""
    if status == "finished":
        candidate = zygote_result(result)  # run_candidate's, from a worker of this cluster
        if candidate["index"] != index:
            raise ValueError(f"expected candidate {index}'s result, got candidate {candidate['index']}")
        return candidate
    if status == "cancelled" or reason is not None:
        reason = reason or Kill.CANCEL
        where = f" while it ran on {host}" if host else " before it started"
        return synthesized(index, Verdict.CANCELLED, f"{reason}{where}", host=host, kill=reason)
    error = result[1] if isinstance(result, tuple) else result  # (type, exception, traceback)
    return task_failure(index, error, host)
