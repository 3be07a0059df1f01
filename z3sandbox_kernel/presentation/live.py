"""A refresh of a live display, sized by what changed, not by K (jupyter/table.py sends it).

The document holds only the rows that changed since the previous refresh (``"delta": true``; the
labextension merges them into the table it holds), or every row (a keyframe, and every refresh
of a small run); the HTML and text show at most ``LIVE_ROWS`` rows; the metadata has the figures
of the rows sent and each running row's time so far.  The final display is ``run_mimebundle``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .html import live_html
from .phrases import counts_summary, progress_summary
from .render import MIME_TYPE, MimeData, MimeMetadata, run_json, run_metadata
from .textview import text_table

if TYPE_CHECKING:
    from ..results import CandidateResult, RunResult


# A live refresh's HTML and text show at most this many rows (running ones first).
LIVE_ROWS = 20


def live_rows(result: RunResult, changed: list[int] | None) -> list[CandidateResult]:
    """The rows a live refresh's HTML and text show: all of a small run; else the running rows,
    then those that just changed, at most half of ``LIVE_ROWS``, in index order."""
    rows = result.candidates
    if len(rows) <= LIVE_ROWS:
        return list(rows)
    running = [c for c in rows if c.verdict is None and c.state == "running"]
    recent = [rows[i] for i in (changed or ()) if i < len(rows) and rows[i].verdict is not None]
    chosen = {c.index: c for c in (running + recent)[:LIVE_ROWS // 2]}
    return [chosen[i] for i in sorted(chosen)]


def live_mimebundle(result: RunResult, changed: list[int] | None,
                    running: dict[int, float]) -> tuple[MimeData, MimeMetadata]:
    """A refresh of a live display, sized by what changed, not by K: the document with only the
    ``changed`` rows (``"delta": true``; ``changed`` None: every row), the HTML and text of
    ``live_rows``, and in the metadata the figures of the rows sent and each running row's
    elapsed time (``running_s``)."""
    document = run_json(result)
    metadata = run_metadata(result)
    if changed is not None:
        keep = set(changed)
        document["candidates"] = [c for c in document["candidates"] if c["index"] in keep]
        document["delta"] = True
        metadata["timings"] = [t for t in metadata["timings"] if t["index"] in keep]
    done = {c.index for c in result.candidates if c.verdict is not None}
    metadata["timings"] = [t for t in metadata["timings"] if t["index"] in done]
    metadata["timings"] += [{"index": index, "running_s": round(seconds, 1)}
                            for index, seconds in sorted(running.items())]
    rows = live_rows(result, changed)
    text = "\n".join([f"RunResult: pending ({counts_summary(result)})",
                      *text_table(rows), f"progress: {progress_summary(result)} (incomplete)"])
    data: MimeData = {"text/plain": text, "text/html": live_html(result, rows), MIME_TYPE: document}
    return data, {MIME_TYPE: metadata}
