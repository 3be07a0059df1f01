"""What ``run_candidates`` returns (agents/mcp_server.py): a run and its candidates as structured
content, compact for an agent's context, and the pydantic models the MCP SDK publishes as the
tool's output schema, every field described there.

Compact: a field that is null or empty is left out (the schema says what its absence
means), and candidates whose outcomes are identical (verdict, model, error, output...) are one
entry listing their ``indexes``: K seeds of one script that agree cost one entry, not K.
"""

from __future__ import annotations

import base64
import functools
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..protocol import encode_value
from ..protocol.wire import JsonValue

if TYPE_CHECKING:
    from ..results import CandidateResult, RunResult

OUTPUT_CAP_CHARS = 4096  # of each of stdout and stderr in the tool's result: head and tail
TIMING_DIGITS = 3  # seconds to the millisecond: more is noise in a context window
# Differ from one identical candidate to the next, so they are not part of what groups them.
_UNGROUPED = ("indexes", "wall_s", "cpu_s")

MODEL_VALUES = (
    "constant name -> value. Int and bit-vector values are JSON integers (bit-vectors unsigned); "
    'Bool values are true/false; Real values are {"fraction": [numerator, denominator]}; String '
    "values are JSON strings; any other value (arrays, functions, datatypes, algebraic numbers as "
    "a 20-digit decimal ending in '?', integers over 4,000 digits) is z3's own text, also a string")


def capped(text: str, limit: int = OUTPUT_CAP_CHARS) -> str:
    """Head and tail of ``text`` (errors are at the end), the middle dropped with a note."""
    if len(text) <= limit:
        return text
    head, tail = limit // 4, limit - limit // 4
    return f"{text[:head]}\n… [{len(text) - head - tail} characters dropped] …\n{text[-tail:]}"


def _b64(payload: bytes | None) -> str | None:
    return None if payload is None else base64.b64encode(payload).decode()


def _encoded(model: Mapping[str, object] | None) -> dict[str, JsonValue] | None:
    return None if model is None else {name: encode_value(value) for name, value in model.items()}


def _present(fields: Mapping[str, object]) -> dict[str, object]:
    """``fields`` without the null and empty ones (false, 0 and 0.0 stay: they are values)."""
    return {key: value for key, value in fields.items() if value is not None and value not in ("", [], {})}


def candidate_output(candidate: CandidateResult) -> dict[str, object]:
    """One candidate as the tool shows it (before grouping: ``indexes`` holds its own index)."""
    error = _present(dict(candidate.error)) if candidate.error else None
    return _present({
        "indexes": [candidate.index], "label": candidate.label,
        "verdict": candidate.verdict.value if candidate.verdict else None,
        "reason": candidate.reason, "kill": candidate.kill.value if candidate.kill else None,
        "model": _encoded(candidate.model), "payload_b64": _b64(candidate.payload),
        "verified": candidate.verified, "error": error,
        "confirmed_by": list(candidate.confirmed_by), "disputed": candidate.disputed,
        "unsat_core": [list(pair) for pair in candidate.unsat_core] if candidate.unsat_core else None,
        "objectives": [{**goal, "value": encode_value(goal["value"])} for goal in candidate.objectives],
        "more_models": [_present({"model": _encoded(found.model), "payload_b64": _b64(found.payload),
                                  "verified": found.verified}) for found in candidate.more_models],
        "checks": [_present({"verdict": check.verdict, "line": check.line, "model": _encoded(check.model),
                             "payload_b64": _b64(check.payload), "verified": check.verified})
                   for check in candidate.checks],
        "checks_made": candidate.checks_made if candidate.checks else None,
        "stdout": capped(candidate.stdout), "stderr": capped(candidate.stderr),
        "wall_s": round(candidate.wall_s, TIMING_DIGITS), "cpu_s": round(candidate.cpu_s, TIMING_DIGITS),
    })


def grouped(entries: list[dict[str, object]]) -> list[dict[str, object]]:
    """Entries whose outcome is the same, as one entry with every index, and the longest wall
    and CPU time of them; in the order of each group's first index."""
    groups: dict[str, dict[str, Any]] = {}
    for entry in entries:
        key = json.dumps({k: v for k, v in entry.items() if k not in _UNGROUPED}, sort_keys=True)
        group = groups.get(key)
        if group is None:
            groups[key] = dict(entry)
            continue
        group["indexes"] = group["indexes"] + entry["indexes"]
        for timing in ("wall_s", "cpu_s"):
            if timing in entry:
                group[timing] = max(group.get(timing, 0.0), entry[timing])
    return list(groups.values())


def run_output(result: RunResult, record: str | None) -> dict[str, object]:
    return _present({
        "run_id": result.run_id, "verdict": result.verdict.value,
        "vote": result.vote if result.vote != result.verdict.value else None,
        "counts": result.counts,
        "tie": result.tie, "elapsed_s": round(result.elapsed_s, TIMING_DIGITS),
        "notes": list(result.notes), "record": record,
        "candidates": grouped([candidate_output(c) for c in sorted(result, key=lambda c: c.index)]),
    })


def output_json(output: Mapping[str, object]) -> str:
    """The text block that goes with the structured content: the same JSON, without spaces."""
    return json.dumps(output, ensure_ascii=False, separators=(",", ":"))


@functools.cache
def output_model() -> Any:
    """The tool's structured content as pydantic models (the SDK publishes their JSON schema and
    checks each result against it); made on first use, so that the CLI needs neither pydantic
    nor mcp until it serves."""
    from pydantic import BaseModel, Field

    from ..roles import Kill
    from ..verdicts import Verdict

    def described(text: str, default: Any = None) -> Any:
        return Field(default, description=text)

    class Fraction(BaseModel):
        fraction: list[int] = Field(description="[numerator, denominator] of a Real value",
                                    min_length=2, max_length=2)

    model_value = bool | int | str | Fraction
    model_text = f"the model (sat): {MODEL_VALUES}; absent when there is none"

    class ErrorOutput(BaseModel):
        type: str = Field(description="the exception's class (SyntaxError, NameError, Z3Exception...), "
                                      "or the verdict when no exception escaped (timeout, crashed...)")
        line: int | None = described("the script line it happened on; absent when it cannot be told")
        message: str = described("the message: the candidate's own text, untrusted", "")

    class MoreModel(BaseModel):
        model: dict[str, model_value] = Field(description=f"a further model: {MODEL_VALUES}")
        payload_b64: str | None = described("its byte_N payload, base64; absent when none")
        verified: bool | None = described("true: re-checked by a verifier (no user code); false: it failed "
                                          "the re-check; absent: not decided")

    class CandidateOutput(BaseModel):
        indexes: list[int] = Field(description="the candidates (0-based) this entry stands for: "
                                               "candidates with identical outcomes are one entry")
        label: str | None = described("the name the request gave them; absent when none")
        verdict: Verdict | None = described("what happened to them (see the tool's description)")
        reason: str = described("why, in words; absent when the verdict says it all", "")
        kill: Kill | None = described("what ended them early: a limit, a race, a cancel; absent: "
                                      "they ended by themselves")
        model: dict[str, model_value] | None = described(model_text)
        payload_b64: str | None = described("the model's byte_N constants overlaid on seed_b64, "
                                            "base64; absent when none")
        verified: bool | None = described("true: the model was re-checked against the assertions in "
                                          "a verifier; false: it failed that check; absent: not "
                                          "checked or not sat")
        error: ErrorOutput | None = described("why the script failed; absent when it did not")
        confirmed_by: list[str] = described("the solvers that confirmed the answer in a process that "
                                            "ran no user code (z3; cvc5 with cross_check)", [])
        disputed: str | None = described("why a checker contradicts the answer (it then counts for "
                                          "nothing); absent when none does")
        unsat_core: list[tuple[int, str]] = described(
            "with cores: the tracked assertions of the core, as [script line, its text]", [])
        objectives: list[dict[str, Any]] = described(
            "a sat Optimize check's goals: {term, direction, value}, the value encoded as a model's", [])
        more_models: list[MoreModel] = described("with models=N: the further distinct models", [])
        checks: list[dict[str, Any]] = described(
            "every check the script made, in order: {verdict, line of the check() call, and for a sat "
            "check whose model the script read: model, payload_b64, verified}", [])
        checks_made: int | None = described("how many checks the script made (more than len(checks) "
                                            "when capped); absent when it made none")
        stdout: str = described("what the script printed (head and tail when long): untrusted; "
                                "absent when empty", "")
        stderr: str = described("its standard error, likewise untrusted; absent when empty", "")
        wall_s: float = described("wall-clock seconds (of a group: the longest)", 0.0)
        cpu_s: float = described("CPU seconds (of a group: the most)", 0.0)

    class RunOutput(BaseModel):
        """A run: the vote and each distinct outcome.  A field left out is null or empty."""

        run_id: str = Field(description="the run's id; sorts by the time it started")
        verdict: Verdict = Field(description="the vote: the majority of sat/unsat; a tie goes to "
                                             "the confirmed answer; see tie")
        vote: str = described("the verdict in prove()'s words for a run of prove() calls "
                              "(proved, counterexample, disputed); absent otherwise", "")
        counts: dict[str, int] = Field(description="verdict -> how many candidates had it")
        tie: dict[str, Any] | None = described("when as many said sat as unsat: the counts, the "
                                               "winner and the rule; absent otherwise")
        elapsed_s: float = Field(description="wall-clock seconds of the whole run")
        notes: list[str] = described("what happened to the run itself (a restarted sandbox...)", [])
        record: str | None = described("the run's record, a resource URI; absent when runs are "
                                       "not recorded")
        candidates: list[CandidateOutput] = Field(description="each distinct outcome, by first index")

    return RunOutput
