"""What a display says of a run as a whole (its vote, counts, progress, groups of identical models,
the clauses said once), worked out once per display and read by every view of it: the run
document (render.py), the HTML caption (html.py) and the text header (textview.py).

``summarize`` works it out from a run's rows, by the vote's own rules (vote.py); a live table
keeps the same figures row by row as its run goes (tally.py), so that a refresh costs the rows
that changed, not the run's size.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .phrases import answer_words, counts_summary, groups_summary
from .reasons import said_once, said_once_caption

if TYPE_CHECKING:
    from ..contracts.results import RunResult
    from ..protocol.document import DocumentProgress, DocumentTie
    from ..protocol.verdicts import Verdict


@dataclass(frozen=True)
class Summary:
    """The run as a whole, as its views say it."""

    verdict: Verdict
    vote: str  # in prove()'s words for a run of prove() calls
    counts: dict[str, int]  # RunResult.counts: each verdict's number, earliest first
    states: str  # phrases.counts_summary: "2 sat, 1 timeout, 5 running"
    tie: DocumentTie | None
    words: dict[str, str]  # phrases.answer_words
    done: int
    total: int
    groups: str  # phrases.groups_summary
    said_once: list[str]  # reasons.said_once
    said_once_caption: str

    @property
    def finished(self) -> bool:
        """A display is live while some candidate has no verdict yet (``phrases.finished``)."""
        return self.done == self.total

    @property
    def progress(self) -> DocumentProgress:
        return {"done": self.done, "total": self.total}


def summarize(result: RunResult) -> Summary:
    """The summary of a run from its rows: what a final display (and any view of a result) says."""
    candidates = result.candidates
    return Summary(
        verdict=result.verdict, vote=result.vote, counts=result.counts, states=counts_summary(result),
        tie=result.tie, words=answer_words(result),
        done=sum(1 for c in candidates if c.verdict is not None), total=len(candidates),
        groups=groups_summary(result), said_once=said_once(candidates),
        said_once_caption=said_once_caption(candidates),
    )
