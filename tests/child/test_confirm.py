"""Confirming an answer in a process that ran no user code (child/confirm.py), with real z3 and the
candidate's own report as the harness writes it."""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest

from tests.verifying import candidate, verified
from z3sandbox_kernel.protocol import join_pairs

from .running import run_child

needs_cvc5 = pytest.mark.skipif(importlib.util.find_spec("cvc5") is None, reason="the [cvc5] extra")
UNSAT = "x = Int('x')\ns = Solver()\ns.add(x > 1)\ns.add(x < 0)\nprint(s.check())\n"
SAT_TEXT = "(declare-fun x () Int)(assert (> x 1))(assert (< x 5))"


pytestmark = pytest.mark.usefixtures("prepared")


def confirm(report: dict[str, Any], verify_s: float | None = None,
            **request: object) -> dict[str, Any]:
    """What a verifier says of ``report`` (a Python candidate's, cores asked), asked as the zygote
    asks (jobs.verify_request)."""
    return dict(verified(candidate(language="python", cores=True, **request), report, verify_s))


def test_an_unsat_is_checked_again_from_the_assertions_the_candidate_checked() -> None:
    report = run_child(UNSAT).report
    assert report["outcome"] == "unsat" and "(> x 1)" in report["assertions_smt2"]
    assert confirm(report)["confirmed_by"] == ["z3"]


def test_an_unsat_claimed_for_satisfiable_assertions_is_disputed() -> None:
    said = confirm({"outcome": "unsat", "assertions_smt2": SAT_TEXT})
    assert "confirmed_by" not in said
    assert said["disputed"] == "z3 finds the assertions the candidate checked satisfiable"


def test_tracked_assertions_are_checked_as_z3_checked_them() -> None:
    """assert_and_track(f, p): z3 assumes p at the check, so the unsat is re-checked with p too."""
    report = run_child("x = Int('x')\np, q = Bools('p q')\ns = Solver()\ns.assert_and_track(x > 1, p)\n"
                       "s.assert_and_track(x < 0, q)\nprint(s.check())\n").report
    assert confirm(report)["confirmed_by"] == ["z3"]


def test_a_core_is_confirmed_when_it_is_unsat_by_itself() -> None:
    report = run_child("x, y = Ints('x y')\ns = Solver()\ns.add(y == 3)\ns.add(x > 1)\ns.add(x < 0)\n"
                       "print(s.check())\n", cores=True).report
    assert [line for line, _ in report["unsat_core"]] == [4, 5]
    assert sorted(report["core_smt2"]) == ["(assert (< x 0))", "(assert (> x 1))"]
    assert confirm(report)["confirmed_by"] == ["z3"]


def test_a_core_that_is_not_unsat_by_itself_or_not_checked_is_disputed() -> None:
    text = "(declare-fun x () Int)(assert (> x 1))(assert (< x 0))"
    partial = confirm({"outcome": "unsat", "assertions_smt2": text, "core_smt2": ["(assert (> x 1))"]})
    assert partial["disputed"] == "z3 finds the reported core satisfiable by itself"
    foreign = confirm({"outcome": "unsat", "assertions_smt2": text,
                       "core_smt2": ["(assert (> x 1))", "(assert (< x (- 5)))"]})
    assert foreign["disputed"] == "the reported core holds a formula the candidate never checked"


def test_a_core_entry_cannot_smuggle_a_command() -> None:
    said = confirm({"outcome": "unsat", "assertions_smt2": "(declare-fun x () Int)(assert (> x 1))"
                    "(assert (< x 0))", "core_smt2": ['(assert (> x 1)) (echo "hi")']})
    assert "confirmed_by" not in said and "not one assertion" in said["unconfirmed"]


def test_an_unsat_under_assumptions_is_checked_again_with_them() -> None:
    """A check's assumptions hold for that check: its assertions are the solver's and these, so
    the re-check is of what the script checked (without them, an honest unsat would look
    disputed)."""
    report = run_child("x = Int('x')\np = Bool('p')\ns = Solver()\ns.add(Implies(p, x < 0), x > 1)\n"
                       "print(s.check(p))\n").report
    assert report["outcome"] == "unsat" and report["assertions_smt2"].endswith("(assert p)\n")
    said = confirm(report)
    assert said["confirmed_by"] == ["z3"] and "disputed" not in said


def test_an_objective_is_shown_optimal_with_the_models_value() -> None:
    report = run_child("x, y = Ints('x y')\no = Optimize()\no.add(x < 10, y < x, y > 0)\n"
                       "o.maximize(x + y)\no.minimize(y)\nprint(o.check())\n").report
    said = confirm(report)
    assert said["confirmed_by"] == ["z3"]
    assert said["checked_objectives"] == [{"value": 17, "optimal": True, "checked": True},
                                          {"value": 8, "optimal": True, "checked": True}]


def test_an_objective_with_a_better_value_is_not_optimal() -> None:
    said = confirm({"outcome": "sat", "assertions_smt2": SAT_TEXT,
                    "model_smt2": join_pairs([("x", "3")]),
                    "objectives": [{"term_smt2": "x", "direction": "maximize", "value": 3},
                                   {"term_smt2": "x)) (echo |", "direction": "maximize", "value": 3}]})
    assert said["checked_objectives"] == [{"value": 3, "optimal": False, "checked": True},
                                          {"value": 3, "optimal": None, "checked": False}]


def test_a_check_out_of_budget_is_not_confirmed() -> None:
    said = confirm({"outcome": "unsat", "assertions_smt2": "(declare-fun x () Int)(assert (< x 0))"},
                   verify_s=0.0)
    assert "confirmed_by" not in said
    assert said["unconfirmed"].startswith("not confirmed: its check ran out of the verification budget")


@needs_cvc5
def test_cvc5_confirms_both_answers_of_a_small_pair() -> None:
    sat = run_child("x, y = Ints('x y')\ns = Solver()\ns.add(x > 1, y == 2 * x, x < 5)\n"
                    "print(s.check())\n").report
    assert confirm(sat, cross_check="cvc5")["confirmed_by"] == ["z3", "cvc5"]
    assert confirm(run_child(UNSAT).report, cross_check="cvc5")["confirmed_by"] == ["z3", "cvc5"]


@needs_cvc5
def test_text_cvc5_cannot_parse_is_not_cross_checked_and_changes_nothing_else() -> None:
    text = "(declare-fun x () (_ BitVec 8))(assert (bvumul_noovfl x #x02))(assert (= x #x01))"
    said = confirm({"outcome": "sat", "assertions_smt2": text, "model_smt2": join_pairs([("x", "#x01")])},
                   cross_check="cvc5")
    assert said["verified"] is True and said["confirmed_by"] == ["z3"] and "disputed" not in said
    assert said["unconfirmed"].startswith("not cross-checked: cvc5 could not parse it")


SMT2_CORE = ("(declare-const x Int)\n(assert (! (> x 1) :named a))\n(assert (! (< x 0) :named b))\n"
             "(assert (! (> x 5) :named c))\n(check-sat)\n(get-unsat-core)\n")


@pytest.mark.parametrize(("names", "word", "said"), [
    (["a", "b"], "confirmed_by", ["z3"]),
    (["a", "c"], "disputed", "z3 finds the reported unsat core satisfiable by itself"),
    (["a", "zz"], "unconfirmed",
     "not confirmed: the unsat core names zz, which no assertion of the script is named"),
])
def test_an_smt2_core_is_checked_by_itself_from_the_script(names, word, said) -> None:
    report = verified(candidate(SMT2_CORE, cores=True), {"outcome": "unsat", "core_names": names})
    assert report.get(word) == said
