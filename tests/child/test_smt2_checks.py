"""Every (check-sat) of an SMT-LIB script becomes a check as it ends (child/smt2.py, checks.py):
its verdict and line from z3's API values, and the model of a sat check, while the output stays
what z3 prints."""

from __future__ import annotations

from typing import Any

import pytest

from tests.smt2_reference import z3_prints
from z3sandbox_kernel.protocol import MAX_CHECKS, join_pairs

from .running import run_child

SAT_SAT_UNSAT = """(declare-const x Int)
(assert (and (>= x 1) (<= x 2)))
(check-sat)
(get-model)
(assert (not (= x 1)))
(check-sat) ; the second
(echo "x:") (get-model) (get-value (x))
(assert (not (= x 2)))
(check-sat)
"""
MODEL_1 = "(\n  (define-fun x () Int\n    1)\n)\n"
MODEL_2 = "(\n  (define-fun x () Int\n    2)\n)\n"


pytestmark = pytest.mark.usefixtures("prepared")


def run_smt2(script: str, timeout_s: float = 5.0) -> tuple[dict[str, Any], list[dict[str, Any]], str]:
    """The report, the check frames and the stdout of ``script``, its frames sent as they happen."""
    run = run_child(script, language="smt2", timeout_s=timeout_s, live=True)
    return run.report, run.frames, run.stdout


def checks_of(frames: list[dict[str, Any]]) -> list[tuple[str, int | None, Any]]:
    """(verdict, line, model) of each check frame, its model from the model frame."""
    found = {frame["index"]: frame["model"] for frame in frames if frame["type"] == "check_model"}
    return [(frame["verdict"], frame["line"], found.get(frame["index"]))
            for frame in frames if frame["type"] == "check"]


def test_each_check_sat_is_a_check_with_its_line_verdict_and_model() -> None:
    report, frames, stdout = run_smt2(SAT_SAT_UNSAT)
    assert stdout == z3_prints(SAT_SAT_UNSAT) == f"sat\n{MODEL_1}sat\nx:\n{MODEL_2}((x 2))\nunsat\n"
    assert checks_of(frames) == [("sat", 3, {"x": 1}), ("sat", 6, {"x": 2}), ("unsat", 9, None)]
    assert report["outcome"] == "unsat" and report["checks_made"] == 3


def test_a_check_frame_carries_no_assertions_of_the_childs() -> None:
    """The verifier reads each check's assertions from the script the zygote holds."""
    _, frames, _ = run_smt2(SAT_SAT_UNSAT)
    assert all(frame["assertions"] is None and frame["asserts"] == [] for frame in frames
               if frame["type"] == "check")


def test_checks_follow_scopes_and_assumptions() -> None:
    script = ("(declare-const x Int)\n(push 1)\n(assert (> x 5))\n(check-sat)\n(get-model)\n(pop 1)\n"
              "(assert (< x 0))\n(check-sat-assuming ((> x 0)))\n(check-sat)\n")
    report, frames, stdout = run_smt2(script)
    assert stdout == z3_prints(script)
    verdicts = checks_of(frames)
    assert [(verdict, line) for verdict, line, _ in verdicts] == [("sat", 4), ("unsat", 8), ("sat", 9)]
    assert verdicts[0][2]["x"] > 5 and verdicts[2][2]["x"] < 0
    assert report["outcome"] == "sat"


def test_output_options_and_printing_do_not_change_a_checks_verdict_or_model() -> None:
    script = ('(set-option :dump-models true)\n(set-option :pp.decimal true)\n'
              '(declare-const |a\nunsat\n| Real)\n(assert (= (* 3 |a\nunsat\n|) 1))\n(check-sat)\n'
              '(get-model)\n(echo "unsat")\n(assert (> |a\nunsat\n| 1))\n(check-sat)\n(get-model)\n')
    report, frames, stdout = run_smt2(script)
    assert stdout == z3_prints(script)
    assert checks_of(frames) == [("sat", 9, {"a\nunsat\n": {"fraction": [1, 3]}}), ("unsat", 15, None)]
    model_frame = next(frame for frame in frames if frame["type"] == "check_model")
    assert model_frame["model_smt2"] == join_pairs([("|a\nunsat\n|", "(/ 1.0 3.0)")])  # readable, not 0.3333?
    assert report["outcome"] == "unsat"


def test_an_error_on_the_next_line_is_placed_as_z3_places_it() -> None:
    """The harness's private commands after a check do not move the line or column z3 reports."""
    script = ("(declare-const x Int)\n(check-sat)  ; first\n(get-model) (get-value (x))\n"
              "(assert (> x y))\n(check-sat)\n")
    report, frames, stdout = run_smt2(script)
    assert stdout == z3_prints(script) and "line 4 column 13" in stdout
    assert report["outcome"] == "syntax_error"
    assert checks_of(frames) == [("sat", 2, {"x": 0}), ("unknown", 5, None)]


def test_a_check_whose_model_the_script_did_not_ask_for_keeps_its_verdict_only() -> None:
    """Asking z3 for a model the script did not ask for would change the later checks' models
    (smt2_front.py): the harness checks such a check itself, in a context of its own."""
    script = ("(declare-const x Int)\n(assert (> x 2))\n(check-sat)\n(get-value (x))\n"
              "(push 1)\n(assert (< x 0))\n(check-sat)\n(pop 1)\n(check-sat)\n(get-model)\n")
    report, frames, stdout = run_smt2(script)
    assert stdout == z3_prints(script)
    assert checks_of(frames) == [("sat", 3, None), ("unsat", 7, None), ("sat", 9, {"x": 3})]
    assert report["outcome"] == "sat" and report["model"] == {"x": 3}


def test_checks_past_the_cap_are_counted_not_decided() -> None:
    script = "(declare-const x Int)\n" + "(check-sat)\n" * (MAX_CHECKS + 5)
    report, frames, stdout = run_smt2(script)
    assert stdout == "sat\n" * (MAX_CHECKS + 5)
    assert len(checks_of(frames)) == MAX_CHECKS and report["checks_made"] == MAX_CHECKS + 5
