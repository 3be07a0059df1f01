"""Every verdict of the Verdict enum, produced by a real candidate in a real zygote, with its reason:
the solver's outcomes, the script's errors and crashes (limits: test_verdicts_limits.py; refusals:
test_verdicts_blocked.py).

Most tests run at both isolation levels (the ``sandbox`` fixture); small limits keep them quick.
"""

from __future__ import annotations

import signal
from fractions import Fraction

import pytest
import z3

from tests.host.candidates import QUICK, one
from z3sandbox_kernel import Verdict

pytestmark = [pytest.mark.timeout(60), pytest.mark.usefixtures("zygote_is_clean")]


# ------------------------------------------------------------------------------ solver outcomes

def test_sat_reports_the_model_as_python_values(sandbox):
    candidate = one(sandbox, (
        "x = Int('x'); b = Bool('b'); r = Real('r'); st = String('st'); bv = BitVec('bv', 16)\n"
        "s.add(x == -7, b, r == Q(1, 3), st == StringVal('hi'), bv == 0xbeef)\n"
        "s.check()\n"))
    assert candidate.verdict is Verdict.SAT
    assert candidate.reason == ""
    assert candidate.model == {"x": -7, "b": True, "r": Fraction(1, 3), "st": "hi", "bv": 0xBEEF}
    assert type(candidate.model["x"]) is int
    assert type(candidate.model["b"]) is bool
    assert type(candidate.model["bv"]) is int
    assert candidate.verified is True
    assert candidate.kill is None
    assert candidate.exit_code == 0
    assert candidate.signal is None
    assert candidate.isolation["level"] == sandbox.level


def test_sat_model_of_another_sort_is_its_z3_text(sandbox):
    candidate = one(sandbox, "a = Array('a', IntSort(), IntSort()); s.add(a[1] == 5); s.check()")
    assert candidate.verdict is Verdict.SAT
    assert isinstance(candidate.model["a"], str)
    assert "5" in candidate.model["a"]


def test_unsat_has_no_model(sandbox):
    candidate = one(sandbox, "x = Int('x'); s.add(x > 2, x < 1); s.check()")
    assert candidate.verdict is Verdict.UNSAT
    assert candidate.model is None
    assert candidate.payload is None
    assert candidate.verified is None


def test_unknown_reason_is_z3s_reason_unknown(sandbox):
    script = "x, y = Reals('x y'); s.add(x ** y == 3, y > 0.5, x > 0); s.check()"
    plain = z3.Solver()
    x, y = z3.Reals("x y")
    plain.add(x**y == 3, y > 0.5, x > 0)
    assert plain.check() == z3.unknown
    candidate = one(sandbox, script)
    assert candidate.verdict is Verdict.UNKNOWN
    assert candidate.reason == plain.reason_unknown()
    assert candidate.kill is None


# A check no solver decides in a second (Fermat's last theorem): stopped by the solver timeout.
FERMAT = ("x, y, z, n = Ints('x y z n')\n"
          "s.add(x > 0, y > 0, z > 0, n > 2, x ** n + y ** n == z ** n)\n"
          "s.check()\n")


def test_solver_timeout_is_timeout_with_kill_solver(sandbox):
    candidate = one(sandbox, FERMAT, limits=QUICK.replace(timeout_s=0.3))
    assert candidate.verdict is Verdict.TIMEOUT
    assert candidate.kill == "solver"
    assert "solver timeout of 0.3 s" in candidate.reason
    assert candidate.wall_s < QUICK.wall_s


def test_solver_timeout_stops_a_check_after_many_quick_ones(sandbox):
    """The watchdog sleeps until its earliest deadline, which may be a quick check's that ended
    long ago (child/instrument.py): a hard check after a thousand of them is still stopped."""
    candidate = one(sandbox, (
        "q = Int('q')\n"
        "for i in range(1000):\n"
        "    Solver().check(q == i)\n" + FERMAT), limits=QUICK.replace(timeout_s=0.3, wall_s=60, cpu_s=30))
    assert candidate.verdict is Verdict.TIMEOUT
    assert candidate.kill == "solver"


def test_script_cannot_raise_the_solver_timeout(sandbox):
    candidate = one(sandbox, (
        "s.set('timeout', 10 ** 9)\n" + FERMAT), limits=QUICK.replace(timeout_s=0.3))
    assert candidate.verdict is Verdict.TIMEOUT
    assert candidate.kill == "solver"


# -------------------------------------------------------------------------------- script errors

def test_syntax_error_gives_line_and_column(sandbox):
    candidate = one(sandbox, "x = Int('x')\ns.add(x >)\ns.check()\n")
    assert candidate.verdict is Verdict.SYNTAX_ERROR
    assert candidate.reason.startswith("SyntaxError: ")
    assert "line 2, column 10" in candidate.reason
    assert candidate.reason.count("line 2") == 1  # said once, not repeated by the zygote


def test_runtime_error_gives_type_message_and_line(sandbox):
    candidate = one(sandbox, "x = Int('x')\ny = {}\ny['missing key']\n")
    assert candidate.verdict is Verdict.RUNTIME_ERROR
    assert candidate.reason.startswith("KeyError: ")
    assert "missing key" in candidate.reason
    assert "line 3" in candidate.reason


def test_runtime_error_traceback_names_the_script_lines(sandbox):
    candidate = one(sandbox, "def f():\n    return 1 / 0\n\nf()\n")
    assert candidate.verdict is Verdict.RUNTIME_ERROR
    assert candidate.reason.startswith("ZeroDivisionError: division by zero (line 2")
    assert "line 4 in <module>" in candidate.reason


def test_runtime_error_message_is_capped_at_2000_characters(sandbox):
    candidate = one(sandbox, "x = 1\nraise ValueError('boom' * 5000)\n")
    assert candidate.verdict is Verdict.RUNTIME_ERROR
    assert candidate.reason.startswith("ValueError: boomboom")
    assert candidate.reason.count("boom") <= 2000 // 4
    assert len(candidate.reason) < 2200


def test_runtime_error_keeps_the_line_when_the_message_is_long(sandbox):
    candidate = one(sandbox, "x = 1\nraise ValueError('boom' * 5000)\n")
    assert candidate.verdict is Verdict.RUNTIME_ERROR
    assert "line 2" in candidate.reason


# --------------------------------------------------------------------------------------- crashes

@pytest.mark.parametrize("script, exit_code, signum, reason", [
    pytest.param("import os\nos._exit(3)\n", 3, None,
                 "exited with code 3 without a result (os._exit, or a crash)", id="os_exit"),
    pytest.param("import os\nos.abort()\n", None, signal.SIGABRT, "killed by SIGABRT", id="abort"),
    pytest.param("import ctypes\nctypes.string_at(0)\n", None, signal.SIGSEGV, "killed by SIGSEGV",
                 id="segfault"),
])
def test_a_crash_is_crashed_with_its_exit_code_or_signal(sandbox, script, exit_code, signum, reason):
    candidate = one(sandbox, script)
    assert candidate.verdict is Verdict.CRASHED
    assert (candidate.exit_code, candidate.signal) == (exit_code, signum)
    assert candidate.reason == reason


def test_sys_exit_with_an_error_code_is_a_runtime_error(sandbox):
    candidate = one(sandbox, "import sys\nsys.exit(4)\n")
    assert candidate.verdict is Verdict.RUNTIME_ERROR
    assert "sys.exit(4)" in candidate.reason


# ------------------------------------------------------------------------------ everything else

def test_script_that_checks_nothing_is_no_check(sandbox):
    candidate = one(sandbox, "x = 1 + 1\nprint(x)\n")
    assert candidate.verdict is Verdict.NO_CHECK
    assert candidate.stdout == "2\n"
    assert candidate.model is None


def test_required_unknown_layer_is_a_value_error_before_anything_runs(sandbox):
    """A misspelt layer is bad input: refused with a did-you-mean, no candidate started."""
    with pytest.raises(ValueError, match="unknown layer 'no-such-layer'"):
        one(sandbox, "print('ran')\nx = Int('x'); s.add(x > 0); s.check()", require={"no-such-layer"})
    with pytest.raises(ValueError, match="did you mean 'landlock'"):
        one(sandbox, "x = Int('x')", require={"landlok"})


def test_required_layer_missing_at_process_level_is_internal_error(process_sandbox):
    candidate = one(process_sandbox, "print('ran')\nx = Int('x'); s.add(x > 0); s.check()",
                    require={"seccomp"})
    assert candidate.verdict is Verdict.INTERNAL_ERROR
    assert "seccomp" in candidate.reason
    assert "'process'" in candidate.reason
    assert candidate.stdout == ""


FORGED_SAT = '''
import json, os, struct
frame = json.dumps({{"v": 1, "type": "result", "outcome": "sat",
    "model": {{"x": {value}}},
    "assertions_smt2": "(declare-fun x () Int)(assert (> x 5))",
    "model_smt2": "x\\x00{value}\\x00"}}).encode()
os.write(3, struct.pack(">I", len(frame)) + frame)
os._exit(0)
'''


def test_forged_model_that_fails_verification_is_invalid_model(sandbox):
    """A candidate that writes its own report on fd 3 may lie about its model; the zygote re-checks
    it in a process that ran no user code."""
    candidate = one(sandbox, FORGED_SAT.format(value=1))
    assert candidate.verdict is Verdict.INVALID_MODEL
    assert candidate.verified is False
    assert "violates" in candidate.reason
    assert "(> x 5)" in candidate.reason
    assert candidate.model == {"x": 1}
    assert candidate.payload is None


def test_forged_model_that_satisfies_the_assertions_verifies(sandbox):
    candidate = one(sandbox, FORGED_SAT.format(value=9))
    assert candidate.verdict is Verdict.SAT
    assert candidate.verified is True


def test_unverified_model_is_sat_with_verified_none(sandbox):
    candidate = one(sandbox, FORGED_SAT.format(value=1), verify=False)
    assert candidate.verdict is Verdict.SAT
    assert candidate.verified is None
