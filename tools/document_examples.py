"""Run documents the kernel writes for runs the saved notebooks do not show (a tie, in prove()'s words
too, missing isolation layers, each way an answer is confirmed or not, cores, a live run), written
by ``tools/sync_docs.py`` to labextension/test/documents.generated.json: the labextension's test
makes each older and checks that upgrade.ts puts back what the kernel wrote (test/older.spec.ts).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from z3sandbox_kernel import CandidateResult, Limits, RunResult, Verdict
from z3sandbox_kernel.contracts.found import CheckResult, ModelResult
from z3sandbox_kernel.presentation.render import run_json

PROVED, COUNTER = "proved\n", "counterexample\n[p = False]\n"
_GOALS = [{"direction": "maximize", "term": "x + y", "value": "13", "optimal": True, "checked": True},
          {"direction": "minimize", "term": "x", "value": "2", "optimal": False, "checked": True},
          {"direction": "", "term": "g", "value": "10**9", "checked": False},
          {"direction": "maximize", "term": "y", "value": "4", "optimal": True}]
_ISOLATION = {"level": "process", "layers": [
    {"name": "userns", "active": True, "detail": ""},
    {"name": "landlock", "active": True, "detail": "ABI 7, 12 rules"},
    {"name": "netns", "active": False, "error": "EPERM", "detail": "unshare"},
    {"name": "pidns", "active": False, "detail": "not asked"},
    {"name": "seccomp", "active": False, "error": "bad\x1b[31m"},
]}


def _run(*candidates: CandidateResult, isolation: object = None) -> RunResult:
    return RunResult(candidates=list(candidates), limits=Limits(timeout_s=5),
                     isolation=isolation)  # type: ignore[arg-type]


def _examples() -> list[RunResult]:
    sat, unsat = Verdict.SAT, Verdict.UNSAT
    return [
        _run(CandidateResult(index=0, verdict=sat, model={"x": 1}, verified=True),  # a tie
             CandidateResult(index=1, verdict=unsat), isolation=_ISOLATION),
        # A tie in prove()'s words.
        _run(CandidateResult(index=0, verdict=unsat, stdout=PROVED, confirmed_by=["z3"]),
             CandidateResult(index=1, verdict=sat, stdout=COUNTER, model={"p": False})),
        _run(CandidateResult(index=0, verdict=sat, model={"x": 2}, confirmed_by=["z3"], verified=True),
             CandidateResult(index=1, verdict=unsat, confirmed_by=["z3", "cvc5"]),
             CandidateResult(index=2, verdict=sat, model={"x": 3}, verified=False),
             CandidateResult(index=3, verdict=unsat, confirmed_by=["z3"], disputed="cvc5 finds a model"),
             CandidateResult(index=4, verdict=sat, model={"x": 4}, confirmed_by=["z3"], verified=False,
                             disputed="no"),
             CandidateResult(index=5, verdict=unsat, unsat_core=[(3, "x > 2"), (4, "x\x1b < 1")]),
             CandidateResult(index=6, verdict=unsat, unsat_core=[(3, "x > 2")], cell_line=10,
                             cell_candidates=2),
             CandidateResult(index=7, verdict=unsat, stdout="unsat\n(a1 a3)\n"),
             CandidateResult(index=8, verdict=Verdict.TIMEOUT, kill="wall")),
        # Objectives, further models and the models read at checks.
        _run(CandidateResult(index=0, verdict=sat, model={"x": 1, "y": 12}, objectives=_GOALS,  # type: ignore[arg-type]
                             more_models=[
                                 ModelResult({"x + y": 9, "x": Fraction(1, 3), "b_10": True, "b_2": 0}),
                                 ModelResult({"x": 2}, payload=b"\x01\xab", verified=False)]),
             CandidateResult(index=1, verdict=unsat, checks_made=3, cell_line=4, cell_candidates=2, checks=[
                 CheckResult("sat", 2, ModelResult({"x": 1}, payload=b"\x02", verified=True)),
                 CheckResult("sat", None, ModelResult({"x": Fraction(5, 2)}, verified=None)),
                 CheckResult("unsat", 3)]),
             CandidateResult(index=2, verdict=sat, model={"x": 5}, checks_made=2, checks=[
                 CheckResult("sat", 2, ModelResult({"x": 5}, verified=True)),
                 CheckResult("sat", 3, ModelResult({"x": 6}, verified=True))])),
        _run(CandidateResult(index=0, verdict=None, state="running"),  # a live run
             CandidateResult(index=1, verdict=Verdict.UNKNOWN),
             CandidateResult(index=2, verdict=None, state="queued"),
             CandidateResult(index=3, verdict=None, state="queued")),
    ]


def example_documents() -> list[dict[str, Any]]:
    """Each example run's document, as the kernel shows it."""
    return [dict(run_json(result)) for result in _examples()]
