"""The zygote's bookkeeping for one forked tree (``Job``) and one candidate (``Candidate``), and
what their result descriptors say once checked (frames.py): the report, and the verification."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..protocol import SetupFrame
from . import frames
from .capture import Stream
from .classify import Observation, exit_code_of
from .payload import expand_smt2_pairs


@dataclass
class Job:
    """One forked tree: a candidate run or its verification."""

    candidate_id: int
    phase: str  # "run" or "verify"
    pid: int
    scratch: str
    started: float
    deadline: float
    streams: dict[str, Stream]
    kill: str | None = None
    kill_detail: str = ""
    wait_status: int | None = None
    rusage: Any = None
    ended: float = 0.0
    stdin_fd: int | None = None  # a spare verifier's "go" pipe
    result: frames.ResultReader | None = None  # the result descriptor, under its budget
    output_cap: int = 0  # stdout and stderr together: more ends the job (Limits.output_max_mb)

    @property
    def reaped(self) -> bool:
        return self.rusage is not None


@dataclass
class Candidate:
    request: dict[str, Any]
    observation: Observation
    job: Job | None = None


def parse_result(job: Job, phase: str) -> tuple[SetupFrame | None, dict[str, Any] | None, str | None]:
    """(setup frame, checked result, error) from the job's result descriptor (frames.py).  The
    setup frame is the first, written before user code ran; the second is the candidate's word."""
    assert job.result is not None
    return frames.parse(job.result, phase)


def wants_verification(candidate: Candidate) -> bool:
    obs = candidate.observation
    return bool(
        candidate.request.get("verify") and obs.kill is None and obs.report
        and obs.report.get("outcome") == "sat" and obs.report.get("assertions_smt2")
        and exit_code_of(obs.wait_status) is not None
    )


def verify_request(candidate: Candidate) -> dict[str, Any]:
    report = candidate.observation.report or {}
    pairs = expand_smt2_pairs(report.get("model_smt2") or [], report.get("model") or {},
                              report.get("byte_runs") or [],
                              int(candidate.observation.limits.payload_max_bytes),
                              report.get("assertions_smt2", ""))
    return {"assertions_smt2": report.get("assertions_smt2", ""),
            "model_smt2": pairs,
            "timeout_s": candidate.observation.limits.timeout_s,
            "require": candidate.request.get("require") or []}


def observe_verification(obs: Observation, job: Job) -> None:
    if job.kill in ("race", "cancel", "interrupt"):
        obs.kill = job.kill
        return
    _, report, error = parse_result(job, "verify")
    if report is None:
        obs.verified = None
        obs.verify_reason = error or f"verification ended without a result ({job.kill or 'crash'})"
    else:
        verified = report.get("verified")
        obs.verified = verified if isinstance(verified, bool) else None
        obs.verify_reason = str(report.get("reason") or "")
