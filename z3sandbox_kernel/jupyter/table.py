"""The live view of a run: the run's own display, updated in place, and its terminal counterpart.

Both receive ``CandidateResult`` updates from the engine's ``on_update`` callback, which the engine
calls in the cell's own thread.  Two shapes, one interface (``start``, ``update``, ``finish``):

* ``LiveDisplay`` (a kernel with a frontend): the run's MIME bundle (run document, HTML table,
  text) shown once with a ``display_id`` and updated in place while the run goes -- the same
  table, same columns, live and final, with a progress bar (done/total, elapsed) while it runs.
  ``finish`` replaces it with the final bundle, so a saved notebook holds exactly one output per
  run and no widget (no "model not found" on reopen, no placeholder in nbconvert HTML).
  Refreshes are batched by a ``Throttle``: at most ``updates_per_s`` a second, and fewer for a
  big run (``LIVE_ROWS_PER_S``), so K = 1000 does not flood the frontend.  A refresh is a delta
  (``live.LiveTable``, which keeps each row's part between refreshes: a refresh costs the rows
  that changed, not K): the rows that changed since the last one (the labextension merges them
  into the table it holds), a full document at least every ``KEYFRAME_S`` (what a notebook saved
  mid-run keeps), and HTML and text of bounded size; the whole table is sent once, at the end.
  A refresh due while the engine has nothing to report (every candidate busy) is sent by a
  small timer thread that runs in the cell's context (so its messages carry the cell's parent
  header); ``finish`` joins it before the cell ends.
* ``progress.ProgressLine`` (terminal IPython, the CLI): a one-line progress bar on stderr.
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from ..contracts.results import CandidateResult, RunResult
from ..presentation.live import LIVE_ROWS, LiveTable
from ..presentation.render import MIME_TYPE, run_mimebundle
from .typed_ipython import display

# With nothing new to show, the elapsed time in a live display still moves this often.
ELAPSED_REFRESH_S = 1.0
# A live refresh carries every row (not only those that changed) at least this often (and at
# least every K/50 seconds for a big run).
KEYFRAME_S = 2.0
# Live refreshes send about this many bytes a second at most: a refresh bigger than
# SMALL_REFRESH_BYTES (a keyframe of a run of K = 1000) is followed by a longer pause; smaller
# ones go at updates_per_s.
LIVE_BYTES_PER_S = 64_000
SMALL_REFRESH_BYTES = 16_000
# Each refresh has the labextension merge, sort and group all K rows again, and costs the kernel
# a message (a millisecond or more of its CPU, whatever it holds): a big run's refreshes are
# paced so that the rows redrawn stay under this many a second (K = 1000: 2 refreshes a second,
# K <= 200: 10).
LIVE_ROWS_PER_S = 2_000


class LiveView(Protocol):
    def start(self, result: RunResult) -> None: ...
    def update(self, candidate: CandidateResult) -> None: ...
    def finish(self, result: RunResult | None) -> bool:
        """The run ended (``None``: it failed); called before the cell ends.  True when the view
        itself now shows the final result (nothing more to display)."""


# ----------------------------------------------------------------------------------------- throttle

class Throttle:
    """Call ``flush`` at most every ``interval`` seconds, soon after the last ``poke``, and at least
    every ``idle`` seconds while nothing changes.

    ``poke`` (the cell's thread) flushes at once when the interval has passed, else leaves the
    change for the timer thread.  ``defer`` (from ``flush``) makes the next flush wait longer:
    a big refresh buys a longer pause, so the bytes sent per second stay bounded.  ``flush``
    always runs under the lock, so it never runs twice at once, and never after ``close`` returns.
    The timer thread runs in a copy of the caller's context: ipykernel keeps the cell's parent
    header in a context variable.
    """

    def __init__(self, flush: Callable[[], None], interval: float, idle: float = 0.0) -> None:
        self._flush = flush
        self._interval = interval
        self._idle = idle
        self._lock = threading.Lock()
        self._dirty = False
        self._last = 0.0  # the first poke flushes at once
        self._quiet_since = time.monotonic()  # an idle flush is due ``idle`` after creation or a flush
        self._wait = interval  # before the next flush: the interval, or longer (defer)
        self._stop = threading.Event()
        context = contextvars.copy_context()
        self._thread = threading.Thread(
            target=context.run, args=(self._tick,), name="z3sandbox-table", daemon=True
        )
        self._thread.start()

    def poke(self, change: Callable[[], None], urgent: bool = False) -> None:
        """Apply ``change`` to the shared state (under the lock), then flush if one is due.
        ``urgent``: flush one interval after the last flush at most, whatever ``defer`` asked."""
        with self._lock:
            change()
            self._dirty = True
            if urgent:
                self._wait = self._interval
            if time.monotonic() - self._last >= self._wait:
                self._flush_locked()

    def defer(self, seconds: float) -> None:
        """Called by ``flush`` (under the lock): the next flush waits ``seconds`` (at least the
        interval) after this one."""
        self._wait = max(self._interval, seconds)

    def _tick(self) -> None:
        while not self._stop.wait(self._interval):
            with self._lock:
                now = time.monotonic()
                due = (self._dirty and now - self._last >= self._wait) or (
                    self._idle and now - self._quiet_since >= max(self._idle, self._wait))
                if due and not self._stop.is_set():
                    self._flush_locked()

    def _flush_locked(self) -> None:
        self._dirty = False
        self._last = self._quiet_since = time.monotonic()
        self._wait = self._interval
        self._flush()

    def close(self, flush: bool = True) -> None:
        """Stop the timer thread, then flush what is left (unless ``flush`` is False: the caller
        shows the final state itself) in the calling thread."""
        self._stop.set()
        self._thread.join()
        with self._lock:
            if self._dirty and flush:
                self._flush_locked()


# ------------------------------------------------------------------------------------ live display

def _snapshot(candidate: CandidateResult) -> CandidateResult:
    """A copy of what the engine reported (it may change its object later), as
    ``dataclasses.replace`` would make it (``__post_init__``: a failed verdict's error), at a
    tenth of its cost: the engine reports each candidate twice or more."""
    snapshot = object.__new__(CandidateResult)  # copy.copy, less its generic dispatch
    snapshot.__dict__.update(candidate.__dict__)
    snapshot.__post_init__()
    return snapshot


class LiveDisplay:
    """The run's display, shown at ``start`` and updated in place until ``finish``."""

    def __init__(
        self, *, updates_per_s: float = 10.0,
        annotate: Callable[[CandidateResult], CandidateResult] = lambda c: c,
        final_note: str | None = None,
    ) -> None:
        self._interval = 1.0 / updates_per_s
        self._annotate = annotate
        self._final_note = final_note  # the display ends as this line, not the table (a rerun's)
        self._table = LiveTable(RunResult(candidates=[]))
        self._started = 0.0
        self._handle: Any = None
        self._throttle: Throttle | None = None
        self._changed: set[int] = set()  # rows changed since the last refresh
        # What the engine reported since the last refresh, the latest of each row (by the
        # engine's index) and when: stored in the table (annotated) by the refresh, so a row that
        # ran and ended between two refreshes is annotated and stored once.
        self._reported: dict[int, tuple[CandidateResult, float]] = {}
        self._running_since: dict[int, float] = {}  # when each running row was first seen
        self._keyframe = 0.0
        self._verdict_seen = False

    @property
    def display_id(self) -> str | None:
        return self._handle.display_id if self._handle is not None else None

    def start(self, result: RunResult) -> None:
        """Show ``result``'s rows as they are (the caller annotated them: a rerun's are the
        cell's rows, which the engine's indices do not name); ``update`` annotates each report."""
        self._started = time.monotonic()
        self._table = LiveTable(RunResult(
            candidates=[], limits=result.limits, isolation=result.isolation, language=result.language,
        ))
        for candidate in result.candidates:
            self._changed.update(self._table.store(_snapshot(candidate)))
            self._seen(candidate, self._started)
        self._keyframe = self._started
        # A keyframe, as later refreshes send: every row in the document (each row's entry made
        # here is the one later keyframes send again), the HTML and text of a few.
        data, metadata = self._table.mimebundle(None, {})
        self._handle = display(data, raw=True, metadata=metadata, display_id=True)
        # The display above holds every row, and each refresh carries the control: the first
        # refresh needs none of them again (all K would make it big, and deferred: see update).
        self._changed = set()
        self._throttle = Throttle(self._refresh, self._interval, idle=ELAPSED_REFRESH_S)

    def update(self, candidate: CandidateResult) -> None:
        if self._throttle is None:
            raise RuntimeError("LiveDisplay.update() before start()")
        snapshot = _snapshot(candidate)
        # The first verdict is what the user waits for: it cancels the pause a big refresh bought
        # (K = 200's first refreshes), so it shows within one interval of the engine's report.
        urgent = candidate.verdict is not None and not self._verdict_seen
        self._verdict_seen = self._verdict_seen or candidate.verdict is not None
        self._throttle.poke(lambda: self._report(snapshot), urgent=urgent)

    def finish(self, result: RunResult | None) -> bool:
        if self._throttle is not None:
            self._throttle.close(flush=result is None)
        if self._handle is None:
            return False
        if result is None:  # the error that ended the run is shown below the cell
            self._handle.update({"text/plain": "z3sandbox: the run failed"}, raw=True)
            return False
        if self._final_note is not None:  # the caller shows the final result itself
            self._handle.update({"text/plain": self._final_note}, raw=True)
            return False
        data, metadata = run_mimebundle(result)
        self._handle.update(data, metadata=metadata, raw=True)
        return True

    def _report(self, candidate: CandidateResult) -> None:
        self._reported[candidate.index] = (candidate, time.monotonic())

    def _store_reported(self) -> None:
        for candidate, when in self._reported.values():
            shown = self._annotate(candidate)  # a rerun's: the cell's index
            self._changed.update(self._table.store(shown))
            self._seen(shown, when)
        self._reported.clear()

    def _seen(self, candidate: CandidateResult, when: float) -> None:
        """Keep when each running row was first reported so (its time so far is shown)."""
        if candidate.verdict is None and candidate.state == "running":
            self._running_since.setdefault(candidate.index, when)
        else:
            self._running_since.pop(candidate.index, None)

    def _refresh(self) -> None:
        self._store_reported()
        now = time.monotonic()
        self._table.result.elapsed_s = now - self._started
        running = {index: now - since for index, since in self._running_since.items()}
        # A small run is sent whole each time: its document is as small as a delta would be.
        rows = len(self._table.result)
        keyframe_s = max(KEYFRAME_S, rows / 50)  # K = 1000: every 20 s
        full = rows <= LIVE_ROWS or now - self._keyframe >= keyframe_s
        if full:
            self._keyframe = now
        changed = None if full else sorted(self._changed)
        self._changed = set()
        # The table keeps each row's part from one refresh to the next: this costs the rows
        # that changed (a keyframe reuses the others' entries).
        data, metadata = self._table.mimebundle(changed, running)
        # Where the labextension's Stop buttons send their requests (kernel.py): only in live
        # documents, so a saved final one has no control.
        data[MIME_TYPE]["control"] = self.display_id
        self._handle.update(data, raw=True, metadata=metadata)
        if self._throttle is not None:  # about 300 bytes a row in the document and metadata
            size = len(data["text/html"]) + len(data["text/plain"]) + 300 * len(data[MIME_TYPE]["candidates"])
            pause = size / LIVE_BYTES_PER_S if size > SMALL_REFRESH_BYTES else 0.0
            self._throttle.defer(max(pause, rows / LIVE_ROWS_PER_S))


def has_display_frontend(shell: object) -> bool:
    """A frontend that renders rich displays and their updates: ipykernel's shell.  Terminal
    IPython gets a progress line on stderr."""
    try:
        from ipykernel.zmqshell import ZMQInteractiveShell
    except ImportError:  # pragma: no cover - ipykernel is a dependency
        return False
    return isinstance(shell, ZMQInteractiveShell)
