"""Every decisive answer is confirmed in a process that ran no user code, or marked as the
candidate's own claim; a contradicted one never counts (real sandboxes, both isolation levels)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from z3sandbox_kernel import Limits, RunOptions, Sandbox, Verdict

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("zygote_is_clean")]
needs_cvc5 = pytest.mark.skipif(importlib.util.find_spec("cvc5") is None, reason="the [cvc5] extra")
QUICK = Limits(timeout_s=5, wall_s=20)
SAT = ("from z3 import *\nx, y = Ints('x y')\ns = Solver()\ns.add(x > 1, y == 2 * x, x < 5)\n"
       "print(s.check())\n")
UNSAT = "from z3 import *\nx = Int('x')\ns = Solver()\ns.add(x > 1)\ns.add(x < 0)\nprint(s.check())\n"
# A candidate that writes its own report on fd 3: unsat, for assertions that are satisfiable.
FORGED_UNSAT = '''
import json, os, struct
frame = json.dumps({"v": 1, "type": "result", "outcome": "unsat",
                    "assertions_smt2": "(declare-fun x () Int)(assert (> x 1))"}).encode()
os.write(3, struct.pack(">I", len(frame)) + frame)
os._exit(0)
'''
LAW = "from z3 import *\np, q = Bools('p q')\nprove(Not(And(p, q)) == Or(Not(p), Not(q)))\n"
WRONG_LAW = "from z3 import *\np, q = Bools('p q')\nprove(Not(And(p, q)) == And(Not(p), Not(q)))\n"


def test_python_sat_unsat_and_cores_are_confirmed_by_z3(sandbox: Sandbox) -> None:
    sat, unsat = sandbox.run([SAT, UNSAT], limits=QUICK)
    assert (sat.verdict, sat.confirmed_by, sat.disputed) == (Verdict.SAT, ("z3",), None)
    assert (unsat.verdict, unsat.confirmed_by, unsat.disputed) == (Verdict.UNSAT, ("z3",), None)
    cored = sandbox.run(UNSAT, limits=QUICK, cores=True)[0]
    assert cored.confirmed_by == ("z3",) and [line for line, _ in cored.unsat_core or ()] == [4, 5]


def test_smt2_sat_and_unsat_are_confirmed_by_z3(sandbox: Sandbox) -> None:
    sat, unsat, assumed = sandbox.run([
        "(declare-const x Int)(assert (> x 1))(check-sat)",
        "(declare-const x Int)(assert (> x 1))(push 1)(assert (< x 0))(check-sat)(pop 1)",
        "(declare-const x Int)(declare-const p Bool)(assert (=> p (< x 0)))(assert (> x 1))"
        "(check-sat-assuming (p))"], language="smt2", limits=QUICK)
    assert sat.verdict is Verdict.SAT and sat.confirmed_by == ("z3",)
    assert unsat.verdict is Verdict.UNSAT and unsat.confirmed_by == ("z3",)
    assert assumed.verdict is Verdict.UNSAT and assumed.confirmed_by == ("z3",)


def test_without_verification_nothing_is_confirmed(sandbox: Sandbox) -> None:
    sat, unsat = sandbox.run([SAT, UNSAT], limits=QUICK, verify=False)
    assert sat.confirmed_by == () and unsat.confirmed_by == ()


def test_a_forged_unsat_is_disputed_and_loses_the_vote(sandbox: Sandbox) -> None:
    result = sandbox.run([FORGED_UNSAT, FORGED_UNSAT, SAT], limits=QUICK)
    forged = result[0]
    assert forged.verdict is Verdict.UNSAT and forged.confirmed_by == ()
    assert forged.disputed == "z3 finds the assertions the candidate checked satisfiable"
    assert forged.disputed in forged.reason
    assert result.verdict is Verdict.SAT and result.tie is None
    assert result.best is result[2]


def test_an_answer_checked_past_its_budget_is_not_confirmed_and_says_so(sandbox: Sandbox) -> None:
    pigeons = ("from z3 import *\nn = 7\nh = [[Bool(f'p{i}_{j}') for j in range(n)] for i in range(n + 1)]\n"
               "s = Solver()\ns.add([Or(row) for row in h])\n"
               "pairs = [(i, k) for i in range(n + 1) for k in range(i)]\n"
               "s.add([Not(And(h[i][j], h[k][j])) for j in range(n) for i, k in pairs])\n"
               "print(s.check())\n")
    found = sandbox.run(pigeons, limits=QUICK.replace(verify_s=0.01))[0]
    assert found.verdict is Verdict.UNSAT and found.confirmed_by == () and found.disputed is None
    assert "not confirmed: its check ran out of the verification budget (verify_s = 0.01 s)" in found.reason


def test_an_objective_is_shown_optimal(sandbox: Sandbox) -> None:
    found = sandbox.run("from z3 import *\nx, y = Ints('x y')\no = Optimize()\n"
                        "o.add(x < 10, y < x, y > 0)\no.maximize(x + y)\nprint(o.check())\n",
                        limits=QUICK)[0]
    assert found.confirmed_by == ("z3",)
    assert found.objectives == [{"term": "x + y", "direction": "maximize", "value": 17, "optimal": True,
                                 "checked": True}]


def test_prove_calls_vote_in_their_words_and_the_tie_says_which_rule_decided(sandbox: Sandbox) -> None:
    result = sandbox.run([LAW, WRONG_LAW], limits=QUICK)
    proved, counterexample = result
    assert proved.confirmed_by == ("z3",) and counterexample.confirmed_by == ("z3",)
    assert counterexample.verified is True  # a counterexample is verified like any model
    assert result.vote == "counterexample"
    assert result.tie == {"sat": 1, "unsat": 1, "winner": "sat", "words": {"sat": "counterexample",
                                                                          "unsat": "proved"},
                          "rule": "both answers are confirmed; a verified model is a certificate, so "
                                  "counterexample wins"}
    assert sandbox.run([LAW, LAW], limits=QUICK).vote == "proved"


@needs_cvc5
def test_cvc5_confirms_both_answers_of_a_small_pair(kernel_sandbox: Sandbox) -> None:
    """cvc5 runs in the verifier, under the verifier's Landlock and seccomp."""
    sat, unsat = kernel_sandbox.run([SAT, UNSAT], limits=QUICK, cross_check="cvc5")
    assert sat.confirmed_by == ("z3", "cvc5") and unsat.confirmed_by == ("z3", "cvc5")


def test_asking_for_cvc5_without_it_is_a_value_error_naming_the_extra() -> None:
    """cvc5 blocked in sys.modules is cvc5 not installed, for the host as for the verifier."""
    script = ("import sys\nsys.modules['cvc5'] = None\nfrom z3sandbox_kernel import run\n"
              "try:\n    run('print(1)', cross_check='cvc5')\nexcept ValueError as exc:\n    print(exc)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).resolve().parents[2], check=True)
    assert "pip install 'z3sandbox-kernel[cvc5]'" in done.stdout
    with pytest.raises(ValueError, match="cross_check must be one of cvc5"):
        RunOptions(cross_check="yices")
