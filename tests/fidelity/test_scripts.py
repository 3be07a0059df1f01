"""Each script of scripts/ prints in the sandbox (default isolation) exactly what it prints when
run plainly, and its verdict matches Python's exit status.

The scripts cover what real Z3Py scripts do; several are ones that z3's search order makes print
other models when the harness disturbs z3 (term ids, parameters, a model asked for between checks).
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from z3sandbox_kernel import Limits, RunResult, Sandbox

from . import SCRIPTS
from .plain import PlainRun, disagreement, run_plain

pytestmark = pytest.mark.timeout(240)

# Generous limits: what is compared is the harness, not the limits.  Solver.translate reserves
# about 700 MB of address space (f62), which RLIMIT_AS counts; see the README's "Fidelity".
LIMITS = Limits(timeout_s=30, wall_s=60, cpu_s=60, memory_mb=2048)
TEXTS = [path.read_text(encoding="utf-8") for path in SCRIPTS]


@pytest.fixture(scope="module")
def fidelity_sandbox() -> Iterator[Sandbox]:
    with Sandbox() as sandbox:
        yield sandbox


@pytest.fixture(scope="module")
def plain_runs() -> list[PlainRun]:
    with ThreadPoolExecutor(2) as pool:
        return list(pool.map(run_plain, TEXTS))


@pytest.fixture(scope="module")
def sandboxed(fidelity_sandbox: Sandbox) -> RunResult:
    return fidelity_sandbox.run(TEXTS, limits=LIMITS, verify=False)


def test_the_suite_has_at_least_60_scripts() -> None:
    assert len(SCRIPTS) >= 60


@pytest.mark.parametrize("index", range(len(SCRIPTS)), ids=[path.stem for path in SCRIPTS])
def test_sandbox_prints_what_python_prints(index: int, plain_runs: list[PlainRun],
                                           sandboxed: RunResult) -> None:
    problem = disagreement(plain_runs[index], sandboxed[index])
    assert problem is None, problem


@pytest.mark.parametrize("name", ["f01_model_print", "f40_nqueens_all"])
def test_candidate_0_of_k_seeds_is_the_plain_run(name: str, fidelity_sandbox: Sandbox,
                                                 plain_runs: list[PlainRun]) -> None:
    """k=4 runs seeds 0..3; seed 0 is every engine's default, so candidate 0 sets no parameter."""
    index = [path.stem for path in SCRIPTS].index(name)
    result = fidelity_sandbox.run(TEXTS[index], k=4, limits=LIMITS, verify=False)
    assert len(result) == 4
    problem = disagreement(plain_runs[index], result[0])
    assert problem is None, problem
