"""What a row shows without a click, beyond its verdict: shared by the text, HTML and JSON forms.

A prove() call's "proved" / "counterexample", a sat candidate with no payload as a warning, the
unsat core (tracked lines or an SMT-LIB ``(get-unsat-core)`` answer), an Optimize check's objectives
and their values, a row's stdout inline (the
run's only candidate, or a failed one), and model names in natural order.  Display only: nothing
here changes a verdict or the vote.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..contracts.vote import DISPUTED, prove_word
from .printable import printable, printable_lines

if TYPE_CHECKING:
    from ..contracts.found import ModelResult
    from ..contracts.results import CandidateResult


def state_label(candidate: CandidateResult) -> str:
    """The verdict once a candidate is done, else its state ("queued", "running")."""
    if candidate.verdict is not None:
        return candidate.verdict.value
    return str(getattr(candidate, "state", "queued"))


# What a finished candidate's verdict is shown as, where its own output says more than the verdict:
# Z3's prove() prints "proved" (its solver said unsat) or "counterexample" (sat); a sat candidate
# whose payload could not be built is a warning, not a plain green sat.
NO_PAYLOAD = "sat · no payload"
# The style (verdicts.json key) of each shown label that is not a verdict or state itself.
SHOWN_STYLES = {"proved": "unsat", "counterexample": "sat", NO_PAYLOAD: "no_payload",
                DISPUTED: "invalid_model"}
# A row shows its stdout inline when it is the run's only candidate, or when it failed.
_QUIET_VERDICTS = ("sat", "unsat", "cancelled")
INLINE_LINES = 12
# Where a stream's middle was dropped at the output limit: every view says it so.
STREAM_CUT = "… ({stream} was cut at the output limit)"
# An SMT-LIB (get-unsat-core) answer: a parenthesised list of names, after an "unsat" line.
_SMT2_CORE = re.compile(r"^\((?:[^()\s\",]+(?: [^()\s\",]+)*)?\)$")


def shown_verdict(candidate: CandidateResult) -> str:
    """The verdict as the table shows it: ``proved`` / ``counterexample`` for a prove() call,
    ``disputed`` for an answer a checker contradicts, ``sat · no payload`` for a payload error,
    else the verdict (or live state)."""
    label = state_label(candidate)
    if candidate.verdict is None:
        return label
    if candidate.disputed and candidate.verdict.decisive:
        return DISPUTED
    if label == "sat" and candidate.payload_error:
        return NO_PAYLOAD
    return prove_word(candidate) or label


def shown_style(label: str) -> str:
    """The verdicts.json entry that colours a shown label."""
    return SHOWN_STYLES.get(label, label)


def _stdout_lines(candidate: CandidateResult) -> list[str]:
    return [line.strip() for line in (candidate.stdout or "").splitlines()]


def smt2_core_answer(candidate: CandidateResult) -> str | None:
    """The answer to SMT-LIB's ``(get-unsat-core)`` in stdout (``(a1 a3)``), for an unsat one."""
    if state_label(candidate) != "unsat" or candidate.unsat_core:
        return None
    lines = _stdout_lines(candidate)
    for before, line in itertools.pairwise(lines):
        if before == "unsat" and _SMT2_CORE.match(line):
            return printable(line)
    return None


def line_place(candidate: CandidateResult, line: int) -> str:
    """Where line ``line`` of a candidate's script is, by the one rule of every view: the cell's
    line ("line 12"), plus the candidate's own ("line 12 [candidate line 3]") only when its cell
    held several candidates; outside a cell, the script's line."""
    if candidate.cell_line is None:
        return f"line {line}"
    place = f"line {line + candidate.cell_line - 1}"
    return f"{place} [candidate line {line}]" if candidate.cell_candidates > 1 else place


def core_places(candidate: CandidateResult) -> list[str]:
    """Each unsat core entry's place (``line_place``), in order."""
    return [line_place(candidate, int(line)) for line, _ in candidate.unsat_core or ()]


def core_text(candidate: CandidateResult) -> str:
    """``line 3: s.add(x > 2); line 4: ...``: an unsat core as the script's lines (``line_place``)."""
    entries = zip(core_places(candidate), candidate.unsat_core or (), strict=True)
    return "; ".join(f"{place}: {printable(text)}" for place, (_, text) in entries)


def core_summary(candidate: CandidateResult) -> str:
    """The unsat core in one cell: the script's lines, or the SMT-LIB answer, or ''."""
    if candidate.unsat_core:
        return core_text(candidate)
    return smt2_core_answer(candidate) or ""


# An objective value the verifier did not evaluate in the checked model, in words.
CLAIMED = "the candidate's claim, not checked"


_VERIFIED = {True: "model verified", False: "model failed verification"}


def confirmation(candidate: CandidateResult) -> list[str] | None:
    """Who stands behind the answer, in a row's detail: ``["confirmed", "by z3 (model
    verified)"]`` (the solvers that confirmed it, unless a checker disputes it), else whether its
    model was verified (``["verified", "model failed verification"]``), else None."""
    model = "" if candidate.verified is None else _VERIFIED[candidate.verified]
    if candidate.confirmed_by and not candidate.disputed:
        by = printable(", ".join(candidate.confirmed_by))
        return ["confirmed", f"by {by}{f' ({model})' if model else ''}"]
    return ["verified", model] if model else None


def objective_checked(goal: Mapping[str, Any]) -> bool:
    """Whether an objective's value is the verifier's evaluation in the checked model: its
    ``checked`` word, or, in a document older than that word, a decided ``optimal``."""
    checked = goal.get("checked")
    return checked is True if checked is not None else goal.get("optimal") is not None


def objective_summary(candidate: CandidateResult) -> str:
    """A sat Optimize check's objectives in one cell: ``maximize x + y = 13 (optimal); soft g =
    2``; a value nobody checked says so: ``maximize x = 10**9 (the candidate's claim, not
    checked)``."""
    parts = []
    for goal in candidate.objectives or ():
        direction = goal.get("direction") or "objective"
        term = printable(str(goal.get("term", "")))
        name = f"{direction} {term}" if term else direction
        if not objective_checked(goal):
            word = f" ({CLAIMED})"
        else:
            word = {True: " (optimal)", False: " (not optimal)"}.get(goal.get("optimal"), "")  # type: ignore[arg-type]
        parts.append(f"{name} = {printable(str(goal.get('value')))}{word}")
    return "; ".join(parts)


def model_count(candidate: CandidateResult) -> int:
    """How many models a candidate has: its own, the further ones (``models=N``) and those its
    script read at its checks (``check_models``)."""
    return (1 if candidate.model is not None or candidate.payload is not None else 0) + len(
        candidate.more_models or ()) + len(check_models(candidate))


def check_models(candidate: CandidateResult) -> list[tuple[int, Any]]:
    """(check number, ``CheckResult``) of each model a script that checked more than once read at
    its checks, except the one that is the candidate's own model."""
    if (candidate.checks_made or 0) <= 1:
        return []
    return [(number, check) for number, check in enumerate(candidate.checks or (), start=1)
            if check.found is not None and (check.model != candidate.model or candidate.model is None)]


def _found_text(found: ModelResult | None) -> str:
    if found is None:  # never: check_models keeps the checks with a model
        return ""
    if found.payload is not None:
        return str(found.payload.hex(" "))
    pairs = sorted(found.model.items(), key=lambda item: natural_key(str(item[0])))
    return ", ".join(f"{name}={value}" for name, value in pairs)


_CHECKED = {False: " (failed verification)", None: " (not verified)"}


def _not_the_optimum(candidate: CandidateResult, found: ModelResult) -> str:
    """A further model of an Optimize check satisfies its hard assertions only: it says so, with
    each objective's value in it where the objective is one of its names."""
    if not candidate.objectives:
        return ""
    values = [f"{goal.get('direction') or 'objective'} {goal['term']} = {found.model[goal['term']]}"
              for goal in candidate.objectives if str(goal.get("term")) in found.model]
    return f" ({printable('; '.join([*values, 'need not be optimal']))})"


def further_models(candidate: CandidateResult) -> list[str]:
    """Each further model (``models=N``) in one line: ``model 2: 41 42`` (its payload in hex),
    else its ``name=value`` pairs in natural order; then each model the script read at its checks:
    ``check 2 (line 5): x=2``.  One that failed verification says so."""
    lines = [f"model {number}: {printable(_found_text(found))}{_CHECKED.get(found.verified, '')}"
             f"{_not_the_optimum(candidate, found)}"
             for number, found in enumerate(candidate.more_models or (), start=2)]
    for number, check in check_models(candidate):
        line = f" ({line_place(candidate, check.line)})" if check.line is not None else ""
        lines.append(f"check {number}{line}: {printable(_found_text(check.found))}"
                     f"{_CHECKED.get(check.verified, '')}")
    return lines


def shows_output(candidate: CandidateResult, alone: bool) -> bool:
    """Whether its row shows stdout inline: the only candidate of its run, or a failed one."""
    if not (candidate.stdout or candidate.stdout_truncated) or candidate.verdict is None:
        return False
    return alone or candidate.verdict.value not in _QUIET_VERDICTS


def inline_output(candidate: CandidateResult, lines: int = INLINE_LINES) -> tuple[str, int]:
    """Its stdout's first ``lines`` lines (control characters escaped), and how many more.  Lines
    end at "\n" only: any other line break (CR, VT, FF, U+2028...) is shown escaped, so that what
    a candidate printed never draws a row of the table."""
    text = (candidate.stdout or "").rstrip("\n")
    all_lines = [line.removesuffix("\r") for line in text.split("\n")] if text else []
    shown = printable_lines("\n".join(all_lines[:lines]))
    more = len(all_lines) - lines if len(all_lines) > lines else 0
    if candidate.stdout_truncated:
        shown += "\n" + STREAM_CUT.format(stream="stdout")
    return shown, more


@functools.lru_cache(maxsize=4096)  # a run's models mostly name the same few variables
def natural_key(name: str) -> tuple[Any, ...]:
    """Sorts ``byte_2`` before ``byte_10``: digits compare as numbers."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name))


def model_items(candidate: CandidateResult) -> list[tuple[str, Any]]:
    """The model's ``(name, value)`` pairs in natural order."""
    return sorted((candidate.model or {}).items(), key=lambda item: natural_key(str(item[0])))
