"""What a run leaves besides its table: the line an interrupted cell ends with, the result of
``NAME.rerun()``, and ``--afl-sync``'s writer of payloads as candidates finish."""

from __future__ import annotations

import dataclasses
import textwrap
from collections.abc import Callable

from ..contracts.results import CandidateResult, RunResult


class RunInterrupted(KeyboardInterrupt):
    """How an interrupted run ends its cell: as a KeyboardInterrupt (the reply's ``ename``, so
    "Run All" stops and tools see an interrupt), shown as one line, not a traceback into the
    magic (IPython renders an exception's ``_render_traceback_`` instead of its traceback)."""

    def _render_traceback_(self) -> list[str]:
        # Wrapped at words here: a front end breaks one long red line wherever it runs out of room.
        return textwrap.wrap(str(self), LINE_WIDTH, break_long_words=False, break_on_hyphens=False)


RunInterrupted.__name__ = RunInterrupted.__qualname__ = "KeyboardInterrupt"
LINE_WIDTH = 96


def interrupted_line(result: RunResult, name: str, rerun: bool = True) -> str:
    """``z3sandbox: interrupted: kept 2 finished candidates in _z3 (2 sat); 1 stopped and 3
    never started: _z3.rerun() runs them`` (a count of none is left out).  ``rerun`` False (one
    script, ``-k``: rerun() cannot run those seeds alone): "run the cell again" instead."""
    from ..presentation.phrases import counts_summary
    from ..protocol.verdicts import Verdict

    cancelled = [c for c in result.candidates if c.verdict is Verdict.CANCELLED]
    stopped = sum(1 for c in cancelled if c.kill is not None)
    never = len(cancelled) - stopped
    kept = RunResult(candidates=[c for c in result.candidates if c.verdict is not Verdict.CANCELLED])
    text = (f"z3sandbox: interrupted: kept {len(kept)} finished candidate{'s' if len(kept) != 1 else ''} "
            f"in {name}" + (f" ({counts_summary(kept)})" if len(kept) else ""))
    counted = [f"{n} {what}" for n, what in ((stopped, "stopped"), (never, "never started")) if n]
    if counted:
        again = f"{name}.rerun() runs them" if rerun else "run the cell again to run them"
        text += f"; {' and '.join(counted)}: {again}"
    return text


Annotate = Callable[[CandidateResult], CandidateResult]


def then(first: Annotate, second: Annotate) -> Annotate:
    """``first``, then ``second``: the magic's annotation of a row, then a rerun's marks."""
    return lambda candidate: second(first(candidate))


RERUN_MARK = "(rerun)"


def rerun_rows(which: list[int]) -> Callable[[CandidateResult], CandidateResult]:
    """What a row run again by ``NAME.rerun(which)`` shows: its index in the cell (the engine
    numbers the rerun's candidates from 0) and its label marked ``(rerun)``."""
    def mark(candidate: CandidateResult) -> CandidateResult:
        if candidate.index < len(which):
            candidate.index = which[candidate.index]
        if not (candidate.label or "").endswith(RERUN_MARK):
            candidate.label = " ".join(filter(None, (candidate.label, RERUN_MARK)))
        return candidate

    return mark


def rerun_table(result: RunResult, which: list[int]) -> list[CandidateResult]:
    """The rows a rerun's live table starts from: ``result``'s, those run again queued."""
    queued = rerun_rows(which)
    rows = list(result.candidates)
    for position, index in enumerate(which):
        rows[index] = queued(CandidateResult(index=position, verdict=None, state="queued",
                                             label=rows[index].label))
    return rows


def merged_rerun(result: RunResult, which: list[int], again: RunResult) -> RunResult:
    """``result`` with the rows ``which`` replaced by ``again``'s (run in that order)."""
    rows = list(result.candidates)
    for index, candidate in zip(which, again.candidates, strict=True):
        rows[index] = dataclasses.replace(candidate, index=index)
    return dataclasses.replace(result, candidates=rows, interrupted=again.interrupted,
                               notes=result.notes + again.notes)


def afl_writer(
    sync_dir: str | None, then: Callable[[CandidateResult], None] | None
) -> Callable[[CandidateResult], None] | None:
    """With ``--afl-sync DIR``: an update callback that writes each sat payload as its candidate
    finishes (a fuzzer picks it up while the run goes), then calls ``then``.  A sync folder that
    cannot be written (a link, not a folder) is a UsageError before the run; one that turns into
    one during the run is a warning, and nothing is written there."""
    if sync_dir is None:
        return then
    import warnings

    from IPython.core.error import UsageError

    from ..contracts.payload_files import afl_queue, afl_sync

    try:
        afl_queue(sync_dir).close()
    except (OSError, ValueError) as exc:
        raise UsageError(f"--afl-sync: {exc}") from None

    def on_update(candidate: CandidateResult) -> None:
        if candidate.payloads:  # one per model (models=N)
            try:
                afl_sync(candidate.payloads, sync_dir)
            except (OSError, ValueError) as exc:
                warnings.warn(f"--afl-sync: candidate {candidate.index}'s payload not written: {exc}",
                              stacklevel=1)
        if then is not None:
            then(candidate)

    return on_update
