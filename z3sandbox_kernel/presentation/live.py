"""A refresh of a live display, sized by what changed, not by K (jupyter/table.py sends it).

The document holds only the rows that changed since the previous refresh (``"delta": true``; the
labextension merges them into the table it holds), or every row (a keyframe, and every refresh
of a small run); the HTML and text show at most ``LIVE_ROWS`` rows; the metadata has the figures
of the rows sent and each running row's time so far.  The final display is ``run_mimebundle``.

A ``LiveTable`` keeps what a refresh needs from one to the next, so that its work is that of the
rows that changed: the run's summary row by row (tally.py), and each row's document entry and
figures, made once when the row changes (a keyframe reuses them).  Once every row has its
verdict, the document is no longer live (stdout, the clauses said once, payload files): that
refresh is made from all the rows, as the final display is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..results import RunResult
from .html import live_html
from .phrases import progress_summary
from .render import (
    MIME_TYPE,
    MimeData,
    MimeMetadata,
    candidate_json,
    run_document,
    run_json,
    run_metadata,
    timing,
)
from .summary import Summary, summarize
from .tally import Tally
from .textview import text_table

if TYPE_CHECKING:
    from ..protocol.document import DocumentCandidate, DocumentTiming, RunDocument, RunMetadata
    from ..results import CandidateResult


# A live refresh's HTML and text show at most this many rows (running ones first).
LIVE_ROWS = 20


class LiveTable:
    """A live run's rows and what its refreshes reuse; ``result`` holds the rows (``store``)."""

    def __init__(self, result: RunResult) -> None:
        self._tally = Tally()
        self.result = RunResult(
            candidates=self._tally.rows, limits=result.limits, language=result.language,
            isolation=result.isolation, notes=list(result.notes), interrupted=result.interrupted,
            elapsed_s=result.elapsed_s,
        )
        # Each row's live document entry (candidate_json) and figures, once made: never changed
        # in place (a document holds these very objects), dropped when the row changes.
        self._entries: dict[int, DocumentCandidate] = {}
        self._timings: dict[int, DocumentTiming] = {}
        for candidate in result.candidates:
            self.store(candidate)

    def store(self, candidate: CandidateResult) -> list[int]:
        """Put ``candidate`` in its row (rows before it never seen are queued); the rows changed."""
        changed = self._tally.store(candidate)
        for index in changed:
            self._entries.pop(index, None)
            self._timings.pop(index, None)
        return changed

    def mimebundle(self, changed: list[int] | None,
                   running: dict[int, float]) -> tuple[MimeData, MimeMetadata]:
        """A refresh: the document with only the ``changed`` rows (``"delta": true``; None: every
        row), the HTML and text of ``live_rows``, and in the metadata the figures of the rows
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
            entries, timings, candidates = self._entries, self._timings, self.result.candidates
            document = run_document(self.result, summary, [entries.get(i) or self._entry(i) for i in rows])
            metadata = {"elapsed_s": round(self.result.elapsed_s, 4),
                        "timings": [timings.get(i) or self._timing(i) for i in rows
                                    if candidates[i].verdict is not None]}
            if changed is not None:
                document["delta"] = True
        metadata["timings"] += [{"index": index, "running_s": round(seconds, 1)}
                                for index, seconds in sorted(running.items())]
        shown = self._live_rows(changed)
        step = progress_summary(summary.progress, self.result.elapsed_s)
        text = "\n".join([f"RunResult: pending ({summary.states})", *text_table(shown),
                          f"progress: {step} (incomplete)"])
        data: MimeData = {"text/plain": text, "text/html": live_html(self.result, shown, summary),
                          MIME_TYPE: document}
        return data, {MIME_TYPE: metadata}

    def _entry(self, index: int) -> DocumentCandidate:
        entry = self._entries.get(index)
        if entry is None:  # a live entry: no stdout, no clause said once (render.candidate_json)
            entry = self._entries[index] = candidate_json(self.result[index], live=True)
        return entry

    def _timing(self, index: int) -> DocumentTiming:
        figures = self._timings.get(index)
        if figures is None:
            figures = self._timings[index] = timing(self.result[index])
        return figures

    def _whole(self, summary: Summary, changed: list[int] | None) -> tuple[RunDocument, RunMetadata]:
        """Every row has its verdict: the document as the final display has it (once a run)."""
        document, metadata = run_json(self.result, summary=summary), run_metadata(self.result)
        if changed is not None:
            keep = set(changed)
            document["candidates"] = [c for c in document["candidates"] if c["index"] in keep]
            document["delta"] = True
            metadata["timings"] = [t for t in metadata["timings"] if t["index"] in keep]
        return document, metadata

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


def live_mimebundle(result: RunResult, changed: list[int] | None,
                    running: dict[int, float]) -> tuple[MimeData, MimeMetadata]:
    """One refresh of ``result`` as it is now (a ``LiveTable`` of it: its work is that of all
    its rows; a live display keeps its ``LiveTable`` from one refresh to the next)."""
    return LiveTable(result).mimebundle(changed, running)
