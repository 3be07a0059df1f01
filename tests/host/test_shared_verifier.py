"""A run's answers are checked by the run's own verifiers, several answers each (zygote/verifiers.py):
every answer is still confirmed on its own, and a candidate can make its siblings' checks fail,
never pass (real sandboxes)."""

from __future__ import annotations

import pytest

from z3sandbox_kernel import Limits, Sandbox, Verdict

pytestmark = [pytest.mark.timeout(180), pytest.mark.usefixtures("zygote_is_clean")]
SAT = ("from z3 import *\nx, y = Ints('x y')\ns = Solver()\ns.add(x > {n}, y == 2 * x, x < 100)\n"
       "print(s.check())\n")
UNSAT = "from z3 import *\nx = Int('x')\ns = Solver()\ns.add(x > {n})\ns.add(x < 0)\nprint(s.check())\n"
WRONG = ("from z3 import *\nimport json, os, struct\n"  # a model that violates its assertions
         "frame = json.dumps({'v': 1, 'type': 'result', 'outcome': 'sat', 'model': {'x': 0},"
         " 'model_smt2': [['x', '0']], 'assertions_smt2': '(declare-fun x () Int)(assert (> x {n}))'})"
         ".encode()\nos.write(3, struct.pack('>I', len(frame)) + frame)\nos._exit(0)\n")
# Its own report: sat, for assertions no solver decides in a second (x^3 + y^3 + z^3 = 33), with no
# value given: its verification runs out of its budget, and takes the verifier that held it along.
STALLING = ("import json, os, struct\n"
            "text = '(declare-fun x () Int)(declare-fun y () Int)(declare-fun z () Int)'"
            " '(assert (= (+ (* x x x) (* y y y) (* z z z)) 33))'\n"
            "frame = json.dumps({'v': 1, 'type': 'result', 'outcome': 'sat', 'model': {},"
            " 'model_smt2': [], 'assertions_smt2': text}).encode()\n"
            "os.write(3, struct.pack('>I', len(frame)) + frame)\nos._exit(0)\n")


def test_every_answer_of_a_large_run_is_confirmed_on_its_own(sandbox: Sandbox) -> None:
    scripts = [(SAT if n % 3 else UNSAT if n % 2 else WRONG).replace("{n}", str(n)) for n in range(18)]
    result = sandbox.run(scripts, limits=Limits(timeout_s=5, wall_s=30), jobs=4)
    for n, candidate in enumerate(result):
        if n % 3:
            assert candidate.verdict is Verdict.SAT and candidate.confirmed_by == ("z3",), candidate
            assert candidate.model is not None and candidate.model["x"] > n  # its own model, not a sibling's
        elif n % 2:
            assert candidate.verdict is Verdict.UNSAT and candidate.confirmed_by == ("z3",), candidate
        else:
            assert candidate.verified is False and candidate.confirmed_by == (), candidate


def test_a_check_that_stalls_its_verifier_fails_alone(sandbox: Sandbox) -> None:
    scripts = [STALLING] + [SAT.replace("{n}", str(n)) for n in range(7)]
    result = sandbox.run(scripts, limits=Limits(timeout_s=30, wall_s=30, verify_s=1), jobs=8)
    stalled, *siblings = result
    assert stalled.verified is not True and stalled.confirmed_by == (), stalled
    for candidate in siblings:
        assert candidate.verdict is Verdict.SAT and candidate.confirmed_by == ("z3",), candidate
