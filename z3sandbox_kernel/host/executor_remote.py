"""Candidates on any ``concurrent.futures.Executor``, one ``worker.run_candidate`` task each, speaking
the zygote's protocol to the scheduler as distributed.py's ``DaskRemote`` does.

Not protected: a generic Executor cannot interrupt a running task.  There, cancelling a running
candidate is best effort (``ExecutorRemote``); the per-candidate wall limit in the zygote is the
guarantee.
"""

from __future__ import annotations

import asyncio
import functools
import os
import uuid
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import Any

from ..protocol import PROTOCOL_VERSION, CancelRequest, Done, HostRequest, RunRequest, Started, ZygoteResult
from ..protocol.roles import Kill, Level
from ..protocol.verdicts import Verdict
from .scheduler import Deliver, Send
from .worker import ZygotePlugin, process_zygote, run_candidate, synthesized, task_failure

KEY_PREFIX = "z3sandbox-run-"
DaskClient = Any  # distributed is optional: its Client is not a type here


class TaskRemote:
    """What both task remotes share (this one and distributed.py's ``DaskRemote``): the Sandbox's
    loop and ``deliver``, and a request's handler by its type (a shutdown is the Sandbox's)."""

    def __init__(self, isolation: Level) -> None:
        self.level = isolation
        self._cancelled: dict[int, Kill] = {}  # request id -> reason
        self._sandbox_loop: asyncio.AbstractEventLoop | None = None
        self._deliver: Deliver | None = None

    def notes(self) -> list[str]:
        """Nothing to say of a plain executor (a Dask cluster says which worker died)."""
        return []

    def send(self, msg: HostRequest) -> bool:
        """On the Sandbox's loop; never blocks (a task is queued, a cancel handed on)."""
        if msg["type"] == "run":
            self._submit(msg)
        elif msg["type"] == "cancel":
            self._on_cancel(msg)
        return True

    def _submit(self, msg: RunRequest) -> None:
        raise NotImplementedError

    def _on_cancel(self, msg: CancelRequest) -> None:
        raise NotImplementedError


class ExecutorRemote(TaskRemote):
    """Candidates as ``executor.submit(run_candidate, ...)`` on any concurrent.futures Executor.

    Cancelling (best effort, documented): a queued task is cancelled by ``Future.cancel()``.  A
    running one is killed when the executor shares this process (ThreadPoolExecutor: its zygote is
    this process's) or is Dask's (``client.get_executor()``: the plugin is registered and its
    transition hook kills it).  Elsewhere (ProcessPoolExecutor, ipyparallel) the candidate is
    reported cancelled at once and runs on, in its worker, until its wall limit.
    """

    def __init__(self, executor: Executor, isolation: Level) -> None:
        super().__init__(isolation)
        self.executor = executor
        self._local = isinstance(executor, ThreadPoolExecutor)
        # request id -> (future, token, index)
        self._futures: dict[int, tuple[Future[ZygoteResult], str, int]] = {}

    def default_jobs(self) -> int:
        return int(getattr(self.executor, "_max_workers", 0) or os.cpu_count() or 1)

    async def connect(self, deliver: Deliver) -> Send:
        self._sandbox_loop = asyncio.get_running_loop()
        self._deliver = deliver
        client = dask_client_of(self.executor)
        if client is not None:
            await self._sandbox_loop.run_in_executor(None, client.register_plugin,
                                                     ZygotePlugin(self.level))
        return self.send

    def _submit(self, msg: RunRequest) -> None:
        request_id, token = msg["id"], f"{KEY_PREFIX}{uuid.uuid4().hex}"
        future = self.executor.submit(run_candidate, msg, self.level, token)
        self._futures[request_id] = (future, token, msg["index"])
        self._call(self._deliver_started, request_id)
        future.add_done_callback(functools.partial(self._on_done, request_id))

    def _on_cancel(self, msg: CancelRequest) -> None:
        if msg["id"] in self._futures:
            self._cancel(msg["id"], msg["reason"])

    def _on_done(self, request_id: int, _: object) -> None:  # any thread, or at once if done
        self._call(self._finish, request_id)

    def _call(self, function: Callable[..., object], *args: object) -> None:
        assert self._sandbox_loop is not None
        self._sandbox_loop.call_soon_threadsafe(function, *args)

    def _deliver_started(self, request_id: int) -> None:
        if request_id in self._futures and self._deliver is not None:
            # handed to the executor
            self._deliver(Started(v=PROTOCOL_VERSION, type="started", id=request_id))

    def _cancel(self, request_id: int, reason: Kill) -> None:
        future, token, _ = self._futures[request_id]
        self._cancelled.setdefault(request_id, reason)
        if future.cancel():
            return  # queued: its done callback reports it cancelled
        if self._local and process_zygote(self.level).cancel(token, reason):
            return  # running here: the zygote kills it and its verdict comes back
        self._finish(request_id, best_effort=True)

    def _finish(self, request_id: int, best_effort: bool = False) -> None:
        entry = self._futures.pop(request_id, None)
        if entry is None or self._deliver is None:
            return
        future, _, index = entry
        reason = self._cancelled.pop(request_id, None)
        if best_effort or future.cancelled():
            note = " (it runs on in the executor until its wall limit)" if best_effort else ""
            reason = reason or Kill.CANCEL
            candidate = synthesized(index, Verdict.CANCELLED, f"{reason}{note}", kill=reason)
        elif future.exception() is not None:
            candidate = task_failure(index, future.exception())
        else:
            candidate = future.result()
        self._deliver(Done(v=PROTOCOL_VERSION, type="done", id=request_id, result=candidate))

    async def close(self) -> None:
        for future, _, _ in list(self._futures.values()):
            future.cancel()
        self._futures.clear()


def dask_client_of(executor: Executor) -> DaskClient | None:
    """The Client behind ``client.get_executor()``, whose workers then get the plugin."""
    if type(executor).__name__ == "ClientExecutor" and type(executor).__module__.startswith("distributed"):
        return getattr(executor, "_client", None)
    return None
