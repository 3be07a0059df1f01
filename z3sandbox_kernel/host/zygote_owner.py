"""What a ``Sandbox`` (host/sandbox.py) and a worker's zygote (host/worker.py) share: an event-loop
thread, the one zygote started from it (on demand, once, with exec), killed when it does not answer,
forgotten when it exits, its shutdown, and the registry of one owner per isolation level in this
process.  What runs on the zygote is the subclass's (a Sandbox's runs: host/runs.py).

Imports go one way: sandbox.py, worker.py and distributed.py import this module, never each other's
private parts (tests/test_architecture.py checks the package has no import circle).
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import sys
import threading
import warnings
from collections.abc import Awaitable, Callable, Coroutine
from concurrent.futures import Future
from typing import Generic, TypeVar

from ..protocol import Hello, IsolationReport
from ..protocol.roles import Level
from .plan import Graces
from .zygote_client import START_TIMEOUT_S, ZygoteError, ZygoteProcess

T = TypeVar("T")
Owned = TypeVar("Owned", bound="ZygoteOwner")  # a context manager returns its own type
_warned: set[str] = set()
CLOSE_MARGIN_S = 10.0  # past a start's and a shutdown's own bounds, before close() gives up


def default_isolation() -> str:
    return Level.KERNEL if sys.platform == "linux" else Level.PROCESS


def warn_degraded(report: IsolationReport, stacklevel: int = 3) -> None:
    """Once per process and layer: a missing layer is said out loud, never skipped silently."""
    for layer in report["layers"]:
        if not layer.get("active") and layer["name"] not in _warned:
            _warned.add(layer["name"])
            warnings.warn(f"z3sandbox: isolation is degraded: {layer['name']} is not active: "
                          f"{layer.get('error', 'unknown reason')}", RuntimeWarning, stacklevel=stacklevel)


class LoopThread:
    """An asyncio loop on a daemon thread of its own: the zygote is created and read from it."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="z3sandbox-loop", daemon=True)
        self.thread.start()

    def submit(self, coroutine: Coroutine[object, object, T]) -> Future[T]:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop)

    def call(self, function: Callable[..., object], *args: object) -> None:
        self.loop.call_soon_threadsafe(function, *args)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)
        if not self.thread.is_alive():
            self.loop.close()


class ZygoteOwner:
    """A loop thread and the zygote started from it: started on first use, killed when it does
    not answer, forgotten when it exits, closed with the loop.  Subclasses say how a zygote is
    made (its callbacks), what is done once it said hello, and how they close."""

    def __init__(self, level: Level, graces: Graces | None = None) -> None:
        self.level = level
        self.graces = graces or Graces()  # read when a zygote or a run starts
        self._loop = LoopThread()
        self._zygote: ZygoteProcess | None = None
        self._starting: asyncio.Lock | None = None
        self._detached: set[ZygoteProcess] = set()  # killed as wedged, their readers still ending
        self._closed = False

    def _new_zygote(self) -> ZygoteProcess:
        raise NotImplementedError

    def _started(self, zygote: ZygoteProcess, hello: Hello) -> None:
        """Called once ``zygote`` said ``hello``, before it serves anything."""

    async def _ensure_zygote(self) -> ZygoteProcess:
        """The zygote, started on first use (one start at a time, on the loop thread); none once
        this owner is closed."""
        if self._starting is None:
            self._starting = asyncio.Lock()
        async with self._starting:
            if self._closed:
                raise RuntimeError(f"this {type(self).__name__} is closed")
            if self._zygote is not None and self._zygote.gone:  # its end is told first (its runs'
                with contextlib.suppress(asyncio.TimeoutError):  # candidates), then a new one
                    await self._zygote.reader_done()
                if self._zygote is not None and self._zygote.gone:
                    self._detached.add(self._zygote)
                    self._zygote = None
            if self._zygote is None:
                self._zygote = await self._start_zygote()
            return self._zygote

    async def _start_zygote(self) -> ZygoteProcess:
        """Start a zygote; one killed while it started (a signal, not its own error) is started
        again, once, and ``_restarted`` says so."""
        for attempt in range(2):
            zygote = self._new_zygote()
            try:
                hello = await zygote.start()
            except ZygoteError as exc:
                if attempt or not exc.killed or self._closed:
                    raise
                self._restarted(f"zygote process {exc.how} while it started")
                continue
            self._started(zygote, hello)
            return zygote
        raise AssertionError("unreachable")

    def _restarted(self, what: str) -> None:
        """A process of the sandbox died and another took its place (``what`` it was and how it
        died): a Sandbox says so in its runs' notes."""

    def _kill_zygote(self) -> bool:
        """Detach the zygote and kill it now (it does not answer; its reader may never see EOF
        first), its exit not handled again by its reader.  False: there was none."""
        zygote, self._zygote = self._zygote, None
        if zygote is None:
            return False
        self._detached.add(zygote)
        zygote.closing = True
        zygote.kill()
        return True

    def _forget(self, zygote: ZygoteProcess) -> None:
        """``zygote`` exited: it is no longer ours (the next use starts another)."""
        self._detached.discard(zygote)
        if self._zygote is zygote:
            self._zygote = None

    @property
    def zygote_pid(self) -> int | None:
        return self._zygote.pid if self._zygote else None

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self: Owned) -> Owned:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _close_zygote_and_loop(self, stop_runs: Callable[[], None] = lambda: None,
                               end_runs: Callable[[], Awaitable[None]] | None = None) -> None:
        """Stop the runs, close the zygote (after a start in progress, so that one is closed too)
        and the ones killed as wedged, end what the runs still wait for, then stop the loop
        thread.  Bounded: a start takes ``START_TIMEOUT_S`` at most, a shutdown its grace.
        ``stop_runs`` and ``end_runs`` (a Sandbox's: cancel its runs first thing; end what they
        still wait for once the zygote is closed) run on the loop."""

        async def ended() -> None:
            if end_runs is not None:
                await end_runs()

        async def shutdown() -> None:
            stop_runs()
            if self._starting is not None:
                async with self._starting:
                    pass
            if self._zygote is not None:
                await self._zygote.close()
            for detached in list(self._detached):
                with contextlib.suppress(asyncio.TimeoutError):
                    await detached.reader_done()
            await ended()

        bound = START_TIMEOUT_S + 3 * self.graces.shutdown_grace_s + CLOSE_MARGIN_S
        try:
            self._loop.submit(shutdown()).result(timeout=bound)
        except concurrent.futures.TimeoutError:  # never leave a run waiting on a stopped loop
            with contextlib.suppress(Exception):
                self._loop.submit(ended()).result(timeout=CLOSE_MARGIN_S)
            raise
        finally:
            self._loop.stop()


Owner = TypeVar("Owner", bound=ZygoteOwner)


class PerLevel(Generic[Owner]):
    """One owner per isolation level in this process, made on first use (again once closed), and
    closed at the process's exit: the shared Sandbox behind ``run()``, a worker's zygote."""

    def __init__(self, make: Callable[[Level], Owner], close: Callable[[Owner], None]) -> None:
        self._make, self._close = make, close
        self._owners: dict[Level, Owner] = {}
        self._lock = threading.Lock()
        atexit.register(self.close_all)

    def get(self, isolation: str | None) -> Owner:
        level = Level(isolation or default_isolation())
        with self._lock:
            owner = self._owners.get(level)
            if owner is None or owner._closed:
                owner = self._owners[level] = self._make(level)
            return owner

    def owners(self) -> list[Owner]:
        with self._lock:
            return list(self._owners.values())

    def close_all(self) -> None:
        with self._lock:
            owners = list(self._owners.values())
            self._owners.clear()
        for owner in owners:
            self._close(owner)
