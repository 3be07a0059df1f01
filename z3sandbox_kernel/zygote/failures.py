"""A failed candidate's structured error, ``{type, line, message}``, from what the zygote classified.

The line is the script's, as the agent or person sent it: the escaped exception's innermost script
frame, a syntax error's line, the check() a solver timeout interrupted (the harness reports it),
for a crash, the ``candidate.py`` line faulthandler printed on stderr, or, for a CPU, wall or
output kill, the line of the stack the script wrote when warned (child/stack.py), said to be its
own report.
Everything but the verdict is the candidate's word (as its report is), used only to point at a line.
"""

from __future__ import annotations

import re

from ..protocol import CandidateError, ChildReport
from ..protocol.verdicts import Verdict

MESSAGE_CAP = 2000
_CRASHES = frozenset({Verdict.CRASHED, Verdict.CPU_LIMIT, Verdict.MEMORY_LIMIT})  # line: faulthandler
# faulthandler's frame line: `  File "candidate.py", line 7 in <module>`, innermost first.
_FAULT_FRAME = re.compile(rb'File "candidate\.py", line (\d+) in ')
_DENIED_AT = re.compile(r" at line (\d+): `")
_FAULT_TAIL = 16 << 10  # faulthandler's dump is at the end of stderr
_STACK_KILLS = frozenset({"cpu", "wall", "output"})  # the kills a script's stack is asked for


def stack_note(kill: str | None, stack: list[tuple[int, str]] | None) -> tuple[int | None, str]:
    """(line, words) of where a script was when its CPU, wall or output limit ended it, from the
    stack it wrote (child/stack.py): its own claim, and said to be."""
    if kill not in _STACK_KILLS:
        return None, ""
    if stack is None:
        return None, "the script's stack could not be taken"
    if not stack:
        return None, "it was not running a line of the script"
    line = int(stack[-1][0])
    return line, f"line {line}, as the script reported"


def error_of(verdict: Verdict, reason: str, kill: str | None, report: ChildReport,
             stderr: bytes, stack_line: int | None = None) -> CandidateError | None:
    """The error of a candidate that ended as ``verdict``, or None when it did not fail;
    ``stack_line``: the line its stack named (``stack_note``), already in ``reason``."""
    if not verdict.failed:
        return None
    if stack_line is not None:
        return {"type": verdict.value, "line": stack_line, "message": _cap(reason)}
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
