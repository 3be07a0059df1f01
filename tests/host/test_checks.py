"""Every check a script makes: its verdict, its line, and each model the script read, verified
against that check's own assertions; kept when a limit stops the script; capped at MAX_CHECKS."""

from __future__ import annotations

import pytest

from tests.fidelity import SCRIPTS
from z3sandbox_kernel import Limits, RunResult, Verdict
from z3sandbox_kernel.agents.repair import settled
from z3sandbox_kernel.presentation.render import run_json
from z3sandbox_kernel.protocol import MAX_CHECKS

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("zygote_is_clean")]

QUICK = Limits(timeout_s=5, wall_s=20, cpu_s=10)
ENUMERATE = """x = Int('x')
s.add(x >= 1, x <= 3)
while s.check() == sat:
    m = s.model()
    print("x =", m[x])
    s.add(x != m[x])
"""


def test_an_enumeration_keeps_its_three_models_each_verified(sandbox):
    result = sandbox.run(ENUMERATE, limits=QUICK)
    candidate = result[0]
    assert candidate.verdict is Verdict.UNSAT  # the last check stays the verdict
    assert [check.verdict for check in candidate.checks] == ["sat", "sat", "sat", "unsat"]
    assert [check.line for check in candidate.checks] == [3, 3, 3, 3]
    assert [check.model for check in candidate.checks] == [{"x": 1}, {"x": 2}, {"x": 3}, None]
    assert [check.verified for check in candidate.checks[:3]] == [True, True, True]
    assert candidate.checks_made == 4
    assert candidate.reason == "after 3 sat checks (3 models)"
    shown = repr(result)
    assert "after 3 sat checks (3 models)" in shown and "check 3 (line 3): x=3" in shown
    assert RunResult.from_json(result.to_json())[0].checks == candidate.checks
    assert run_json(result)["candidates"][0]["checks_made"] == 4
    assert settled(result)  # repair() treats found models as found


def test_a_model_verified_against_its_own_check_not_the_last(kernel_sandbox):
    """Each check's model satisfies the assertions at that check: x = 1 violates the later
    blocking clause x != 1, and is verified all the same."""
    result = kernel_sandbox.run(ENUMERATE, limits=QUICK)
    first = result[0].checks[0]
    assert first.model == {"x": 1} and first.verified is True


def test_a_killed_enumeration_keeps_the_checks_it_made(kernel_sandbox):
    script = ENUMERATE + "while True:\n    pass\n"
    result = kernel_sandbox.run(script, limits=Limits(timeout_s=5, wall_s=20, cpu_s=1))
    candidate = result[0]
    assert candidate.verdict is Verdict.CPU_LIMIT
    assert [check.model for check in candidate.checks] == [{"x": 1}, {"x": 2}, {"x": 3}, None]
    assert all(check.verified for check in candidate.checks[:3])
    assert "after 3 sat checks (3 models)" in candidate.reason


def test_the_checks_kept_are_capped_and_the_row_says_so(kernel_sandbox):
    script = ("x = Int('x')\ns.add(x >= 1, x <= 150)\nwhile s.check() == sat:\n"
              "    s.add(x != s.model()[x])\n")
    candidate = kernel_sandbox.run(script, limits=QUICK)[0]
    assert len(candidate.checks) == MAX_CHECKS and candidate.checks_made == 151
    assert f"{MAX_CHECKS} of its 151 checks kept" in candidate.reason
    assert all(check.verified for check in candidate.checks)


def test_each_checks_payload_is_saved(kernel_sandbox, tmp_path):
    script = """b = [BitVec(f'byte_{i}', 8) for i in range(2)]
s.add(b[0] == 0x41, ULT(b[1], 2))
while s.check() == sat:
    m = s.model()
    s.add(b[1] != m[b[1]])
"""
    result = kernel_sandbox.run(script, limits=QUICK)
    names = [name for name, _ in result[0].named_payloads()]
    assert names == ["check-1", "check-2"] and sorted(result.payloads) == [b"A\x00", b"A\x01"]
    assert len(result.save_payloads(tmp_path)) == 2


def test_a_pop_z3_refuses_leaves_the_assertions_as_z3_keeps_them(sandbox):
    """The fidelity suite's f76 (a pop z3 refuses, caught): its answer is verified too."""
    (path,) = (path for path in SCRIPTS if path.name == "f76_refused_pop.py")
    script = path.read_text(encoding="utf-8")
    candidate = sandbox.run(script, limits=QUICK)[0]
    assert candidate.stdout == "refused\nsat\nx = 42\n"
    assert candidate.verdict is Verdict.SAT and candidate.model == {"x": 42}
    assert candidate.verified is True


def test_proves_counterexample_is_verified(sandbox):
    script = "p, q = Bools('p q')\nprove(Not(And(p, q)) == And(Not(p), Not(q)))\n"
    candidate = sandbox.run(script, limits=QUICK)[0]
    assert candidate.verdict is Verdict.SAT and candidate.verified is True, candidate.reason
    assert candidate.reason == ""
    assert candidate.model in ({"p": False, "q": True}, {"p": True, "q": False})


def test_a_prove_style_last_unsat_stays_the_answer(kernel_sandbox):
    script = """x = Int('x')
s.add(x > 0)
assert s.check() == sat
s.add(x < 0)
print(s.check())
"""
    candidate = kernel_sandbox.run(script, limits=QUICK)[0]
    assert candidate.verdict is Verdict.UNSAT
    assert [check.verdict for check in candidate.checks] == ["sat", "unsat"]
    assert candidate.checks[0].model is None  # the script never read it
    assert candidate.reason == "after 1 sat check (0 models)"


def test_an_unsat_candidates_check_payloads_reach_the_afl_queue(tmp_path):
    from z3sandbox_kernel.contracts.results import CandidateResult
    from z3sandbox_kernel.jupyter.outcome import afl_writer

    check = {"verdict": "sat", "line": 3, "model": {"byte_0": 65}, "payload_hex": "41",
             "payload_error": None, "verified": True}
    failed = {**check, "payload_hex": "42", "verified": False}
    import msgspec

    from z3sandbox_kernel.contracts.record import CandidateRecord

    record = msgspec.convert({"index": 0, "verdict": "unsat", "checks_made": 3,
                              "checks": [check, failed, {**check, "model": None, "payload_hex": None,
                                                         "verdict": "unsat"}]}, CandidateRecord)
    candidate = CandidateResult.from_record(record)
    assert candidate.named_payloads() == [("check-1", b"A")]  # a model that failed verification gives none
    writer = afl_writer(str(tmp_path), None)
    assert writer is not None
    writer(candidate)
    queued = list((tmp_path / "z3sandbox" / "queue").iterdir())
    assert [path.read_bytes() for path in queued] == [b"A"]
