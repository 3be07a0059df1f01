"""A row's reason, as every view says it (text, HTML, the labextension through the run document).

* Who stands behind an answer: "confirmed by z3; ...", or "unconfirmed: why" for a sat or unsat
  nobody confirmed (its badge looks different too: ``unconfirmed_why``).
* Said once: a clause every answer of a finished run shares ("the script never called check():
  the sandbox checked its assertions") goes to the caption, and each row keeps the rest
  ("confirmed by z3"): ``said_once``, ``row_reason``.
* Fitted to the room, never cut in its message: a row shows the reason's first line (a traceback
  under it is one click away); when that line is too long its quoted source line ("(line 3:
  `...`)") is cut first, then dropped, and the message and a limit's value are never cut
  (``fit_reason``); the text table wraps what is left (``wrap_reason``).
"""

from __future__ import annotations

import functools
import re
import textwrap
from typing import TYPE_CHECKING

from ..contracts.vote import confirmed
from ..protocol.verdicts import Verdict
from .printable import printable

if TYPE_CHECKING:
    from collections.abc import Collection, Sequence

    from ..contracts.results import CandidateResult

# A verifier's words on an answer it could not confirm (child/confirm.py, zygote/jobs.py).
_NOT_CONFIRMED = ("not confirmed: ", "not confirmed (")
# When a decisive answer's reason says nothing of why nobody confirmed it.
NOT_CHECKED = "no checker confirmed it"
# Where an error is and the source line there: " (line 12 [candidate line 2], column 4: `src`)".
_EXCERPT = re.compile(r"(?P<place> \(line \d+(?: \[candidate line \d+\])?(?:, column \d+)?): "
                      r"`(?P<source>.*)`(?=\))")
# A cut source line keeps at least this many characters, or goes (its place stays).
_EXCERPT_MIN = 12
# The text table wraps a long reason over at most this many lines (the whole is NAME[i].reason).
WRAP_LINES = 8
SEPARATOR = "; "


def unconfirmed_why(candidate: CandidateResult) -> str | None:
    """Why nobody confirmed a sat or unsat answer (not disputed, no solver confirmed it), else
    None: the verifier's "not confirmed: ..." words, or ``NOT_CHECKED``."""
    if candidate.verdict not in (Verdict.SAT, Verdict.UNSAT) or candidate.disputed or confirmed(candidate):
        return None
    notes = [clause for clause in candidate.reason.split(SEPARATOR) if clause.startswith(_NOT_CONFIRMED)]
    why = SEPARATOR.join(note.removeprefix("not confirmed: ") for note in notes)
    return why or NOT_CHECKED


def reason_text(candidate: CandidateResult) -> str:
    """The whole reason: who confirmed the answer ("confirmed by z3; ...") or "unconfirmed: why",
    then the candidate's reason, then its payload error."""
    reason = candidate.reason
    if candidate.payload_error:
        reason = f"{reason} (payload: {candidate.payload_error})".strip()
    if candidate.confirmed_by and not candidate.disputed:
        return SEPARATOR.join(filter(None, (f"confirmed by {', '.join(candidate.confirmed_by)}", reason)))
    why = unconfirmed_why(candidate)
    if why is None:
        return reason
    rest = [clause for clause in reason.split(SEPARATOR) if clause and not clause.startswith(_NOT_CONFIRMED)]
    return SEPARATOR.join([f"unconfirmed: {why}", *rest])


def said_once(candidates: Sequence[CandidateResult]) -> list[str]:
    """The clauses every answer (sat, unsat) of a finished run shares, two answers at least, that
    none of them says alone: the caption says each once, the rows the rest."""
    if any(c.verdict is None for c in candidates):
        return []  # a live table: its rows are not all there yet
    answers = [reason_text(c).split(SEPARATOR) for c in candidates
               if c.verdict in (Verdict.SAT, Verdict.UNSAT)]
    if len(answers) < 2:
        return []
    shared = set(answers[0][1:]).intersection(*(clauses[1:] for clauses in answers[1:]))
    return [clause for clause in answers[0] if clause in shared]


def said_once_caption(candidates: Sequence[CandidateResult]) -> str:
    """``all 8 answers: the script never called check(): ...``, or ''."""
    shared = said_once(candidates)
    if not shared:
        return ""
    answers = sum(1 for c in candidates if c.verdict in (Verdict.SAT, Verdict.UNSAT))
    return printable(f"all {answers} answers: {SEPARATOR.join(shared)}")


def row_reason(candidate: CandidateResult, shared: Collection[str] = ()) -> str:
    """The reason as its row says it: ``reason_text`` without the clauses the caption says."""
    text = reason_text(candidate)
    if not shared or candidate.verdict not in (Verdict.SAT, Verdict.UNSAT):
        return text
    return SEPARATOR.join(clause for clause in text.split(SEPARATOR) if clause not in shared)


def headline(text: str) -> str:
    """A reason's first line, its white space folded, shown by the printable rule."""
    first = text.strip().split("\n", 1)[0]
    return printable(" ".join(first.split()))


# The reasons of a run's rows are mostly the same few (K seeds of one script): a row's reason is
# fitted and wrapped once per distinct text, not once per row and view.
REASONS_KEPT = 1024


@functools.lru_cache(maxsize=REASONS_KEPT)
def fit_reason(text: str, width: int) -> str:
    """The reason's first line in ``width`` characters if it can be: its quoted source line cut,
    or dropped (its place kept); never its message, whatever ``width`` says."""
    line = headline(text)
    excerpt = _EXCERPT.search(line)
    if len(line) <= width or excerpt is None:
        return line
    source = excerpt.group("source")
    keep = len(source) - (len(line) - width) - 1
    if keep >= _EXCERPT_MIN:
        return f"{line[:excerpt.start('source')]}{source[:keep]}…{line[excerpt.end('source'):]}"
    return f"{line[:excerpt.start()]}{excerpt.group('place')}{line[excerpt.end('source') + 1:]}"


def wrap_reason(text: str, width: int) -> list[str]:
    """``fit_reason``, then wrapped at words in lines of ``width`` (``WRAP_LINES`` at most)."""
    return list(_wrapped(text, width))


@functools.lru_cache(maxsize=REASONS_KEPT)
def _wrapped(text: str, width: int) -> tuple[str, ...]:
    fitted = fit_reason(text, width)
    if len(fitted) <= max(width, 20):  # one line (its white space already folded): as textwrap says
        return (fitted,)
    lines = textwrap.wrap(fitted, max(width, 20), break_on_hyphens=False) or [""]
    if len(lines) > WRAP_LINES:
        lines = lines[:WRAP_LINES]
        lines[-1] = lines[-1][:max(width, 20) - 1] + "…"
    return tuple(lines)


def is_cut(shown: str, text: str) -> bool:
    """Whether a row's ``shown`` reason leaves out part of the whole ``text``."""
    return shown != printable(" ".join(text.split()))
