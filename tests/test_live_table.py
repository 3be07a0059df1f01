"""A live table's refresh (presentation/live.py, tally.py): the same display as one made from all
the rows, for any sequence of row changes, and work that does not grow with the number of rows."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from fractions import Fraction
from types import FrameType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from z3sandbox_kernel import CandidateResult, Limits, RunResult, Verdict
from z3sandbox_kernel.contracts.found import CheckResult, ModelResult
from z3sandbox_kernel.presentation import live
from z3sandbox_kernel.presentation.html import live_html
from z3sandbox_kernel.presentation.live import LIVE_ROWS, LiveTable
from z3sandbox_kernel.presentation.render import MIME_TYPE, candidate_json, restated, run_json, run_metadata
from z3sandbox_kernel.presentation.summary import summarize
from z3sandbox_kernel.protocol import UNVERIFIED_REASON

PROVED, COUNTER = "proved\n", "counterexample\n[p = False]\n"
CONFIRMED = {"confirmed_by": ("z3",)}

# One of each kind of row a live table meets: every part of the vote, the counts, the groups of
# identical models and prove()'s words.
KINDS: list[Callable[[int], CandidateResult]] = [
    lambda i: CandidateResult(index=i, verdict=None, state="queued"),
    lambda i: CandidateResult(index=i, verdict=None, state="running"),
    lambda i: CandidateResult(index=i, verdict=Verdict.SAT, model={"x": 2}, verified=True, **CONFIRMED),
    lambda i: CandidateResult(index=i, verdict=Verdict.SAT, model={"x": 3}, verified=True, **CONFIRMED),
    lambda i: CandidateResult(index=i, verdict=Verdict.SAT, model={"x": Fraction(1, 3)}, payload=b"\x01"),
    lambda i: CandidateResult(index=i, verdict=Verdict.SAT, model={"x": 2}, reason=UNVERIFIED_REASON),
    lambda i: CandidateResult(index=i, verdict=Verdict.SAT, stdout=COUNTER, model={"p": False}),
    lambda i: CandidateResult(index=i, verdict=Verdict.SAT, model={}, payload_error="no payload()"),
    lambda i: CandidateResult(index=i, verdict=Verdict.UNSAT, **CONFIRMED),
    lambda i: CandidateResult(index=i, verdict=Verdict.UNSAT, stdout=PROVED, **CONFIRMED),
    lambda i: CandidateResult(index=i, verdict=Verdict.UNSAT, stdout=PROVED),
    lambda i: CandidateResult(index=i, verdict=Verdict.UNSAT, disputed="z3 finds a model"),
    lambda i: CandidateResult(index=i, verdict=Verdict.TIMEOUT, reason="timeout 5 s", kill="timeout"),
    lambda i: CandidateResult(index=i, verdict=Verdict.RUNTIME_ERROR, reason="ZeroDivisionError (line 2)"),
    lambda i: CandidateResult(index=i, verdict=Verdict.CANCELLED, reason="cancelled"),
    lambda i: CandidateResult(index=i, verdict=Verdict.UNKNOWN, reason="incomplete"),
    lambda i: CandidateResult(index=i, verdict=Verdict.UNSAT, stdout="sat\nunsat\n", checks_made=2, checks=[
        CheckResult("sat", 2, ModelResult({"x": 1}, payload=b"\x02", verified=True)),
        CheckResult("unsat", 3)]),
    lambda i: CandidateResult(index=i, verdict=Verdict.UNSAT, checks_made=1, checks=[
        CheckResult("sat", 2, ModelResult({"x": 5}, payload=b"\x05", verified=True))]),
]


def start(rows: int) -> RunResult:
    return RunResult(candidates=[KINDS[0](i) for i in range(rows)], limits=Limits(timeout_s=5),
                     isolation={"level": "process", "layers": [{"name": "rlimits", "active": True}]})


def whole(result: RunResult, changed: list[int] | None, running: dict[int, float]
          ) -> tuple[dict[str, Any], dict[str, Any]]:
    """The document and metadata of a refresh as made from every row: the run's own document,
    less the rows not sent (what live.py sent before it kept anything)."""
    document: dict[str, Any] = dict(run_json(result))
    metadata: dict[str, Any] = dict(run_metadata(result))
    if changed is not None:
        document["candidates"] = [c for c in document["candidates"] if c["index"] in set(changed)]
        document["delta"] = True
        metadata["timings"] = [t for t in metadata["timings"] if t["index"] in set(changed)]
    done = {c.index for c in result if c.verdict is not None}
    metadata["timings"] = [t for t in metadata["timings"] if t["index"] in done] + [
        {"index": index, "running_s": round(seconds, 1)} for index, seconds in sorted(running.items())]
    return document, metadata


changes = st.lists(st.tuples(st.integers(0, 11), st.integers(0, len(KINDS) - 1),
                             st.booleans()), min_size=1, max_size=40)


@settings(max_examples=150, deadline=None)
@given(rows=st.integers(1, 12), steps=changes)
def test_any_sequence_of_changes_shows_what_all_the_rows_show(
        rows: int, steps: list[tuple[int, int, bool]]) -> None:
    """After each change: the kept summary is ``summarize``'s, and the refresh (a delta, or every
    row when ``whole``) is what the run's own document, HTML and text say of it."""
    table = LiveTable(start(rows))
    for index, kind, keyframe in steps:
        changed = table.store(KINDS[kind](index))
        table.result.elapsed_s += 0.25
        assert table._tally.summary() == summarize(table.result)
        running = {i: 0.5 for i, c in enumerate(table.result) if c.state == "running" and not c.verdict}
        sent = None if keyframe else changed
        data, metadata = table.mimebundle(sent, running)
        assert (dict(data[MIME_TYPE]), dict(metadata[MIME_TYPE])) == whole(table.result, sent, running)
        shown = table._live_rows(sent)
        assert data["text/html"] == live_html(table.result, shown, summarize(table.result))


def test_once_every_row_is_done_a_refresh_sends_its_rows_as_the_final_display_does() -> None:
    """The last rows' refresh: those rows with their stdout and the clauses said once, and where
    every payload of the run is (a check's too), as the run's own document has them."""
    table = LiveTable(start(len(KINDS) - 2))
    for kind in range(2, len(KINDS)):
        table.store(KINDS[kind](kind - 2))
    sent = [len(KINDS) - 3, len(KINDS) - 4]
    data, metadata = table.mimebundle(sent, {})
    document = data[MIME_TYPE]
    assert document["finished"] is True and {"payload_files", "delta"} <= set(document)
    assert (dict(document), dict(metadata[MIME_TYPE])) == whole(table.result, sent, {})
    assert [c["index"] for c in document["candidates"]] == sorted(sent)


def test_a_row_beyond_the_table_queues_the_rows_before_it() -> None:
    table = LiveTable(start(2))
    assert table.store(KINDS[8](5)) == [2, 3, 4, 5]
    assert [c.state for c in table.result][2:5] == ["queued"] * 3
    assert table._tally.summary() == summarize(table.result)


# --------------------------------------------------------------------------- work, not K


def half_done(rows: int) -> LiveTable:
    """A run of ``rows`` rows, half of them sat (one model: one group), 4 running, the rest queued."""
    table = LiveTable(start(rows))
    for i in range(rows // 2):
        table.store(KINDS[2](i))
    for i in range(rows // 2, rows // 2 + 4):
        table.store(KINDS[1](i))
    table.mimebundle(None, {})  # a keyframe: every row's entry made once
    return table


@pytest.fixture
def encoded(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The rows whose document entry live.py makes (render.candidate_json), in order."""
    made: list[int] = []
    real = live.candidate_json

    def counted(candidate: CandidateResult, *args: object, **kwargs: object) -> object:
        made.append(candidate.index)
        return real(candidate, *args, **kwargs)

    monkeypatch.setattr(live, "candidate_json", counted)
    yield made


@pytest.mark.parametrize("rows", [40, 400, 2000])
def test_a_refresh_encodes_only_the_rows_that_changed(rows: int, encoded: list[int]) -> None:
    table = half_done(rows)
    before = {index: made.entry for index, made in table._made.items()}
    encoded.clear()
    changed = table.store(KINDS[3](rows - 1))
    data, metadata = table.mimebundle(changed, {rows // 2: 1.0})
    assert encoded == [rows - 1]
    assert [c["index"] for c in data[MIME_TYPE]["candidates"]] == [rows - 1]
    assert metadata[MIME_TYPE]["timings"] == [
        {"index": rows - 1, "wall_s": 0.0, "cpu_s": 0.0, "peak_rss_mb": 0.0},
        {"index": rows // 2, "running_s": 1.0}]
    keyframe, _ = table.mimebundle(None, {})  # every row again: none encoded again
    assert encoded == [rows - 1] and len(keyframe[MIME_TYPE]["candidates"]) == rows
    assert all(entry is before[entry["index"]] for entry in keyframe[MIME_TYPE]["candidates"]
               if entry["index"] != rows - 1)


@contextmanager
def lines_run() -> Iterator[list[int]]:
    """How many lines of Python run inside the block (every call and every loop turn): the
    work done, whatever the machine's load."""
    count = [0]

    def trace(frame: FrameType, event: str, arg: object) -> object:
        if event == "line":
            count[0] += 1
        return trace

    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        yield count
    finally:
        sys.settrace(previous)


def refresh_work(rows: int, keyframe: bool = False) -> int:
    table = half_done(rows)
    changed = table.store(KINDS[3](rows - 1))
    table.store(dataclasses.replace(table.result[rows // 2], state="running"))
    with lines_run() as count:
        table.mimebundle(None if keyframe else changed, {rows // 2: 1.0, rows // 2 + 1: 2.0})
    return count[0]


def test_a_refresh_runs_the_same_python_at_any_k() -> None:
    """One changed row: the same lines of Python at K = 50 and K = 2000 (the summary is kept,
    the HTML and text show at most LIVE_ROWS rows, one entry is encoded)."""
    refresh_work(2 * LIVE_ROWS + 10)  # what the first refresh of a process fills (re's cache)
    assert refresh_work(2 * LIVE_ROWS + 10) == refresh_work(2000) == refresh_work(400)


def test_a_keyframe_loops_over_the_rows_but_encodes_none_again() -> None:
    """A keyframe sends every row: a few lines a row (their entries are kept), not an encoding."""
    small, big = refresh_work(100, keyframe=True), refresh_work(1100, keyframe=True)
    assert (big - small) / 1000 <= 3


def test_a_queued_row_that_starts_running_is_restated_not_encoded(encoded: list[int]) -> None:
    table = half_done(100)
    encoded.clear()
    changed = table.store(KINDS[1](60))  # queued, now running
    data, _ = table.mimebundle(changed, {60: 0.1})
    assert encoded == []
    assert data[MIME_TYPE]["candidates"] == [candidate_json(table.result[60], live=True)]


not_done = st.builds(
    CandidateResult, index=st.integers(0, 5), verdict=st.none(),
    state=st.sampled_from(["queued", "running"]), reason=st.sampled_from(["", "waiting", "x" * 70]),
    label=st.none() | st.text(max_size=30), source_preview=st.none() | st.text(max_size=30),
    kill=st.none() | st.sampled_from(["cancel", "timeout"]), stdout=st.sampled_from(["", "proved\n"]),
    cell_line=st.none() | st.integers(1, 9), cell_candidates=st.integers(0, 3),
    model=st.none() | st.dictionaries(st.sampled_from("xyz"), st.integers(), max_size=2),
)


@settings(max_examples=200, deadline=None)
@given(candidate=not_done, state=st.sampled_from(["queued", "running"]))
def test_a_restated_entry_is_the_entry_of_the_new_state(candidate: CandidateResult, state: str) -> None:
    moved = dataclasses.replace(candidate, state=state)  # type: ignore[arg-type]
    assert restated(candidate_json(candidate, live=True), moved) == candidate_json(moved, live=True)
