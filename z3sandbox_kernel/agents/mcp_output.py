"""What ``run_candidates`` returns (agents/mcp_server.py): a run and its candidates as structured
content, with each candidate's stdout and stderr capped, and the pydantic model the MCP SDK
publishes as the tool's output schema."""

from __future__ import annotations

import base64
import functools
from typing import TYPE_CHECKING, Any

from ..protocol import encode_value

if TYPE_CHECKING:
    from ..results import CandidateResult, RunResult

OUTPUT_CAP_CHARS = 4096  # of each of stdout and stderr in the tool's result: head and tail


def capped(text: str, limit: int = OUTPUT_CAP_CHARS) -> str:
    """Head and tail of ``text`` (errors are at the end), the middle dropped with a note."""
    if len(text) <= limit:
        return text
    head, tail = limit // 4, limit - limit // 4
    return f"{text[:head]}\n… [{len(text) - head - tail} characters dropped] …\n{text[-tail:]}"


def candidate_output(candidate: CandidateResult) -> dict[str, Any]:
    model = candidate.model
    return {
        "index": candidate.index, "label": candidate.label,
        "verdict": candidate.verdict.value if candidate.verdict else None,
        "reason": candidate.reason, "kill": candidate.kill,
        "model": None if model is None else {name: encode_value(value) for name, value in model.items()},
        "payload_b64": None if candidate.payload is None else base64.b64encode(candidate.payload).decode(),
        "verified": candidate.verified, "error": candidate.error,
        "unsat_core": [list(pair) for pair in candidate.unsat_core] if candidate.unsat_core else None,
        "objectives": [{**goal, "value": encode_value(goal["value"])} for goal in candidate.objectives],
        "more_models": [{"model": {name: encode_value(value) for name, value in found.model.items()},
                         "payload_b64": None if found.payload is None
                         else base64.b64encode(found.payload).decode(),
                         "verified": found.verified} for found in candidate.more_models],
        "checks": [{"verdict": check.verdict, "line": check.line,
                    "model": None if check.model is None
                    else {name: encode_value(value) for name, value in check.model.items()},
                    "payload_b64": None if check.payload is None
                    else base64.b64encode(check.payload).decode(),
                    "verified": check.verified} for check in candidate.checks],
        "checks_made": candidate.checks_made,
        "stdout": capped(candidate.stdout), "stderr": capped(candidate.stderr),
        "wall_s": candidate.wall_s, "cpu_s": candidate.cpu_s,
    }


def run_output(result: RunResult, record: str | None) -> dict[str, Any]:
    return {
        "run_id": result.run_id, "verdict": result.verdict.value, "counts": result.counts,
        "tie": result.tie, "elapsed_s": round(result.elapsed_s, 4), "notes": list(result.notes),
        "record": record, "candidates": [candidate_output(c) for c in result.candidates],
    }


@functools.cache
def output_model() -> Any:
    """The tool's structured content as pydantic models (the SDK publishes their JSON schema);
    made on first use, so that the CLI needs neither pydantic nor mcp until it serves."""
    from pydantic import BaseModel

    class ErrorOutput(BaseModel):
        type: str
        line: int | None
        message: str

    class CandidateOutput(BaseModel):
        index: int
        label: str | None
        verdict: str | None
        reason: str
        kill: str | None
        model: dict[str, Any] | None
        payload_b64: str | None
        verified: bool | None
        error: ErrorOutput | None
        unsat_core: list[list[Any]] | None
        objectives: list[dict[str, Any]] = []  # a sat Optimize check's {term, direction, value}
        more_models: list[dict[str, Any]] = []  # models=N: {model, payload_b64, verified} each
        # every check the script made, in order: {verdict, line, model, payload_b64, verified}
        checks: list[dict[str, Any]] = []
        checks_made: int = 0  # more than len(checks) when capped
        stdout: str
        stderr: str
        wall_s: float
        cpu_s: float

    class RunOutput(BaseModel):
        run_id: str
        verdict: str
        counts: dict[str, int]
        tie: dict[str, Any] | None
        elapsed_s: float
        notes: list[str]
        record: str | None
        candidates: list[CandidateOutput]

    return RunOutput
