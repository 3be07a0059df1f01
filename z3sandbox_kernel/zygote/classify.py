"""From what the operating system saw and what the child said, to one verdict and its reason.

The order of the rules is the point: facts the zygote observed itself (its own kills, the exit status,
rusage) come before anything the child reported, so a candidate cannot talk its way out of a limit.
"""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass, field

from ..limits import Limits
from ..protocol import ChildReport, IsolationReport, LayerReport, SetupFrame, ZygoteResult
from ..verdicts import Verdict
from .failures import error_of
from .payload import build_payload, cut_runs

REASON_CAP = 2000
ZYGOTE_KILLS = frozenset({"wall", "output", "report", "race", "cancel", "interrupt", "died"})
# z3's own exit when an allocation fails where it cannot throw (memory_manager: ERR_MEMOUT).
Z3_OUT_OF_MEMORY_EXIT = 101
SANDBOX_DIED = "the sandbox process died"
_CRASH_SIGNALS_AT_MEMORY_LIMIT = {signal.SIGSEGV, signal.SIGBUS, signal.SIGABRT}


@dataclass
class Observation:
    """Everything known about one finished candidate, gathered by the zygote."""

    index: int
    limits: Limits
    level: str
    seed: bytes | None
    kill: str | None = None  # the zygote's own: "wall", "output", "race", "cancel", "interrupt"
    kill_detail: str = ""
    wait_status: int | None = None  # of the user-code process
    wall_s: float = 0.0
    cpu_s: float = 0.0
    peak_rss_mb: float = 0.0
    baseline_rss_mb: float = 0.0
    stdout: bytes = b""
    stderr: bytes = b""
    stdout_truncated: bool = False  # the middle was dropped: head and tail are kept
    stderr_truncated: bool = False
    setup: SetupFrame | None = None  # checked by frames.py, as is the report
    report: ChildReport | None = None
    report_error: str | None = None
    planned_layers: list[LayerReport] = field(default_factory=list)  # when no child reported any
    verify_requested: bool = False
    verified: bool | None = None
    verify_reason: str = ""


def cap(text: str, limit: int = REASON_CAP) -> str:
    return text if len(text) <= limit else text[:limit] + f"… [{len(text) - limit} more characters]"


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def _isolation(obs: Observation) -> IsolationReport:
    layers = list(obs.setup["layers"]) if obs.setup else list(obs.planned_layers)
    return {"level": "kernel" if obs.level == "kernel" else "process", "layers": layers}


def _active_layers(obs: Observation) -> str:
    names = [layer["name"] for layer in _isolation(obs)["layers"] if layer.get("active")]
    return ", ".join(names) or "none"


def _from_zygote_kill(obs: Observation) -> tuple[Verdict, str, str | None] | None:
    limits = obs.limits
    if obs.kill in ("race", "cancel", "interrupt"):
        who = {"race": "another candidate was decisive first (race)", "cancel": "cancelled",
               "interrupt": "interrupted"}[obs.kill]
        return Verdict.CANCELLED, who, obs.kill
    if obs.kill == "wall":
        return Verdict.TIMEOUT, f"wall-clock limit of {limits.wall_s:g} s", "wall"
    if obs.kill == "output":
        return Verdict.OUTPUT_LIMIT, obs.kill_detail or f"output passed {limits.output_kb} KB", "output"
    if obs.kill == "report":
        return Verdict.INTERNAL_ERROR, obs.kill_detail, "report"
    if obs.kill == "died":
        return Verdict.INTERNAL_ERROR, f"{SANDBOX_DIED}: {obs.kill_detail}", "died"
    return None


def _from_signal(obs: Observation, signum: int) -> tuple[Verdict, str, str | None]:
    limits = obs.limits
    if signum == signal.SIGXCPU or (signum == signal.SIGKILL and obs.cpu_s >= limits.cpu_s):
        return Verdict.CPU_LIMIT, f"CPU-time limit of {limits.cpu_s:g} s ({_signal_name(signum)})", "cpu"
    if signum == signal.SIGXFSZ:
        return Verdict.OUTPUT_LIMIT, f"file-size limit of {limits.file_size_mb} MB (SIGXFSZ)", "file_size"
    if signum == signal.SIGSYS:
        return (Verdict.BLOCKED, "seccomp killed the candidate on a forbidden system call (SIGSYS)",
                "seccomp")
    grown = obs.peak_rss_mb - obs.baseline_rss_mb
    if signum in _CRASH_SIGNALS_AT_MEMORY_LIMIT and grown >= 0.75 * limits.memory_mb:
        return (Verdict.MEMORY_LIMIT,
                f"crashed with {_signal_name(signum)} at the memory limit of {limits.memory_mb} MB "
                f"(grew by {grown:.0f} MB)", "memory")
    return Verdict.CRASHED, f"killed by {_signal_name(signum)}", None


def _from_report(obs: Observation, report: ChildReport) -> tuple[Verdict, str, str | None]:
    outcome = report.get("outcome")
    reason = str(report.get("reason") or "")
    if outcome == "sat":
        if obs.verified is False:
            why = obs.verify_reason or "the model does not satisfy the assertions"
            return Verdict.INVALID_MODEL, why, None
        if obs.verify_requested and obs.verified is None:
            return Verdict.SAT, f"the model is not verified: {obs.verify_reason or 'undecided'}", None
        return Verdict.SAT, "", None
    if outcome == "unsat":
        return Verdict.UNSAT, reason, None
    if outcome == "unknown":
        if report.get("solver_timeout"):
            return Verdict.TIMEOUT, f"solver timeout of {obs.limits.timeout_s:g} s ({reason})", "solver"
        if "memory" in reason.lower():
            return Verdict.MEMORY_LIMIT, f"z3 stopped: {reason}", "memory"
        return Verdict.UNKNOWN, reason, None
    if outcome == "no_check":
        return Verdict.NO_CHECK, reason or "the script never checked anything", None
    if outcome == "syntax_error":
        if report.get("line") and "line" not in reason:
            reason += f" (line {report.get('line')}, column {report.get('column')})"
        return Verdict.SYNTAX_ERROR, reason, None
    if outcome == "memory_error":
        return Verdict.MEMORY_LIMIT, f"{reason} (memory limit {obs.limits.memory_mb} MB)", "memory"
    if outcome == "blocked":
        return Verdict.BLOCKED, f"{reason} [active layers: {_active_layers(obs)}]", None
    if outcome == "exception":
        exception = report.get("exception")
        message = str(exception["message"]) if exception else ""
        if exception and exception["type"] == "RuntimeError" and "can't start new thread" in message:
            why = (f"a new thread was refused by the threads limit ({obs.limits.threads}) or the "
                   f"memory limit ({obs.limits.memory_mb} MB): {reason}")
            return Verdict.BLOCKED, why, None
        if "[Errno 28]" in message or "[Errno 122]" in message:  # ENOSPC / EDQUOT: scratch is full
            return Verdict.OUTPUT_LIMIT, f"disk limit of {obs.limits.disk_mb} MB ({reason})", "disk"
        return Verdict.RUNTIME_ERROR, reason, None
    if outcome == "internal_error":
        return Verdict.INTERNAL_ERROR, reason or "the harness failed", None
    return Verdict.INTERNAL_ERROR, f"the child reported an unknown outcome {outcome!r}: {reason}", None


def _verdict(obs: Observation) -> tuple[Verdict, str, str | None]:
    decided = _from_zygote_kill(obs)
    if decided:
        return decided
    if obs.setup and obs.setup.get("error"):
        return Verdict.INTERNAL_ERROR, str(obs.setup["error"]), None
    killed_by = signal_of(obs.wait_status)
    if killed_by is not None:
        return _from_signal(obs, killed_by)
    if obs.report_error:
        return Verdict.INTERNAL_ERROR, obs.report_error, None
    if obs.report is None:
        code = exit_code_of(obs.wait_status)
        if code == Z3_OUT_OF_MEMORY_EXIT and b"out of memory" in obs.stderr[-4096:].lower():
            return (Verdict.MEMORY_LIMIT, f"z3 ran out of memory and exited (code {code}; memory "
                    f"limit {obs.limits.memory_mb} MB)", "memory")
        if obs.setup is None:
            return Verdict.INTERNAL_ERROR, f"the child failed before user code ran (exit code {code})", None
        return Verdict.CRASHED, f"exited with code {code} without a result (os._exit, or a crash)", None
    return _from_report(obs, obs.report)


def _signal(obs: Observation) -> int | None:
    """The signal that ended the candidate.  When the zygote killed it inside a PID namespace the
    init's report never came, but the candidate died of SIGKILL all the same: say so either way."""
    killed_by = signal_of(obs.wait_status)
    if killed_by is not None:
        return killed_by
    if obs.wait_status is None and obs.kill in ZYGOTE_KILLS:
        return int(signal.SIGKILL)
    return None


def signal_of(status: int | None) -> int | None:
    """The signal a wait status says the process died of, or None (it exited, or no status)."""
    return os.WTERMSIG(status) if status is not None and os.WIFSIGNALED(status) else None


def exit_code_of(status: int | None) -> int | None:
    """The exit code in a wait status, or None (killed by a signal, or no status)."""
    return os.WEXITSTATUS(status) if status is not None and os.WIFEXITED(status) else None


def classify(obs: Observation) -> ZygoteResult:
    verdict, reason, kill = _verdict(obs)
    report: ChildReport = obs.report or {}
    model = report.get("model") if verdict in (Verdict.SAT, Verdict.INVALID_MODEL) else None
    payload, payload_error = (None, None)
    if verdict is Verdict.SAT:
        payload, payload_error = build_payload(
            report.get("byte_constants") or [], report.get("byte_runs") or [], obs.seed,
            int(obs.limits.payload_max_bytes),
        )
    return {
        "index": obs.index,
        "verdict": verdict.value,
        "reason": cap(reason),
        "model": model,
        "payload_hex": payload.hex() if payload is not None else None,
        "payload_error": payload_error,
        "unsat_core": report.get("unsat_core") if verdict is Verdict.UNSAT else None,
        "stdout": obs.stdout.decode("utf-8", "backslashreplace"),
        "stderr": obs.stderr.decode("utf-8", "backslashreplace"),
        "stdout_truncated": obs.stdout_truncated,
        "stderr_truncated": obs.stderr_truncated,
        "output_truncated": obs.stdout_truncated or obs.stderr_truncated,
        "wall_s": round(obs.wall_s, 6),
        "cpu_s": round(obs.cpu_s, 6),
        "peak_rss_mb": round(obs.peak_rss_mb, 2),
        "kill": kill,
        # A script that failed exits through the harness, whose code says nothing about it.
        "exit_code": None if obs.report is not None and verdict.failed else exit_code_of(obs.wait_status),
        "signal": _signal(obs),
        "verified": obs.verified if verdict in (Verdict.SAT, Verdict.INVALID_MODEL) else None,
        "isolation": _isolation(obs),
        "host": None,
        "error": error_of(verdict, reason, kill, report, obs.stderr),
        # The byte_N that travelled as hex only: the host puts them back into the model (a million
        # of them would hold up this loop, and every other candidate's deadline, for seconds).
        "byte_runs": cut_runs(report.get("byte_runs") or [], int(obs.limits.payload_max_bytes))
        if model is not None else [],
    }


def failed(obs: Observation, reason: str) -> ZygoteResult:
    """An internal_error result for ``obs`` that uses nothing the child said (its report could not
    be handled): the measurements, the output, and ``reason``."""
    obs.report, obs.report_error, obs.kill, obs.setup = None, reason, None, None
    result = classify(obs)
    result["reason"] = cap(reason)
    result["verdict"] = Verdict.INTERNAL_ERROR.value
    result["error"] = {"type": Verdict.INTERNAL_ERROR.value, "line": None, "message": result["reason"]}
    return result
