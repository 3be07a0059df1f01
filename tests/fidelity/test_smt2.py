"""SMT-LIB candidates print what z3's own front end prints for the file (``z3 file.smt2``; the
z3-solver wheel ships no executable, so the reference is the same command interpreter reached
through ``Z3_eval_smtlib2_string`` in a fresh Python process), and get the last (check-sat)'s
verdict."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.smt2_reference import z3_prints
from z3sandbox_kernel import Limits, Sandbox, Verdict

pytestmark = pytest.mark.timeout(240)

HERE = Path(__file__).resolve().parent
FILES = sorted((HERE / "smt2").glob("*.smt2")) + sorted(
    (HERE.parent / "data" / "smt2_engine").glob("*.smt2"))
VERDICTS = {"s01_model_value_echo": Verdict.SAT, "s02_push_pop_several_checks": Verdict.UNSAT,
            "s03_error_then_check": Verdict.SYNTAX_ERROR, "s04_optimize": Verdict.SAT,
            "s05_bv_strings": Verdict.UNSAT, "s06_datatypes_unsat_core": Verdict.UNSAT,
            "s07_unbalanced": Verdict.SYNTAX_ERROR, "s08_dump_models_names_a_verdict": Verdict.SAT,
            "s09_quoted_name_in_objectives": Verdict.SAT, "s10_printing_options": Verdict.SAT,
            "s11_model_reads_leave_later_checks": Verdict.SAT,
            "s12_global_declarations": Verdict.SYNTAX_ERROR}


@pytest.fixture(scope="module")
def smt2_sandbox() -> Iterator[Sandbox]:
    with Sandbox() as sandbox:
        yield sandbox


def test_sandbox_prints_what_z3_prints(smt2_sandbox: Sandbox) -> None:
    texts = [path.read_text(encoding="utf-8") for path in FILES]
    result = smt2_sandbox.run(texts, language="smt2",
                              limits=Limits(timeout_s=20, wall_s=40, cpu_s=40))
    for path, text, candidate in zip(FILES, texts, list(result), strict=True):
        assert candidate.stdout == z3_prints(text), path.name
        if path.stem in VERDICTS:
            assert candidate.verdict is VERDICTS[path.stem], (path.name, candidate.reason)
        if candidate.verdict is Verdict.SAT:
            assert candidate.verified is True, (path.name, candidate.reason)
    assert len(VERDICTS) == len(list((HERE / "smt2").glob("*.smt2")))
