"""The differential fuzzer, CI-sized (bench/differential.py runs it at 20,000 cases and more): scripts
generated to trip a reader or a checker (fuzz.py) run plainly and in the sandbox.

* A confirmed verdict is always z3's answer (``z3 file.smt2``; ``python script.py``).
* A true answer is never disputed, and z3's sat is never called an invalid model.
* The sandbox never fails on its own (no internal_error).
* An SMT-LIB script prints in the sandbox exactly what z3's front end prints for it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from z3sandbox_kernel import Limits, Sandbox

from .fuzz import judged, plain_python, plain_smt2, python_script, smt2_script

pytestmark = pytest.mark.timeout(600)

K = 16  # scripts a run: the sandbox runs them as one run's candidates
LIMITS = Limits(timeout_s=10, wall_s=30, cpu_s=30)
FUZZ = {"deadline": None, "derandomize": True, "database": None,
        "suppress_health_check": [HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                  HealthCheck.data_too_large, HealthCheck.large_base_example]}


@pytest.fixture(scope="module")
def fuzz_sandbox() -> Iterator[Sandbox]:
    with Sandbox() as sandbox:
        yield sandbox


@settings(max_examples=12, **FUZZ)
@given(scripts=st.lists(smt2_script(), min_size=K, max_size=K))
def test_an_smt2_script_is_confirmed_only_as_z3_answers_it_and_prints_what_z3_prints(
        scripts: list[str], fuzz_sandbox: Sandbox) -> None:
    plains = plain_smt2(scripts)
    result = fuzz_sandbox.run(scripts, language="smt2", limits=LIMITS)
    for text, plain, candidate in zip(scripts, plains, result, strict=True):
        problem = judged(plain, candidate)
        assert problem is None, f"{problem}\nscript:\n{text!r}"
        assert candidate.stdout == plain.front_end, f"script:\n{text!r}"


@settings(max_examples=6, **FUZZ)
@given(scripts=st.lists(python_script(), min_size=K, max_size=K))
def test_a_python_script_that_divides_by_its_variables_is_judged_by_z3s_semantics(
        scripts: list[str], fuzz_sandbox: Sandbox) -> None:
    plains = plain_python(scripts)
    result = fuzz_sandbox.run(scripts, limits=LIMITS)
    for text, plain, candidate in zip(scripts, plains, result, strict=True):
        problem = judged(plain, candidate)
        assert problem is None, f"{problem}\nscript:\n{text}"
        if plain.answer is not None:
            assert candidate.verdict is not None and candidate.verdict.value == plain.answer, text
            assert candidate.confirmed_by == ("z3",), f"{candidate.reason}\n{text}"
