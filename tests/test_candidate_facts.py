"""A candidate's facts are described once (protocol/candidate.py's ``CandidateFacts``): each one
reaches the record line and ``to_json`` (their schemas too), the run document's row (its schema,
from which the labextension's types are made), and the MCP output, or is left out of that by name."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from z3sandbox_kernel.agents.mcp_schema import NOT_IN_OUTPUT, RENAMED, CandidateOutput
from z3sandbox_kernel.contracts.record import CandidateLine, CandidateRecord, SavedRun, record_schema
from z3sandbox_kernel.protocol.candidate import CandidateFacts
from z3sandbox_kernel.protocol.document import SAID_WHEN_SET, DocumentCandidate, run_schema

ROOT = Path(__file__).resolve().parent.parent
FACTS = CandidateFacts.__struct_fields__


def properties(schema: dict[str, object], name: str) -> set[str]:
    definitions = schema["$defs"]
    assert isinstance(definitions, dict)
    return set(definitions[name]["properties"])


@pytest.mark.parametrize("kind", [CandidateRecord, CandidateLine, DocumentCandidate])
def test_every_kind_of_candidate_has_every_fact(kind: type[CandidateFacts]) -> None:
    assert set(FACTS) <= set(kind.__struct_fields__)


@pytest.mark.parametrize("schema, name", [
    (record_schema(SavedRun), "CandidateRecord"), (run_schema(), "DocumentCandidate"),
    (json.loads((ROOT / "labextension/src/run-schema.generated.json").read_text()), "DocumentCandidate"),
    (json.loads((ROOT / "schemas/result.schema.json").read_text()), "CandidateRecord")])
def test_every_schema_of_a_candidate_has_every_fact(schema: dict[str, object], name: str) -> None:
    assert set(FACTS) <= properties(schema, name)


def test_the_record_line_schema_has_every_fact() -> None:
    line = json.loads((ROOT / "schemas/record-candidate.schema.json").read_text())
    assert set(FACTS) <= set(line["properties"])


def test_every_fact_is_in_the_mcp_output_or_left_out_by_name() -> None:
    said = set(CandidateOutput.__struct_fields__)
    missing = {fact for fact in FACTS if RENAMED.get(fact, fact) not in said} - NOT_IN_OUTPUT
    assert missing == set(), "say these in agents/mcp_schema.py's CandidateOutput, or in NOT_IN_OUTPUT"
    assert set(FACTS) >= NOT_IN_OUTPUT and set(RENAMED) <= set(FACTS)


def test_a_fact_said_only_when_set_is_a_fact_with_a_default() -> None:
    defaults = {field.name for field in msgspec.structs.fields(CandidateFacts)
                if field.default is not msgspec.NODEFAULT or field.default_factory is not msgspec.NODEFAULT}
    assert set(SAID_WHEN_SET) <= defaults


def test_a_document_row_reads_back_through_its_schema_type() -> None:
    """An older document's row (fewer fields) decodes as a ``DocumentCandidate``, the facts it
    lacks at their defaults; a field this version does not know is ignored."""
    row = msgspec.convert({"index": 2, "verdict": "sat", "reason": "", "model": {"x": 1},
                           "payload_hex": None, "payload_error": None, "unsat_core": None, "stdout": "",
                           "stderr": "", "stdout_truncated": False, "stderr_truncated": False,
                           "kill": "a later kill", "exit_code": 0, "signal": None, "verified": True,
                           "a_later_field": [1]}, DocumentCandidate)
    assert (row.index, row.model, row.confirmed_by, row.state) == (2, {"x": 1}, [], "done")
