"""What ``run_candidates`` returns (agents/mcp_server.py): a run and its candidates as structured
content, compact for an agent's context and safe to put in its prompt.

Safe: every field a candidate can shape (output, reason, error, labels, model names and values,
objective terms, check models, core texts) is shown as the repair loop's feedback shows it,
through ``untrusted.shown``: control, bidi, zero-width, line-separator, DEL and C1 characters
escaped, no untrusted-output marker left whole.  The output schema marks those fields untrusted
(agents/mcp_schema.py); the text block is a trusted summary and one untrusted block
(agents/mcp_text.py).  What no verifier checked is said in words (``unchecked``).

Compact: a field that is null or empty is left out (the schema says what its absence means);
candidates whose outcomes are identical (verdict, model, error, output...) are one entry listing
their ``indexes`` and ``labels``: K seeds of one script that agree, or K labelled copies, cost one
entry, not K; a run of like checks (same line, answer and verification) is one entry with its
count, its model once when they all found the same, and at most ``CHECK_MODELS_SHOWN`` models; a
line of output repeated many times in a row is shown twice and counted (the record keeps it all).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from itertools import groupby
from typing import TYPE_CHECKING, Any

from ..host.claims import CLAIM, objective_claimed, unchecked
from ..protocol import encode_value
from ..protocol.candidate import Model
from . import untrusted
from .feedback import compact_repeats, says_more

if TYPE_CHECKING:
    from ..contracts.found import CheckResult
    from ..contracts.results import CandidateResult, RunResult

OUTPUT_CAP_CHARS = 4096  # of each of stdout and stderr in the tool's result: head and tail
TIMING_DIGITS = 3  # seconds to the millisecond: more is noise in a context window
CHECK_MODELS_SHOWN = 10  # the first models of a run of sat checks with different models
# Differ from one identical candidate to the next, so they are not part of what groups them.
_UNGROUPED = ("indexes", "labels", "wall_s", "cpu_s")


def capped(text: str, limit: int = OUTPUT_CAP_CHARS) -> str:
    """Head and tail of ``text`` (errors are at the end), the middle dropped with a note."""
    if len(text) <= limit:
        return text
    head, tail = limit // 4, limit - limit // 4
    return f"{text[:head]}\n… [{len(text) - head - tail} characters dropped] …\n{text[-tail:]}"


def shown_value(value: object) -> object:
    """An encoded model value with its strings shown safely (z3's text of a value can hold what a
    candidate chose: a string constant, a datatype's constructor name)."""
    if isinstance(value, str):
        return untrusted.shown(value)
    if isinstance(value, list):
        return [shown_value(item) for item in value]
    if isinstance(value, dict):
        return {untrusted.shown(key): shown_value(item) for key, item in value.items()}
    return value


def shown_text(text: str | None) -> str | None:
    return None if text is None else untrusted.shown(text)


def _b64(payload: bytes | None) -> str | None:
    return None if payload is None else base64.b64encode(payload).decode()


def _encoded(model: Model | None) -> dict[str, object] | None:
    """A model as it came (``encoded_model``: encoded once, in the child), shown safely."""
    return None if model is None else {untrusted.shown(name): shown_value(value)
                                       for name, value in model.items()}


def _present(fields: Mapping[str, object]) -> dict[str, object]:
    """``fields`` without the null and empty ones (false, 0 and 0.0 stay: they are values)."""
    return {key: value for key, value in fields.items() if value is not None and value not in ("", [], {})}


def check_runs(checks: Sequence[CheckResult]) -> list[dict[str, object]]:
    """Checks in order, each run of like ones (line, answer, verification) as one entry: its
    first check's number (1-based) and count; its model once when every check of the run found
    the same one, else its first ``CHECK_MODELS_SHOWN`` models and how many were left out."""
    runs: list[dict[str, object]] = []
    first = 1
    for (line, verdict, verified), group in groupby(checks, key=lambda c: (c.line, c.verdict, c.verified)):
        members = list(group)
        models = [(_encoded(check.found.encoded_model), _b64(check.payload))
                  for check in members if check.found is not None]
        distinct = {json.dumps(pair, sort_keys=True): pair for pair in models}
        entry: dict[str, object] = {"first": first, "count": len(members), "line": line, "verdict": verdict,
                                    "verified": verified}
        if len(distinct) == 1:
            ((model, payload),) = distinct.values()
            entry |= {"model": model, "payload_b64": payload}
        elif distinct:
            shown = models[:CHECK_MODELS_SHOWN]
            entry |= {"models": [model for model, _ in shown],
                      "payloads_b64": [payload for _, payload in shown] if any(p for _, p in shown) else None,
                      "models_left_out": len(models) - len(shown) or None}
        runs.append(_present(entry))
        first += len(members)
    return runs


def _objective(goal: Mapping[str, Any]) -> dict[str, object]:
    shown = {key: value for key, value in goal.items() if key != "term_smt2"}
    shown |= {"term": untrusted.shown(str(goal.get("term"))),
              "value": shown_value(encode_value(goal.get("value")))}
    if objective_claimed(goal):  # type: ignore[arg-type]
        shown["claim"] = CLAIM
    return shown


def candidate_output(candidate: CandidateResult, verify: bool = True) -> dict[str, object]:
    """One candidate as the tool shows it (before grouping: ``indexes`` holds its own index)."""
    error = candidate.error
    return _present({
        "indexes": [candidate.index],
        "labels": [untrusted.shown(candidate.label)] if candidate.label else None,
        "verdict": candidate.verdict.value if candidate.verdict else None,
        "reason": shown_text(candidate.reason), "kill": candidate.kill.value if candidate.kill else None,
        "model": _encoded(candidate.encoded_model), "payload_b64": _b64(candidate.payload),
        "verified": candidate.verified,
        "error": _present({"type": untrusted.shown(error["type"]), "line": error.get("line"),
                           "message": untrusted.shown(error["message"])}) if error else None,
        "confirmed_by": list(candidate.confirmed_by), "disputed": shown_text(candidate.disputed),
        "unchecked": [untrusted.shown(words) for words in unchecked(candidate, verify)],
        "unsat_core": [[line, untrusted.shown(text)] for line, text in candidate.unsat_core or ()],
        "objectives": [_objective(goal) for goal in candidate.objectives],
        "more_models": [_present({"model": _encoded(found.encoded_model), "payload_b64": _b64(found.payload),
                                  "verified": found.verified}) for found in candidate.more_models],
        "checks": check_runs(candidate.checks) if says_more(candidate) else None,
        "checks_made": candidate.checks_made if says_more(candidate) else None,
        "stdout": untrusted.shown(capped(compact_repeats(candidate.stdout))),
        "stderr": untrusted.shown(capped(compact_repeats(candidate.stderr))),
        "wall_s": round(candidate.wall_s, TIMING_DIGITS), "cpu_s": round(candidate.cpu_s, TIMING_DIGITS),
    })


def grouped(entries: list[dict[str, object]]) -> list[dict[str, object]]:
    """Entries whose outcome is the same, as one entry with every index and label, and the
    longest wall and CPU time of them; in the order of each group's first index."""
    groups: dict[str, dict[str, Any]] = {}
    for entry in entries:
        key = json.dumps({k: v for k, v in entry.items() if k not in _UNGROUPED}, sort_keys=True)
        group = groups.get(key)
        if group is None:
            groups[key] = dict(entry)
            continue
        group["indexes"] = group["indexes"] + entry["indexes"]
        if "labels" in entry or "labels" in group:
            group["labels"] = group.get("labels", []) + entry.get("labels", [])
        for timing in ("wall_s", "cpu_s"):
            if timing in entry:
                group[timing] = max(group.get(timing, 0.0), entry[timing])
    for group in groups.values():
        if len(set(group.get("labels", ()))) == 1:  # K seeds of one labelled script: the label once
            group["labels"] = group["labels"][:1]
    return list(groups.values())


def run_output(result: RunResult, record: str | None, verify: bool = True) -> dict[str, object]:
    return _present({
        "run_id": result.run_id, "verdict": result.verdict.value,
        "vote": result.vote if result.vote != result.verdict.value else None,
        "counts": result.counts,
        "tie": result.tie, "elapsed_s": round(result.elapsed_s, TIMING_DIGITS),
        "notes": list(result.notes), "record": record,
        "candidates": grouped([candidate_output(c, verify) for c in sorted(result, key=lambda c: c.index)]),
    })
