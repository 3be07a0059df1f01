"""SMT-LIB candidates are data, end to end: a script that shapes z3's output cannot change its
row's verdict, model or objectives, nor out-vote an honest candidate (child/smt2.py,
child/verify.py)."""

from __future__ import annotations

import pytest

from z3sandbox_kernel import Verdict

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("zygote_is_clean")]

DUMPED = ("(set-option :dump-models true)\n(declare-const |a\nunsat\n| Int)\n"
          "(declare-const x Int)\n(assert (> x 3))\n(assert (< x 10))\n(check-sat)\n")
OBJECTIVE = ("(declare-const x Int)\n(declare-const |q) (x 999999999) (| Int)\n(assert (<= x 10))\n"
             "(assert (= |q) (x 999999999) (| 1))\n(maximize |q) (x 999999999) (|)\n(maximize x)\n"
             "(check-sat)\n(get-objectives)\n")
HONEST = "(declare-const x Int)\n(assert (> x 3))\n(assert (< x 10))\n(check-sat)\n(get-model)\n"


def test_two_dumped_models_naming_unsat_are_two_verified_sat_rows(sandbox):
    result = sandbox.run([DUMPED, DUMPED, HONEST], language="smt2")
    assert all("\nunsat\n" in candidate.stdout for candidate in result[:2])
    assert [candidate.verdict for candidate in result] == [Verdict.SAT] * 3
    assert all(candidate.verified is True and 3 < candidate.model["x"] < 10 for candidate in result)
    assert result.verdict is Verdict.SAT


def test_a_quoted_name_shows_no_objective_value_of_its_own(sandbox):
    [candidate] = sandbox.run(OBJECTIVE, language="smt2")
    assert "(x 999999999)" in candidate.stdout  # z3 prints the name; no value is read from it
    assert candidate.verdict is Verdict.SAT and candidate.verified is True
    assert candidate.model["x"] == 10
    assert [(goal["term"], goal["direction"], goal["value"]) for goal in candidate.objectives] == [
        ("|q) (x 999999999) (|", "maximize", 1), ("x", "maximize", 10)]
