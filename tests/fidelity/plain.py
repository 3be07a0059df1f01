"""A script run the way a user runs it: ``python candidate.py`` in an empty folder, with the same
interpreter and the same z3 as the sandbox (the name is the one the sandbox gives every script)."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from z3sandbox_kernel import CandidateResult, Verdict
from z3sandbox_kernel.child.harness import SCRIPT_NAME

# Verdicts a script that Python runs to a zero exit status may get, and those of a non-zero exit.
CLEAN_EXIT = frozenset({Verdict.SAT, Verdict.UNSAT, Verdict.UNKNOWN, Verdict.NO_CHECK})
FAILED_EXIT = frozenset({Verdict.RUNTIME_ERROR, Verdict.SYNTAX_ERROR})


@dataclass(frozen=True)
class PlainRun:
    returncode: int
    stdout: str
    stderr: str


def run_plain(script: str, timeout_s: float = 60) -> PlainRun:
    with tempfile.TemporaryDirectory(prefix="z3sb-plain-") as folder:
        (Path(folder) / SCRIPT_NAME).write_text(script, encoding="utf-8")
        done = subprocess.run([sys.executable, SCRIPT_NAME], cwd=folder, capture_output=True,
                              text=True, timeout=timeout_s, check=False)
    return PlainRun(done.returncode, done.stdout, done.stderr)


def disagreement(plain: PlainRun, candidate: CandidateResult) -> str | None:
    """Why the sandboxed run differs from the plain one, or None: identical stdout, and an exit
    status that matches the verdict (zero: a check's verdict or no_check; non-zero: an error)."""
    if candidate.stdout != plain.stdout:
        return f"stdout differs:\nplain:   {plain.stdout!r}\nsandbox: {candidate.stdout!r}"
    expected = CLEAN_EXIT if plain.returncode == 0 else FAILED_EXIT
    if candidate.verdict not in expected:
        return (f"python exited {plain.returncode} ({plain.stderr[-300:]!r}) but the verdict is "
                f"{candidate.verdict} ({candidate.reason})")
    return None
