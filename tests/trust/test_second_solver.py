"""A second solver adds, never takes away (child/confirm.py, zygote/verifiers.py): z3's word on an
answer is sent before cvc5's, cvc5 gets a budget of its own, and z3's confirmation stands when
cvc5 cannot decide, cannot parse, or runs out of its budget."""

from __future__ import annotations

import pytest

from z3sandbox_kernel import Limits, Verdict

pytestmark = [pytest.mark.timeout(180), pytest.mark.usefixtures("zygote_is_clean")]

# Cauchy-Schwarz, refuted: z3's nlsat takes milliseconds, cvc5 does not decide it in seconds.
CAUCHY_SCHWARZ = ("(declare-fun a () Real)(declare-fun b () Real)(declare-fun c () Real)"
                  "(declare-fun d () Real)\n(assert (< (* (+ (* a a) (* b b)) (+ (* c c) (* d d)))"
                  " (* (+ (* a c) (* b d)) (+ (* a c) (* b d)))))\n(check-sat)\n")


def test_z3s_confirmation_stands_when_cvc5_runs_out_of_its_own_budget(sandbox):
    [candidate] = sandbox.run(CAUCHY_SCHWARZ, language="smt2", cross_check="cvc5",
                              limits=Limits(timeout_s=5, wall_s=20, verify_s=1))
    assert candidate.verdict is Verdict.UNSAT and not candidate.disputed
    assert candidate.confirmed_by == ("z3",), candidate.reason
    assert "not cross-checked" in candidate.reason


def test_both_solvers_confirm_what_both_decide(sandbox):
    text = "(declare-fun x () Int)\n(assert (= (* x x) 2))\n(check-sat)\n"
    [candidate] = sandbox.run(text, language="smt2", cross_check="cvc5",
                              limits=Limits(timeout_s=5, wall_s=20, verify_s=10))
    assert candidate.verdict is Verdict.UNSAT and candidate.confirmed_by == ("z3", "cvc5")


def test_z3s_confirmation_stands_when_cvc5_cannot_read_the_assertions(sandbox):
    script = "a, b = Bools('a b')\ns.add(PbEq([(a, 1), (b, 1)], 1))\nprint(s.check())\n"
    [candidate] = sandbox.run(script, cross_check="cvc5", limits=Limits(timeout_s=5, wall_s=20))
    assert candidate.verdict is Verdict.SAT and candidate.confirmed_by == ("z3",)
    assert "not cross-checked" in candidate.reason
