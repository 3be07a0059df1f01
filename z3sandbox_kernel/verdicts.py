"""Verdicts: what happened to a candidate, one name per kind of outcome (never two lumped together)."""

from __future__ import annotations

import enum


class Verdict(str, enum.Enum):
    """The outcome of one candidate.  ``CandidateResult.reason`` explains it (see ``VERDICT_DOCS``)."""

    SAT = "sat"
    UNSAT = "unsat"
    UNKNOWN = "unknown"
    TIMEOUT = "timeout"
    CPU_LIMIT = "cpu_limit"
    MEMORY_LIMIT = "memory_limit"
    OUTPUT_LIMIT = "output_limit"
    SYNTAX_ERROR = "syntax_error"
    RUNTIME_ERROR = "runtime_error"
    CRASHED = "crashed"
    BLOCKED = "blocked"
    NO_CHECK = "no_check"
    INVALID_MODEL = "invalid_model"
    CANCELLED = "cancelled"
    INTERNAL_ERROR = "internal_error"

    def __str__(self) -> str:
        return self.value

    @property
    def decisive(self) -> bool:
        """sat and unsat settle a question; everything else does not."""
        return self in (Verdict.SAT, Verdict.UNSAT)


# When each verdict is produced, and what ``reason`` then holds.  The README's table is this one.
VERDICT_DOCS: dict[Verdict, tuple[str, str]] = {
    Verdict.SAT: ("the last check() returned sat (and the model verified, unless verify=False)", "empty"),
    Verdict.UNSAT: ("the last check() returned unsat (with cores=True, unsat_core lists the lines)", "empty"),
    Verdict.UNKNOWN: ("the last check() returned unknown for a reason other than the timeout",
                      "z3's reason_unknown"),
    Verdict.TIMEOUT: ("the solver's own timeout (kill='solver') or the wall limit (kill='wall')",
                      "which limit, and its value"),
    Verdict.CPU_LIMIT: ("RLIMIT_CPU ended the candidate (SIGXCPU, then SIGKILL at the hard limit)",
                        "the CPU limit"),
    Verdict.MEMORY_LIMIT: ("MemoryError, z3's 'out of memory', or a crash at the address-space limit",
                           "how memory ran out and the limit"),
    Verdict.OUTPUT_LIMIT: ("stdout or stderr passed its cap, or a file passed the file-size limit",
                           "which stream or limit"),
    Verdict.SYNTAX_ERROR: ("the script (or SMT-LIB text) does not parse", "the message, line and column"),
    Verdict.RUNTIME_ERROR: ("an exception escaped the script", "type, message and script line, capped"),
    Verdict.CRASHED: ("a signal (e.g. SIGSEGV) or an exit the harness did not make",
                      "the signal or exit code"),
    Verdict.BLOCKED: ("the sandbox denied an operation (PermissionError, SIGSYS)",
                      "the layer and the operation, where they can be told"),
    Verdict.NO_CHECK: ("the script never checked anything and asserted nothing", "empty"),
    Verdict.INVALID_MODEL: ("verification found that the model does not satisfy the assertions",
                            "what failed"),
    Verdict.CANCELLED: ("race, Sandbox.cancel() or an interrupt ended it before a verdict",
                        "who cancelled"),
    Verdict.INTERNAL_ERROR: ("the sandbox itself failed (a required layer missing, the zygote died)",
                             "what failed"),
}
