"""``diff_runs``: what changed from one run to another, or from one eval to another (two record
folders), candidate by candidate.

Candidates are matched as an experiment log needs them matched, not by position: first by label,
then by the sha256 of their script, then (two runs only) by index; each step pairs what is left,
K seeds of one script in index order.  So the same scripts sent in another order show no change.
Of a folder, each ``repair()`` loop counts once, by its last round (what the loop ended on, and how
many rounds it took), and each other run by itself; its candidates pair with the other folder's by
label (an eval's task names), then by repair id (one loop in both), then by script.  A verdict that
changed is judged by BenchExec's rule: a change that is not strictly better is a regression; where
the run said which verdict it expected of a candidate (``expected=``), reaching it is an
improvement and leaving it a regression, whatever the ranks.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from pathlib import Path

from ..contracts.results import CandidateResult, RunResult
from ..protocol.verdicts import Verdict
from .records_read import read_record, record_files, run_from_record

# How good a verdict is, for diff_runs: an answer, then no answer for want of resources, then a
# failure of the script or the sandbox, then a wrong answer.  A change to a higher rank is an
# improvement; any other change is a regression (BenchExec: "changed and not strictly better").
VERDICT_RANK: dict[Verdict, int] = {
    **{verdict: 1 for verdict in Verdict},
    Verdict.SAT: 3, Verdict.UNSAT: 3,
    Verdict.UNKNOWN: 2, Verdict.TIMEOUT: 2, Verdict.CPU_LIMIT: 2, Verdict.MEMORY_LIMIT: 2,
    Verdict.OUTPUT_LIMIT: 2,
    Verdict.INVALID_MODEL: 0,
}


_FOLDER_FIELDS = ("run_before", "run_after", "rounds_before", "rounds_after")


@dataclass(frozen=True)
class Change:
    """One candidate whose verdict differs between two runs."""

    index: int  # in the run after (in the run before, when it is only there)
    label: str | None
    before: str | None  # verdict, None: not in that run
    after: str | None
    kind: str  # "improvement" or "regression"
    index_before: int | None = None  # its index in the run before, None: not in it
    expected: str | None = None  # the verdict the run expected of it, if it said
    # Of a folder diff: the runs it was in, and the rounds its repair() loop took (None: no loop).
    run_before: str | None = None
    run_after: str | None = None
    rounds_before: int | None = None
    rounds_after: int | None = None

    def __repr__(self) -> str:
        """The fields, a folder diff's only when set (a diff of two runs reads as it always has)."""
        shown = [f"{spec.name}={getattr(self, spec.name)!r}" for spec in dataclasses.fields(self)
                 if spec.name not in _FOLDER_FIELDS or getattr(self, spec.name) is not None]
        return f"Change({', '.join(shown)})"


@dataclass(frozen=True)
class RunDiff:
    """What changed from run ``before`` to run ``after`` (``diff_runs``)."""

    before: str  # run ids (empty for a result that has none), or the folders compared
    after: str
    verdict_before: str  # the votes ("" for folders: no one vote)
    verdict_after: str
    changes: tuple[Change, ...]
    unchanged: int
    # (as expected, out of how many had an expected verdict), per run; None: none was expected
    expected_before: tuple[int, int] | None = None
    expected_after: tuple[int, int] | None = None

    @property
    def regressions(self) -> list[Change]:
        return [change for change in self.changes if change.kind == "regression"]

    @property
    def improvements(self) -> list[Change]:
        return [change for change in self.changes if change.kind == "improvement"]

    def to_dicts(self) -> list[dict[str, object]]:
        return [dataclasses.asdict(change) for change in self.changes]

    def __str__(self) -> str:
        def share(count: tuple[int, int] | None) -> str:
            return "-" if count is None else f"{count[0]}/{count[1]}"

        expected = ("" if self.expected_before is None and self.expected_after is None else
                    f"; as expected {share(self.expected_before)} -> {share(self.expected_after)}")
        what = (f"run {self.before or '?'} -> {self.after or '?'}: vote {self.verdict_before} -> "
                f"{self.verdict_after}" if self.verdict_before or self.verdict_after else
                f"folder {self.before} -> {self.after}")
        head = (f"{what}; {len(self.regressions)} regressions, "
                f"{len(self.improvements)} improvements, {self.unchanged} unchanged{expected}")
        return "\n".join([head, *(_row(change) for change in self.changes)])


def _row(change: Change) -> str:
    moved = (f" (was #{change.index_before})" if change.index_before not in (None, change.index)
             and change.run_before is None else "")
    wanted = f" (expected {change.expected})" if change.expected else ""
    rounds = (f" [rounds {change.rounds_before or '-'} -> {change.rounds_after or '-'}]"
              if change.rounds_before or change.rounds_after else "")
    folder = change.run_before is not None or change.run_after is not None
    where = (repr(change.label) if change.label and folder else
             f"run {change.run_after or change.run_before} #{change.index}" if folder else
             f"#{change.index}{moved}{f' {change.label!r}' if change.label else ''}")
    return f"  {change.kind:<11} {where}: {change.before} -> {change.after}{wanted}{rounds}"


def _kind(before: str | None, after: str | None, expected: str | None) -> str:
    if expected is not None and expected in (before, after):
        return "improvement" if after == expected else "regression"
    rank_before = VERDICT_RANK[Verdict(before)] if before else -1
    rank_after = VERDICT_RANK[Verdict(after)] if after else -1
    return "improvement" if rank_after > rank_before else "regression"


@dataclass
class Entry:
    """One candidate of a side, with what its run's plan said of it and where it came from."""

    candidate: CandidateResult
    label: str | None
    sha256: str | None
    expected: str | None
    run_id: str
    rounds: int | None = None  # its repair() loop's rounds, when the run was a loop's last round
    loop: str | None = None  # that loop's id
    position: int = 0  # its place on the side (unique there)

    @property
    def verdict(self) -> str | None:
        return self.candidate.verdict.value if self.candidate.verdict else None


def entries_of(run: RunResult, rounds: int | None = None, loop: str | None = None) -> list[Entry]:
    """A run's candidates as entries, in index order, with their plan's label, script and
    expected verdict."""
    planned = {entry["index"]: entry for entry in run.planned}
    found = []
    for candidate in sorted(run.candidates, key=lambda c: c.index):
        entry = planned.get(candidate.index)
        found.append(Entry(candidate, candidate.label or (entry["label"] if entry else None),
                           entry["sha256"] if entry else None, entry.get("expected") if entry else None,
                           run.run_id, rounds, loop))
    return found


class _Side:
    """One side of a diff: its entries, the ones not paired yet in ``left``."""

    def __init__(self, name: str, entries: list[Entry], vote: str = "") -> None:
        self.name = name
        self.vote = vote
        self.entries = entries
        for position, entry in enumerate(entries):
            entry.position = position
        self.left = list(entries)

    def as_expected(self) -> tuple[int, int] | None:
        judged = [entry.verdict == entry.expected for entry in self.entries if entry.expected]
        return (sum(judged), len(judged)) if judged else None


Key = Callable[[Entry], Hashable]
BY_LABEL: Key = lambda entry: entry.label  # noqa: E731
BY_SCRIPT: Key = lambda entry: entry.sha256  # noqa: E731
# An unlabelled loop recorded in both folders (the same repair id: a loop's rounds copied, or an
# eval folder compared with one it was copied into), by its candidates' order.
BY_LOOP: Key = lambda entry: (entry.loop, entry.candidate.index) if entry.loop else None  # noqa: E731
BY_INDEX: Key = lambda entry: entry.candidate.index  # noqa: E731


def matched(old: _Side, new: _Side, keys: Iterable[Key]) -> list[tuple[Entry | None, Entry | None]]:
    """Pairs of entries, one from each side: by each key in turn, each step pairing what the
    ones before left, in order within a key; the rest are alone."""
    pairs: list[tuple[Entry | None, Entry | None]] = []
    for key in keys:
        waiting: dict[Hashable, list[Entry]] = {}
        for entry in new.left:
            if (value := key(entry)) is not None:
                waiting.setdefault(value, []).append(entry)
        taken: set[int] = set()
        still: list[Entry] = []
        for entry in old.left:
            value = key(entry)
            partners = waiting.get(value) if value is not None else None
            if partners:
                partner = partners.pop(0)
                taken.add(partner.position)
                pairs.append((entry, partner))
            else:
                still.append(entry)
        old.left = still
        new.left = [entry for entry in new.left if entry.position not in taken]
    pairs += [(entry, None) for entry in old.left] + [(None, entry) for entry in new.left]
    return sorted(pairs, key=lambda pair: (pair[1] or pair[0]).position)  # type: ignore[union-attr]


def folder_entries(folder: str | os.PathLike[str]) -> list[Entry]:
    """What an eval folder holds, oldest run first: each repair() loop's last round (with the
    rounds it took), each other run whole."""
    loops: dict[str, tuple[int, RunResult]] = {}
    order: list[tuple[str, RunResult | None]] = []
    isolations: dict[Path, object] = {}
    for file in record_files(folder):
        records = read_record(file, isolations)
        run = run_from_record(file, records)
        repair = records[0].get("repair") or {}
        if not repair.get("id"):
            order.append((run.run_id, run))
            continue
        if repair["id"] not in loops:
            order.append((repair["id"], None))
        if repair["id"] not in loops or repair.get("round", 0) >= loops[repair["id"]][0]:
            loops[repair["id"]] = (repair.get("round", 0), run)
    entries = []
    for name, alone in order:
        rounds, last = (None, alone) if alone is not None else loops[name]
        entries += entries_of(last, rounds, name if alone is None else None)
    return entries


def _side(run: RunResult | str | os.PathLike[str]) -> tuple[_Side, bool]:
    """A side and whether it is a folder."""
    if isinstance(run, RunResult):
        return _Side(run.run_id, entries_of(run), run.verdict.value), False
    if Path(run).is_dir():
        return _Side(str(run), folder_entries(run)), True
    result = run_from_record(run)
    return _Side(result.run_id, entries_of(result), result.verdict.value), False


def diff_runs(before: RunResult | str | os.PathLike[str],
              after: RunResult | str | os.PathLike[str]) -> RunDiff:
    """Compare two runs, or two record folders (an eval before and after a change), candidate by
    candidate, matched by label, then script hash, then (runs only) index, so the same scripts
    in another order compare as themselves.  Each verdict that changed is an ``improvement``
    when it reached the verdict the run expected of that candidate, or else when strictly better
    (an answer beats running out of a limit, which beats a failure, which beats a wrong model),
    and a ``regression`` otherwise, sat <-> unsat included (BenchExec's rule).  ``before`` /
    ``after``: a ``RunResult``, a record file, or a folder of records, where each ``repair()``
    loop counts by its last round and each change says the rounds it took."""
    (old, old_folder), (new, new_folder) = _side(before), _side(after)
    folders = old_folder or new_folder
    keys = (BY_LABEL, BY_LOOP, BY_SCRIPT) if folders else (BY_LABEL, BY_SCRIPT, BY_INDEX)
    changes, unchanged = [], 0
    for was, now in matched(old, new, keys):
        verdict_was, verdict_now = was.verdict if was else None, now.verdict if now else None
        if verdict_was == verdict_now:
            unchanged += 1
            continue
        expected = (now.expected if now else None) or (was.expected if was else None)
        label = (now.label if now else None) or (was.label if was else None)
        index = now.candidate.index if now else was.candidate.index  # type: ignore[union-attr]
        change = Change(index, label, verdict_was, verdict_now, _kind(verdict_was, verdict_now, expected),
                        was.candidate.index if was else None, expected)
        if folders:
            change = dataclasses.replace(
                change, run_before=was.run_id if was else None, run_after=now.run_id if now else None,
                rounds_before=was.rounds if was else None, rounds_after=now.rounds if now else None)
        changes.append(change)
    return RunDiff(old.name, new.name, "" if folders else old.vote, "" if folders else new.vote,
                   tuple(changes), unchanged, old.as_expected(), new.as_expected())
