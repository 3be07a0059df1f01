"""``diff_runs``: what changed from one run to another, candidate by candidate.

Candidates are matched as an experiment log needs them matched, not by position: first by label,
then by the sha256 of their script, then by index (each step pairs what is left, K seeds of one
script in index order).  So the same scripts sent in another order show no change.  A verdict that
changed is judged by BenchExec's rule: a change that is not strictly better is a regression; where
the run said which verdict it expected of a candidate (``expected=``), reaching it is an
improvement and leaving it a regression, whatever the ranks.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Literal

from ..results import CandidateResult, RunResult
from ..verdicts import Verdict
from .records import run_from_record

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


@dataclass(frozen=True)
class RunDiff:
    """What changed from run ``before`` to run ``after`` (``diff_runs``)."""

    before: str  # run ids (empty for a result that has none)
    after: str
    verdict_before: str
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
        head = (f"run {self.before or '?'} -> {self.after or '?'}: vote {self.verdict_before} -> "
                f"{self.verdict_after}; {len(self.regressions)} regressions, "
                f"{len(self.improvements)} improvements, {self.unchanged} unchanged{expected}")
        rows = []
        for change in self.changes:
            moved = (f" (was #{change.index_before})" if change.index_before not in (None, change.index)
                     else "")
            wanted = f" (expected {change.expected})" if change.expected else ""
            rows.append(f"  {change.kind:<11} #{change.index}{moved}"
                        f"{f' {change.label!r}' if change.label else ''}: "
                        f"{change.before} -> {change.after}{wanted}")
        return "\n".join([head, *rows])


def _as_run(run: RunResult | str | os.PathLike[str]) -> RunResult:
    return run if isinstance(run, RunResult) else run_from_record(run)


def _kind(before: str | None, after: str | None, expected: str | None) -> str:
    if expected is not None and expected in (before, after):
        return "improvement" if after == expected else "regression"
    rank_before = VERDICT_RANK[Verdict(before)] if before else -1
    rank_after = VERDICT_RANK[Verdict(after)] if after else -1
    return "improvement" if rank_after > rank_before else "regression"


class _Side:
    """One run's candidates, with what its plan said of each (label, script hash, expected)."""

    def __init__(self, run: RunResult) -> None:
        self.run = run
        self.planned = {entry["index"]: entry for entry in run.planned}
        self.left = sorted(run.candidates, key=lambda c: c.index)

    def fact(self, candidate: CandidateResult, name: Literal["label", "expected", "sha256"]) -> Any:
        entry = self.planned.get(candidate.index)
        return entry.get(name) if entry is not None else None

    def label(self, candidate: CandidateResult) -> str | None:
        return candidate.label or self.fact(candidate, "label")

    def as_expected(self) -> tuple[int, int] | None:
        judged = [(c.verdict.value if c.verdict else None) == self.fact(c, "expected")
                  for c in self.run.candidates if self.fact(c, "expected")]
        return (sum(judged), len(judged)) if judged else None


Key = Callable[[_Side, CandidateResult], Hashable]
_MATCH_BY: tuple[Key, ...] = (
    lambda side, c: side.label(c), lambda side, c: side.fact(c, "sha256"), lambda side, c: c.index)


def matched(old: _Side, new: _Side) -> list[tuple[CandidateResult | None, CandidateResult | None]]:
    """Pairs of candidates, one from each run: by label, then script hash, then index; each step
    pairs what the ones before left, in index order within a key; the rest are alone."""
    pairs: list[tuple[CandidateResult | None, CandidateResult | None]] = []
    for key in _MATCH_BY:
        waiting: dict[Hashable, list[CandidateResult]] = {}
        for candidate in new.left:
            if (value := key(new, candidate)) is not None:
                waiting.setdefault(value, []).append(candidate)
        taken: set[int] = set()
        still: list[CandidateResult] = []
        for candidate in old.left:
            partners = waiting.get(key(old, candidate)) if key(old, candidate) is not None else None
            if partners:
                partner = partners.pop(0)
                taken.add(partner.index)
                pairs.append((candidate, partner))
            else:
                still.append(candidate)
        old.left = still
        new.left = [candidate for candidate in new.left if candidate.index not in taken]
    pairs += [(candidate, None) for candidate in old.left] + [(None, candidate) for candidate in new.left]
    return sorted(pairs, key=lambda pair: (pair[1] or pair[0]).index)  # type: ignore[union-attr]


def diff_runs(before: RunResult | str | os.PathLike[str],
              after: RunResult | str | os.PathLike[str]) -> RunDiff:
    """Compare two runs, candidate by candidate, matched by label, then script hash, then index
    (so the same scripts in another order compare as themselves): each verdict that changed is
    an ``improvement`` when it reached the verdict the run expected of that candidate, or else
    when strictly better (an answer beats running out of a limit, which beats a failure, which
    beats a wrong model), and a ``regression`` otherwise, sat <-> unsat included (BenchExec's
    rule).  ``before``/``after``: a ``RunResult`` or a record file."""
    old, new = _Side(_as_run(before)), _Side(_as_run(after))
    changes, unchanged = [], 0
    for was_candidate, now_candidate in matched(old, new):
        was = was_candidate.verdict.value if was_candidate and was_candidate.verdict else None
        now = now_candidate.verdict.value if now_candidate and now_candidate.verdict else None
        if was == now:
            unchanged += 1
            continue
        expected = ((new.fact(now_candidate, "expected") if now_candidate else None)
                    or (old.fact(was_candidate, "expected") if was_candidate else None))
        label = ((new.label(now_candidate) if now_candidate else None)
                 or (old.label(was_candidate) if was_candidate else None))
        index = now_candidate.index if now_candidate else was_candidate.index  # type: ignore[union-attr]
        changes.append(Change(index, label, was, now, _kind(was, now, expected),
                              was_candidate.index if was_candidate else None, expected))
    return RunDiff(old.run.run_id, new.run.run_id, old.run.verdict.value, new.run.verdict.value,
                   tuple(changes), unchanged, old.as_expected(), new.as_expected())
