"""``Sandbox.close()`` from another thread ends every ``run()`` it overlaps, at any phase, within a
bounded time, its candidates that had not ended ``cancelled`` (issue 38, item 2).

Reproduced before the fix: a close() while a fresh Sandbox's zygote was starting left run() blocked
for good (11 of 17 tries; the run was not yet known to close(), which then stopped the loop under
it).  Each phase is a start point the test controls: a hook where the run reaches that phase starts
the closing thread and holds the loop until close() has begun, so close() always begins exactly
there (no sleep decides the order).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.conftest import LEVELS, ended_within, process_tree_of
from tests.faults.processes import await_role, descriptors
from tests.forgeries import STALLING  # an answer its verifier checks for its whole budget
from z3sandbox_kernel import CandidateResult, Limits, RunResult, Sandbox, Verdict
from z3sandbox_kernel.host.zygote_client import ZygoteProcess
from z3sandbox_kernel.protocol import Hello

pytestmark = pytest.mark.timeout(180)

SAT = "x = Int('x')\ns.add(x > 1, x < 3)\n"
LOOP = "while True: pass\n"
RETURNS_WITHIN_S = 30.0  # a run that close() overlaps returns within this (it took forever)


class Hooked(Sandbox):
    """A Sandbox that calls ``hook`` when a run reaches one point of its start."""

    def __init__(self, level: str, point: str, hook: Callable[[], None]) -> None:
        super().__init__(isolation=level)
        self.point, self.hook = point, hook

    async def _execute(self, *args: object, **kwargs: object) -> RunResult:
        if self.point == "run submitted":
            self.hook()
        return await super()._execute(*args, **kwargs)

    def _new_zygote(self) -> ZygoteProcess:
        if self.point == "zygote wanted":
            self.hook()
        zygote = super()._new_zygote()
        if self.point == "zygote starting":
            reading = zygote._read_frame

            async def first_frame() -> bytes:  # the process exists; its hello is not read yet
                zygote._read_frame = reading  # type: ignore[method-assign]
                self.hook()
                return await reading()

            zygote._read_frame = first_frame  # type: ignore[method-assign]
        return zygote

    def _started(self, zygote: ZygoteProcess, hello: Hello) -> None:
        super()._started(zygote, hello)
        if self.point == "zygote said hello":
            self.hook()


class Closer:
    """Closes the sandbox from a thread of its own; ``now()`` returns once close() has begun."""

    def __init__(self) -> None:
        self.sandbox: Sandbox | None = None
        self.thread: threading.Thread | None = None
        self.zygote: list[int] = []  # the zygote and its tree as close() began

    def now(self) -> None:
        if self.thread is not None:
            return
        sandbox = self.sandbox
        assert sandbox is not None
        if sandbox.zygote_pid is not None:
            self.zygote = [sandbox.zygote_pid, *(p.pid for p in process_tree_of(sandbox.zygote_pid))]
        self.thread = threading.Thread(target=sandbox.close)
        self.thread.start()
        deadline = time.monotonic() + 10
        while not sandbox._closed and time.monotonic() < deadline:  # close() has begun
            time.sleep(0.001)


def run_and_close(level: str, point: str, scripts: list[str], limits: Limits | None = None,
                  when: Callable[[Sandbox, CandidateResult], bool] | None = None) -> tuple[RunResult, Closer]:
    """One run of a fresh Sandbox, closed at ``point`` (or on the first update ``when`` accepts)."""
    closer = Closer()
    sandbox = Hooked(level, point, closer.now)
    closer.sandbox = sandbox
    box: dict[str, Any] = {}

    def on_update(candidate: CandidateResult) -> None:
        if when is not None and when(sandbox, candidate):
            closer.now()

    def target() -> None:
        box["result"] = sandbox.run(scripts, limits=limits or Limits(wall_s=30, cpu_s=30), jobs=2,
                                    on_update=on_update)

    runner = threading.Thread(target=target, daemon=True)
    runner.start()
    runner.join(RETURNS_WITHIN_S)
    assert not runner.is_alive(), f"run() still blocked {RETURNS_WITHIN_S:g} s after close() at {point}"
    assert closer.thread is not None, f"the run never reached {point}"
    closer.thread.join(90)
    assert not closer.thread.is_alive(), "close() did not return"
    assert ended_within(closer.zygote, 10) == [], "a process of the closed sandbox lives on"
    return box["result"], closer


def assert_ended_or_cancelled(result: RunResult) -> None:
    for candidate in result:
        if candidate.verdict is Verdict.CANCELLED:
            assert "cancel" in candidate.reason, candidate.reason
        else:  # it ended before close(): its own verdict, never an error of the sandbox's
            assert candidate.verdict in (Verdict.SAT, Verdict.TIMEOUT), candidate


START_POINTS = ("run submitted", "zygote wanted", "zygote starting", "zygote said hello")


@pytest.fixture
def host_descriptors() -> Iterator[None]:
    """The host holds no descriptor more after the closed Sandbox than before it."""
    before = descriptors()
    yield
    assert descriptors() <= before


@pytest.mark.usefixtures("host_descriptors")
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("point", START_POINTS)
def test_close_while_a_fresh_sandbox_starts_ends_its_first_run(level: str, point: str) -> None:
    result, _ = run_and_close(level, point, [SAT, SAT, SAT])
    assert [c.verdict for c in result] == [Verdict.CANCELLED] * 3, [c.reason for c in result]
    assert all("cancel" in c.reason for c in result)


@pytest.mark.usefixtures("host_descriptors")
@pytest.mark.parametrize("level", LEVELS)
def test_close_while_candidates_run_cancels_them(level: str) -> None:
    result, _ = run_and_close(level, "", [SAT, LOOP, LOOP, LOOP],
                              when=lambda _, c: c.index == 1 and c.state == "running")
    assert_ended_or_cancelled(result)
    assert [c.verdict for c in result[1:]] == [Verdict.CANCELLED] * 3
    assert result[1].kill == "cancel"  # it was running: killed, not dropped from the queue


@pytest.mark.usefixtures("host_descriptors")
@pytest.mark.parametrize("level", LEVELS)
def test_close_while_an_answer_is_verified_ends_the_run(level: str) -> None:
    def verifying(sandbox: Sandbox, candidate: CandidateResult) -> bool:
        if candidate.state != "running":
            return False
        await_role(sandbox, "verifier")  # the stalling answer is being checked
        return True

    result, _ = run_and_close(level, "", [STALLING], limits=Limits(wall_s=30, verify_s=60),
                              when=verifying)
    (candidate,) = result
    assert candidate.verdict is not Verdict.INTERNAL_ERROR, candidate
    assert candidate.confirmed_by == ()  # never confirmed: its check was cut


@pytest.mark.usefixtures("host_descriptors")
@pytest.mark.parametrize("level", LEVELS)
def test_close_after_the_last_result_returns_the_whole_run(level: str) -> None:
    done: set[int] = set()

    def last_done(_: Sandbox, candidate: CandidateResult) -> bool:
        if candidate.state == "done":
            done.add(candidate.index)
        return len(done) == 2

    result, _ = run_and_close(level, "", [SAT, SAT], when=last_done)
    assert [c.verdict for c in result] == [Verdict.SAT] * 2  # their results came before close()


def test_a_closed_sandbox_refuses_a_new_run_and_says_why() -> None:
    sandbox = Sandbox(isolation="process")
    sandbox.close()
    with pytest.raises(RuntimeError, match="this Sandbox is closed"):
        sandbox.run(SAT)
