"""From what the operating system saw and what the child said, to one verdict and its reason.

The order of the rules is the point: facts the zygote observed itself (its own kills, the exit status,
rusage) come before anything the child reported, so a candidate cannot talk its way out of a limit.
"""

from __future__ import annotations

import math
import os
import signal
from dataclasses import dataclass, field

from ..contracts.limits import Limits
from ..protocol import (
    SHOWN_MODEL_MAX_ENTRIES,
    UNVERIFIED_REASON,
    CheckedModel,
    ChildReport,
    IsolationReport,
    LayerReport,
    SetupFrame,
    ZygoteResult,
)
from ..protocol.byte_runs import cut_runs
from ..protocol.roles import STOPS, ZYGOTE_KILLS, Kill, Level
from ..protocol.verdicts import Verdict
from .checks import Checks, results, summary
from .confirmed import Confirmation, add_confirmation
from .failures import error_of, stack_note
from .kept import kept_core, kept_more_models, kept_objectives
from .payload import build_payload, cap_model
from .refusals import refused_reason, unobserved_note

REASON_CAP = 2000
# z3's own exit when an allocation fails where it cannot throw (memory_manager: ERR_MEMOUT).
Z3_OUT_OF_MEMORY_EXIT = 101
SANDBOX_DIED = "the sandbox process died"
_CRASH_SIGNALS_AT_MEMORY_LIMIT = {signal.SIGSEGV, signal.SIGBUS, signal.SIGABRT}
MB = 1 << 20
# rusage (tick-sampled, threads added as they exit) reads under the clock the kernel's CPU-limit
# check counts: 1.94 s, and for z3 with threads on a loaded machine 1.74 s, measured at a 2 s
# limit.  A SIGXCPU is the limit's when rusage reached this share of it.
CPU_SEEN_FRACTION = 0.75
# Memory the sandbox must have seen used (peak RSS grown past the zygote's) to believe a crash or
# a reported MemoryError was the memory limit: RLIMIT_AS counts address space, which runs out
# before RSS does (the default fraction is _at_memory_limit's).
CRASH_SEEN_FRACTION = 0.75
# A tmpfs with less free than this is full: a write that does not fit is cut short, not refused,
# so ENOSPC comes with at most a page or so left.
SCRATCH_FULL_BYTES = 64 << 10


@dataclass
class Observation:
    """Everything known about one finished candidate, gathered by the zygote."""

    index: int
    limits: Limits
    level: Level
    seed: bytes | None
    kill: Kill | None = None  # the zygote's own (roles.ZYGOTE_KILLS)
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
    # What the candidate's init measured of its scratch tmpfs after every process in it died
    # (-1: not measured; without an init the zygote measures the largest file on a SIGXFSZ).
    scratch_largest: int = -1
    scratch_free_bytes: int = -1
    scratch_free_inodes: int = -1
    # Calls seccomp refused, as its init answered them (supervisor.py; -1: not observed).
    refused_calls: int = -1
    first_refused: int = -1
    verify_requested: bool = False
    verified: bool | None = None
    verify_reason: str = ""
    # The verifier's model, byte_constants and byte_runs: the model it checked, which replaces the
    # candidate's own in the result (set with ``verified``, True or False).
    checked: CheckedModel | None = None
    # models=N: the verifier's word on each further model, in order.
    more_checked: list[CheckedModel] = field(default_factory=list)
    confirmation: Confirmation = field(default_factory=Confirmation)  # confirmed.confirm_report's
    # The script's stack as it wrote it when a limit was about to end it (protocol.StackReport's
    # lines, the last frame it wrote), or None if it wrote none.
    stack: list[tuple[int, str]] | None = None
    stack_checks_made: int | None = None  # the checks it had made, as its stack frame said
    checks: Checks = field(default_factory=Checks)  # every check of the script (checks.py)
    checks_checked: list[CheckedModel] = field(default_factory=list)  # the verifier's word on them


def cap(text: str, limit: int = REASON_CAP) -> str:
    return text if len(text) <= limit else text[:limit] + f"… [{len(text) - limit} more characters]"


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def _isolation(obs: Observation) -> IsolationReport:
    layers = list(obs.setup["layers"]) if obs.setup else list(obs.planned_layers)
    return {"level": "kernel" if obs.level == Level.KERNEL else "process", "layers": layers}


def _active_layers(obs: Observation) -> str:
    names = [layer["name"] for layer in _isolation(obs)["layers"] if layer.get("active")]
    return ", ".join(names) or "none"


def _from_zygote_kill(obs: Observation) -> tuple[Verdict, str, Kill | None] | None:
    limits = obs.limits
    if obs.kill in STOPS:
        who = {Kill.RACE: "another candidate was decisive first (race)", Kill.CANCEL: "cancelled",
               Kill.INTERRUPT: "interrupted"}[obs.kill]
        return Verdict.CANCELLED, who, obs.kill
    if obs.kill == Kill.WALL:
        return Verdict.TIMEOUT, f"wall-clock limit of {limits.wall_s:g} s", Kill.WALL
    if obs.kill == Kill.OUTPUT:
        return Verdict.OUTPUT_LIMIT, obs.kill_detail or f"output passed {limits.output_kb} KB", Kill.OUTPUT
    if obs.kill == Kill.REPORT:
        return Verdict.INTERNAL_ERROR, obs.kill_detail, Kill.REPORT
    if obs.kill == Kill.DIED:
        return Verdict.INTERNAL_ERROR, f"{SANDBOX_DIED}: {obs.kill_detail}", Kill.DIED
    return None


def _from_signal(obs: Observation, signum: int) -> tuple[Verdict, str, Kill | None]:
    """A signal is a limit only when the sandbox saw the limit reached: the candidate can send
    itself any signal it may receive (or lower its own rlimits), and is then told so."""
    limits = obs.limits
    # SIGKILL at the hard limit, or the zygote's once the script said SIGXCPU came (child/stack.py)
    after_xcpu = signum == signal.SIGKILL and obs.kill is Kill.CPU
    if signum == signal.SIGXCPU or after_xcpu or (signum == signal.SIGKILL and obs.cpu_s >= limits.cpu_s):
        named = "SIGXCPU, then SIGKILL" if after_xcpu else _signal_name(signum)
        if obs.cpu_s >= CPU_SEEN_FRACTION * cpu_soft_limit_s(limits):
            return Verdict.CPU_LIMIT, f"CPU-time limit of {limits.cpu_s:g} s ({named})", Kill.CPU
        return Verdict.CRASHED, _not_the_limit(named, f"after {obs.cpu_s:.3f} s of CPU time, under the "
                                                       f"CPU-time limit of {limits.cpu_s:g} s"), None
    if signum == signal.SIGXFSZ:
        size = limits.file_size_mb * MB
        if obs.scratch_largest >= size:
            why = f"file-size limit of {limits.file_size_mb} MB (SIGXFSZ)"
            return Verdict.OUTPUT_LIMIT, why, Kill.FILE_SIZE
        seen = (f"its largest file in scratch holds {obs.scratch_largest} bytes" if obs.scratch_largest >= 0
                else "its scratch could not be measured")
        return Verdict.CRASHED, _not_the_limit(signum, f"{seen}, under the file-size limit of "
                                                       f"{limits.file_size_mb} MB"), None
    if signum == signal.SIGSYS:
        if _layer_active(obs, "seccomp"):  # the filter refuses SIGSYS to the candidate's own calls
            return (Verdict.BLOCKED, "seccomp killed the candidate on a forbidden system call (SIGSYS)",
                    Kill.SECCOMP)
        return Verdict.CRASHED, _not_the_limit(signum, "seccomp is not active here"), None
    if signum in _CRASH_SIGNALS_AT_MEMORY_LIMIT and _at_memory_limit(obs, CRASH_SEEN_FRACTION):
        return (Verdict.MEMORY_LIMIT,
                f"crashed with {_signal_name(signum)} at the memory limit of {limits.memory_mb} MB "
                f"(grew by {_grown_mb(obs):.0f} MB)", Kill.MEMORY)
    return Verdict.CRASHED, f"killed by {_signal_name(signum)}", None


def cpu_soft_limit_s(limits: Limits) -> int:
    """The RLIMIT_CPU soft limit the candidate got (child/layers/rlimits.py): whole seconds."""
    return max(1, math.ceil(limits.cpu_s))


def _not_the_limit(signum: int | str, seen: str) -> str:
    named = signum if isinstance(signum, str) else _signal_name(signum)
    return (f"killed by {named}, not by the sandbox's limit ({seen}): the candidate sent it to itself "
            "or lowered its own limit")


def _layer_active(obs: Observation, name: str) -> bool:
    return any(layer.get("name") == name and layer.get("active") for layer in _isolation(obs)["layers"])


def _grown_mb(obs: Observation) -> float:
    return obs.peak_rss_mb - obs.baseline_rss_mb


def _at_memory_limit(obs: Observation, fraction: float = 0.5) -> bool:
    """The sandbox saw the candidate's memory near its limit (rusage, not the candidate's word)."""
    return _grown_mb(obs) >= fraction * obs.limits.memory_mb


def _memory_claim(obs: Observation, what: str) -> tuple[Verdict, str, Kill | None]:
    """A MemoryError or z3's "out of memory", as the candidate reported it: a memory limit only if
    the sandbox saw its memory near the limit.  An allocation refused whole (``bytearray(8 << 30)``
    under a 512 MB limit) leaves no trace the sandbox can read, so it is reported as what it is."""
    limit = obs.limits.memory_mb
    if _at_memory_limit(obs):
        return Verdict.MEMORY_LIMIT, f"{what} (memory limit {limit} MB)", Kill.MEMORY
    return (Verdict.RUNTIME_ERROR,
            f"{what}, with a peak of {max(0.0, _grown_mb(obs)):.0f} MB of the {limit} MB memory limit: an "
            "allocation larger than what was left, or raised by the script itself", None)


def _scratch_full(obs: Observation) -> bool:
    """The candidate's init found its scratch tmpfs full (free bytes or inodes run out)."""
    return (0 <= obs.scratch_free_bytes < SCRATCH_FULL_BYTES) or obs.scratch_free_inodes == 0


def _from_report(obs: Observation, report: ChildReport) -> tuple[Verdict, str, Kill | None]:
    outcome = report.get("outcome")
    reason = str(report.get("reason") or "")
    if outcome == "sat":
        if obs.verified is False:
            why = obs.verify_reason or "the model does not satisfy the assertions"
            return Verdict.INVALID_MODEL, why, None
        if obs.verify_requested and obs.verified is None:
            return Verdict.SAT, f"{UNVERIFIED_REASON}: {obs.verify_reason or 'undecided'}", None
        return Verdict.SAT, reason, None  # empty, or that the sandbox checked for the script
    if outcome == "unsat":
        return Verdict.UNSAT, reason, None
    if outcome == "unknown":
        if report.get("solver_timeout"):
            return Verdict.TIMEOUT, f"solver timeout of {obs.limits.timeout_s:g} s ({reason})", Kill.SOLVER
        if "memory" in reason.lower():
            if _at_memory_limit(obs):
                return Verdict.MEMORY_LIMIT, f"z3 stopped: {reason}", Kill.MEMORY
            return Verdict.UNKNOWN, f"{reason} (peak {max(0.0, _grown_mb(obs)):.0f} MB of the " \
                                    f"{obs.limits.memory_mb} MB memory limit)", None
        return Verdict.UNKNOWN, reason, None
    if outcome == "no_check":
        return Verdict.NO_CHECK, reason or "the script never checked anything", None
    if outcome == "syntax_error":
        if report.get("line") and "line" not in reason:
            reason += f" (line {report.get('line')}, column {report.get('column')})"
        return Verdict.SYNTAX_ERROR, reason, None
    if outcome == "memory_error":
        return _memory_claim(obs, reason or "MemoryError")
    if outcome in ("exception", "blocked"):  # "blocked": the child's word, judged as what it raised
        exception = report.get("exception")
        message = str(exception["message"]) if exception else ""
        if obs.refused_calls > 0:  # observed by its init, not told by the candidate
            return Verdict.BLOCKED, refused_reason(obs.refused_calls, obs.first_refused, then=reason), None
        if exception and exception["type"] == "RuntimeError" and "can't start new thread" in message:
            why = (f"a new thread was refused by the threads limit ({obs.limits.threads}) or the "
                   f"memory limit ({obs.limits.memory_mb} MB): {reason}")
            return Verdict.RUNTIME_ERROR, why, None
        if exception and exception["type"] == "PermissionError":
            return Verdict.RUNTIME_ERROR, reason + unobserved_note(
                obs.refused_calls, obs.level, _layer_active(obs, "seccomp"), _active_layers(obs)), None
        # ENOSPC / EDQUOT: the disk limit when the candidate's init found its scratch full.
        if ("[Errno 28]" in message or "[Errno 122]" in message) and _scratch_full(obs):
            return Verdict.OUTPUT_LIMIT, f"disk limit of {obs.limits.disk_mb} MB ({reason})", Kill.DISK
        return Verdict.RUNTIME_ERROR, reason, None
    if outcome == "internal_error":
        return Verdict.INTERNAL_ERROR, reason or "the harness failed", None
    return Verdict.INTERNAL_ERROR, f"the child reported an unknown outcome {outcome!r}: {reason}", None


def _verdict(obs: Observation) -> tuple[Verdict, str, Kill | None]:
    decided = _from_zygote_kill(obs)
    if decided:
        return decided
    if obs.setup and obs.setup.get("error"):
        return Verdict.INTERNAL_ERROR, str(obs.setup["error"]), None
    killed_by = signal_of(obs.wait_status)
    if killed_by is not None:
        return _from_signal(obs, killed_by)
    if obs.kill is Kill.CPU and obs.wait_status is None:  # its init was killed before it reported
        return (Verdict.CPU_LIMIT, f"CPU-time limit of {obs.limits.cpu_s:g} s (SIGXCPU, as the script "
                "reported: its CPU time could not be read)", Kill.CPU)
    if obs.report_error:
        return Verdict.INTERNAL_ERROR, obs.report_error, None
    if obs.report is None:
        code = exit_code_of(obs.wait_status)
        if (code == Z3_OUT_OF_MEMORY_EXIT and b"out of memory" in obs.stderr[-4096:].lower()
                and _at_memory_limit(obs)):
            return (Verdict.MEMORY_LIMIT, f"z3 ran out of memory and exited (code {code}; memory "
                    f"limit {obs.limits.memory_mb} MB)", Kill.MEMORY)
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
    if obs.wait_status is None and (obs.kill in ZYGOTE_KILLS or obs.kill is Kill.CPU):
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
    stack_line, where = stack_note(kill, obs.stack)
    if where:
        reason = f"{reason} ({where})"
    report = _report_of(obs)
    model = report.get("model") if verdict in (Verdict.SAT, Verdict.INVALID_MODEL) else None
    model, omitted = cap_model(model) if model is not None else (None, 0)
    if model is not None:  # the constants the harness did not list (models.ModelFields.show)
        omitted += report.get("model_omitted", 0)
    payload, payload_error = (None, None)
    if verdict is Verdict.SAT:
        payload, payload_error = build_payload(
            report.get("byte_constants") or [], report.get("byte_runs") or [], obs.seed,
            int(obs.limits.payload_max_bytes),
        )
    result: ZygoteResult = {
        "index": obs.index,
        "verdict": verdict.value,
        "reason": cap(reason),
        "model": model,
        "payload_hex": payload.hex() if payload is not None else None,
        "payload_error": payload_error,
        "unsat_core": kept_core(report.get("unsat_core")) if verdict is Verdict.UNSAT else None,
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
        "error": error_of(verdict, reason, kill, report, obs.stderr, stack_line),
        # The byte_N that travelled as hex only: the host puts them back into the model (a million
        # of them would hold up this loop, and every other candidate's deadline, for seconds).
        "byte_runs": cut_runs(report.get("byte_runs") or [], int(obs.limits.payload_max_bytes))
        if model is not None and len(model) < SHOWN_MODEL_MAX_ENTRIES and not omitted else [],
        "model_omitted": omitted,
    }
    _add_found(result, obs, report, verdict)
    add_confirmation(result, obs, verdict)
    return result


def _report_of(obs: Observation) -> ChildReport:
    """The child's report, with the model the verifier checked in place of its own."""
    report: ChildReport = obs.report.copy() if obs.report else {"outcome": "internal_error"}
    if obs.checked is not None and obs.verified is not None:
        report["model"] = obs.checked.get("model", {})
        report["byte_constants"] = obs.checked.get("byte_constants", [])
        report["byte_runs"] = obs.checked.get("byte_runs", [])
    return report


def _add_found(result: ZygoteResult, obs: Observation, report: ChildReport, verdict: Verdict) -> None:
    """A sat result's objectives and further models, and every check the script made."""
    if verdict is Verdict.SAT and report.get("objectives"):
        result["objectives"] = kept_objectives(report["objectives"])
    if verdict is Verdict.SAT and report.get("more_models"):
        result["more_models"] = kept_more_models(report.get("more_models") or [], obs.more_checked,
                                                obs.seed, int(obs.limits.payload_max_bytes))
    if obs.checks.entries:
        result["checks"] = results(obs.checks, obs.checks_checked, obs.seed,
                                   int(obs.limits.payload_max_bytes))
        made = report.get("checks_made")
        made = made if isinstance(made, int) else obs.stack_checks_made  # killed: as its stack said
        result["checks_made"] = max(made, len(result["checks"])) if isinstance(made, int) else len(
            result["checks"])
        found = "" if verdict is Verdict.SAT else summary(result["checks"], made)
        result["reason"] = cap("; ".join(filter(None, (result["reason"], found))))


def failed(obs: Observation, reason: str) -> ZygoteResult:
    """An internal_error result for ``obs`` that uses nothing the child said (its report could not
    be handled): the measurements, the output, and ``reason``."""
    obs.report, obs.report_error, obs.kill, obs.setup = None, reason, None, None
    result = classify(obs)
    result["reason"] = cap(reason)
    result["verdict"] = Verdict.INTERNAL_ERROR.value
    result["error"] = {"type": Verdict.INTERNAL_ERROR.value, "line": None, "message": result["reason"]}
    return result
