"""The fixed-width text forms: the run's table (``RunResult.__repr__``, the terminal, ``text/plain``)
and a candidate alone (``_z3[1]``).  No volatile figures, so a saved ``text/plain`` stays the same.

On a terminal (terminal IPython: ``use_terminal_width``) the reason column takes the rest of the
terminal's width; a notebook's ``text/plain`` keeps the fixed width, which must not depend on the
terminal the server was started from.  A reason longer than its room loses its quoted source line
first, then wraps under its row: its message and a limit's value are never cut (reasons.py).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, NamedTuple

from .phrases import (
    REASON_WIDTH,
    SAVED_COLUMNS,
    Column,
    limits_summary,
    shorten,
    tie_summary,
)
from .printable import printable
from .reasons import reason_text, row_reason, wrap_reason
from .row_details import (
    core_summary,
    further_models,
    inline_output,
    model_items,
    objective_summary,
    shown_verdict,
    shows_output,
)
from .summary import Summary, summarize

if TYPE_CHECKING:
    from ..contracts.results import CandidateResult, RunResult


def _text_row(cells: list[str], columns: tuple[Column, ...], widths: list[int] | None = None) -> str:
    widths = widths or [column.width for column in columns]
    parts = [
        cell.rjust(width) if column.key == "index" else cell.ljust(width)
        for cell, column, width in zip(cells, columns, widths, strict=True)
    ]
    return "  ".join(parts).rstrip()


_terminal_width: Callable[[], int] | None = None
# On a narrow terminal the reason still gets this many columns (the terminal wraps the rest).
_NARROWEST = 24


def use_terminal_width(width: Callable[[], int] | None) -> None:
    """Text tables made from now on in this process give the reason column the rest of
    ``width()`` columns (terminal IPython), or None: the fixed width (a kernel's saved output)."""
    global _terminal_width
    _terminal_width = width


class TextRow(NamedTuple):
    """A row of the text table before its columns are lined up (``text_row``)."""

    cells: list[str]  # each column's text; a last reason column's, the reason's first line
    more: list[str]  # the reason's further lines
    under: list[str]  # what the row shows under it (``_under_row``)


def text_row(candidate: CandidateResult, columns: tuple[Column, ...] = SAVED_COLUMNS, *,
             alone: bool = False, shared: Collection[str] = (), room: int = REASON_WIDTH) -> TextRow:
    """A candidate's row of ``text_table``, its reason wrapped at ``room``: what a live table
    keeps of a row it shows again (live.py)."""
    if not columns or columns[-1].key != "reason":
        return TextRow([column.text(candidate) for column in columns], [], _under_row(candidate, alone))
    first, *more = wrap_reason(row_reason(candidate, shared), room)
    return TextRow([*(column.text(candidate) for column in columns[:-1]), first], more,
                   _under_row(candidate, alone))


def text_table(candidates: list[CandidateResult], columns: tuple[Column, ...] = SAVED_COLUMNS,
               *, alone: bool = False, width: int | None = None, shared: Collection[str] = (),
               made: list[TextRow] | None = None) -> list[str]:
    """Header, rule and rows, each column as wide as its widest cell (every cell is already cut to
    its column's width), each row followed by what it shows without a click: its unsat core, and
    its stdout when ``alone`` (the run's only candidate) or when it failed.  The reason, last,
    is wrapped at ``width`` (the line's, which it may fill) or ``REASON_WIDTH``, its message
    never cut; ``shared``: the clauses the caption says once (``reasons.said_once``); ``made``:
    the rows' ``text_row``, when the caller kept them."""
    rows = made if made is not None else [
        text_row(c, columns, alone=alone, shared=shared) for c in candidates]
    widths = [max([len(column.title), column.width if column.key == "index" else 0]
                  + [len(row.cells[i]) for row in rows]) if column.width else 0
              for i, column in enumerate(columns)]
    indent = sum(widths[:-1]) + 2 * (len(columns) - 1)
    if width is not None and columns and columns[-1].key == "reason":  # the reason fills the line
        room = max(_NARROWEST, width - indent)
        rows = [_rewrapped(row, row_reason(candidate, shared), room)
                for row, candidate in zip(rows, candidates, strict=True)]
    header = _text_row([column.title for column in columns], columns, widths)
    lines = [header, "-" * len(header)]
    for row in rows:
        lines.append(_text_row(row.cells, columns, widths))
        lines.extend(" " * indent + line for line in row.more)
        lines.extend(row.under)
    return lines


def _rewrapped(row: TextRow, reason: str, room: int) -> TextRow:
    first, *more = wrap_reason(reason, room)
    return row._replace(cells=[*row.cells[:-1], first], more=more)


def _under_row(candidate: CandidateResult, alone: bool) -> list[str]:
    lines = []
    core = core_summary(candidate)
    if core:
        lines.append(f"{'':5}core: {core}")
    if objective_summary(candidate):
        lines.append(f"{'':5}objective: {objective_summary(candidate)}")
    lines += [f"{'':5}{shorten(line, 100)}" for line in further_models(candidate)]
    if shows_output(candidate, alone):
        text, more = inline_output(candidate)
        body = text.splitlines() + ([f"… ({more} more lines)"] if more else [])
        lines += [f"{'':5}{'stdout:' if n == 0 else '':8}{line}" for n, line in enumerate(body)]
    return lines


def run_text(result: RunResult, width: int | None = None, summary: Summary | None = None) -> str:
    """A table with no volatile figures; unsat cores are under their rows, and so is the stdout
    ``text_table`` shows.  ``width``: a terminal's, which the reason column may fill (else
    ``use_terminal_width``'s, else the fixed width); ``summary``: the run's, when the caller has it."""
    summary = summary or summarize(result)
    vote = summary.vote if summary.finished else "pending"
    if len(result.candidates) == 1:  # one candidate: its verdict, not a vote
        lines = [f"RunResult: {shown_verdict(result.candidates[0])}"]
    else:
        lines = [f"RunResult: {vote} ({summary.states})"]
    if summary.tie is not None:
        lines[0] += f" -- tie {tie_summary(summary.tie)}"
    if result.interrupted:
        lines[0] += " -- interrupted"
    if summary.groups:
        lines.append(summary.groups)
    if summary.said_once_caption:
        lines.append(summary.said_once_caption)
    if width is None and _terminal_width is not None:
        width = _terminal_width()
    lines += text_table(result.candidates, alone=len(result.candidates) == 1, width=width,
                        shared=summary.said_once)
    lines.extend(f"note: {printable(note)}" for note in result.notes)
    return "\n".join(lines)


def candidate_alone_text(candidate: CandidateResult) -> str:
    """A candidate shown alone (``_z3[1]``): what it is, what it found and why."""
    name = f" {candidate.label!r}" if candidate.label else ""
    verified = ""
    if candidate.verdict is not None and candidate.verdict.value == "sat" and candidate.verified is not None:
        verified = " (model verified)" if candidate.verified else " (model failed verification)"
    lines = [f"candidate {candidate.index}{name}: {shown_verdict(candidate)}{verified}"]
    if candidate.source_preview:
        lines.append(f"  source:  {printable(candidate.source_preview)}")
    if candidate.payload is not None:
        lines.append(f"  payload: {shorten(candidate.payload.hex(' '), 72)} ({len(candidate.payload)} bytes)")
    if candidate.model:
        lines.append(f"  model:   {shorten(', '.join(f'{k}={v}' for k, v in model_items(candidate)), 72)}")
    lines += [f"  {shorten(line, 79)}" for line in further_models(candidate)]
    if core_summary(candidate):
        lines.append(f"  core:    {core_summary(candidate)}")
    if objective_summary(candidate):
        lines.append(f"  optimum: {objective_summary(candidate)}")
    reason = reason_text(candidate)
    if reason:
        lines.append(f"  reason:  {printable(' '.join(reason.split()))}")
    if candidate.kill:
        lines.append(f"  killed:  {printable(candidate.kill)}")
    if shows_output(candidate, alone=True):
        text, more = inline_output(candidate)
        body = text.splitlines() + ([f"… ({more} more lines)"] if more else [])
        lines += [f"  {'stdout:' if n == 0 else '':9}{line}" for n, line in enumerate(body)]
    if candidate.limits is not None:
        lines.append(f"  limits:  {limits_summary(candidate.limits)}")
    return "\n".join(lines)
