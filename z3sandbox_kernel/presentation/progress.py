"""A one-line progress bar on stderr for terminal IPython and the CLI (tqdm-style, no dependency).

It only draws on a terminal (stderr is a TTY) and only once a run has lasted ``delay_s``: short
runs see nothing.  The line is redrawn in place (``\\r``) every ``interval_s`` and erased when the
run ends, so the final table prints on a clean line.  Not on a terminal (a log, a pipe), it is
silent, or with ``lines_s`` (the CLI) writes the same text as a new line every ``lines_s``.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO

from ..contracts.results import CandidateResult, RunResult
from .phrases import counts_summary, progress

BAR_WIDTH = 24


def progress_text(result: RunResult, elapsed_s: float) -> str:
    """``z3sandbox [#########...............] 3/8 done, 2.1 s | 2 sat, 1 timeout, 5 running``."""
    step = progress(result)
    filled = BAR_WIDTH * step["done"] // max(step["total"], 1)
    bar = "#" * filled + "." * (BAR_WIDTH - filled)
    return (f"z3sandbox [{bar}] {step['done']}/{step['total']} done, {elapsed_s:.1f} s"
            f" | {counts_summary(result)}")


class ProgressLine:
    """The ``LiveView`` interface (start, update, finish) drawn as one line.  A small timer thread
    redraws it while nothing reports, so the elapsed time moves; ``finish`` joins it."""

    def __init__(self, stream: TextIO | None = None, *, delay_s: float = 1.0,
                 interval_s: float = 0.5, force: bool = False, lines_s: float | None = None) -> None:
        self._stream = stream or sys.stderr
        self._in_place = force or self._stream.isatty()
        self._enabled = self._in_place or lines_s is not None
        self._delay_s = delay_s if self._in_place else float(lines_s or 0)
        self._interval_s = interval_s if self._in_place else float(lines_s or 0)
        self._started = 0.0
        self._rows: list[CandidateResult] = []
        self._drawn = False
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, result: RunResult) -> None:
        self._started = time.monotonic()
        self._rows = list(result.candidates)
        if self._enabled:
            self._thread = threading.Thread(target=self._tick, name="z3sandbox-progress", daemon=True)
            self._thread.start()

    def update(self, candidate: CandidateResult) -> None:
        with self._lock:
            while len(self._rows) <= candidate.index:
                self._rows.append(CandidateResult(index=len(self._rows), verdict=None, state="queued"))
            self._rows[candidate.index] = candidate

    def finish(self, result: RunResult | None) -> bool:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self._drawn:
            self._draw("")
        return False

    def _tick(self) -> None:
        while not self._stop.wait(self._interval_s):
            elapsed = time.monotonic() - self._started
            if elapsed >= self._delay_s:
                with self._lock:
                    text = progress_text(RunResult(candidates=list(self._rows)), elapsed)
                if self._in_place:
                    self._draw(text)
                else:
                    self._stream.write(text + "\n")
                    self._stream.flush()

    def _draw(self, text: str) -> None:
        self._stream.write("\r\x1b[K" + text)
        self._stream.flush()
        self._drawn = bool(text)
