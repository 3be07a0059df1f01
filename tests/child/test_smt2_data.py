"""An SMT-LIB candidate is data: what it makes z3 print never decides its verdict, model or
objectives (child/smt2.py).  Each script here shapes the front end's output; the report must hold
what z3's API says of the last check, and the output must stay what z3 prints."""

from __future__ import annotations

import pytest

from tests.smt2_reference import z3_prints

from .running import run_child

SAT_BODY = "(declare-const x Int)\n(assert (> x 3))\n(assert (< x 10))\n"
UNSAT_BODY = "(declare-const x Int)\n(assert (> x 3))\n(assert (< x 0))\n"


pytestmark = pytest.mark.usefixtures("prepared")


def test_a_dumped_model_with_a_name_holding_unsat_leaves_the_check_sat() -> None:
    script = ("(set-option :dump-models true)\n(declare-const |a\nunsat\n| Int)\n" + SAT_BODY
              + "(check-sat)\n")
    run = run_child(script, language="smt2")
    assert run.stdout == z3_prints(script) and "\nunsat\n" in run.stdout
    assert run.report["outcome"] == "sat" and 3 < run.report["model"]["x"] < 10


def test_a_quoted_name_cannot_add_an_objective_value() -> None:
    script = ("(declare-const x Int)\n(declare-const |q) (x 999999999) (| Int)\n"
              "(assert (<= x 10))\n(assert (= |q) (x 999999999) (| 1))\n(maximize |q) (x 999999999) (|)\n"
              "(maximize x)\n(check-sat)\n(get-objectives)\n")
    run = run_child(script, language="smt2")
    assert run.stdout == z3_prints(script) and "(x 999999999)" in run.stdout
    assert run.report["objectives"] == [
        {"term": "|q) (x 999999999) (|", "direction": "maximize", "value": 1,
         "term_smt2": "|q) (x 999999999) (|"},
        {"term": "x", "direction": "maximize", "value": 10, "term_smt2": "x"}]
    assert run.report["model"]["x"] == 10


@pytest.mark.parametrize("before, after", [
    ('(echo "unsat")\n', '(echo "unsat")\n'),
    ("(set-option :print-success true)\n", "(get-value (x))\n"),
    ('(set-option :regular-output-channel "stderr")\n', ""),  # the answer leaves stdout
    ("(set-option :produce-models false)\n", ""),  # no model for the harness to ask for
    ("(set-option :pp.decimal true)\n(set-option :model.compact false)\n", "(get-model)\n"),
    ("(set-option :error-behavior immediate-exit)\n", "(get-info :reason-unknown)\n"),
])
def test_output_options_and_commands_do_not_change_a_sat_check(before: str, after: str) -> None:
    script = before + SAT_BODY + "(check-sat)\n" + after
    run = run_child(script, language="smt2")
    assert run.stdout == z3_prints(script)
    assert run.report["outcome"] == "sat" and 3 < run.report["model"]["x"] < 10


@pytest.mark.parametrize("before, after", [
    ('(echo "sat")\n', '(echo "sat")\n(echo "(model (define-fun x () Int 5))")\n'),
    ("(set-option :error-behavior immediate-exit)\n", ""),  # no private query ends the run
    ("(declare-const |sat\n(| Int)\n(set-option :dump-models true)\n", "(get-model)\n"),
    # The (check-sat) runs alone (smt2_front.py); its response read only when it is exactly unsat:
    ("(set-option :print-success true)\n", "(get-info :reason-unknown)\n"),
    ('(set-option :regular-output-channel "stderr")\n', ""),  # run whole: the answer leaves stdout
    ("(set-option :produce-unsat-cores true)\n", "(get-unsat-core)\n"),
])
def test_output_options_and_commands_do_not_change_an_unsat_check(before: str, after: str) -> None:
    script = before + UNSAT_BODY + "(check-sat)\n" + after
    run = run_child(script, language="smt2")
    assert run.stdout == z3_prints(script)
    asked_core = {"core_names": [], "unsat_core": []} if "get-unsat-core" in after else {}
    assert run.report == {"outcome": "unsat", "v": 1, "checks_made": 1, **asked_core}


def test_the_checked_assertions_follow_the_scopes_and_the_exit() -> None:
    script = ("(declare-const x Int)\n(push)\n(assert (> x 100))\n(pop)\n(assert (< x 0))\n"
              "(check-sat-assuming ((> x -5)))\n(exit)\n(assert false)\n(check-sat)\n")
    run = run_child(script, language="smt2")
    assert run.stdout == z3_prints(script)
    assert run.report["outcome"] == "sat" and -5 < run.report["model"]["x"] < 0
    assert "100" not in run.report["assertions_smt2"]


def test_a_file_the_script_wrote_and_included_leaves_its_check_unreported(tmp_path) -> None:
    """(include) reads assertions the text does not show: no verdict is made up from the text."""
    written = tmp_path / "more.smt2"
    script = (f'(declare-const x Int)\n(assert (> x 3))\n(set-option :regular-output-channel "{written}")\n'
              f'(echo "(assert (< x 0))")\n(include "{written}")\n(check-sat)\n')
    run = run_child(script, language="smt2")
    assert run.report["outcome"] == "unknown" and "(include ...)" in run.report["reason"]
    assert "model" not in run.report
