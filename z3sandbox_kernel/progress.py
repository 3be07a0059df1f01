"""A one-line progress bar on stderr for terminal IPython and the CLI (tqdm-style, no dependency).

It only draws on a terminal (stderr is a TTY) and only once a run has lasted ``delay_s``: short
runs and piped output see nothing.  The line is redrawn in place (``\\r``) at most ``interval_s``
apart and erased when the run ends, so the final table prints on a clean line.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from .render import counts_summary, progress
from .results import CandidateResult, RunResult

BAR_WIDTH = 24


def progress_text(result: RunResult, elapsed_s: float) -> str:
    """``z3sandbox [#########...............] 3/8 done, 2.1 s | 2 sat, 1 timeout, 5 running``."""
    step = progress(result)
    filled = BAR_WIDTH * step["done"] // max(step["total"], 1)
    bar = "#" * filled + "." * (BAR_WIDTH - filled)
    return (f"z3sandbox [{bar}] {step['done']}/{step['total']} done, {elapsed_s:.1f} s"
            f" | {counts_summary(result)}")


class ProgressLine:
    """The ``LiveView`` interface (start, update, finish) drawn as one line."""

    def __init__(self, stream: TextIO | None = None, *, delay_s: float = 1.0,
                 interval_s: float = 0.2, force: bool = False) -> None:
        self._stream = stream or sys.stderr
        self._enabled = force or self._stream.isatty()
        self._delay_s = delay_s
        self._interval_s = interval_s
        self._started = self._last = 0.0
        self._rows: list[CandidateResult] = []
        self._drawn = False

    def start(self, result: RunResult) -> None:
        self._started = time.monotonic()
        self._rows = list(result.candidates)

    def update(self, candidate: CandidateResult) -> None:
        while len(self._rows) <= candidate.index:
            self._rows.append(CandidateResult(index=len(self._rows), verdict=None, state="queued"))
        self._rows[candidate.index] = candidate
        now = time.monotonic()
        if (self._enabled and now - self._started >= self._delay_s
                and now - self._last >= self._interval_s):
            self._last = now
            self._draw(progress_text(RunResult(candidates=self._rows), now - self._started))

    def finish(self, result: RunResult | None) -> bool:
        if self._drawn:
            self._draw("")
        return False

    def _draw(self, text: str) -> None:
        self._stream.write("\r\x1b[K" + text)
        self._stream.flush()
        self._drawn = bool(text)
