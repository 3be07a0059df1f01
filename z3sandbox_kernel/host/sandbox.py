"""``Sandbox``: the long-lived object behind ``run()``.  It owns the zygote and an event-loop thread.

The core is async, on the Sandbox's own loop thread (it works in a kernel whose loop is running);
``run`` and ``run_async`` bridge to it, and ``run`` delivers ``on_update`` in the calling thread."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import queue
import threading
import weakref
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Executor
from typing import TYPE_CHECKING

from ..contracts.options import RunOptions, required_layers
from ..contracts.results import CandidateResult, RunResult
from ..protocol import Hello, IsolationReport, ZygoteEvent
from ..protocol.roles import Kill, Level, Role
from .plan import Graces, make_plan
from .records import Recording
from .runs import Admission, Runs
from .scheduler import Remote, ScheduledRun, Send
from .zygote_client import ZygoteProcess
from .zygote_owner import LoopThread, PerLevel, ZygoteOwner, default_isolation, warn_degraded

if TYPE_CHECKING:
    from distributed import Client as DaskClient

UpdateCallback = Callable[[CandidateResult], None]


def _warned_about(result: RunResult) -> RunResult:
    """Warn in the caller's thread (in a notebook: in the cell) about layers that did not apply,
    from what each candidate reports (a layer can probe fine and still fail)."""
    for candidate in result.candidates:
        if candidate.isolation:
            warn_degraded(candidate.isolation, stacklevel=4)
    return result


@dataclasses.dataclass
class _Held:
    """What a dropped Sandbox's finalizer closes: its zygote (the finalizer must not hold the
    Sandbox itself)."""

    zygote: ZygoteProcess | None = None


def noun(role: str) -> str:
    """A role as the notes name it (one a later zygote names, as it is)."""
    try:
        return Role(role).noun
    except ValueError:
        return role


def _weakly(method: Callable[..., None]) -> Callable[..., None]:
    """``method`` of an object, called only while that object lives."""
    ref = weakref.WeakMethod(method)

    def call(*args: object) -> None:
        bound = ref()
        if bound is not None:
            bound(*args)
    return call


def _close_dropped(loop: LoopThread, held: _Held) -> None:
    """The finalizer of a Sandbox collected without close(): shut its zygote down and stop its
    loop.  On the loop's own thread it cannot wait for the loop: the zygote is killed instead."""
    zygote = held.zygote
    if threading.current_thread() is loop.thread:
        if zygote is not None:
            zygote.kill()
        loop.loop.call_soon(loop.loop.stop)
        return
    try:
        if zygote is not None:
            loop.submit(zygote.close()).result(timeout=10)
    except Exception:  # the zygote dies with this process anyway (its parent-death signal)
        if zygote is not None:
            zygote.kill()
    finally:
        loop.stop()


def _remote(client: object, executor: Executor | None, level: Level) -> Remote | None:
    """Where a run goes when not on the local zygote (None: here)."""
    if client is None and executor is None:
        return None
    from .distributed import make_remote  # optional: needs the [dask] extra for a client

    return make_remote(client=client, executor=executor, isolation=level)


class Sandbox(ZygoteOwner):
    """Runs candidates in sandboxed children of one zygote.  Thread-safe; close() when done (a
    Sandbox dropped without it is closed when it is garbage-collected).

    It owns the zygote (``ZygoteOwner``: started on first use, killed when wedged, restarted);
    its runs are kept by ``Admission`` (submitted before close(), or refused) and ``Runs`` (those
    going, told of the zygote's life), host/runs.py."""

    def __init__(self, isolation: str | None = None, require: Iterable[str] = (),
                 jobs: int | None = None, record_dir: str | os.PathLike[str] | None = None,
                 graces: Graces | None = None) -> None:
        """``record_dir``: write every run's record there (``<run_id>.jsonl``, host/records.py);
        a run's own ``record_dir=`` overrides it.  ``graces``: how long to wait on a zygote
        before acting (host/plan.py); ``self.graces`` may be changed, for the next runs."""
        try:
            level = Level(isolation or default_isolation())
        except ValueError:
            raise ValueError(f"isolation must be 'kernel' or 'process', not {isolation!r}") from None
        super().__init__(level, graces)
        self.require = required_layers(require)
        self.jobs = jobs
        self.record_dir = record_dir
        self.restarts = 0  # processes of this sandbox that died and were replaced
        self._runs = Runs()
        self._admission = Admission(self._loop)
        # A Sandbox dropped without close(): its zygote goes when it is collected, not at the
        # host's exit.  The zygote's callbacks hold it weakly (_weakly), so it can be collected.
        self._held = _Held()
        self._finalizer = weakref.finalize(self, _close_dropped, self._loop, self._held)
        self._finalizer.atexit = False  # at exit: close() or the zygote's parent-death signal

    # ------------------------------------------------------------------------- zygote lifecycle

    def _new_zygote(self) -> ZygoteProcess:
        return ZygoteProcess(self.level, _weakly(self._on_message), _weakly(self._on_zygote_exit),
                             self.graces)

    def _started(self, zygote: ZygoteProcess, hello: Hello) -> None:
        self._held.zygote = zygote

    def _on_message(self, msg: ZygoteEvent) -> None:
        if msg["type"] == "restarted":
            self._restarted(f"{noun(msg['role'])} process {msg['how']}")
        else:
            self._runs.deliver(msg)

    def _kill_wedged_zygote(self) -> None:
        """A run's watchdog or an unconfirmed cancel: the zygote does not answer.  What still ran
        on it, in any run, ends as "the sandbox process died", and the next candidate starts a
        new zygote."""
        if self._kill_zygote():
            self.restarts += 1
            self._runs.zygote_lost("was unresponsive and was killed", tell_next=False)

    def _on_zygote_exit(self, zygote: ZygoteProcess, how: str) -> None:
        self._forget(zygote)
        if not zygote.closing:
            self.restarts += 1
            self._runs.zygote_lost(how, tell_next=True)

    def _restarted(self, what: str) -> None:
        self.restarts += 1
        self._runs.restarted(what)

    # ------------------------------------------------------------------------------------ runs

    async def _execute(self, run: ScheduledRun, remote: Remote | None = None,
                       recording: Recording | None = None) -> RunResult:
        """Run on the local zygote, or on a cluster when ``remote`` is given (same scheduler);
        the run's record is started first (with the local zygote's isolation report) and ended
        with the result.  The run is ours from its first step: ``close()`` cancels it wherever
        it is, a zygote that is starting included."""
        self._runs.adopt(run, self._kill_wedged_zygote if remote is None else None)
        if self._closed:
            run.cancel(Kill.CANCEL)

        async def connect(_: ScheduledRun) -> Send:
            if remote is not None:
                return await remote.connect(self._on_message)
            return (await self._ensure_zygote()).send

        try:
            if recording is None:
                return await self._runs.drive(run, connect, remote)
            try:
                zygote = None if remote else await run.unless_cancelled(self._ensure_zygote())
                recording.start(zygote.hello if zygote else None)
                result = await self._runs.drive(run, connect, remote)
                recording.finish(result)
                return result
            finally:
                recording.close()
        finally:  # (a zygote that did not start: the run never reached its loop)
            self._runs.release(run)

    def _prepare(self, scripts: object, options: RunOptions, client: object, executor: Executor | None,
                 emit: UpdateCallback) -> tuple[ScheduledRun, Remote | None, Recording]:
        """The run, where it runs (None: here) and its record; its updates labelled, recorded,
        then handed to ``emit``.  Its plan: its options with this Sandbox's required layers,
        record folder and jobs (on a cluster: one per worker thread, not this machine's cores)."""
        if self._closed:
            raise RuntimeError("this Sandbox is closed")
        if options.isolation not in (None, self.level):
            raise ValueError(f"this Sandbox runs at isolation {self.level.value!r}; make another for "
                             f"{options.isolation!r}")
        remote = _remote(client, executor, self.level)
        options = options.replace(require=options.require + self.require,
                                  record_dir=options.record_dir or self.record_dir)
        plan = make_plan(scripts, options, self.jobs or (remote.default_jobs() if remote else None))
        recording = Recording(plan)
        return ScheduledRun(recording.plan, recording.wrap(emit), self.graces), remote, recording

    def run(self, scripts: str | Sequence[str], options: RunOptions | None = None, *,
            on_update: UpdateCallback | None = None, client: DaskClient | str | None = None,
            executor: Executor | None = None, **changes: object) -> RunResult:
        """Run candidates and wait.  KeyboardInterrupt kills every child at once and returns the
        results so far (``interrupted=True``, the rest ``cancelled``).  ``options`` (a
        ``RunOptions``) and ``changes`` (its fields as keywords: ``k=8, race=True``) say what the
        run is asked; ``client`` or ``executor`` run it on a cluster.  See
        ``z3sandbox_kernel.run``."""
        updates: queue.Queue[CandidateResult | None] = queue.Queue()  # None: the run is over
        run, remote, recording = self._prepare(scripts, RunOptions.of(options, **changes), client,
                                               executor, updates.put)
        future = self._admission.submit(self._execute(run, remote, recording))
        future.add_done_callback(lambda _: updates.put(None))
        while True:
            try:
                item = updates.get()
                if item is None:
                    break
                if on_update is not None:
                    on_update(item)
            except KeyboardInterrupt:
                self._loop.call(run.cancel, Kill.INTERRUPT)
            except BaseException:  # on_update raised: no one waits for the run any more
                self._loop.call(run.cancel, Kill.CANCEL)
                raise
        return _warned_about(future.result())

    async def run_async(self, scripts: str | Sequence[str], options: RunOptions | None = None, *,
                        on_update: UpdateCallback | None = None, client: DaskClient | str | None = None,
                        executor: Executor | None = None, **changes: object) -> RunResult:
        """Like ``run``, awaitable from any event loop; ``on_update`` is called on that loop."""
        caller = asyncio.get_running_loop()

        def emit(candidate: CandidateResult) -> None:
            # A cancelled run's candidates may end after the awaiting loop has closed: no one listens.
            if on_update is not None and not caller.is_closed():
                with contextlib.suppress(RuntimeError):  # closed between the check and the call
                    caller.call_soon_threadsafe(on_update, candidate)

        run, remote, recording = self._prepare(scripts, RunOptions.of(options, **changes), client,
                                               executor, emit)
        try:
            future = self._admission.submit(self._execute(run, remote, recording))
            return _warned_about(await asyncio.wrap_future(future))
        except asyncio.CancelledError:
            self._loop.call(run.cancel, Kill.CANCEL)
            raise

    def cancel(self) -> None:
        """Kill every running candidate of every run now; their runs return what finished."""
        for run in self._runs:
            self._loop.call(run.cancel, Kill.CANCEL)

    def stop_candidate(self, index: int) -> bool:
        """Stop candidate ``index`` of the runs going now (skip it if queued, kill it if it
        runs); the rest of each run goes on.  True when some run had it still going."""
        async def stop(run: ScheduledRun) -> bool:  # on the loop, where the run's state lives
            return run.stop_one(index)

        return any([self._loop.submit(stop(run)).result(timeout=10) for run in self._runs])

    def isolation(self) -> IsolationReport:
        """The layers this machine allows at this Sandbox's level (probed once by the zygote)."""
        zygote = self._loop.submit(self._ensure_zygote()).result()
        assert zygote.hello is not None  # a started zygote said hello
        return zygote.hello["isolation"]

    def close(self) -> None:
        """Cancel every run, close the zygote and the loop.  Every ``run()`` it overlaps returns
        (its candidates that had not ended ``cancelled``), whatever phase it was in: a run is
        admitted before close(), or refused."""
        if not self._admission.close():
            return
        self._closed = True
        self._finalizer.detach()

        async def end_runs() -> None:  # the zygote is closed: what it did not answer is answered here
            self._runs.abandon(f"{Kill.CANCEL}: the Sandbox was closed")
            await self._admission.returned(self.graces.shutdown_grace_s)

        self._close_zygote_and_loop(lambda: self._runs.cancel(Kill.CANCEL), end_runs)


_shared: PerLevel[Sandbox] = PerLevel(lambda level: Sandbox(isolation=level), Sandbox.close)


def shared_sandbox(isolation: str | None = None) -> Sandbox:
    """The process-wide Sandbox per isolation level, behind ``run()`` and the magic."""
    return _shared.get(isolation)


def run(scripts: str | Sequence[str], options: RunOptions | None = None, *,
        on_update: UpdateCallback | None = None, client: DaskClient | str | None = None,
        executor: Executor | None = None, **changes: object) -> RunResult:
    """Run one script, K seeds of one script (``k``), or a list of candidate scripts, each in a
    fresh sandboxed child, and vote over the verdicts.  What the run is asked is a ``RunOptions``:
    ``options``, or its fields as keywords (``k``, ``language``, ``limits``, ``seed``, ``race``,
    ``jobs``, ``cores``, ``verify``, ``models``, ``cross_check``, ``plain``, ``isolation``,
    ``require``, ``labels``, ``expected``, ``record_dir``, ``record_scripts``), or both (the
    keywords change the options).  ``on_update`` is called with each candidate's changes, in the
    calling thread.  ``client`` (a ``distributed.Client``) or ``executor`` (any
    ``concurrent.futures.Executor``) runs them on a cluster instead, each worker with its own
    zygote.  ``record_dir`` writes the run's record there (``load_runs`` reads it); ``labels``
    name the candidates and ``expected`` gives the verdict expected of each (one per script, or
    one for all; compared by ``diff_runs``).  docs/api.md explains every argument."""
    chosen = RunOptions.of(options, **changes)
    return shared_sandbox(chosen.isolation).run(scripts, chosen, on_update=on_update, client=client,
                                                executor=executor)
