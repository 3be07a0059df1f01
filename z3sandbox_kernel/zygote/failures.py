"""A failed candidate's structured error, ``{type, line, message}``, from what the zygote classified.

The line is the script's, as the agent or person sent it: the escaped exception's innermost script
frame, a syntax error's line, the check() a solver timeout interrupted (the harness reports it),
or, for a crash, the ``candidate.py`` line faulthandler printed on stderr.
Everything but the verdict is the candidate's word (as its report is), used only to point at a line.
"""

from __future__ import annotations

import re

from ..protocol import CandidateError, ChildReport
from ..verdicts import Verdict

MESSAGE_CAP = 2000
_CRASHES = frozenset({Verdict.CRASHED, Verdict.CPU_LIMIT, Verdict.MEMORY_LIMIT})  # line: faulthandler
# faulthandler's frame line: `  File "candidate.py", line 7 in <module>`, innermost first.
_FAULT_FRAME = re.compile(rb'File "candidate\.py", line (\d+) in ')
_DENIED_AT = re.compile(r" at line (\d+): `")
_FAULT_TAIL = 16 << 10  # faulthandler's dump is at the end of stderr


def error_of(verdict: Verdict, reason: str, kill: str | None, report: ChildReport,
             stderr: bytes) -> CandidateError | None:
    """The error of a candidate that ended as ``verdict``, or None when it did not fail."""
    if not verdict.failed:
        return None
    exception = report.get("exception")
    if exception is not None:
        return {"type": exception["type"], "line": exception.get("line"),
                "message": _cap(exception["message"]) or _cap(reason)}
    line: int | None = None
    if verdict is Verdict.SYNTAX_ERROR or kill == "solver":
        line = report.get("line")
    elif verdict is Verdict.BLOCKED and (denied := _DENIED_AT.search(reason)):
        line = int(denied.group(1))
    elif verdict in _CRASHES:
        line = crash_line(stderr)
    if line is not None and kill == "solver":
        reason = f"{reason} at the check() on line {line}"
    elif line is not None and verdict in _CRASHES:  # the others' reasons name their line
        reason = f"{reason}, on line {line}"
    return {"type": verdict.value, "line": line, "message": _cap(reason)}


def crash_line(stderr: bytes) -> int | None:
    """The innermost ``candidate.py`` line of faulthandler's dump at the end of ``stderr``."""
    tail = stderr[-_FAULT_TAIL:]
    current = tail.rfind(b"Current thread ")  # the thread that crashed, listed among all of them
    match = _FAULT_FRAME.search(tail, max(current, 0)) or _FAULT_FRAME.search(tail)
    return int(match.group(1)) if match else None


def _cap(text: str) -> str:
    return text if len(text) <= MESSAGE_CAP else text[:MESSAGE_CAP] + "…"
