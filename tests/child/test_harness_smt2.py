"""The harness in a real forked child: what an SMT-LIB candidate's report says (tests/child/running.py
forks it).
"""

from __future__ import annotations

import pytest

from .running import DATA, run_child

pytestmark = pytest.mark.usefixtures("prepared")


def test_smt2_sat_reports_model_and_assertions() -> None:
    run = run_child("(declare-const x Int)\n(assert (> x 41))\n(assert (< x 43))\n(check-sat)\n"
                    "(get-model)\n", language="smt2")
    assert run.report["outcome"] == "sat" and run.report["model"] == {"x": 42}
    assert "(declare-fun x () Int)" in run.report["assertions_smt2"]


def test_smt2_reports_the_last_check_sat_after_push_and_pop() -> None:
    run = run_child("(declare-const x Int)\n(push)\n(assert (> x 1))\n(assert (< x 0))\n"
                    "(check-sat)\n(pop)\n(assert (= x 5))\n(check-sat)\n(push)\n(assert false)\n",
                    language="smt2")
    assert run.report["outcome"] == "sat" and run.report["model"] == {"x": 5}


def test_smt2_check_sat_assuming_uses_its_literals() -> None:
    run = run_child("(declare-const p Bool)\n(assert (=> p false))\n(check-sat-assuming (p))\n",
                    language="smt2")
    assert run.report["outcome"] == "unsat"


def test_smt2_syntax_error_has_line_and_column() -> None:
    run = run_child((DATA / "QF_LIA__issue_159.smt2").read_text(), language="smt2")
    unclosed = run_child("(declare-const x Int)\n(assert (> x 1)\n", language="smt2")
    assert run.report["outcome"] == "syntax_error"
    assert (run.report["line"], run.report["column"]) == (4, 20)
    assert "unknown constant a" in run.report["reason"]
    assert unclosed.report["outcome"] == "syntax_error" and unclosed.report["line"] == 2


@pytest.mark.parametrize("name, outcome", [
    ("QF_ABV__a268test0002.smt2", "sat"),
    ("QF_AUFLIA__array_incompleteness1.smt2", "unsat"),
    ("QF_LIRA__lira1.smt2", "sat"),
    ("QF_UF__test0.smt2", "sat"),
])
def test_smt2_corpus_files_give_their_status(name: str, outcome: str) -> None:
    run = run_child((DATA / name).read_text(), language="smt2")
    assert run.report["outcome"] == outcome


def test_smt2_optimization_commands_use_optimize() -> None:
    run = run_child("(declare-const x Int)\n(assert (< x 10))\n(maximize x)\n(check-sat)\n",
                    language="smt2")
    assert run.report["model"] == {"x": 9}


def test_smt2_optimization_reports_the_objectives() -> None:
    run = run_child("(declare-const x Int)\n(declare-const y Int)\n(assert (< x 10))\n"
                    "(assert (< y 5))\n(maximize (+ x y))\n(minimize x)\n"
                    "(assert-soft (> x 100) :weight 2 :id g)\n(assert-soft (> y 100) :id g)\n"
                    "(assert-soft (< x -100))\n(check-sat)\n", language="smt2")
    assert run.stdout == "sat\n"
    assert run.report["objectives"] == [
        {"term": "(+ x y)", "direction": "maximize", "value": 13, "term_smt2": "(+ x y)"},
        {"term": "x", "direction": "minimize", "value": 9, "term_smt2": "x"},
        {"term": "g", "direction": "soft", "value": 3},
        {"term": "", "direction": "soft", "value": 1}]
