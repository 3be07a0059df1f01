"""A live table's rows and its summary kept row by row (``Tally``), so that a refresh reads the
vote, the counts, the progress and the groups of identical models without going through all K rows.

Each row's part in them (``_Part``: its state, whether its answer counts and is confirmed, its
model group...) is added when the row arrives and taken back when it changes; the vote itself is
then vote.py's rule on those numbers (``tie_of``, ``verdict_of``, ``vote_word_of``).
``summary.summarize`` works out the same figures from all the rows (a final display);
tests/test_live_table.py checks that both agree after any sequence of changes.

Rows are kept in index order per state, verdict and model group (sorted lists: ``bisect``),
because the views name the earliest row first among equals (``Counter.most_common``'s order).
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections import Counter
from dataclasses import dataclass
from typing import TypeVar

from ..contracts import vote as voting
from ..contracts.results import CandidateResult
from ..contracts.vote import model_group_key
from ..protocol.verdicts import Verdict
from .phrases import SHOWN_GROUPS, SHOWN_MEMBERS, counts_phrase, groups_phrase
from .reasons import said_once, said_once_caption
from .row_details import state_label
from .summary import Summary

Key = TypeVar("Key")


@dataclass(frozen=True)
class _Part:
    """What one row adds to its run's summary."""

    label: str  # row_details.state_label: its verdict, or "queued", "running"
    verdict: Verdict | None
    counted: bool  # vote.counts: its answer counts in the vote
    confirmed: bool  # a counted answer that vote.confirmed
    proving: bool | None  # a decisive answer: whether a prove() call said it (vote.prove_word)
    group: str | None  # a sat row's model group (vote.model_group_key)


def _part(candidate: CandidateResult) -> _Part:
    counted = voting.counts(candidate)
    decisive = candidate.verdict is not None and candidate.verdict.decisive
    return _Part(
        label=state_label(candidate), verdict=candidate.verdict, counted=counted,
        confirmed=counted and voting.confirmed(candidate),
        proving=voting.prove_word(candidate) is not None if decisive else None,
        group=model_group_key(candidate) if candidate.verdict is Verdict.SAT else None,
    )


def _file(rows: dict[Key, list[int]], key: Key, index: int, sign: int) -> None:
    """Put row ``index`` under ``key`` (``sign`` 1), or take it out (-1)."""
    members = rows.setdefault(key, [])
    if sign > 0:
        insort(members, index)
        return
    del members[bisect_left(members, index)]
    if not members:
        del rows[key]


def _earliest_first(rows: dict[Key, list[int]]) -> list[tuple[Key, list[int]]]:
    return sorted(rows.items(), key=lambda item: item[1][0])


class Tally:
    """A live run's rows (``rows``, index ``i`` at ``rows[i]``) and the numbers of its summary."""

    def __init__(self) -> None:
        self.rows: list[CandidateResult] = []
        self.done = 0
        self._parts: list[_Part] = []
        self._labels: dict[str, list[int]] = {}  # rows by state label
        self._verdicts: dict[Verdict, list[int]] = {}
        self._counted: Counter[Verdict] = Counter()  # sat and unsat answers that count
        self._confirmed: Counter[Verdict] = Counter()  # of those, the confirmed ones
        self._decisive = self._proving = 0  # decisive answers, and those prove() calls said
        self._groups: dict[str, list[int]] = {}  # sat rows by model group
        self._biggest: list[tuple[int, int, str]] = []  # (-size, first row, group), sorted

    def store(self, candidate: CandidateResult) -> list[int]:
        """Put ``candidate`` in its row (rows before it never seen are queued); the rows changed."""
        changed = []
        while len(self.rows) < candidate.index:
            queued = CandidateResult(index=len(self.rows), verdict=None, state="queued")
            changed.append(queued.index)
            self._append(queued)
        if candidate.index == len(self.rows):
            self._append(candidate)
        else:
            self._count(candidate.index, self._parts[candidate.index], -1)
            self.rows[candidate.index] = candidate
            self._parts[candidate.index] = _part(candidate)
            self._count(candidate.index, self._parts[candidate.index], 1)
        return [*changed, candidate.index]

    def running(self) -> list[int]:
        """The rows running now, in index order."""
        return self._labels.get("running", [])

    def summary(self) -> Summary:
        """The run's summary, as ``summary.summarize`` says it, from the numbers kept."""
        sat, unsat = self._counted[Verdict.SAT], self._counted[Verdict.UNSAT]
        proves = self._decisive > 0 and self._proving == self._decisive
        words = dict(voting.PROVE_WORDS) if proves else {}
        tie = voting.tie_of(sat, unsat, self._confirmed[Verdict.SAT] > 0,
                            self._confirmed[Verdict.UNSAT] > 0, proves)
        verdicts = _earliest_first(self._verdicts)
        verdict = voting.verdict_of(sat, unsat, tie, {v: len(rows) for v, rows in verdicts
                                                      if not v.decisive})
        states = sorted(_earliest_first(self._labels), key=lambda item: -len(item[1]))  # stable
        biggest = [(self.rows[first], self._groups[group][:SHOWN_MEMBERS + 1], -size)
                   for size, first, group in self._biggest[:SHOWN_GROUPS]]
        finished = self.done == len(self.rows)  # said once: only of a finished run's rows
        return Summary(
            verdict=verdict, vote=voting.vote_word_of(verdict, proves, sat + unsat > 0),
            counts={v.value: len(rows) for v, rows in verdicts},
            states=counts_phrase((words.get(label, label), len(rows)) for label, rows in states),
            tie=tie, words=words, done=self.done, total=len(self.rows),
            groups=groups_phrase(biggest, len(self._groups)),
            said_once=said_once(self.rows) if finished else [],
            said_once_caption=said_once_caption(self.rows) if finished else "",
        )

    def _append(self, candidate: CandidateResult) -> None:
        self.rows.append(candidate)
        self._parts.append(_part(candidate))
        self._count(candidate.index, self._parts[-1], 1)

    def _count(self, index: int, part: _Part, sign: int) -> None:
        """Add row ``index``'s part to the numbers (``sign`` 1), or take it back (-1)."""
        _file(self._labels, part.label, index, sign)
        if part.verdict is not None:
            _file(self._verdicts, part.verdict, index, sign)
            self.done += sign
            if part.counted:
                self._counted[part.verdict] += sign
                self._confirmed[part.verdict] += sign * part.confirmed
        if part.proving is not None:
            self._decisive += sign
            self._proving += sign * part.proving
        if part.group is not None:
            self._regroup(part.group, index, sign)

    def _regroup(self, group: str, index: int, sign: int) -> None:
        members = self._groups.get(group)
        if members:
            del self._biggest[bisect_left(self._biggest, (-len(members), members[0], group))]
        _file(self._groups, group, index, sign)
        members = self._groups.get(group)
        if members:
            insort(self._biggest, (-len(members), members[0], group))
