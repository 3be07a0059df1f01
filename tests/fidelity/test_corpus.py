"""Real Z3Py programs nobody on this project wrote print in the sandbox what ``python script.py``
printed: the 80 models of ``../shared/corpus/z3py`` (Hakan Kjellerstrand's collection, MIT; its
README says how to use them), used where they are, never copied into the project.

Each recorded stdout was made with z3-solver 5.4.1; with another z3 the comparison is against a
plain run made here and now (another z3 may print other models).  The corpus is found beside the
checkout (``../shared``, as CI lays it) or at ``$Z3SB_CORPUS``; a user's clone has neither, and the
test is then skipped, except in CI, where a missing corpus fails.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import z3

from tests.conftest import in_ci
from z3sandbox_kernel import Limits, RunResult, Sandbox

from .plain import CLEAN_EXIT, run_plain

pytestmark = pytest.mark.timeout(600)

RECORDED_WITH = "5.4.1"
# Generous limits: what is compared is the harness, not the limits (the plain runs take under 4 s).
LIMITS = Limits(timeout_s=60, wall_s=120, cpu_s=120, memory_mb=4096)


def corpus_folder() -> Path | None:
    candidates = [os.environ.get("Z3SB_CORPUS", ""),
                  str(Path(__file__).resolve().parents[3] / "shared" / "corpus" / "z3py")]
    for folder in candidates:
        if folder and (Path(folder) / "manifest.tsv").is_file():
            return Path(folder)
    return None


FOLDER = corpus_folder()
NAMES = sorted(path.stem for path in FOLDER.glob("*.py")) if FOLDER else []


@pytest.fixture(scope="module")
def corpus_run() -> Iterator[RunResult]:
    if FOLDER is None:
        if in_ci():
            pytest.fail("the z3py corpus is missing: CI lays ../shared beside the checkout")
        pytest.skip("no ../shared/corpus/z3py beside this clone (set Z3SB_CORPUS to run it)")
    texts = [(FOLDER / f"{name}.py").read_text(encoding="utf-8") for name in NAMES]
    with Sandbox() as sandbox:
        yield sandbox.run(texts, limits=LIMITS, verify=True)


def expected_stdout(name: str) -> str:
    assert FOLDER is not None
    if z3.get_version_string() == RECORDED_WITH:
        return (FOLDER / f"{name}.stdout").read_text(encoding="utf-8")
    plain = run_plain((FOLDER / f"{name}.py").read_text(encoding="utf-8"), timeout_s=120)
    assert plain.returncode == 0, plain.stderr[-500:]
    return plain.stdout


def test_the_corpus_has_80_models() -> None:
    if FOLDER is None and not in_ci():
        pytest.skip("no corpus beside this clone")
    assert len(NAMES) == 80


@pytest.mark.parametrize("index", range(len(NAMES)), ids=NAMES)
def test_a_real_model_prints_what_python_printed(index: int, corpus_run: RunResult) -> None:
    candidate = corpus_run[index]
    assert candidate.stdout == expected_stdout(NAMES[index]), (candidate.verdict, candidate.reason)
    assert candidate.verdict in CLEAN_EXIT, (candidate.verdict, candidate.reason)


@pytest.mark.parametrize("index", range(len(NAMES)), ids=NAMES)
def test_a_sat_model_of_a_real_program_verifies(index: int, corpus_run: RunResult) -> None:
    """What the harness takes for the verifier (assertions as text, the model) is right: a sat
    verdict's model checks, except where the harness could not take one (no model, or a mirror
    given up because the script's threads or text assertions left only z3 knowing)."""
    candidate = corpus_run[index]
    if candidate.verdict == "sat" and candidate.verified is not None:
        assert candidate.verified, candidate.reason
