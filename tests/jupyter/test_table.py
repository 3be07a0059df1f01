"""The live display and its throttle, and the terminal progress line, without a kernel."""

from __future__ import annotations

import dataclasses
import io
import threading
import time
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
from IPython.core.displaypub import CapturingDisplayPublisher
from IPython.core.interactiveshell import InteractiveShell

from z3sandbox_kernel import CandidateResult, Limits, RunResult, Verdict
from z3sandbox_kernel.jupyter.table import LiveDisplay, Throttle
from z3sandbox_kernel.presentation.progress import ProgressLine
from z3sandbox_kernel.presentation.render import MIME_TYPE, run_mimebundle
from z3sandbox_kernel.protocol.document import run_schema


def queued(count: int) -> RunResult:
    return RunResult(
        candidates=[CandidateResult(index=i, verdict=None, state="queued") for i in range(count)],
        limits=Limits(),
        isolation={"level": "process", "layers": [{"name": "rlimits", "active": True}]},
    )


def test_throttle_batches_a_burst_and_flushes_the_last_change_on_close() -> None:
    seen: list[int] = []
    state = {"value": 0}
    throttle = Throttle(lambda: seen.append(state["value"]), interval=0.1)
    started = time.monotonic()
    for value in range(1, 1001):
        throttle.poke(lambda value=value: state.update(value=value))  # type: ignore[misc]
    elapsed = time.monotonic() - started
    throttle.close()
    assert seen[0] == 1  # the first change is shown at once
    assert seen[-1] == 1000  # and the last one before close() returns
    assert len(seen) <= 3 + elapsed / 0.1


def test_throttle_sends_a_due_refresh_when_nothing_else_happens() -> None:
    flushed: list[str] = []
    second = threading.Event()

    def flush() -> None:
        flushed.append(threading.current_thread().name)
        if len(flushed) == 2:
            second.set()

    throttle = Throttle(flush, interval=0.5)  # the second poke comes well within it
    throttle.poke(lambda: None)  # flushed at once, in this thread
    throttle.poke(lambda: None)  # due later: only the timer thread can send it
    assert second.wait(timeout=30)
    throttle.close()
    assert flushed == [threading.current_thread().name, "z3sandbox-table"]


def test_an_urgent_change_is_not_held_back_by_a_big_refreshs_pause() -> None:
    """A big refresh defers the next one (bytes per second stay bounded), but not the first
    verdict: an urgent poke is flushed within one interval."""
    flushed: list[int] = []
    urgent_sent = threading.Event()
    throttle: Throttle

    def flush() -> None:
        flushed.append(len(flushed))
        throttle.defer(3600)  # as a refresh of K = 200 rows would
        if len(flushed) == 2:
            urgent_sent.set()

    throttle = Throttle(flush, interval=0.05)
    throttle.poke(lambda: None)  # flushed at once; the next one waits an hour
    throttle.poke(lambda: None)  # a row now running: it waits
    throttle.poke(lambda: None, urgent=True)  # the first verdict: it does not
    assert urgent_sent.wait(timeout=10)
    throttle.close(flush=False)
    assert flushed == [0, 1]


def test_the_first_refresh_resends_no_row(published: list[dict[str, Any]]) -> None:
    """The display already holds every row: the first refresh carries only what changed."""
    view = LiveDisplay(updates_per_s=1000)
    view.start(queued(200))
    view.update(CandidateResult(index=3, verdict=None, state="running"))
    view.finish(None)
    refresh = published[1]  # the first update of the display
    assert refresh["update"] and refresh["data"][MIME_TYPE]["delta"] is True
    assert [c["index"] for c in refresh["data"][MIME_TYPE]["candidates"]] == [3]


def test_a_row_reported_twice_between_refreshes_is_stored_once(published: list[dict[str, Any]]) -> None:
    """What the engine reports is stored (annotated, tallied, encoded) at the next refresh, the
    latest report of each row alone: a row that ran and ended in between costs one."""
    annotated: list[tuple[int, str]] = []

    def annotate(candidate: CandidateResult) -> CandidateResult:
        annotated.append((candidate.index, candidate.state))
        return candidate

    view = LiveDisplay(updates_per_s=0.01, annotate=annotate)  # one refresh, then none till close
    view.start(queued(50))
    view.update(CandidateResult(index=3, verdict=None, state="running"))  # the first: sent at once
    for index in (4, 5):
        view.update(CandidateResult(index=index, verdict=None, state="running"))
        view.update(CandidateResult(index=index, verdict=Verdict.TIMEOUT, reason="timeout 5 s"))
    view.finish(None)  # the run failed: what is left is flushed
    assert annotated == [(3, "running"), (4, "done"), (5, "done")]  # start's rows: as given
    last = published[-2]["data"][MIME_TYPE]  # before "the run failed"
    assert [(c["index"], c["verdict"]) for c in last["candidates"]] == [(4, "timeout"), (5, "timeout")]


def test_a_reruns_live_table_shows_the_reports_in_the_cells_rows(published: list[dict[str, Any]]) -> None:
    """A rerun's table starts as the cell's rows (those run again queued, marked); the engine
    numbers the rerun's candidates from 0, and each report lands in its row of the cell."""
    from z3sandbox_kernel.jupyter.outcome import rerun_rows, rerun_table

    base = RunResult(candidates=[CandidateResult(index=i, verdict=Verdict.SAT, label=f"seed {i}")
                                 for i in range(6)])
    view = LiveDisplay(updates_per_s=1e9, annotate=rerun_rows([3, 5]))
    view.start(RunResult(candidates=rerun_table(base, [3, 5])))
    view.update(CandidateResult(index=0, verdict=None, state="running"))  # the cell's row 3
    view.update(CandidateResult(index=1, verdict=Verdict.UNSAT))  # row 5
    view.finish(None)
    first = published[0]["data"][MIME_TYPE]
    assert [(c["index"], c["label"], c["verdict"]) for c in first["candidates"]] == [
        (0, "seed 0", "sat"), (1, "seed 1", "sat"), (2, "seed 2", "sat"), (3, "seed 3 (rerun)", None),
        (4, "seed 4", "sat"), (5, "seed 5 (rerun)", None)]
    running, done = (output["data"][MIME_TYPE]["candidates"] for output in published[1:3])  # whole
    assert [(c["index"], c.get("state"), c["verdict"]) for c in running[3:]] == [
        (3, "running", None), (4, None, "sat"), (5, "queued", None)]
    assert [(c["index"], c.get("state"), c["verdict"]) for c in done[3:]] == [
        (3, "running", None), (4, None, "sat"), (5, None, "unsat")]
    assert set(published[2]["metadata"][MIME_TYPE]["timings"][-1]) == {"index", "running_s"}
    assert published[2]["metadata"][MIME_TYPE]["timings"][-1]["index"] == 3  # the row running


@pytest.fixture
def published() -> Iterator[list[dict[str, Any]]]:
    """What display() and update_display() publish, captured from IPython's own shell."""
    shell = InteractiveShell.instance()
    previous = shell.display_pub
    shell.display_pub = CapturingDisplayPublisher()
    yield shell.display_pub.outputs
    shell.display_pub = previous


def test_live_display_is_one_display_updated_in_place(published: list[dict[str, Any]]) -> None:
    view = LiveDisplay(updates_per_s=1e9, annotate=lambda c: dataclasses.replace(c, label="mine"))
    view.start(queued(2))
    view.update(CandidateResult(index=0, verdict=None, state="running"))
    done = CandidateResult(index=1, verdict=Verdict.SAT, model={"x": 2}, payload=b"\xff\x00",
                           wall_s=0.25, cpu_s=0.125, peak_rss_mb=42.0)
    view.update(done)
    final = RunResult(candidates=[dataclasses.replace(done, index=0), done])
    assert view.finish(final) is True
    ids = {output["transient"]["display_id"] for output in published}
    assert ids == {view.display_id}  # one display, never a second output
    assert [output["update"] for output in published][:1] == [False]
    assert all(output["update"] for output in published[1:])
    first, live, last = published[0], published[-2], published[-1]
    assert first["data"][MIME_TYPE]["finished"] is False
    assert [c["label"] for c in first["data"][MIME_TYPE]["candidates"]] == [None, None]  # as given
    assert [c["label"] for c in live["data"][MIME_TYPE]["candidates"]] == ["mine", "mine"]  # reported
    assert live["data"][MIME_TYPE]["progress"] == {"done": 1, "total": 2}
    assert 'role="progressbar"' in live["data"]["text/html"]
    assert last["data"] == run_mimebundle(final)[0]  # the final output is the run's own bundle
    assert "widget" not in str(last["data"])
    schema = jsonschema.Draft202012Validator(run_schema())  # each refresh is a valid document
    documents = [output["data"][MIME_TYPE] for output in published]
    assert [error.message for document in documents for error in schema.iter_errors(document)] == []


def test_live_display_says_so_when_the_run_failed(published: list[dict[str, Any]]) -> None:
    view = LiveDisplay()
    view.start(queued(1))
    assert view.finish(None) is False
    assert published[-1]["data"] == {"text/plain": "z3sandbox: the run failed"}


class WatchedStream(io.StringIO):
    """A stream that says when a text has been written to it (no sleeping in the test)."""

    def __init__(self, wanted: str) -> None:
        super().__init__()
        self.wanted = wanted
        self.seen = threading.Event()

    def write(self, text: str) -> int:
        if self.wanted in text:
            self.seen.set()
        return super().write(text)


def test_progress_line_draws_in_place_and_erases_itself() -> None:
    stream = WatchedStream("1/4 done")
    line = ProgressLine(stream, delay_s=0.0, interval_s=0.01, force=True)
    line.start(queued(4))
    line.update(CandidateResult(index=0, verdict=Verdict.UNSAT))
    line.update(CandidateResult(index=1, verdict=None, state="running"))
    assert stream.seen.wait(timeout=5)  # drawn by its timer, with nothing else reporting
    line.finish(RunResult(candidates=[]))
    drawn = [text for text in stream.getvalue().split("\r\x1b[K") if "1/4 done" in text]
    assert drawn[0].startswith("z3sandbox [######..................] 1/4 done, ")
    assert drawn[0].endswith("| 2 queued, 1 unsat, 1 running")
    assert stream.getvalue().endswith("\r\x1b[K")  # erased at the end: the table starts clean


def test_progress_line_is_silent_when_not_a_terminal() -> None:
    stream = io.StringIO()
    line = ProgressLine(stream, delay_s=0.0, interval_s=0.0)
    line.start(queued(1))
    line.update(CandidateResult(index=0, verdict=Verdict.SAT))
    line.finish(None)
    assert stream.getvalue() == ""
