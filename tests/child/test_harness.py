"""The harness in a real forked child with real z3: what a candidate's report says of its checks,
its cores and its byte constants.

Each test forks, as the zygote does: the child points fd 1/2 at pipes, calls ``run_candidate`` and
sends the report back as one protocol frame; the parent reads all three pipes (tests/child/running.py).
"""

from __future__ import annotations

import json
import time
from fractions import Fraction

import pytest

from z3sandbox_kernel.protocol import decode_value, join_pairs

from .running import HARD, run_child, run_child_in_a_fresh_zygote

pytestmark = pytest.mark.usefixtures("prepared")


# ------------------------------------------------------------------------------------ check results

def test_sat_reports_a_python_value_for_each_sort() -> None:
    run = run_child(
        "i, b, r = Int('i'), Bool('b'), Real('r')\n"
        "v, w = BitVec('v', 16), String('w')\n"
        "a = Array('a', IntSort(), IntSort())\n"
        "f = Function('f', IntSort(), IntSort())\n"
        "s.add(i == -7, b, r == Q(2, 3), v == 0xFFFE, w == StringVal('héllo'), a[3] == 4,\n"
        "      f(1) == 9)\n"
        "s.check()\n"
    )
    model = {name: decode_value(value) for name, value in run.report["model"].items()}
    assert run.report["outcome"] == "sat"
    assert model["i"] == -7 and model["b"] is True and model["r"] == Fraction(2, 3)
    assert model["v"] == 0xFFFE and model["w"] == "héllo"
    assert isinstance(model["a"], str) and "4" in model["a"]
    assert isinstance(model["f"], str) and "9" in model["f"]


def test_irrational_real_is_reported_as_decimal_text() -> None:
    run = run_child("x = Real('x')\ns.add(x * x == 2, x > 0)\ns.check()\n")
    assert run.report["model"]["x"].startswith("1.41421356")


def test_huge_integer_stays_text_so_the_report_stays_json() -> None:
    run = run_child("x = Int('x')\ns.add(x == IntVal('1' + '0' * 5000))\ns.check()\n")
    assert run.report["model"]["x"] == "1" + "0" * 5000


def test_unsat_is_reported_without_a_model() -> None:
    run = run_child("x = Int('x')\ns.add(x > 1, x < 0)\ns.check()\n")
    assert run.report["outcome"] == "unsat"
    assert "model" not in run.report


def test_solver_timeout_is_unknown_with_solver_timeout() -> None:
    started = time.monotonic()
    run = run_child(HARD + "s.check()\n", timeout_s=0.2)
    assert run.report["outcome"] == "unknown"
    assert run.report["solver_timeout"] is True
    assert time.monotonic() - started < 5


def test_script_cannot_raise_the_solver_timeout() -> None:
    run = run_child(HARD + "s.set(timeout=10**6)\ns.check()\n", timeout_s=0.2)
    assert run.report["solver_timeout"] is True


def test_optimize_gets_the_solver_timeout() -> None:
    script = HARD.replace("s.add", "o = Optimize()\no.add") + "o.maximize(a)\no.check()\n"
    run = run_child(script, timeout_s=0.2)
    assert run.report["outcome"] == "unknown" and run.report["solver_timeout"] is True


def test_incomplete_theory_is_unknown_without_solver_timeout() -> None:
    run = run_child("x = Real('x')\ns.add(2**x == 3)\ns.check()\n")
    assert run.report["outcome"] == "unknown"
    assert run.report["solver_timeout"] is False
    assert run.report["reason"]


def test_no_check_and_no_assertion_is_no_check() -> None:
    assert run_child("x = Int('x')\nprint(x + 1)\n").report["outcome"] == "no_check"


def test_asserted_but_unchecked_prebound_solver_is_checked() -> None:
    run = run_child("x = Int('x')\ns.add(x == 5)\n")
    assert run.report["outcome"] == "sat" and run.report["model"] == {"x": 5}


def test_asserted_but_unchecked_other_solver_is_checked() -> None:
    run = run_child("x = Int('x')\ns.add(x == 5)\nt = SolverFor('QF_LIA')\nt.add(x > 1, x < 0)\n")
    assert run.report["outcome"] == "unsat"


def test_last_check_wins() -> None:
    run = run_child(
        "x = Int('x')\nt = Solver()\nt.add(x > 1, x < 0)\nprint(t.check())\n"
        "s.add(x == 3)\nprint(s.check())\n"
    )
    assert run.report["outcome"] == "sat"
    assert run.stdout == "unsat\nsat\n"


def test_model_is_the_one_of_the_last_check_even_after_more_assertions() -> None:
    run = run_child("x = Int('x')\ns.add(x >= 0, x < 2)\ns.check()\nm = s.model()\n"
                    "s.add(x != m[x])\n")
    assert run.report["outcome"] == "sat"
    assert run.report["assertions_smt2"].count("(assert") == 2


def test_optimize_reports_the_optimum() -> None:
    run = run_child("x = Int('x')\no = Optimize()\no.add(x < 10)\no.maximize(x)\no.check()\n")
    assert run.report["outcome"] == "sat" and run.report["model"] == {"x": 9}


def test_optimize_reports_its_objectives_and_their_values() -> None:
    run = run_child("x, y = Ints('x y')\no = Optimize()\no.add(x < 10, y < 5, x > -3)\n"
                    "h = o.maximize(x + y)\no.minimize(x)\no.add_soft(x > 100, 2, 'g')\n"
                    "print(o.check(), h.value())\n")
    assert run.stdout == "sat 13\n"
    assert run.report["objectives"] == [
        {"term": "x + y", "direction": "maximize", "value": 13, "term_smt2": "(+ x y)"},
        {"term": "x", "direction": "minimize", "value": 9, "term_smt2": "x"},
        {"term": "g", "direction": "soft", "value": 2}]


def test_objectives_are_left_out_when_the_optimize_changed_or_ended() -> None:
    changed = run_child("x = Int('x')\no = Optimize()\no.add(x < 10)\no.maximize(x)\no.check()\n"
                        "o.add(x < 5)\n")
    ended = run_child("x = Int('x')\ndef f():\n    o = Optimize()\n    o.add(x < 10)\n"
                      "    o.maximize(x)\n    o.check()\nf()\n")
    plain = run_child("x = Int('x')\ns.add(x < 10)\ns.check()\n")
    assert changed.report["outcome"] == ended.report["outcome"] == "sat"
    assert "objectives" not in changed.report and "objectives" not in ended.report
    assert "objectives" not in plain.report


def test_an_unbounded_objective_is_reported_as_z3_says_it() -> None:
    run = run_child("x = Real('x')\no = Optimize()\no.maximize(x)\no.check()\n")
    assert run.report["objectives"] == [{"term": "x", "direction": "maximize", "value": "oo",
                                         "term_smt2": "x"}]


def test_model_count_gives_distinct_further_models_after_the_output() -> None:
    script = "x = Int('x')\ns.add(x > 0, x < 4)\nprint(s.check(), s.model())\n"
    alone, three, five = run_child(script), run_child(script, model_count=3), run_child(script, model_count=5)
    assert alone.stdout == three.stdout == five.stdout == "sat [x = 1]\n"
    assert "more_models" not in alone.report
    assert [found["model"] for found in three.report["more_models"]] == [{"x": 2}, {"x": 3}]
    assert len(five.report["more_models"]) == 2  # there are no more: fewer than asked
    assert three.report["more_models"][0]["model_smt2"] == join_pairs([("x", "2")])


def test_further_models_carry_their_payloads_and_smt2_further_models_too() -> None:
    payloads = run_child("b = [BitVec(f'byte_{i}', 8) for i in range(2)]\n"
                         "s.add(b[0] == 0x41, ULT(b[1], 3))\ns.check()\n", model_count=3)
    runs = [found["byte_runs"] for found in payloads.report["more_models"]]
    assert len(runs) == 2 and all(run[0][1].startswith("41") for run in runs)
    assert len({run[0][1] for run in runs} | {payloads.report["byte_runs"][0][1]}) == 3
    smt2 = run_child("(declare-const x Int)\n(assert (< 0 x 3))\n(check-sat)\n", language="smt2",
                     model_count=4)
    assert [found["model"] for found in smt2.report["more_models"]] == [{"x": 2}]


def test_solve_reports_its_check() -> None:
    run = run_child("x = Int('x')\nsolve(x > 2, x < 4)\n")
    assert run.report["model"] == {"x": 3}
    assert run.stdout == "[x = 3]\n"


def test_prove_is_unsat_when_proved_and_sat_with_a_counterexample() -> None:
    proved = run_child("x = Int('x')\nprove(x * x >= 0)\n")
    refuted = run_child("x = Int('x')\nprove(x > 0)\n")
    assert proved.report["outcome"] == "unsat" and proved.stdout == "proved\n"
    assert refuted.report["outcome"] == "sat" and refuted.report["model"]["x"] <= 0


def test_random_seed_changes_models_without_warnings() -> None:
    script = ("a, b = BitVecs('a b', 32)\nc, d = Ints('c d')\n"
              "s.add(a ^ b == 0xdeadbeef, c + d == 1000, c >= 0, d >= 0, c * d > 1000)\ns.check()\n")
    # From a fresh interpreter: a z3 context an earlier test made in this process would be the
    # script's, made before any seed was set.
    runs = [run_child_in_a_fresh_zygote(script, random_seed=seed) for seed in range(6)]
    assert all(run.report["outcome"] == "sat" and run.stderr == "" for run in runs)
    assert len({json.dumps(run.report["model"], sort_keys=True) for run in runs}) > 1


def test_script_runs_as_main_with_z3_names() -> None:
    run = run_child(
        "from dataclasses import dataclass\n@dataclass\nclass P:\n    n: int\n"
        "if __name__ == '__main__':\n    print(P(3).n, type(s).__name__, Int('q'))\n"
    )
    assert run.stdout == "3 Solver q\n"


# ---------------------------------------------------------------------------------------- cores

def test_cores_report_the_script_lines_of_the_core() -> None:
    run = run_child("x = Int('x')\ns.add(x > 1)\ns.add(x != 7)\ns.add(x < 0)\ns.check()\n",
                    cores=True)
    assert run.report["outcome"] == "unsat"
    assert run.report["unsat_core"] == [[2, "s.add(x > 1)"], [4, "s.add(x < 0)"]]


def test_cores_track_optimize_and_solve_lines() -> None:
    run = run_child("x = Int('x')\no = Optimize()\no.add(x > 1)\no.add(x < 0)\no.check()\n",
                    cores=True)
    solved = run_child("x = Int('x')\nsolve(x > 1, x < 0)\n", cores=True)
    assert run.report["unsat_core"] == [[3, "o.add(x > 1)"], [4, "o.add(x < 0)"]]
    assert solved.report["unsat_core"] == [[2, "solve(x > 1, x < 0)"]]


def test_cores_do_not_change_a_sat_result_or_its_model() -> None:
    run = run_child("x, y = Ints('x y')\ns.add(x > 1, y == x + 1)\ns.add(x < 3)\ns.check()\n",
                    cores=True)
    assert run.report["outcome"] == "sat"
    assert run.report["model"] == {"x": 2, "y": 3}
    assert "z3sb_core" not in run.report["assertions_smt2"]


def test_script_sees_only_its_own_core_literals() -> None:
    run = run_child(
        "x = Int('x')\ns.add(x > 5)\ns.assert_and_track(x < 0, 'mine')\ns.check()\n"
        "print(s.unsat_core())\n",
        cores=True,
    )
    assert run.stdout == "[mine]\n"
    assert run.report["unsat_core"] == [[2, "s.add(x > 5)"],
                                        [3, "s.assert_and_track(x < 0, 'mine')"]]


# ---------------------------------------------------------------------------------------- byte_N

def test_well_formed_byte_constants_travel_as_hex_runs() -> None:
    run = run_child(
        "b0, b1, b3 = BitVec('byte_0', 8), BitVec('byte_1', 8), BitVec('byte_3', 8)\n"
        "i, bad = Int('byte_10'), Int('byte_01')\n"
        "s.add(b0 == 65, b1 == 66, b3 == 0, i == 7, bad == 1)\ns.check()\n"
    )
    assert run.report["byte_runs"] == [[0, "4142"], [3, "00"], [10, "07"]]
    assert run.report["byte_constants"] == []


def test_byte_constants_that_break_the_rules_report_sort_width_and_index() -> None:
    run = run_child(
        "b1, big = BitVec('byte_1', 16), Int('byte_4')\n"
        "q, r = Bool('byte_2'), Real('byte_5')\n"
        "s.add(b1 == 300, big == 256, q, r == 1)\ns.check()\n"
    )
    found = {c["name"]: c for c in run.report["byte_constants"]}
    assert set(found) == {"byte_1", "byte_2", "byte_4", "byte_5"}
    assert found["byte_1"] == {"name": "byte_1", "index": 1, "sort": "bv", "width": 16, "value": 300}
    assert found["byte_4"]["sort"] == "int" and found["byte_4"]["value"] == 256
    assert found["byte_2"]["sort"] == "bool" and found["byte_2"]["value"] is True
    assert found["byte_5"]["sort"] == "real"
    assert run.report["byte_runs"] == []
