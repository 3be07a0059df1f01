"""z3's own semantics in every check (child/verify.py, child/observer.py): a division or modulo by
zero, fp.to_ubv out of range and the like are functions each model interprets its own way, so a
true model is never called invalid; a check's assumptions are checked with it; an answer no
checker can replay (a user propagator's) is unconfirmed, never disputed."""

from __future__ import annotations

import pytest

from z3sandbox_kernel import Limits, Verdict

from .fuzz import plain_python, plain_smt2

pytestmark = [pytest.mark.timeout(180), pytest.mark.usefixtures("zygote_is_clean")]

LIMITS = Limits(timeout_s=5, wall_s=20)
PARTIAL = {
    "int division by a variable": "x, y = Ints('x y')\ns.add(x / y == 3, x < 2, x > -2)\n",
    "real division by zero": "a, b = Reals('a b')\ns.add(a / b == 2, a == 0)\n",
    "modulo by zero": "x = Int('x')\ns.add(x % 0 == 3)\n",
    "fp.to_ubv of infinity": "f = FP('f', Float16())\n"
                             "s.add(fpIsInf(f), fpToUBV(RNE(), f, BitVecSort(8)) == 7)\n",
    "fp.to_real of NaN": "f = FP('f', Float16())\ns.add(fpIsNaN(f), fpToReal(f) == 5)\n",
}


@pytest.mark.parametrize("script", list(PARTIAL.values()), ids=list(PARTIAL))
def test_a_model_true_by_z3s_semantics_of_a_partial_operation_is_confirmed(sandbox, script):
    script += "print(s.check())\n"
    [plain] = plain_python([script])
    assert plain.answer == "sat"
    [candidate] = sandbox.run(script, limits=LIMITS)
    assert candidate.verdict is Verdict.SAT, candidate.reason
    assert candidate.verified is True and candidate.confirmed_by == ("z3",)


@pytest.mark.parametrize("assertion", ["(= (div x 0) 1)", "(= (mod x 0) 4)", "(= (/ r 0.0) 1.5)"])
def test_an_smt2_division_by_zero_is_free_as_z3_has_it(sandbox, assertion):
    text = f"(declare-const x Int)\n(declare-const r Real)\n(assert {assertion})\n(check-sat)\n"
    [plain] = plain_smt2([text])
    [candidate] = sandbox.run(text, language="smt2", limits=LIMITS)
    assert plain.answer == "sat" and candidate.verdict is Verdict.SAT
    assert candidate.confirmed_by == ("z3",)


@pytest.mark.parametrize(("script", "answer"), [
    ("a = Bool('a')\ns.add(Not(a))\nprint(s.check(a))\n", "unsat"),
    ("a, b = Bools('a b')\ns.add(Or(a, b))\nprint(s.check(Not(a)))\n", "sat"),
    ("x = Int('x')\ns.add(x > 0)\nprint(s.check(x < 0, x > -5))\n", "unsat"),
])
def test_a_check_under_assumptions_is_confirmed_with_them(sandbox, script, answer):
    [candidate] = sandbox.run(script, limits=LIMITS)
    assert candidate.verdict is Verdict(answer) and not candidate.disputed
    assert candidate.confirmed_by == ("z3",), candidate.reason


def test_an_smt2_check_with_literals_is_confirmed_with_them(sandbox):
    text = "(declare-const a Bool)\n(assert (not a))\n(check-sat a)\n"
    [candidate] = sandbox.run(text, language="smt2", limits=LIMITS)
    assert candidate.verdict is Verdict.UNSAT and not candidate.disputed
    assert candidate.confirmed_by == ("z3",)


PROPAGATOR = """
class Refuser(UserPropagateBase):
    def __init__(self, s):
        UserPropagateBase.__init__(self, s)
        self.add_fixed(self.on_fixed)
    def push(self):
        pass
    def pop(self, n):
        pass
    def on_fixed(self, term, value):
        self.conflict(deps=[term])
x = Bool('x')
Refuser(s).add(x)
s.add(x)
print(s.check())
"""


def test_a_user_propagators_unsat_is_unconfirmed_never_disputed(sandbox):
    [plain] = plain_python([PROPAGATOR])
    assert plain.answer == "unsat"
    [candidate] = sandbox.run(PROPAGATOR, limits=LIMITS)
    assert candidate.verdict is Verdict.UNSAT
    assert not candidate.confirmed_by and not candidate.disputed
    assert "not confirmed: a user propagator took part" in candidate.reason


def test_an_answer_whose_assertions_only_z3_read_says_why_it_is_unconfirmed(sandbox):
    script = "s.from_string('(declare-const x Int)(assert (> x 1))(assert (< x 0))')\nprint(s.check())\n"
    [candidate] = sandbox.run(script, limits=LIMITS)
    assert candidate.verdict is Verdict.UNSAT
    assert candidate.confirmed_by == ("z3",) or "not confirmed: " in candidate.reason
