"""Script semantics: which check counts, seeds with k, unsat cores as script lines, SMT-LIB 2."""

from __future__ import annotations

from fractions import Fraction

import pytest

from z3sandbox_kernel import Limits, RunResult, Verdict

pytestmark = [pytest.mark.timeout(60), pytest.mark.usefixtures("zygote_is_clean")]

QUICK = Limits(timeout_s=2, wall_s=5, cpu_s=4)


def test_last_check_wins(sandbox):
    result = sandbox.run("x = Int('x')\ns.add(x > 1)\ns.check()\ns.add(x < 0)\ns.check()\n", limits=QUICK)
    assert result[0].verdict is Verdict.UNSAT


def test_last_check_wins_across_solvers(sandbox):
    result = sandbox.run(
        "x = Int('x')\na = Solver(); a.add(x > 1, x < 0); a.check()\n"
        "b = Solver(); b.add(x == 4); b.check()\n", limits=QUICK)
    assert result[0].verdict is Verdict.SAT
    assert result[0].model == {"x": 4}


def test_asserted_but_unchecked_solver_is_checked(sandbox):
    result = sandbox.run("x = Int('x')\ns.add(x * x == 49, x > 0)\n", limits=QUICK)
    assert result[0].verdict is Verdict.SAT
    assert result[0].model == {"x": 7}


def test_asserted_but_unchecked_unsat_is_unsat(sandbox):
    result = sandbox.run("x = Int('x')\nt = Solver()\nt.add(x > 1, x < 0)\n", limits=QUICK)
    assert result[0].verdict is Verdict.UNSAT


def test_solve_counts_as_a_check(sandbox):
    result = sandbox.run("x = Int('x')\nsolve(x > 10, x < 12)\n", limits=QUICK)
    assert result[0].verdict is Verdict.SAT
    assert result[0].model == {"x": 11}
    assert "x = 11" in result[0].stdout


def test_prove_of_a_true_claim_is_unsat(sandbox):
    result = sandbox.run("x = Int('x')\nprove(x + 1 > x)\n", limits=QUICK)
    assert result[0].verdict is Verdict.UNSAT
    assert "proved" in result[0].stdout


def test_optimize_check_counts(sandbox):
    result = sandbox.run("x = Int('x')\no = Optimize()\no.add(x < 10)\no.maximize(x)\no.check()\n",
                         limits=QUICK)
    assert result[0].verdict is Verdict.SAT
    assert result[0].model == {"x": 9}


def test_optimize_objectives_reach_the_result_and_its_saved_document(sandbox):
    result = sandbox.run("x = Real('x')\no = Optimize()\no.add(x < 10, 2 * x >= 1)\n"
                         "o.minimize(x)\no.maximize(x + 1)\no.check()\n", limits=QUICK)
    assert result[0].objectives == [
        {"term": "x", "direction": "minimize", "value": Fraction(1, 2), "optimal": True, "checked": True},
        {"term": "x + 1", "direction": "maximize", "value": Fraction(3, 2), "optimal": True, "checked": True}]
    again = RunResult.from_json(result.to_json())
    assert again[0].objectives == result[0].objectives
    assert "objective: minimize x = 1/2 (optimal); maximize x + 1 = 3/2 (optimal)" in repr(result)
    plain = sandbox.run("x = Int('x')\ns.add(x < 10)\ns.check()\n", limits=QUICK)
    assert plain[0].to_dict()["objectives"] == []


def test_script_runs_as_main_with_a_fresh_solver_bound_to_s(sandbox):
    result = sandbox.run(
        "print(__name__, type(s).__name__, len(s.assertions()))\n"
        "if __name__ == '__main__':\n    x = Int('x'); s.add(x == 1); s.check()\n", k=2, limits=QUICK)
    assert [c.stdout for c in result] == ["__main__ Solver 0\n"] * 2
    assert [c.verdict for c in result] == [Verdict.SAT] * 2


def test_k_runs_the_script_with_random_seeds_0_to_k_minus_1(sandbox):
    result = sandbox.run(
        "import z3\nx = Int('x'); s.add(x >= 0); s.check()\n"
        "print(z3.get_param('smt.random_seed'), z3.get_param('sat.random_seed'))\n", k=4, limits=QUICK)
    assert len(result) == 4
    assert [c.index for c in result] == [0, 1, 2, 3]
    assert [c.stdout for c in result] == [f"{i} {i}\n" for i in range(4)]
    assert result.verdict is Verdict.SAT


def test_without_k_the_seed_is_left_alone(sandbox):
    result = sandbox.run(["import z3\nprint(z3.get_param('smt.random_seed'))\nsolve(Int('x') > 0)"] * 2,
                         limits=QUICK)
    assert [c.stdout.splitlines()[0] for c in result] == ["0", "0"]


def test_cores_give_script_lines_and_text(sandbox):
    result = sandbox.run(
        "x = Int('x')\ns.add(x > 5)\ns.add(x != 10)\ns.add(x < 3)\ns.check()\n", cores=True, limits=QUICK)
    candidate = result[0]
    assert candidate.verdict is Verdict.UNSAT
    assert sorted(candidate.unsat_core) == [(2, "s.add(x > 5)"), (4, "s.add(x < 3)")]


def test_cores_follow_assertions_made_in_functions(sandbox):
    result = sandbox.run(
        "x = Int('x')\ndef bound(v):\n    s.add(x < v)\n\ns.add(x > 5)\nbound(3)\ns.check()\n",
        cores=True, limits=QUICK)
    assert result[0].verdict is Verdict.UNSAT
    assert sorted(result[0].unsat_core) == [(3, "s.add(x < v)"), (5, "s.add(x > 5)")]


def test_cores_do_not_leak_into_the_scripts_own_unsat_core(sandbox):
    result = sandbox.run(
        "x = Int('x')\ns.add(x > 5)\ns.assert_and_track(x < 3, 'small')\n"
        "print(s.check(), s.unsat_core())\n", cores=True, limits=QUICK)
    assert result[0].stdout == "unsat [small]\n"


def test_without_cores_there_is_no_core(sandbox):
    result = sandbox.run("x = Int('x')\ns.add(x > 5, x < 3)\ns.check()\n", limits=QUICK)
    assert result[0].verdict is Verdict.UNSAT
    assert result[0].unsat_core is None


def test_cores_do_not_change_a_sat_model(sandbox):
    result = sandbox.run("x = Int('x')\ns.add(x == 3)\ns.check()\n", cores=True, limits=QUICK)
    assert result[0].verdict is Verdict.SAT
    assert result[0].model == {"x": 3}


# --------------------------------------------------------------------------------------- SMT-LIB 2

def test_smt2_sat_with_model(sandbox):
    result = sandbox.run("(declare-const x Int)(assert (> x 2))(assert (< x 4))(check-sat)",
                         language="smt2", limits=QUICK)
    assert result[0].verdict is Verdict.SAT
    assert result[0].model == {"x": 3}
    assert result[0].verified is True


def test_smt2_unsat(sandbox):
    result = sandbox.run("(declare-const x Int)(assert (> x 2))(assert (< x 2))(check-sat)",
                         language="smt2", limits=QUICK)
    assert result[0].verdict is Verdict.UNSAT


def test_smt2_last_check_sat_wins(sandbox):
    result = sandbox.run(
        "(declare-const x Int)(assert (> x 2))(check-sat)(assert (< x 2))(check-sat)",
        language="smt2", limits=QUICK)
    assert result[0].verdict is Verdict.UNSAT


def test_smt2_parse_error_is_syntax_error_with_line_and_column(sandbox):
    result = sandbox.run("(declare-const x Int)\n(assert (> x 2)\n(check-sat)\n", language="smt2",
                         limits=QUICK)
    assert result[0].verdict is Verdict.SYNTAX_ERROR
    assert "line" in result[0].reason and "column" in result[0].reason


def test_smt2_asserted_but_unchecked_is_checked(sandbox):
    result = sandbox.run("(declare-const x Int)(assert (> x 2))", language="smt2", limits=QUICK)
    assert result[0].verdict is Verdict.SAT


def test_smt2_with_only_declarations_is_no_check(sandbox):
    result = sandbox.run("(declare-const x Int)", language="smt2", limits=QUICK)
    assert result[0].verdict is Verdict.NO_CHECK


def test_smt2_text_is_not_run_as_python(sandbox):
    result = sandbox.run("(check-sat)", language="python", limits=QUICK)
    assert result[0].verdict is Verdict.RUNTIME_ERROR  # `(check-sat)` is Python: check - sat
