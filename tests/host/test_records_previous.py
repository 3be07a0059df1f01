"""Records and saved results written by the previous version (commit 4e017dc, before the candidate
record became one msgspec type) still load, and mean the same: read back and written again, they
are the very JSON that version wrote, key for key (its order aside: a candidate's figures come
after its facts since protocol/candidate.py described them once; tests/data/previous_version: a
real run of six candidates, sat with a Real model, unsat, a byte payload, an objective with
models=2, a runtime error whose text holds U+2028, and a wall-clock kill)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from z3sandbox_kernel import RunResult, Verdict
from z3sandbox_kernel.host.records import read_record, run_from_record
from z3sandbox_kernel.protocol.roles import Kill

DATA = Path(__file__).resolve().parent.parent / "data" / "previous_version"
RECORD = next(DATA.glob("*.jsonl"))


def test_a_previous_record_reads_as_that_version_read_it():
    run = run_from_record(RECORD)
    assert json.loads(run.to_json()) == json.loads((DATA / "record-read.json").read_text())


def test_a_previous_saved_result_reads_back_to_the_same_text():
    text = (DATA / "result.json").read_text()
    assert json.loads(RunResult.from_json(text).to_json()) == json.loads(text)


@pytest.mark.parametrize("read", [lambda: run_from_record(RECORD),
                                  lambda: RunResult.from_json((DATA / "result.json").read_text())])
def test_a_previous_run_means_the_same(read):
    run = read()
    assert [c.verdict for c in run] == [Verdict.SAT, Verdict.UNSAT, Verdict.SAT, Verdict.SAT,
                                        Verdict.RUNTIME_ERROR, Verdict.TIMEOUT]
    assert run[0].model == {"x": Fraction(1, 3)} and run[2].payload == b"A"
    assert run[3].objectives[0]["value"] == 9 and len(run[3].more_models) == 1
    assert run[4].error is not None and run[4].error["type"] == "ValueError"
    assert "\u2028" in run[4].stderr and run[5].kill is Kill.WALL
    assert run[5].limits is not None and run[5].limits.wall_s == 3
    assert run.verdict is Verdict.SAT and run[0].confirmed_by == ("z3",)


def test_a_candidate_line_that_breaks_the_schema_is_a_clear_error(tmp_path):
    lines = RECORD.read_text().split("\n")
    bad = [line.replace('"wall_s":', '"wall_s":"slow","was":', 1) if '"record":"candidate"' in line
           else line for line in lines]
    broken = tmp_path / RECORD.name
    broken.write_text("\n".join(bad))
    (tmp_path / "isolation-cd470e87f87ee24e.json").write_bytes(
        (DATA / "isolation-cd470e87f87ee24e.json").read_bytes())
    assert len(read_record(broken)) == len(lines) - 1
    with pytest.raises(ValueError, match=r"not a candidate line of a run record .*wall_s"):
        run_from_record(broken)


def test_what_this_version_writes_follows_the_checked_in_schemas(tmp_path):
    """The schemas in schemas/ (generated, kept fresh by sync_docs --check) describe the text:
    a saved result and each candidate line of a record read back and written again."""
    import json

    import jsonschema

    schemas = Path(__file__).resolve().parents[2] / "schemas"

    def validator(name: str) -> jsonschema.Draft202012Validator:
        schema = json.loads((schemas / name).read_text())
        jsonschema.Draft202012Validator.check_schema(schema)
        return jsonschema.Draft202012Validator(schema)

    run = run_from_record(RECORD)
    validator("result.schema.json").validate(json.loads(run.to_json()))
    lines = [line for line in read_record(RECORD) if line["record"] == "candidate"]
    assert len(lines) == 6
    for line in lines:
        validator("record-candidate.schema.json").validate(line)
    with pytest.raises(jsonschema.ValidationError):
        validator("record-candidate.schema.json").validate({**lines[0], "wall_s": "slow"})
