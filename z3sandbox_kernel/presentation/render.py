"""How results look: the ``application/vnd.z3sandbox.run+json`` document (``run_json``, of the types
in ``protocol/document.py``, its one schema), the output metadata with its volatile figures
(``run_metadata``), and the text and HTML tables; ``results.py`` shows a result with these.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Literal, TypedDict

from ..protocol.document import (
    MIME_TYPE,
    SCHEMA_NAME,
    SCHEMA_VERSION,
    DocumentCandidate,
    DocumentColumn,
    DocumentEntry,
    DocumentPayloadFile,
    DocumentTiming,
    RunDocument,
    RunMetadata,
    entry,
)
from .html import candidate_html, run_html
from .phrases import (
    REASON_WIDTH,
    SAVED_COLUMNS,
    TABLE_COLUMNS,
    Column,
    isolation_layers,
    isolation_shortfall,
    isolation_summary,
    limits_shown,
    progress_summary,
    tie_summary,
)
from .reasons import fit_reason, row_reason, unconfirmed_why
from .row_details import (
    confirmation,
    core_places,
    core_summary,
    further_models,
    objective_summary,
    shown_verdict,
    shows_output,
    smt2_core_answer,
)
from .summary import Summary, summarize
from .textview import candidate_alone_text, run_text

if TYPE_CHECKING:
    from ..contracts.results import CandidateResult, RunResult

# A display's data and metadata, keyed by MIME type (the run document's key is ``MIME_TYPE``).
MimeData = TypedDict("MimeData", {"text/plain": str, "text/html": str,
                                  "application/vnd.z3sandbox.run+json": RunDocument})
MimeMetadata = TypedDict("MimeMetadata", {"application/vnd.z3sandbox.run+json": RunMetadata})

__all__ = ["MIME_TYPE", "SCHEMA_VERSION", "candidate_alone_text", "candidate_mimebundle", "run_json",
           "run_metadata", "run_mimebundle", "run_text", "table_rows"]

VOLATILE_FIELDS = ("wall_s", "cpu_s", "peak_rss_mb")
# CandidateResult's fields that the document leaves out: volatile (in the metadata), per-machine, or
# once per run (limits); ``payload`` is there as ``payload_hex``, ``state`` only while it runs.
# Every other field is in DocumentCandidate (tests/test_run_document.py checks that none is forgotten).
NOT_IN_DOCUMENT = frozenset({*VOLATILE_FIELDS, "isolation", "host", "limits"})
# The columns whose text the labextension draws as it is ("cells"); the others are markup made
# from fields the document has anyway (index, a badge from "shown", the label and source preview).
# The reason's cell and the core under the row ("core") are made below.
_CELLS = frozenset({"kill", "model"})


# ------------------------------------------------------------------------------------------- JSON

def candidate_json(candidate: CandidateResult, live: bool = False, alone: bool = False,
                   shared: Collection[str] = ()) -> DocumentEntry:
    """``live``: a document refreshed while the run goes leaves stdout and stderr out (empty), as
    K candidates' output, resent at every refresh, would be megabytes; the final one has them.
    ``alone``: the run's only candidate (its stdout is shown in its row); ``shared``: the reason's
    clauses the caption says once (``reasons.said_once``)."""
    row = candidate.facts_as(DocumentCandidate)  # its facts: its model as it came
    if live:
        row.stdout = row.stderr = ""
    if candidate.checks_made <= 1:  # one check: its verdict and model say it all
        row.checks, row.checks_made = [], 0
    row.disputed = row.disputed or None
    if candidate.verdict is not None:  # a state only while it waits or runs
        row.state = "done"
    # What the row shows without a click (row_details.py), decided here once for every renderer.
    row.shown, row.core_answer = shown_verdict(candidate), smt2_core_answer(candidate)
    row.show_output = shows_output(candidate, alone) and not live
    # Each saved column's text as the text and HTML tables show it: the labextension draws these
    # (its own markup around them: badges, folding), it does not format cells again.  The whole
    # reason as its row says it (less what the caption says once); the row's cell may cut its
    # source line.
    row.reason_shown = row_reason(candidate, shared)
    row.cells = {column.key: column.text(candidate) for column in SAVED_COLUMNS if column.key in _CELLS}
    row.cells["reason"] = fit_reason(row.reason_shown, REASON_WIDTH)
    core = core_summary(candidate)
    if core:  # under the row, as the text and HTML tables show it
        row.cells["core"] = core
    confirmed = confirmation(candidate)
    if confirmed is not None:
        row.confirmation = confirmed
    why = unconfirmed_why(candidate)
    if why is not None:  # an answer nobody confirmed: its badge must not look confirmed
        row.unconfirmed = why
    if candidate.objectives:
        row.objective = objective_summary(candidate)
    further = further_models(candidate)
    if further:  # models=N, or models read at checks
        row.further_models = further
    if candidate.cell_line is not None and candidate.unsat_core:  # lines as the cell counts them
        row.core_places = core_places(candidate)
    return entry(row)


def restated(made: DocumentEntry, candidate: CandidateResult) -> DocumentEntry:
    """``candidate_json(candidate, live=True)``, from the ``entry`` of a candidate not done that
    differs from it in its ``state`` alone (queued, then running): the keys that say the state."""
    state = candidate.state
    if state == "done":
        raise ValueError("restated: a candidate not done")
    return {**made, "shown": shown_verdict(candidate), "state": state}


def _column(column: Column) -> DocumentColumn:
    document: DocumentColumn = {"key": column.key, "title": column.title}
    if column.unit:
        document["unit"] = column.unit
    return document


def run_json(result: RunResult, view: Literal["run", "candidate"] = "run",
             summary: Summary | None = None) -> RunDocument:
    """The run's document; ``summary``: the run's (``summary.summarize``), when the caller has it."""
    summary = summary or summarize(result)
    alone = len(result.candidates) == 1
    document = run_document(result, summary, [
        candidate_json(c, live=not summary.finished, alone=alone, shared=summary.said_once)
        for c in result.candidates], view)
    if summary.finished:
        add_payload_files(result, document)
    return document


def run_document(result: RunResult, summary: Summary, candidates: list[DocumentEntry],
                 view: Literal["run", "candidate"] = "run", head: RunDocument | None = None) -> RunDocument:
    """A run's document with these ``candidates`` (each ``candidate_json``): all of them, or
    those of a live refresh (live.py), whose summary a live table kept as its run went;
    ``head``: the run's ``document_head``, when the caller kept it."""
    document: RunDocument = {
        **(head if head is not None else document_head(result, view)),
        "verdict": summary.verdict.value,
        "vote": summary.vote,  # in prove()'s words for a run of prove() calls
        "counts": summary.counts,
        "finished": summary.finished,
        "progress": summary.progress,
        "tie": summary.tie,
        "counts_shown": summary.states,  # as the text and HTML captions count them
        "candidates": candidates,
    }
    if summary.tie is not None:
        document["tie_shown"] = tie_summary(summary.tie)
    if summary.words:  # a run of prove() calls: its counts and filter in those words
        document["words"] = summary.words
    if summary.said_once:  # said once, in the caption, not on every row
        document["said_once"] = summary.said_once_caption
    return document


def document_head(result: RunResult, view: Literal["run", "candidate"] = "run") -> RunDocument:
    """A run's document less its summary and rows (``run_document`` fills them, in this order):
    what does not change while the run goes."""
    return {
        "schema": SCHEMA_NAME,
        "version": SCHEMA_VERSION,
        "verdict": "unknown",
        "vote": "",
        "counts": {},
        "language": result.language,
        "limits": result.limits.to_dict(),
        "isolation": result.isolation,
        "notes": list(result.notes),
        "interrupted": result.interrupted,
        "finished": False,
        "progress": {"done": 0, "total": 0},
        "tie": None,
        "view": view,
        "columns": [_column(column) for column in TABLE_COLUMNS],
        "isolation_summary": isolation_summary(result.isolation),
        "isolation_shortfall": isolation_shortfall(result.isolation),
        "limits_shown": limits_shown(result.limits),
        "isolation_layers": isolation_layers(result.isolation),
        "candidates": [],
    }


def add_payload_files(result: RunResult, document: RunDocument) -> None:
    """``payload_files``: each distinct payload of the run, where its bytes are in the document
    (a live refresh's has only some rows: live.py)."""
    files: list[DocumentPayloadFile] = []
    rows = {row["index"]: row for row in document["candidates"]}
    candidates = {candidate.index: candidate for candidate in result.candidates}
    for name, index, kind, _ in result.payload_files():
        at = "payload_hex"
        if kind.startswith("model-"):
            at = f"more_models/{int(kind.removeprefix('model-')) - 2}"
        elif kind.startswith("check-"):
            at = f"checks/{int(kind.removeprefix('check-')) - 1}"
            row = rows.get(index)
            if row is not None and "checks" not in row:  # one check, not the candidate's payload
                candidate = candidates[index]
                row["checks"] = [check.to_dict() for check in candidate.checks]
                row["checks_made"] = candidate.checks_made
        files.append({"name": name, "index": index, "at": at})
    if files:
        document["payload_files"] = files


def run_metadata(result: RunResult) -> RunMetadata:
    return {"elapsed_s": round(result.elapsed_s, 4), "timings": [timing(c) for c in result.candidates]}


def timing(candidate: CandidateResult) -> DocumentTiming:
    """A candidate's volatile figures, as the output's metadata holds them."""
    return {"index": candidate.index, "wall_s": round(candidate.wall_s, 4),
            "cpu_s": round(candidate.cpu_s, 4), "peak_rss_mb": round(candidate.peak_rss_mb, 4)}


# ---------------------------------------------------------------------------------- MIME bundles

def run_mimebundle(result: RunResult) -> tuple[MimeData, MimeMetadata]:
    """The display of a run, live (some verdicts missing) or final: the same table either way."""
    summary = summarize(result)
    text = run_text(result, summary=summary)
    if not summary.finished:
        text = f"{text}\nprogress: {progress_summary(summary.progress, result.elapsed_s)} (incomplete)"
    data: MimeData = {"text/plain": text, "text/html": run_html(result, summary=summary),
                      MIME_TYPE: run_json(result, summary=summary)}
    return data, {MIME_TYPE: run_metadata(result)}


def candidate_mimebundle(candidate: CandidateResult, alone: RunResult
                         ) -> tuple[MimeData, MimeMetadata]:
    """One candidate: its own text and HTML; the document is ``alone`` (a run of it alone, which
    results.py makes), with ``view: candidate``."""
    data: MimeData = {
        "text/plain": candidate_alone_text(candidate),
        "text/html": candidate_html(candidate),
        MIME_TYPE: run_json(alone, view="candidate"),
    }
    return data, {MIME_TYPE: run_metadata(alone)}


def table_rows(result: RunResult) -> list[dict[str, object]]:
    """One dict per candidate, keyed by the table's columns (``phrases.TABLE_COLUMNS``)."""
    return [{column.key: column.value(c) for column in TABLE_COLUMNS} for c in result.candidates]
