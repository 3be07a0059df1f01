"""A candidate as JSON: the one description of its fields (``CandidateRecord``), from which a
record's candidate lines (host/records.py), ``RunResult.to_json`` and the CLI's ``--json`` are
written and by which they are read back (``RunResult.from_json``, host/records_read.py).

Every field has a default but ``index``: a record or saved result written before a field existed
lacks it and reads as it always did.  A field this version does not know (a later version's, or
a display document's row fields) is ignored.  ``record_schema`` gives the JSON Schema of a saved
result (``SavedRun``) and of a record's candidate line (``CandidateLine``), written to ``schemas/``
by ``python tools/sync_docs.py`` and checked by its ``--check`` (tests/test_docs.py).
"""

from __future__ import annotations

from typing import Annotated, Final, Literal, TypeVar

import msgspec

from ..protocol import CandidateError, CheckDict, IsolationReport, ModelDict, Objective
from ..protocol.roles import Kill
from ..protocol.verdicts import Verdict
from ..protocol.wire import JsonValue

RESULT_SCHEMA: Final = "z3sandbox.result"  # RunResult.to_json(); the display document is protocol.document's
# Read as text, not as the enum: a kill reason this version does not know reads as none (Kill.read).
T = TypeVar("T")
KillName = Annotated[str, msgspec.Meta(extra_json_schema={"enum": [kill.value for kill in Kill]})]

LimitValues = dict[str, int | float]  # a run's limits as records and documents hold them


class CandidateRecord(msgspec.Struct, kw_only=True):
    """``CandidateResult`` as JSON: its model's values encoded (``encode_value``), its payload as
    ``payload_hex``, its limits as ``Limits.to_dict()``.  ``verdict`` is null while it waits or
    runs (``state``)."""

    index: int
    verdict: Verdict | None = None
    state: Literal["queued", "running", "done"] = "done"
    reason: str = ""
    model: dict[str, JsonValue] | None = None
    payload_hex: str | None = None
    payload_error: str | None = None
    unsat_core: list[tuple[int, str]] | None = None  # [script line, its text]
    objectives: list[Objective] = []
    more_models: list[ModelDict] = []
    checks: list[CheckDict] = []
    checks_made: int = 0
    stdout: str = ""
    stderr: str = ""
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    output_truncated: bool = False
    wall_s: float = 0.0
    cpu_s: float = 0.0
    peak_rss_mb: float = 0.0
    kill: KillName | None = None
    exit_code: int | None = None
    signal: int | None = None
    verified: bool | None = None
    confirmed_by: list[str] = []
    disputed: str | None = None
    model_omitted: int = 0
    isolation: IsolationReport | None = None
    host: str | None = None
    limits: LimitValues | None = None
    label: str | None = None
    source_preview: str | None = None
    error: CandidateError | None = None
    cell_line: int | None = None
    cell_candidates: int = 0


class CandidateLine(CandidateRecord, kw_only=True):
    """A candidate line of a run record (host/records.py): ``{"record": "candidate", "run_id":
    ..., <CandidateRecord>}``, with ``unchecked`` when a verifier left some of its answer unchecked."""

    record: Literal["candidate"]
    run_id: str
    unchecked: str | None = None  # what no verifier checked of its answer, in words (host/claims.py)


class SavedRun(msgspec.Struct, kw_only=True):
    """``RunResult.to_json()``: the whole run, figures included."""

    schema: Literal["z3sandbox.result"]
    version: int = 1
    language: str
    limits: LimitValues
    isolation: IsolationReport | None
    notes: list[str]
    interrupted: bool
    elapsed_s: float
    run_id: str | None = None  # absent in results saved before runs had ids
    candidates: list[CandidateRecord]


def checked_as(data: object, kind: type[T], what: str) -> T:
    """``data`` (decoded JSON) checked against ``kind``; a clear error naming ``what`` when it is not one."""
    try:
        return msgspec.convert(data, kind)
    except msgspec.ValidationError as exc:
        raise ValueError(f"not {what}: {exc}") from None


def record_schema(kind: type[SavedRun | CandidateLine]) -> dict[str, object]:
    """The JSON Schema (2020-12) of ``kind`` (a saved result, or a record's candidate line), with
    the types it uses among its definitions."""
    _, definitions = msgspec.json.schema_components([kind], ref_template="#/$defs/{name}")
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$comment": _GENERATED,
            **definitions.pop(kind.__name__), "$defs": dict(sorted(definitions.items()))}


_GENERATED = ("generated from z3sandbox_kernel/contracts/record.py by python tools/sync_docs.py: "
              "edit the Python types, not this file")
