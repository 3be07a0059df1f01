"""The live table and its throttle, without a kernel (widgets work; their messages go nowhere)."""

from __future__ import annotations

import dataclasses
import threading
import time

from z3sandbox_kernel import CandidateResult, Limits, RunResult, Verdict
from z3sandbox_kernel.jupyter.table import LiveTable, TextProgress, Throttle


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

    throttle = Throttle(flush, interval=0.05)
    throttle.poke(lambda: None)  # flushed at once, in this thread
    throttle.poke(lambda: None)  # due later: only the timer thread can send it
    assert second.wait(timeout=5)
    throttle.close()
    assert flushed == [threading.current_thread().name, "z3sandbox-table"]


def test_live_table_shows_states_then_verdicts_with_figures() -> None:
    table = LiveTable(updates_per_s=1000.0)
    table.start(queued(2))
    assert table.body.value.count(">queued</span>") == 2
    table.update(CandidateResult(index=0, verdict=None, state="running"))
    done = CandidateResult(
        index=1, verdict=Verdict.SAT, model={"x": 2}, payload=b"\xff\x00", wall_s=0.25,
        cpu_s=0.125, peak_rss_mb=42.0,
    )
    table.update(done)
    table.finish(RunResult(candidates=[dataclasses.replace(done, index=0), done]))
    assert ">running</span>" not in table.body.value
    assert table.body.value.count(">sat</span>") == 2
    assert "0.25 s" in table.body.value and "42 MB" in table.body.value
    assert "ff 00" in table.body.value
    assert "vote: sat (2 sat)" in table.header.value
    assert repr(table) == "z3sandbox live table"


def test_live_table_pages_many_rows() -> None:
    table = LiveTable(page_size=10)
    table.start(queued(25))
    table.finish(RunResult(candidates=[CandidateResult(index=i, verdict=Verdict.UNSAT)
                                       for i in range(25)]))
    assert table.body.value.count("<tr>") == 1 + 10
    assert table.pager.layout.display == "flex"
    assert table.position.value == "rows 1-10 of 25"
    table.turn(+1)
    table.turn(+1)
    table.turn(+1)
    assert table.position.value == "rows 21-25 of 25"
    assert table.body.value.count("<tr>") == 1 + 5


def test_text_progress_prints_a_row_per_finished_candidate() -> None:
    lines: list[str] = []
    progress = TextProgress(lines.append)
    progress.start(queued(2))
    progress.update(CandidateResult(index=0, verdict=None, state="running"))
    progress.update(CandidateResult(index=0, verdict=Verdict.UNSAT, wall_s=0.5))
    progress.finish(RunResult(candidates=[], interrupted=True))
    assert lines[0].startswith("z3sandbox: 2 candidates | limits: timeout 5 s")
    assert lines[2].split()[:2] == ["0", "unsat"]
    assert "wall 0.50s" in lines[2]
    assert lines[-1] == "z3sandbox: interrupted; unfinished candidates were cancelled"
    assert len(lines) == 4
