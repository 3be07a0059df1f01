"""Verdicts: what happened to a candidate, one name per kind of outcome (never two lumped together)."""

from __future__ import annotations

import enum
import json
from pathlib import Path
from typing import TypedDict


class Verdict(str, enum.Enum):
    """The outcome of one candidate.  ``CandidateResult.reason`` explains it (see ``VERDICT_DOCS``)."""

    SAT = "sat"
    UNSAT = "unsat"
    UNKNOWN = "unknown"
    TIMEOUT = "timeout"
    CPU_LIMIT = "cpu_limit"
    MEMORY_LIMIT = "memory_limit"
    OUTPUT_LIMIT = "output_limit"
    SYNTAX_ERROR = "syntax_error"
    RUNTIME_ERROR = "runtime_error"
    CRASHED = "crashed"
    BLOCKED = "blocked"
    NO_CHECK = "no_check"
    INVALID_MODEL = "invalid_model"
    CANCELLED = "cancelled"
    INTERNAL_ERROR = "internal_error"

    def __str__(self) -> str:
        return self.value

    @property
    def decisive(self) -> bool:
        """sat and unsat settle a question; everything else does not."""
        return self in (Verdict.SAT, Verdict.UNSAT)

    @property
    def failed(self) -> bool:
        """The script (or the sandbox) failed: the candidate has a structured ``error``.  Not
        for an answer (sat, unsat, unknown), a script that checked nothing, or a cancel."""
        return self not in (Verdict.SAT, Verdict.UNSAT, Verdict.UNKNOWN, Verdict.NO_CHECK,
                            Verdict.CANCELLED)


# Labels, descriptions and badge colours live in verdicts.json, shared with the labextension.
VERDICTS_JSON = Path(__file__).with_name("verdicts.json")


class BadgeColours(TypedDict):
    """A badge's colours in one theme."""

    background: str
    text: str


class _StyleRequired(TypedDict):
    label: str
    description: str
    light: BadgeColours
    dark: BadgeColours


class VerdictStyle(_StyleRequired, total=False):
    """One verdict's or live state's entry in verdicts.json (states have no group or reason)."""

    group: str
    reason: str


class StyleTable(TypedDict):
    """verdicts.json: its themes' page colours and the entries of the verdicts and live states."""

    schema: str
    version: int
    _about: str
    themes: dict[str, dict[str, str]]
    verdicts: dict[str, VerdictStyle]
    states: dict[str, VerdictStyle]


_TABLE: StyleTable = json.loads(VERDICTS_JSON.read_text())


def verdict_style(label: str) -> VerdictStyle:
    """The entry of a verdict or live state ("queued", "running", "tie", ...) in verdicts.json;
    unknown labels get the cancelled (grey) look."""
    return (_TABLE["verdicts"].get(label) or _TABLE["states"].get(label)
            or _TABLE["verdicts"]["cancelled"])


def style_table() -> StyleTable:
    """The whole of verdicts.json (themes, verdicts, states)."""
    return _TABLE


# When each verdict is produced, and what ``reason`` then holds: docs/verdicts.md's table.
VERDICT_DOCS: dict[Verdict, tuple[str, str]] = {
    verdict: (_TABLE["verdicts"][verdict.value]["description"], _TABLE["verdicts"][verdict.value]["reason"])
    for verdict in Verdict
}
