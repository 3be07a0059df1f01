"""What a verifier did not check of a candidate's answer, in words, for every face that shows a
result to an agent or an eval (MCP output, feedback, records): an answer no checker confirmed
("unconfirmed: why") and an objective value that is the candidate's claim (``checked`` false).

A shown field is either the verifier's or said to be the candidate's: nothing the candidate
claims stands beside "confirmed" unmarked (issue 37, point 6).
"""

from __future__ import annotations

import re

from ..contracts.results import CandidateResult
from ..protocol import Objective
from ..protocol.verdicts import Verdict

_NOT_CONFIRMED = re.compile(r"not confirmed: ([^;]*)")
NOT_VERIFIED = "the run did not verify answers (verify=False)"
CLAIM = "the candidate's claim, not checked by a verifier"


def unconfirmed_why(candidate: CandidateResult, verify: bool = True) -> str | None:
    """Why a sat or unsat answer stands unconfirmed (no checker confirmed it, none contradicts
    it), or None: confirmed, disputed (said apart), or not an answer."""
    if candidate.verdict not in (Verdict.SAT, Verdict.UNSAT) or candidate.confirmed_by or candidate.disputed:
        return None
    if not verify:
        return NOT_VERIFIED
    said = _NOT_CONFIRMED.search(candidate.reason or "")
    if said:
        return said.group(1).strip()
    if candidate.verdict is Verdict.SAT and candidate.verified is None:
        return "its model was not checked"
    return "no checker confirmed it"


def objective_claimed(goal: Objective) -> bool:
    """The objective's value is the candidate's claim (the verifier did not evaluate its term).
    Absent ``checked`` (records older than the field): checked when ``optimal`` was decided."""
    checked = goal.get("checked")
    if checked is None:
        return goal.get("optimal") is None
    return not checked


def unchecked(candidate: CandidateResult, verify: bool = True) -> list[str]:
    """Each thing shown of ``candidate`` that no verifier checked, in words."""
    words = []
    why = unconfirmed_why(candidate, verify)
    if why:
        words.append(f"unconfirmed: {why}")
    for goal in candidate.objectives:
        if objective_claimed(goal):
            words.append(f"{goal.get('direction')} {goal.get('term')} = {goal.get('value')}: {CLAIM}")
    return words
