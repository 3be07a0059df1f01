"""What can be confirmed is at least what can be reported (protocol/wire.py, issue 38): a model whose
assertions were over the old 4 MB of SMT-LIB is checked, its pairs travel to the verifier as one
string, and the host keeps its first 10,000 constants."""

from __future__ import annotations

import pytest

from z3sandbox_kernel import Limits, Verdict

pytestmark = [pytest.mark.timeout(300), pytest.mark.usefixtures("zygote_is_clean")]

# 40,000 constants of long names, an assertion each: about 5 MB of assertions as SMT-LIB.
LARGE = ("names = [f'a_rather_long_variable_name_as_generated_code_writes_{i:06d}' for i in range(40000)]\n"
         "xs = [Int(n) for n in names]\n"
         "s.add(And([x == i for i, x in enumerate(xs)]))\n"
         "print(s.check())\n")


def test_a_model_of_40000_constants_is_confirmed_and_shown_in_part(kernel_sandbox):
    [candidate] = kernel_sandbox.run(LARGE, limits=Limits(timeout_s=60, wall_s=120, cpu_s=120,
                                                            memory_mb=2048, verify_s=60))
    assert candidate.verdict is Verdict.SAT and candidate.confirmed_by == ("z3",), candidate.reason
    assert len(candidate.model) == 10_000 and candidate.model_omitted == 30_000
    name = "a_rather_long_variable_name_as_generated_code_writes_000123"
    assert candidate.model[name] == 123
