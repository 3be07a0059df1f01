"""The live verdict table shown while a run goes on, and its terminal counterpart.

Both receive ``CandidateResult`` updates from the engine's ``on_update`` callback, which the engine
calls in the cell's own thread.  Two shapes, one interface (``start``, ``update``, ``finish``):

* ``LiveTable``: standard ipywidgets only (no custom JavaScript).  A header line (vote, counts,
  limits, isolation) and a page of rows in one ``HTML`` widget, with a pager when there are more
  rows than a page.  The number of widgets does not grow with K, and refreshes are batched: at
  most ``updates_per_s`` refreshes a second, so K = 1000 does not flood the frontend.  A refresh
  that falls due while the engine has nothing to report (every candidate is busy) is sent by a
  small timer thread; ``finish`` stops and joins it before the cell ends, because output sent from
  a thread after its cell has ended lands in the wrong cell.
* ``TextProgress``: terminal IPython (no widget frontend) prints one row per finished candidate.
"""

from __future__ import annotations

import dataclasses
import html
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

import ipywidgets as widgets

from ..html import badge, folded
from ..render import (
    TEXT_HEADER,
    candidate_live_text,
    isolation_summary,
    limits_summary,
    model_preview,
    run_summary,
    state_label,
)
from ..results import CandidateResult, RunResult

_CELL = "text-align:left;vertical-align:top;padding:1px 8px;white-space:nowrap"
_MONO = "font-family:var(--jp-code-font-family,monospace)"
_COLUMNS = ("#", "state", "wall", "CPU", "peak mem", "kill", "model / payload", "reason")


class LiveView(Protocol):
    def start(self, result: RunResult) -> None: ...
    def update(self, candidate: CandidateResult) -> None: ...
    def finish(self, result: RunResult | None) -> None:
        """The run ended (``None``: it failed); called before the cell ends."""


# ----------------------------------------------------------------------------------------- throttle

class Throttle:
    """Call ``flush`` at most every ``interval`` seconds, and soon after the last ``poke``.

    ``poke`` (the cell's thread) flushes at once when the interval has passed, else leaves the
    change for the timer thread.  ``flush`` always runs under the lock, so it never runs twice at
    once, and never after ``close`` returns.
    """

    def __init__(self, flush: Callable[[], None], interval: float) -> None:
        self._flush = flush
        self._interval = interval
        self._lock = threading.Lock()
        self._dirty = False
        self._last = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._tick, name="z3sandbox-table", daemon=True)
        self._thread.start()

    def poke(self, change: Callable[[], None]) -> None:
        """Apply ``change`` to the shared state (under the lock), then flush if one is due."""
        with self._lock:
            change()
            self._dirty = True
            if time.monotonic() - self._last >= self._interval:
                self._flush_locked()

    def _tick(self) -> None:
        while not self._stop.wait(self._interval):
            with self._lock:
                if self._dirty and not self._stop.is_set():
                    self._flush_locked()

    def _flush_locked(self) -> None:
        self._dirty = False
        self._last = time.monotonic()
        self._flush()

    def close(self) -> None:
        """Stop the timer thread, then flush what is left in the calling thread."""
        self._stop.set()
        self._thread.join()
        with self._lock:
            if self._dirty:
                self._flush_locked()


# ------------------------------------------------------------------------------------- widget table

def _seconds(value: float) -> str:
    return f"{value:.2f} s"


def live_row(candidate: CandidateResult) -> str:
    """One row of the live table: the static row plus the measured figures."""
    verdict = candidate.verdict
    done = verdict is not None
    detail = candidate.reason
    if candidate.payload_error:
        detail = f"{detail} (payload: {candidate.payload_error})".strip()
    cells = [
        str(candidate.index),
        badge(state_label(candidate)),
        _seconds(candidate.wall_s) if done else "",
        _seconds(candidate.cpu_s) if done else "",
        f"{candidate.peak_rss_mb:.0f} MB" if done else "",
        html.escape(candidate.kill or ""),
        f'<span style="{_MONO}">{html.escape(model_preview(candidate))}</span>',
        folded(detail),
    ]
    return "<tr>" + "".join(f'<td style="{_CELL}">{cell}</td>' for cell in cells) + "</tr>"


class LiveTable(widgets.VBox):
    """Header, a page of rows, and a pager; refreshed through a ``Throttle``."""

    def __init__(self, *, updates_per_s: float = 10.0, page_size: int = 50, **kwargs: Any) -> None:
        self.header = widgets.HTML()
        self.body = widgets.HTML()
        self.previous = widgets.Button(description="◀", layout=widgets.Layout(width="3em"))
        self.next = widgets.Button(description="▶", layout=widgets.Layout(width="3em"))
        self.position = widgets.Label()
        self.pager = widgets.HBox([self.previous, self.position, self.next])
        self.pager.layout.display = "none"
        super().__init__([self.header, self.body, self.pager], **kwargs)
        self.previous.on_click(lambda _: self.turn(-1))
        self.next.on_click(lambda _: self.turn(+1))
        self.page_size = page_size
        self.page = 0
        self._interval = 1.0 / updates_per_s
        self._rows: list[CandidateResult] = []
        self._dirty_rows: set[int] = set()
        self._result = RunResult(candidates=self._rows)
        self._throttle: Throttle | None = None

    def __repr__(self) -> str:
        # A stable text/plain: saved notebooks (and nbval) see no widget ids and no figures.
        return "z3sandbox live table"

    # -- the LiveView interface, called in the cell's thread

    def start(self, result: RunResult) -> None:
        self._result = RunResult(
            candidates=self._rows, limits=result.limits, isolation=result.isolation,
            language=result.language,
        )
        for candidate in result.candidates:
            self._store(dataclasses.replace(candidate))
        self._render()
        self._throttle = Throttle(self._render, self._interval)

    def update(self, candidate: CandidateResult) -> None:
        if self._throttle is None:
            raise RuntimeError("LiveTable.update() before start()")
        snapshot = dataclasses.replace(candidate)  # the engine may mutate its object later
        self._throttle.poke(lambda: self._store(snapshot))

    def finish(self, result: RunResult | None) -> None:
        if self._throttle is not None:
            self._throttle.close()
        if result is None:
            return
        self._rows[:] = result.candidates
        self._dirty_rows.update(range(len(self._rows)))
        self._result.interrupted = result.interrupted
        self._result.notes = list(result.notes)
        self._result.isolation = result.isolation or self._result.isolation
        self._render()

    # -- rendering

    def _store(self, candidate: CandidateResult) -> None:
        while len(self._rows) <= candidate.index:
            self._rows.append(CandidateResult(index=len(self._rows), verdict=None, state="queued"))
        self._rows[candidate.index] = candidate
        self._dirty_rows.add(candidate.index)

    def turn(self, step: int) -> None:
        pages = max(1, -(-len(self._rows) // self.page_size))
        self.page = min(max(self.page + step, 0), pages - 1)
        self._dirty_rows.update(range(len(self._rows)))
        self._render()

    def _render(self) -> None:
        self.header.value = f"<b>z3sandbox</b> &middot; {html.escape(run_summary(self._result))}"
        first = self.page * self.page_size
        shown = range(first, min(first + self.page_size, len(self._rows)))
        if self._dirty_rows.intersection(shown) or not self.body.value:
            head = "".join(f'<th style="{_CELL}">{name}</th>' for name in _COLUMNS)
            rows = "".join(live_row(self._rows[i]) for i in shown)
            self.body.value = (
                f'<table style="border-collapse:collapse;font-size:12px;color:inherit">'
                f"<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
            )
        self._dirty_rows.clear()
        if len(self._rows) > self.page_size:
            self.pager.layout.display = "flex"
            self.position.value = f"rows {shown.start + 1}-{shown.stop} of {len(self._rows)}"


# ------------------------------------------------------------------------------------ terminal rows

class TextProgress:
    """Terminal IPython: a header, then one printed row per candidate as it finishes."""

    def __init__(self, write: Callable[[str], Any] = print) -> None:
        self._write = write

    def start(self, result: RunResult) -> None:
        self._write(
            f"z3sandbox: {len(result.candidates) or 'some'} candidates | limits: "
            f"{limits_summary(result.limits)} | isolation {isolation_summary(result.isolation)}"
        )
        self._write(TEXT_HEADER)

    def update(self, candidate: CandidateResult) -> None:
        if candidate.verdict is not None:
            self._write(candidate_live_text(candidate))

    def finish(self, result: RunResult | None) -> None:
        if result is not None and result.interrupted:
            self._write("z3sandbox: interrupted; unfinished candidates were cancelled")
