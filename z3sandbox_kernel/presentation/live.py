"""A refresh of a live display, sized by what changed, not by K (jupyter/table.py sends it).

The document holds only the rows that changed since the previous refresh (``"delta": true``; the
labextension merges them into the table it holds), or every row (a keyframe, and every refresh
of a small run); the HTML and text show at most ``LIVE_ROWS`` rows; the metadata has the figures
of the rows sent and each running row's time so far.  The final display is ``run_mimebundle``.

A ``LiveTable`` keeps what a refresh needs from one to the next, so that its work is that of the
rows that changed: the run's summary row by row (tally.py), the document's head, and each row's
document entry and figures, HTML and text, made once when the row changes (a keyframe reuses
them, and so does each refresh that shows a running row again).  Once every row has its
verdict, the document is no longer live (stdout, the clauses said once, payload files): that
refresh is made from all the rows, as the final display is.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..contracts.results import RunResult
from .html import candidate_row, live_html
from .phrases import progress_summary
from .render import (
    MIME_TYPE,
    MimeData,
    MimeMetadata,
    add_payload_files,
    candidate_json,
    document_head,
    restated,
    run_document,
    timing,
)
from .summary import Summary, summarize
from .tally import Tally
from .textview import TextRow, text_row, text_table

if TYPE_CHECKING:
    from ..contracts.results import CandidateResult
    from ..protocol.document import DocumentEntry, DocumentTiming, RunDocument, RunMetadata


# A live refresh's HTML and text show at most this many rows (running ones first).
LIVE_ROWS = 20


@dataclass
class _Made:
    """What refreshes made of one row, kept until the row changes: its document entry (a live
    one: no stdout, no clause said once) and figures, and once shown its HTML and text row.
    Never changed in place: a document holds these very objects."""

    entry: DocumentEntry
    timing: DocumentTiming
    html: str = ""
    text: TextRow | None = None


class LiveTable:
    """A live run's rows and what its refreshes reuse; ``result`` holds the rows (``store``)."""

    def __init__(self, result: RunResult) -> None:
        self._tally = Tally()
        self.result = RunResult(
            candidates=self._tally.rows, limits=result.limits, language=result.language,
            isolation=result.isolation, notes=list(result.notes), interrupted=result.interrupted,
            elapsed_s=result.elapsed_s,
        )
        self._head = document_head(self.result)  # what the document says that does not change
        self._made: dict[int, _Made] = {}
        for candidate in result.candidates:
            self.store(candidate)

    def store(self, candidate: CandidateResult) -> list[int]:
        """Put ``candidate`` in its row (rows before it never seen are queued); the rows changed."""
        before = self.result[candidate.index] if candidate.index < len(self.result) else None
        changed = self._tally.store(candidate)
        for index in changed:
            made = self._made.pop(index, None)
            if made is not None and before is not None and index == candidate.index and \
                    _restarted(before, candidate):  # queued, now running: its entry, restated
                self._made[index] = _Made(restated(made.entry, candidate), made.timing)
        return changed

    def mimebundle(self, changed: list[int] | None,
                   running: dict[int, float]) -> tuple[MimeData, MimeMetadata]:
        """A refresh: the document with only the ``changed`` rows (``"delta": true``; None: every
        row), the HTML and text of ``_live_rows``, and in the metadata the figures of the rows
        sent that are done and each running row's elapsed time (``running_s``)."""
        summary = self._tally.summary()
        document: RunDocument
        metadata: RunMetadata
        if summary.finished:
            summary = summarize(self.result)
            document, metadata = self._whole(summary, changed)
        else:
            total = summary.total
            rows = range(total) if changed is None else sorted({i for i in changed if 0 <= i < total})
            kept = self._made
            made = [kept.get(i) or self._row(i) for i in rows]
            document = run_document(self.result, summary, [m.entry for m in made], head=self._head)
            rows_of = self.result.candidates
            metadata = {"elapsed_s": round(self.result.elapsed_s, 4),
                        "timings": [m.timing for m in made if rows_of[m.entry["index"]].verdict is not None]}
            if changed is not None:
                document["delta"] = True
        metadata["timings"] += [{"index": index, "running_s": round(seconds, 1)}
                                for index, seconds in sorted(running.items())]
        shown = self._live_rows(changed)
        step = progress_summary(summary.progress, self.result.elapsed_s)
        made_shown = [self._shown(c.index) for c in shown]
        lines = text_table(shown, made=[text for _, text in made_shown])
        data: MimeData = {
            "text/plain": "\n".join([f"RunResult: pending ({summary.states})", *lines,
                                     f"progress: {step} (incomplete)"]),
            "text/html": live_html(self.result, shown, summary, [html for html, _ in made_shown]),
            MIME_TYPE: document,
        }
        return data, {MIME_TYPE: metadata}

    def _row(self, index: int) -> _Made:
        """What refreshes made of row ``index``: its entry and figures made once."""
        made = self._made.get(index)
        if made is None:
            candidate = self.result[index]
            made = self._made[index] = _Made(candidate_json(candidate, live=True), timing(candidate))
        return made

    def _shown(self, index: int) -> tuple[str, TextRow]:
        """Row ``index``'s HTML and text row, made once."""
        made = self._row(index)
        if made.text is None:
            made.html, made.text = candidate_row(self.result[index]), text_row(self.result[index])
        return made.html, made.text

    def _whole(self, summary: Summary, changed: list[int] | None) -> tuple[RunDocument, RunMetadata]:
        """Every row has its verdict: the rows sent as the final display has them (stdout, the
        clauses said once), and where the run's payloads are; the rows not sent are not made."""
        result, total = self.result, len(self.result)
        rows = range(total) if changed is None else sorted({i for i in changed if 0 <= i < total})
        document = run_document(result, summary, [
            candidate_json(result[i], alone=total == 1, shared=summary.said_once) for i in rows],
            head=self._head)
        add_payload_files(result, document)
        if changed is not None:
            document["delta"] = True
        timings = [timing(result[i]) for i in rows]
        return document, {"elapsed_s": round(result.elapsed_s, 4), "timings": timings}

    def _live_rows(self, changed: list[int] | None) -> list[CandidateResult]:
        """The rows a live refresh's HTML and text show: all of a small run; else the running
        rows, then those that just changed, at most half of ``LIVE_ROWS``, in index order."""
        rows = self.result.candidates
        if len(rows) <= LIVE_ROWS:
            return list(rows)
        running = self._tally.running()[:LIVE_ROWS // 2]
        recent = [i for i in (changed or ()) if i < len(rows) and rows[i].verdict is not None]
        chosen = dict.fromkeys([*running, *recent][:LIVE_ROWS // 2])
        return [rows[i] for i in sorted(chosen)]


def _restarted(before: CandidateResult, after: CandidateResult) -> bool:
    """A row not done that changed its state alone (``render.restated``)."""
    live = ("queued", "running")
    return before.verdict is None and after.verdict is None and before.state in live and \
        after.state in live and dataclasses.replace(before, state=after.state) == after


def live_mimebundle(result: RunResult, changed: list[int] | None,
                    running: dict[int, float]) -> tuple[MimeData, MimeMetadata]:
    """One refresh of ``result`` as it is now (a ``LiveTable`` of it: its work is that of all
    its rows; a live display keeps its ``LiveTable`` from one refresh to the next)."""
    return LiveTable(result).mimebundle(changed, running)
