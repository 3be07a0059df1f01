"""Every (check-sat) of an SMT-LIB candidate is kept as a check, its models verified against their
own check, while its output stays what z3 prints (child/smt2.py)."""

from __future__ import annotations

import pytest

from tests.smt2_reference import SAT_SAT_UNSAT, z3_prints
from z3sandbox_kernel import Limits, RunResult, Verdict
from z3sandbox_kernel.presentation.render import run_json

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("zygote_is_clean")]

QUICK = Limits(timeout_s=5, wall_s=20, cpu_s=10)


def test_sat_sat_unsat_keeps_two_verified_models_and_the_verdict_unsat(sandbox):
    result = sandbox.run(SAT_SAT_UNSAT, language="smt2", limits=QUICK)
    candidate = result[0]
    assert candidate.stdout == z3_prints(SAT_SAT_UNSAT)
    assert candidate.verdict is Verdict.UNSAT and candidate.checks_made == 3
    assert [(check.verdict, check.line) for check in candidate.checks] == [
        ("sat", 3), ("sat", 6), ("unsat", 9)]
    assert [check.model for check in candidate.checks] == [{"x": 1}, {"x": 2}, None]
    assert [check.verified for check in candidate.checks[:2]] == [True, True]
    shown = repr(result)
    assert "after 2 sat checks (2 models)" in shown and "check 2 (line 6): x=2" in shown
    assert candidate.reason.endswith("after 2 sat checks (2 models)")
    assert RunResult.from_json(result.to_json())[0].checks == candidate.checks
    assert run_json(result)["candidates"][0]["checks_made"] == 3


def pigeonhole(pigeons: int) -> str:
    """Pigeons in one hole fewer, as clauses: exponential for z3's resolution."""
    holes = range(pigeons - 1)
    lines = [f"(declare-const p{i}_{j} Bool)" for i in range(pigeons) for j in holes]
    lines += [f"(assert (or {' '.join(f'p{i}_{j}' for j in holes)}))" for i in range(pigeons)]
    lines += [f"(assert (or (not p{i}_{j}) (not p{k}_{j})))" for j in holes
              for i in range(pigeons) for k in range(i + 1, pigeons)]
    return "\n".join(lines) + "\n"


def test_a_script_stopped_by_a_limit_keeps_the_checks_it_made(kernel_sandbox):
    script = ("(declare-const x Int)\n(assert (= x 42))\n(check-sat)\n(get-model)\n"
              + pigeonhole(14) + "(check-sat)\n")
    candidate = kernel_sandbox.run(script, language="smt2",
                                   limits=Limits(timeout_s=60, wall_s=120, cpu_s=1))[0]
    assert candidate.verdict is Verdict.CPU_LIMIT
    assert [(check.verdict, check.line, check.model) for check in candidate.checks] == [
        ("sat", 3, {"x": 42})]
    assert candidate.checks[0].verified is True
    assert "after 1 sat check (1 model)" in candidate.reason
