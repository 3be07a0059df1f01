"""What a verifier confirmed of a candidate's answer, into the result (child/confirm.py checks).

``confirmed_by`` names the solvers that confirmed the decisive answer in a process that ran no user
code; ``disputed`` says why a checker contradicts it (the vote then ignores it: results.py); what
was not confirmed (out of budget, not cross-checked: ...) is said in the reason.  A shown objective
value is the checked model's value of its term, and ``optimal`` the verifier's word.
"""

from __future__ import annotations

from typing import Protocol, TypedDict

from ..protocol import (
    SHOWN_CORE_TEXT_CHARS,
    CheckedObjective,
    ChildReport,
    Objective,
    VerifyReport,
    ZygoteResult,
)
from ..protocol.verdicts import Verdict

SOLVERS = ("z3", "cvc5")
NOTE_CHARS = 500


class Confirmation(TypedDict, total=False):
    """A verifier's words on the answer, bounded (``confirm_report``)."""

    confirmed_by: list[str]
    disputed: str
    unconfirmed: str
    objectives: list[CheckedObjective]


class Observed(Protocol):
    """What this module reads and keeps of a candidate's observation (classify.Observation is one),
    so that it and classify.py do not import each other."""

    report: ChildReport | None
    verify_requested: bool
    verified: bool | None
    confirmation: Confirmation


def confirm_report(obs: Observed, report: VerifyReport) -> None:
    """Keep a verifier's words on the answer (its report is checked by frames.py, bounded here)."""
    confirmed = report.get("confirmed_by") or []
    obs.confirmation = {
        "confirmed_by": [name for name in SOLVERS if name in confirmed],
        "disputed": _note(report.get("disputed")),
        "unconfirmed": _note(report.get("unconfirmed")),
        "objectives": list(report.get("checked_objectives") or []),
    }


def _note(text: object) -> str:
    return str(text)[:NOTE_CHARS] if text else ""


def add_confirmation(result: ZygoteResult, obs: Observed, verdict: Verdict) -> None:
    """``confirmed_by``, ``disputed``, the reason's note and the checked objectives of a sat or
    unsat result."""
    if verdict not in (Verdict.SAT, Verdict.UNSAT):
        return
    seen = obs.confirmation
    confirmed = list(seen.get("confirmed_by") or [])
    if verdict is Verdict.SAT and obs.verified is not True:
        confirmed = []  # a model the verifier did not check confirms nothing
    result["confirmed_by"] = confirmed
    result["disputed"] = seen.get("disputed") or None
    unconfirmed = seen.get("unconfirmed") if verdict is Verdict.UNSAT or obs.verified else ""
    why = obs.report.get("unconfirmable") if obs.report is not None else None
    if not confirmed and not unconfirmed and why and obs.verify_requested:
        # The child did not give the checker its assertions, and says why (its own word: it can
        # only leave its answer unconfirmed).
        unconfirmed = f"not confirmed: {_note(why)}"
    notes = [text for text in (result["reason"], seen.get("disputed"), unconfirmed) if text]
    if notes:
        result["reason"] = "; ".join(notes)
    if verdict is Verdict.SAT and result.get("objectives") and confirmed:
        result["objectives"] = _checked_objectives(result, seen.get("objectives") or [])


def _checked_objectives(result: ZygoteResult, checked: list[CheckedObjective]) -> list[Objective]:
    """Each shown objective with the checked model's value and ``optimal``; one whose reported
    value differs says so in the reason (what is shown is what was checked)."""
    shown: list[Objective] = []
    differs: list[str] = []
    for index, goal in enumerate(result.get("objectives") or []):
        word = checked[index] if index < len(checked) else None
        kept = goal.copy()
        if word is not None:
            value = word["value"]
            if isinstance(value, str):
                value = value[:SHOWN_CORE_TEXT_CHARS]
            if value != goal["value"]:
                differs.append(f"{goal['term']} = {goal['value']}")
            kept["value"] = value
        kept["optimal"] = word["optimal"] if word is not None else None
        kept["checked"] = word is not None and word.get("checked") is True
        shown.append(kept)
    if differs:
        note = ("the reported objective values are not the model's (shown: the model's): "
                + "; ".join(differs))
        result["reason"] = "; ".join(filter(None, (result["reason"], note[:NOTE_CHARS])))
    return shown
