"""Structured errors: every failed candidate says {type, line, message} about the script it was sent.

Real candidates in a real zygote, at both isolation levels (the ``sandbox`` fixture).
"""

from __future__ import annotations

import pytest

from tests.host.candidates import one
from z3sandbox_kernel import Limits, Verdict
from z3sandbox_kernel.contracts.results import CandidateResult
from z3sandbox_kernel.jupyter.scripts import notebook_name_hint

pytestmark = [pytest.mark.timeout(60), pytest.mark.usefixtures("zygote_is_clean")]

QUICK = Limits(timeout_s=1, wall_s=5, cpu_s=2, memory_mb=256, output_kb=8)
HARD = "x, y, z = Ints('x y z')\ns.add(x > 0, y > 0, z > 0)\ns.add(x**3 + y**3 == z**3)\nr = s.check()\n"


def test_an_answer_has_no_error(sandbox):
    candidate = one(sandbox, "x = Int('x')\ns.add(x > 1)\ns.check()\n", limits=QUICK)
    assert candidate.verdict is Verdict.SAT
    assert candidate.error is None


@pytest.mark.parametrize("script, verdict, kind, line, in_message, in_stderr", [
    pytest.param("x = Int('x')\ns.add(x > 1\n\n", Verdict.SYNTAX_ERROR, "SyntaxError", 2, "never closed", "",
                 id="syntax_error"),
    pytest.param("import ctypes\nx = 1\nctypes.string_at(0)\n", Verdict.CRASHED, "crashed", 3, "",
                 'File "candidate.py", line 3', id="crash"),  # faulthandler's dump
])
def test_an_error_names_its_kind_and_the_line_it_stopped_on(sandbox, script, verdict, kind, line, in_message,
                                                             in_stderr):
    candidate = one(sandbox, script, limits=QUICK)
    assert candidate.verdict is verdict
    assert (candidate.error["type"], candidate.error["line"]) == (kind, line)
    assert in_message in candidate.error["message"] and in_stderr in candidate.stderr


def test_an_exception_names_its_type_and_line_and_its_traceback_names_candidate_py(sandbox):
    candidate = one(sandbox, "x = Int('x')\ns.add(x > 1)\nundefined_helper(x)\n", limits=QUICK)
    assert candidate.verdict is Verdict.RUNTIME_ERROR
    assert candidate.error == {"type": "NameError", "line": 3,
                               "message": "name 'undefined_helper' is not defined"}
    assert 'File "candidate.py", line 3, in <module>' in candidate.stderr
    assert "z3sandbox-" not in candidate.stderr  # no scratch path


def test_a_failed_script_shows_no_exit_code(sandbox):
    candidate = one(sandbox, "raise ValueError('no')\n", limits=QUICK)
    assert candidate.verdict is Verdict.RUNTIME_ERROR
    assert candidate.exit_code is None


def test_a_solver_timeout_names_the_check_line(sandbox):
    candidate = one(sandbox, HARD, limits=QUICK)
    assert candidate.verdict is Verdict.TIMEOUT and candidate.kill == "solver"
    assert candidate.error["type"] == "timeout"
    assert candidate.error["line"] == 4
    assert "check() on line 4" in candidate.error["message"]
    assert candidate.exit_code is None


def test_the_cpu_limit_still_ends_the_candidate(sandbox):
    """faulthandler is not on SIGXCPU: its chained re-send is refused by seccomp (a limit's signal
    sent to itself); the harness answers it with the script's stack, and the zygote kills."""
    candidate = sandbox.run("n = 0\nwhile True:\n    n += 1\n", limits=QUICK.replace(wall_s=120))[0]
    assert candidate.verdict is Verdict.CPU_LIMIT and candidate.error["type"] == "cpu_limit"
    assert candidate.reason.startswith("CPU-time limit of 2 s (SIG")


def test_a_host_made_failure_has_an_error_too():
    candidate = CandidateResult(index=0, verdict=Verdict.INTERNAL_ERROR, reason="the zygote died")
    assert candidate.error == {"type": "internal_error", "line": None, "message": "the zygote died"}
    assert CandidateResult(index=0, verdict=Verdict.CANCELLED).error is None


def test_a_name_error_on_a_notebook_variable_says_the_sandbox_cannot_see_it():
    error = {"type": "NameError", "line": 2, "message": "name 'limit' is not defined"}
    candidate = CandidateResult(index=0, verdict=Verdict.RUNTIME_ERROR, reason="NameError: ...",
                                error=dict(error))
    notebook_name_hint(candidate, {"limit": 5})
    assert "notebook variables are not visible inside the sandbox" in candidate.error["message"]
    assert "notebook variables" in candidate.reason
    other = CandidateResult(index=0, verdict=Verdict.RUNTIME_ERROR, error=dict(error))
    notebook_name_hint(other, {"something_else": 1})
    assert other.error == error
