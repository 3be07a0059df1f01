"""Checks that are checks, errors that are the script's (child/smt2.py): every check command is
counted and answered, z3's command errors are named as z3 names them, its positions are the ones
``z3 file.smt2`` prints, and what the sandbox could not do is the sandbox's to say."""

from __future__ import annotations

import pytest

from z3sandbox_kernel import Limits, Verdict

from .fuzz import plain_smt2

pytestmark = [pytest.mark.timeout(180), pytest.mark.usefixtures("zygote_is_clean")]

LIMITS = Limits(timeout_s=5, wall_s=20)


@pytest.mark.parametrize("check", ["(check-sat-using smt)", "(check-sat-using (then simplify smt))",
                                   "(|check-sat-using| smt)"])
def test_check_sat_using_is_a_check_answered_as_z3_answered_it(sandbox, check):
    text = f"(declare-const x Int)\n(assert (> x 1))\n{check}\n"
    [candidate] = sandbox.run(text, language="smt2", limits=LIMITS)
    assert candidate.verdict is Verdict.SAT and candidate.confirmed_by == ("z3",)
    assert candidate.checks_made == 1


@pytest.mark.parametrize(("text", "message"), [
    ("(declare-const x Int)\n(get-model)\n", "model is not available"),
    ("(declare-const x Int)\n(check-sat)\n(get-unsat-core)\n", "unsat core construction is not enabled"),
    ("(push 1)\n(pop 3)\n(check-sat)\n", "invalid pop command"),
])
def test_a_command_z3_read_and_could_not_carry_out_is_a_runtime_error_in_z3s_words(
        sandbox, text, message):
    [plain] = plain_smt2([text])
    [candidate] = sandbox.run(text, language="smt2", limits=LIMITS)
    if "(check-sat)\n(get" in text:  # after the last check: only in the output, as in z3
        assert candidate.verdict is Verdict.SAT
    else:
        assert candidate.verdict is Verdict.RUNTIME_ERROR
        assert candidate.error is not None and candidate.error["type"] == "z3 error"
        assert message in candidate.error["message"] and message in candidate.reason
    assert candidate.stdout == plain.output


@pytest.mark.parametrize("text", [
    "(assert x)\n",
    "(declare-const x Int)\n(check-sat) (assert y)\n",
    "(declare-const x Int) (check-sat)\n(assert (> x {))\n(check-sat)\n",
    "(declare-const x Int)\n{\n(assert (> x 1))\n(check-sat)\n(get-model)\n",
    "(echo \"a\")\n\n\n(check-sat)\n   (echo \"b\") (get-model)\n(assert z)\n",
])
def test_z3s_positions_and_output_are_those_of_z3s_own_front_end(sandbox, text):
    [plain] = plain_smt2([text])
    [candidate] = sandbox.run(text, language="smt2", limits=LIMITS)
    assert candidate.stdout == plain.front_end
    if candidate.verdict is Verdict.SYNTAX_ERROR and candidate.error is not None and "{" not in text:
        assert candidate.error["message"] in plain.output


def test_a_solver_timeout_names_the_line_of_its_check(sandbox):
    hard = ("(declare-const x Int)\n(declare-const y Int)\n(declare-const z Int)\n"
            "(declare-const n Int)\n(assert (and (> x 0) (> y 0) (> z 0) (> n 2)))\n"
            "(assert (= (+ (^ x n) (^ y n)) (^ z n)))\n\n(check-sat)\n")
    [candidate] = sandbox.run(text := hard, language="smt2", limits=LIMITS.replace(timeout_s=0.3))
    assert candidate.verdict in (Verdict.TIMEOUT, Verdict.UNKNOWN), text
    assert candidate.error is None or candidate.error["line"] == 8
    if candidate.verdict is Verdict.TIMEOUT:
        assert candidate.error is not None and candidate.error["line"] == 8


def test_what_the_sandbox_could_not_load_is_the_sandboxs_to_say(sandbox):
    """z3's API reads it; the harness cannot load it into a solver of that logic.  No user code
    ran: not a runtime error of the script's."""
    [candidate] = sandbox.run("(set-logic QF_LIA)(declare-fun y () Real)(assert (> y 1.5))",
                              language="smt2", limits=LIMITS)
    assert candidate.verdict is Verdict.NO_CHECK
    assert "the sandbox could not load" in candidate.reason


def test_an_enumeration_killed_by_a_limit_counts_every_check_it_made(sandbox):
    script = ("x = Int('x')\ns.add(x > 0)\nn = 0\nwhile s.check() == sat:\n"
              "    n += 1\n    s.add(x != s.model()[x])\n    if n == 250:\n        while True:\n"
              "            pass\n")
    [candidate] = sandbox.run(script, limits=LIMITS.replace(wall_s=3))
    assert candidate.verdict is Verdict.TIMEOUT
    assert candidate.checks_made == 250 and len(candidate.checks) == 100
    assert "100 of its 250 checks kept" in candidate.reason


@pytest.mark.parametrize("models", [99, 100, 101])
def test_an_enumeration_at_the_checks_cap_keeps_its_checks(sandbox, models):
    script = (f"x = Int('x')\ns.add(x >= 0, x < {models})\nwhile s.check() == sat:\n"
              "    m = s.model()\n    print(m[x])\n    s.add(x != m[x])\n")
    [candidate] = sandbox.run(script, limits=LIMITS.replace(wall_s=60))
    assert candidate.verdict is Verdict.UNSAT, candidate.reason
    assert candidate.checks_made == models + 1 and len(candidate.checks) == min(models + 1, 100)


CORE = ("(set-option :produce-unsat-cores true)\n(declare-const x Int)\n(assert (! (> x 1) :named a))\n"
        "(assert (! (< x 0) :named |b c|))\n(assert (! (> x 5) :named c))\n(assert (> x -10))\n"
        "(check-sat)\n(get-unsat-core)\n")


def test_an_smt2_unsat_core_is_confirmed_as_z3_printed_it(sandbox):
    [plain] = plain_smt2([CORE])
    [candidate] = sandbox.run(CORE, language="smt2", limits=LIMITS)
    assert candidate.stdout == plain.front_end == "unsat\n(a |b c|)\n"
    assert candidate.verdict is Verdict.UNSAT and candidate.confirmed_by == ("z3",)
    assert [tuple(entry) for entry in candidate.unsat_core] == [(3, "a"), (4, "b c")]
