"""A candidate as JSON (``CandidateRecord``: its facts, protocol/candidate.py, and its figures), from
which a record's candidate lines (host/records.py), ``RunResult.to_json`` and the CLI's ``--json``
are written and by which they are read back (``RunResult.from_json``, host/records_read.py).

Every field has a default but ``index``: a record or saved result written before a field existed
lacks it and reads as it always did.  A field this version does not know (a later version's) is
ignored.  ``record_schema`` gives the JSON Schema of a saved
result (``SavedRun``) and of a record's candidate line (``CandidateLine``), written to ``schemas/``
by ``python tools/sync_docs.py`` and checked by its ``--check`` (tests/test_docs.py).
"""

from __future__ import annotations

from typing import Final, Literal, TypeVar

import msgspec

from ..protocol import IsolationReport
from ..protocol.candidate import CandidateFacts

RESULT_SCHEMA: Final = "z3sandbox.result"  # RunResult.to_json(); the display document is protocol.document's
T = TypeVar("T")

LimitValues = dict[str, int | float]  # a run's limits as records and documents hold them


class CandidateRecord(CandidateFacts, kw_only=True):
    """``CandidateResult`` as JSON: its facts (protocol/candidate.py), its volatile figures, where
    it ran and its limits (``Limits.to_dict()``)."""

    wall_s: float = 0.0
    cpu_s: float = 0.0
    peak_rss_mb: float = 0.0
    isolation: IsolationReport | None = None
    host: str | None = None
    limits: LimitValues | None = None


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
