"""Agreement with plain z3 on SMT-LIB 2 benchmarks (pysmt's test set; see tests/data/smt2_engine)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from z3sandbox_kernel import Limits, Verdict

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("zygote_is_clean")]

DATA = Path(__file__).resolve().parent.parent / "data" / "smt2_engine"


def manifest() -> list[dict[str, str]]:
    with open(DATA / "manifest.tsv", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def test_the_corpus_is_complete_and_quick():
    rows = manifest()
    assert len(rows) >= 10
    assert {row["z3_result"] for row in rows} == {"sat", "unsat"}
    for row in rows:
        assert (DATA / row["file"]).is_file(), row["file"]
        assert float(row["check_s"]) < 1


def test_sandbox_agrees_with_plain_z3_on_every_file(sandbox):
    rows = manifest()
    texts = [(DATA / row["file"]).read_text() for row in rows]
    result = sandbox.run(texts, language="smt2", limits=Limits(timeout_s=20, wall_s=30, cpu_s=30))
    got = {row["file"]: result[i].verdict.value for i, row in enumerate(rows)}
    expected = {row["file"]: row["z3_result"] for row in rows}
    assert got == expected, {i: result[i].reason for i in range(len(rows)) if result[i].reason}
    for candidate in result:
        if candidate.verdict is Verdict.SAT:
            assert candidate.verified is True
