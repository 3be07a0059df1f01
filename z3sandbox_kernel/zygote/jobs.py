"""The zygote's bookkeeping for one forked tree (``Job``) and one candidate (``Candidate``), and
what their result descriptors say once checked (frames.py): the report, and the verification."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Any

from ..child.confirm import OUT_OF_BUDGET
from ..protocol import (
    CheckedModel,
    CheckModelFrame,
    ChildReport,
    FoundModel,
    ObjectiveToCheck,
    RunRequest,
    SetupFrame,
    VerifyReport,
    VerifyRequest,
)
from ..protocol.byte_runs import expand_smt2_pairs
from ..protocol.roles import STOPS, Kill, Role
from . import frames
from .capture import Stream
from .checks import Checks, assemble, verify_part
from .classify import Observation, exit_code_of
from .confirmed import confirm_report
from .spawn import decode_status

RunParsed = tuple[SetupFrame | None, ChildReport | None, str | None]
VerifyParsed = tuple[SetupFrame | None, VerifyReport | None, str | None]
NO_CANDIDATE = -1  # the candidate id of a tree that serves none (yet): the probe, a standby, a spare


@dataclass(eq=False)  # one tree (or ticket) is itself: compared and hashed by identity
class Job:
    """One forked tree: a candidate run or its verification."""

    candidate_id: int
    role: Role  # RUN (STANDBY until handed a request), VERIFY (SPARE until handed a model), PROBE
    pid: int
    scratch: str
    started: float
    deadline: float
    streams: dict[str, Stream]
    kill: Kill | None = None
    kill_detail: str = ""
    wait_status: int | None = None
    rusage: Any = None  # resource.struct_rusage, or forker.Usage: ru_utime, ru_stime, ru_maxrss
    ended: float = 0.0
    go_fd: int | None = None  # the "go" pipe of a spare verifier or a standby candidate
    result: frames.ResultReader | None = None  # the result descriptor, under its budget
    output_cap: int = 0  # stdout and stderr together: more ends the job (Limits.output_max_mb)
    parsed: RunParsed | None = None  # run_report's answer, until more bytes arrive
    verification: VerifyParsed | None = None  # verification_report's
    handing: memoryview | None = None  # the rest of its request, while it is being handed off
    scratch_largest: int = -1  # without an init: its largest scratch file, if it died of SIGXFSZ
    stack_wait: bool = False  # asked for its stack before its kill (``kill``): killed when it comes
    checks: tuple[Checks, str | None] | None = None  # checks_of's answer, once whole
    # A verification's ticket, not a process: one answer a run's verifier checks (verifiers.py)
    ticket: bool = False

    @property
    def reaped(self) -> bool:
        return self.rusage is not None


def close_go_pipe(job: Job) -> None:
    """Close our end of the job's "go" pipe: EOF tells a spare or a standby that no request will come."""
    if job.go_fd is not None:
        os.close(job.go_fd)
        job.go_fd = None


@dataclass
class Candidate:
    request: RunRequest
    observation: Observation
    job: Job | None = None  # the job the candidate waits for: its run, then its verifier
    verifier: Job | None = None  # started when its report arrived, or when its run ended
    # The request's frame as the host sent it (header and validated body): handed to the child
    # as it is, never encoded again (``protocol.frame_of``).
    frame: bytes = b""


def run_report(job: Job) -> RunParsed:
    """(setup frame, checked report, error) from a run's (or the probe's) result descriptor
    (frames.py).  The setup frame is the first, written before user code ran; the second is the
    candidate's word.  Parsed once: a report can be read as soon as it is whole, and again when
    the job ends."""
    assert job.result is not None
    if job.parsed is None:
        job.parsed = frames.parse(job.result, ChildReport)
    return job.parsed


def verification_report(job: Job) -> VerifyParsed:
    """(setup frame, checked report, error) from a verifier's result descriptor, parsed once."""
    assert job.result is not None
    if job.verification is None:
        job.verification = frames.parse(job.result, VerifyReport)
    return job.verification


def checks_of(job: Job) -> tuple[Checks, str | None]:
    """The job's checks (frames.parse_checks, then checks.assemble), and the error a malformed
    check frame made; parsed once when the result is whole or the job is over."""
    assert job.result is not None
    if job.checks is not None:
        return job.checks
    found, error = frames.parse_checks(job.result)
    parsed = (assemble(found), error)
    if job.result.whole or job.reaped:
        job.checks = parsed
    return parsed


def _checks_to_verify(candidate: Candidate) -> bool:
    job = candidate.job
    smt2 = candidate.request.get("language") == "smt2"  # its checks' assertions are in its script
    return bool(candidate.request.get("verify") and job is not None and job.role is Role.RUN
                and any(smt2 or candidate.observation.checks.size(entry) is not None
                        for entry in candidate.observation.checks.with_models()))


def may_need_verification(candidate: Candidate, report: ChildReport | None) -> bool:
    """What the report alone says: a sat model or an unsat with assertions to check it against (an
    SMT-LIB candidate's are in its script), asked for; or a model the script read at an earlier
    check."""
    if candidate.job is not None and candidate.job.role is Role.RUN:
        candidate.observation.checks = checks_of(candidate.job)[0]
    return bool(candidate.request.get("verify") and report and report.get("outcome") in ("sat", "unsat")
                and (report.get("assertions_smt2") or candidate.request.get("language") == "smt2")
                ) or _checks_to_verify(candidate)


def wants_verification(candidate: Candidate) -> bool:
    """Once the run has ended: its report asks for it and the run ended by itself, not killed; or
    its checks found models (kept even when a limit stopped it), unless a race or a person
    stopped it."""
    obs = candidate.observation
    return ((may_need_verification(candidate, obs.report) and obs.kill is None
             and exit_code_of(obs.wait_status) is not None)
            or (_checks_to_verify(candidate) and obs.kill not in STOPS))


def verify_request(candidate: Candidate, report: ChildReport | None) -> VerifyRequest:
    """What the verifier checks: the answer (a sat model, an unsat, with their parts) when the
    report has one to check, and the models the script read at its checks.  An SMT-LIB candidate is
    data: the verifier reads its assertions from the script the zygote was given, not from the
    report (child/verify.py)."""
    report = report or ChildReport(outcome="internal_error")
    script = candidate.request["script"] if candidate.request.get("language") == "smt2" else None
    assertions = report.get("assertions_smt2", "") if script is None else ""

    def pairs(found: ChildReport | FoundModel | CheckModelFrame, chars: int | None = None) -> str:
        return expand_smt2_pairs(found.get("model_smt2") or "", found.get("model") or {},
                                 found.get("byte_runs") or [],
                                 int(candidate.observation.limits.payload_max_bytes),
                                 len(assertions if script is None else script) if chars is None else chars)

    request: VerifyRequest = {"timeout_s": candidate.observation.limits.timeout_s,
                              "require": candidate.request.get("require") or []}
    if report.get("outcome") in ("sat", "unsat") and (assertions or script is not None):
        request["assertions_smt2"], request["model_smt2"] = assertions, pairs(report)
        if script is not None:
            request["script_smt2"] = script
        if report.get("more_models"):  # models=N: each further model, verified on its own
            request["more_models_smt2"] = [pairs(found) for found in report["more_models"]]
        if report.get("outcome") == "unsat":
            request["outcome"], request["model_smt2"] = "unsat", ""
            if "core_smt2" in report and candidate.request.get("cores"):
                request["core_smt2"] = report["core_smt2"]
            if script is not None and report.get("core_names"):
                request["core_names"] = report["core_names"]
        if report.get("objectives"):
            request["objectives"] = [ObjectiveToCheck(term_smt2=goal.get("term_smt2"),
                                                      direction=goal["direction"], value=goal["value"])
                                     for goal in report["objectives"]]
        if candidate.request.get("cross_check"):
            request["cross_check"] = candidate.request.get("cross_check")

    request.update(verify_part(candidate.observation.checks, pairs, script))
    return request


def observe_run(obs: Observation, job: Job, baseline_rss_mb: float) -> None:
    """What the OS and the candidate's init say about its run, then its report, checked."""
    obs.kill, obs.kill_detail = job.kill, job.kill_detail
    assert job.rusage is not None  # observed once reaped
    obs.wall_s = job.ended - job.started
    obs.cpu_s = job.rusage.ru_utime + job.rusage.ru_stime
    obs.peak_rss_mb = job.rusage.ru_maxrss / (1024 if sys.platform != "darwin" else 1 << 20)
    obs.baseline_rss_mb = baseline_rss_mb
    obs.wait_status = job.wait_status if "status" not in job.streams else None
    reported = decode_status(bytes(job.streams["status"].data)) if "status" in job.streams else None
    if reported is not None:  # the candidate's own figures, from its init, killed or not
        obs.wait_status, utime, stime, maxrss_kb, largest, free, inodes, refused, first = reported
        obs.refused_calls, obs.first_refused = refused, first
        obs.cpu_s, obs.peak_rss_mb = utime + stime, maxrss_kb / 1024
        obs.scratch_largest, obs.scratch_free_bytes, obs.scratch_free_inodes = largest, free, inodes
    elif job.scratch_largest >= 0:  # no init: the zygote measured the folder (Trees.release)
        obs.scratch_largest = job.scratch_largest
    for name in ("stdout", "stderr"):
        stream = job.streams[name]
        setattr(obs, name, stream.text())
        setattr(obs, f"{name}_truncated", stream.dropped > 0)
    if job.result is not None and job.result.stacks:
        obs.stack = [(int(line), str(name)) for line, name in job.result.stacks[-1]["lines"]]
        obs.stack_checks_made = job.result.stacks[-1].get("checks_made")
    obs.setup, obs.report, error = run_report(job)
    obs.checks, checks_error = checks_of(job)
    obs.checks = Checks() if checks_error else obs.checks  # a forged check frame: none are kept
    obs.report_error = obs.report_error or error or checks_error


def observe_verification(obs: Observation, job: Job) -> None:
    if job.kill in STOPS:
        obs.kill = job.kill
        return
    _, report, error = verification_report(job)
    if report is None:
        obs.verified = None
        obs.verify_reason = error or f"verification ended without a result ({job.kill or 'crash'})"
        if job.kill == Kill.WALL:
            obs.verify_reason = f"{OUT_OF_BUDGET} (verify_s = {obs.limits.verify_s:g} s)"
        obs.confirmation = {"unconfirmed": obs.verify_reason if obs.verify_reason.startswith(
            "not confirmed") else f"not confirmed: {obs.verify_reason}"}
    else:
        confirm_report(obs, report)
        verified = report.get("verified")
        obs.verified = verified if isinstance(verified, bool) else None
        obs.verify_reason = str(report.get("reason") or "")
        obs.more_checked = list(report.get("more") or [])
        obs.checks_checked = list(report.get("checks") or [])
        if obs.verified is not None:  # what the verifier checked is what the result will hold
            obs.checked = CheckedModel(model=report.get("model") or {},
                                       byte_constants=report.get("byte_constants") or [],
                                       byte_runs=report.get("byte_runs") or [])
            if "model" not in report:
                obs.verified, obs.verify_reason = None, "the verifier did not say which model it checked"
