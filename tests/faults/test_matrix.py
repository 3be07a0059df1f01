"""Every process role, killed at every phase it lives in (issue 38, item 3).

For each role (the thread that called ``run()``, the outer and the serving zygote, the fork server
and its successor, a standby, a candidate's init, a candidate, a verifier, a spare verifier) and
each phase (a fresh Sandbox starting, idle between runs, mid-run, during a verification, during
``close()``), a test kills it with SIGKILL and checks the guarantees, not how they are kept:

* no result is lost or changed: every candidate ends with the verdict a clean run gives it (checked
  when it was checked), or says why it could not finish;
* the run's notes name what died (the run it overlapped, or the next one), unless it was the
  candidate itself, whose own result says it;
* the next run works, and no process of the sandbox is left but its idle shape (conftest);
* no busy loop: over an idle window the survivors spend far less CPU than wall time;
* a closed Sandbox leaves no process and the host no descriptor.

Roles are found by their process names (processes.py), so these tests keep proving the guarantees
after a change of the process layout (issue 39); the Dask worker's cells are in
tests/host/test_distributed.py (a worker killed mid-run, twice), with the cluster they need.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from tests.conftest import LEVELS, ended_within, process_tree_of, stray_processes
from tests.faults.processes import (
    FOUND_WITHIN_S,
    RoleAbsent,
    assert_no_busy_loop,
    await_role,
    dead_ends,
    descriptors,
    zygotes_of,
)
from tests.forgeries import STALLING
from z3sandbox_kernel import CandidateResult, Limits, RunResult, Sandbox, Verdict
from z3sandbox_kernel.host.plan import Graces

pytestmark = pytest.mark.timeout(120)

SAT = "x = Int('x')\ns.add(x > 1, x < 3)\n"
# Running long enough to be killed while it runs, then the same answer.
SLOW_SAT = ("import time\nend = time.monotonic() + 1\nwhile time.monotonic() < end: pass\n" + SAT)
LIMITS = Limits(wall_s=20, cpu_s=20, verify_s=2)
GRACES = Graces(watchdog_grace_s=15.0, cancel_grace_s=15.0, shutdown_grace_s=5.0, exit_grace_s=2.0)

HOST_THREAD = "host thread"
QUICK_S = 2.0  # how long a standby or a spare is looked for at one update of a run
HELPERS = ("outer zygote", "serving zygote", "fork server", "next fork server", "standby",
           "candidate init", "verifier", "spare verifier")  # a helper's death is in the notes
ROLES = (HOST_THREAD, *HELPERS, "candidate")
PHASES = ("starting", "idle", "mid-run", "verifying", "closing")
# A role's processes at a phase: idle, no candidate, init or verifier exists; a run's roles exist
# from its first candidate on.  The spare is the verification's verifier once one runs, and the
# next is forked when that candidate has ended (the spare cells of the other phases kill it).
ABSENT = {("candidate", "idle"), ("candidate init", "idle"), ("verifier", "idle"),
          ("verifier", "mid-run"), (HOST_THREAD, "idle"), (HOST_THREAD, "closing"),
          ("spare verifier", "verifying")}
KERNEL_ONLY = {"outer zygote", "standby", "candidate init"}  # one process at the process level
# What the notes call each helper (roles.Role.noun); a candidate's init is its candidate's own (each
# candidate has one): that candidate's result says its init died, as a candidate's says it died.
NOTED_AS = {"outer zygote": "zygote process", "serving zygote": "zygote process",
            "fork server": "fork server process", "next fork server": "next fork server process",
            "standby": "standby candidate process", "verifier": "verifier process",
            # an idle verifier forked ahead, or one between two answers of its run: the same name
            "spare verifier": "verifier process"}


def cells() -> list[Any]:
    return [pytest.param(level, role, phase, id=f"{level}-{role}-{phase}".replace(" ", "_"))
            for level in LEVELS for role in ROLES for phase in PHASES
            if (role, phase) not in ABSENT and not (level == "process" and role in KERNEL_ONLY)]


class HostThreadKilled(Exception):
    """What "killing" the thread that called run() is: an exception raised in it."""


@dataclass
class Kill:
    """Kill ``role`` once, from the update that ``ready`` accepts (in the run()'s thread)."""

    sandbox: Sandbox
    role: str
    ready: Callable[[CandidateResult], bool]
    killed: list[int]

    def __call__(self, candidate: CandidateResult) -> None:
        if self.killed or not self.ready(candidate):
            return
        if self.role == HOST_THREAD:
            self.killed.append(0)
            raise HostThreadKilled
        for _ in range(20):  # one that ends as it is found (a spare handed away) is looked for again
            try:  # while the run goes on: a verifier of a finished run exits (or is killed) anyway
                victim = await_role(self.sandbox, self.role, timeout_s=QUICK_S if self.role in ONE_JOB
                                    else FOUND_WITHIN_S)
            except RoleAbsent:
                return  # not there yet: the next update looks again
            try:
                os.kill(victim, signal.SIGKILL)
            except ProcessLookupError:
                continue
            self.killed.append(victim)
            return
        raise AssertionError(f"every {self.role} found ended before it could be killed")


def running(candidate: CandidateResult) -> bool:
    return candidate.state == "running"


# A standby and a spare verifier are kept ready beside fewer jobs than cores (and a spare stays one
# until a candidate's answer needs it).
ONE_JOB = ("standby", "spare verifier")


def run_with_fault(sandbox: Sandbox, role: str, phase: str) -> tuple[RunResult | None, list[int]]:
    """The run of the phase, with ``role`` killed in it; None if run() raised (the host thread).
    One candidate at a time where the role is a standby or a spare (``ONE_JOB``)."""
    killed: list[int] = []
    jobs = 1 if role in ONE_JOB else 2
    if phase == "verifying" or role == "verifier":
        def verifying(candidate: CandidateResult) -> bool:  # the stalling answer is being checked
            return running(candidate) and candidate.index == 0 and bool(await_role(sandbox, "verifier"))

        kill = Kill(sandbox, role, verifying, killed)
        # a candidate runs while the answer is checked; none where a standby or a spare is to be
        # killed (one is kept only beside fewer jobs than cores: the verifier is one)
        scripts = [STALLING] if role in ONE_JOB else [STALLING, SLOW_SAT, SAT]
    else:
        kill = Kill(sandbox, role, running, killed)
        scripts = [SLOW_SAT, SAT, SAT, SAT]
    try:
        return sandbox.run(scripts, limits=LIMITS, jobs=jobs, on_update=kill), killed
    except HostThreadKilled:
        return None, killed


START_ROLES = ("outer zygote", "serving zygote", "fork server", "next fork server")  # before hello


def start_with_fault(sandbox: Sandbox, role: str, _: str) -> tuple[RunResult | None, list[int]]:
    """A fresh Sandbox's first run, ``role`` killed as soon as it appears: while the zygote starts
    (its hello not yet read: the Sandbox knows no pid of it yet)."""
    host, before = os.getpid(), zygotes_of(os.getpid())
    box: dict[str, Any] = {}
    runner = threading.Thread(target=lambda: box.setdefault("result", sandbox.run(
        [SAT, SAT, SAT], limits=LIMITS, jobs=2)), daemon=True)
    runner.start()

    def starting() -> int | None:
        new = zygotes_of(host) - before
        return min(new) if new else None

    victim = await_role(starting, role)
    os.kill(victim, signal.SIGKILL)
    runner.join(60)
    assert not runner.is_alive(), "run() did not return"
    return box["result"], [victim]


def assert_each_candidate_ends_as_a_clean_run_or_says_why(result: RunResult, role: str,
                                                          closing: bool = False) -> None:
    for candidate in result:
        if candidate.verdict is Verdict.SAT and candidate.model == {"x": 2}:
            assert candidate.confirmed_by == ("z3",), candidate
            continue
        if candidate.verdict is Verdict.SAT and candidate.model == {}:  # the stalling answer
            assert candidate.confirmed_by == () and candidate.verified is not True, candidate
            continue
        assert candidate.reason, candidate  # it could not finish: it says why
        if candidate.verdict is Verdict.CANCELLED and closing:
            assert "cancel" in candidate.reason, candidate
        elif role == "candidate":
            assert candidate.verdict is Verdict.CRASHED and "SIGKILL" in candidate.reason, candidate
        elif role == "candidate init":
            assert candidate.kill == "died" and "its init was killed by SIGKILL" in candidate.reason, (
                candidate)
        else:
            assert candidate.verdict is Verdict.INTERNAL_ERROR and candidate.kill == "died", candidate
            assert "the sandbox process died" in candidate.reason, candidate


def assert_notes_name(result: RunResult | None, later: RunResult, role: str) -> None:
    if role not in NOTED_AS:
        return
    notes = (result.notes if result is not None else []) + later.notes
    if role == "standby" and result is not None and any(
            c.kill == "died" and "its init was killed by SIGKILL" in c.reason for c in result):
        return  # it was handed a request as it was killed (it renames itself a moment later):
        # that candidate says its init died, as a candidate's does
    assert any(NOTED_AS[role] in note and "SIGKILL" in note for note in notes), (role, notes)


def settled(sandbox: Sandbox) -> RunResult:
    """The next run works; then the sandbox is back to its idle shape (conftest): a finished
    run's verifiers may be exiting as it returns, and the next run starts once they are reaped."""
    after = sandbox.run([SAT, SAT], limits=LIMITS, jobs=2)
    assert [c.verdict for c in after] == [Verdict.SAT] * 2, [c.reason for c in after]
    assert all(c.confirmed_by == ("z3",) for c in after), [c.reason for c in after]
    for _ in range(5):  # what a cancelled run left (its caller did not wait: the host thread) ends
        strays = stray_processes(sandbox)
        if not strays:
            return after
        ended_within([p.pid for p in strays], 5)
        sandbox.run("print('barrier')", language="python", verify=False)  # reaped by the next turn
    assert not stray_processes(sandbox), "the sandbox is not back to its idle shape"
    return after


@pytest.fixture(scope="module")
def shared() -> Iterator[dict[str, Sandbox]]:
    """One Sandbox per level for the phases that need no fresh one: each cell repairs it."""
    sandboxes: dict[str, Sandbox] = {}
    yield sandboxes
    for sandbox in sandboxes.values():
        sandbox.close()


@pytest.mark.parametrize(("level", "role", "phase"), cells())
def test_a_role_killed_at_a_phase_keeps_every_guarantee(level: str, role: str, phase: str,
                                                        shared: dict[str, Sandbox]) -> None:
    fresh = phase in ("starting", "closing")
    host_fds = descriptors()
    if fresh:
        sandbox = Sandbox(isolation=level, graces=GRACES)
    else:
        sandbox = shared.setdefault(level, Sandbox(isolation=level, graces=GRACES))
        settled(sandbox)
        host_fds = descriptors()
    try:
        if phase == "idle":
            victim = await_role(sandbox, role)
            os.kill(victim, signal.SIGKILL)
            assert ended_within([victim], 10) == []
            result: RunResult | None = None
        elif phase == "closing":
            closed = close_with_fault(sandbox, role)
            assert_each_candidate_ends_as_a_clean_run_or_says_why(closed.result, role, closing=True)
            assert ended_within(closed.processes, 10) == [], "a process of the closed sandbox lives on"
            return
        else:
            fault = start_with_fault if phase == "starting" and role in START_ROLES else run_with_fault
            result, killed = fault(sandbox, role, phase)
            assert killed, f"the {role} was never killed"
            if result is not None:
                assert_each_candidate_ends_as_a_clean_run_or_says_why(result, role)
            assert ended_within([pid for pid in killed if pid], 10) == []
        later = settled(sandbox)
        assert_notes_name(result, later, role)
        assert_no_busy_loop(sandbox)
        assert fresh or descriptors() <= host_fds, "the host holds descriptors of a process that died"
        assert dead_ends(sandbox) == [], "the zygote holds pipes of processes that died"
    finally:
        if fresh:
            sandbox.close()
            assert descriptors() <= host_fds, "the host holds descriptors of a closed Sandbox"


@dataclass
class Closed:
    result: RunResult
    killed: list[int]
    processes: list[int]


def close_with_fault(sandbox: Sandbox, role: str) -> Closed:
    """A run is going and the role's process is found; close() begins from another thread, and
    the process is killed while close() works (it may be ending already: killed all the same)."""
    assert settled(sandbox)
    box: dict[str, Any] = {}
    began = threading.Event()

    def on_update(candidate: CandidateResult) -> None:
        if running(candidate):
            began.set()

    jobs = 1 if role in ONE_JOB else 2
    scripts = [STALLING, SAT, SAT] if role == "verifier" else [SLOW_SAT, SLOW_SAT, SAT]
    runner = threading.Thread(target=lambda: box.setdefault("result", sandbox.run(
        scripts, limits=LIMITS, jobs=jobs, on_update=on_update)), daemon=True)
    runner.start()
    assert began.wait(60), "no candidate ran"
    target = await_role(sandbox, role)
    outer = sandbox.zygote_pid or 0
    processes = [outer, *(p.pid for p in process_tree_of(outer))]
    closer = threading.Thread(target=sandbox.close)
    closer.start()
    deadline = time.monotonic() + 10
    while not sandbox._closed and time.monotonic() < deadline:  # close() has begun
        time.sleep(0.001)
    with_suppressed_lookup(lambda: os.kill(target, signal.SIGKILL))
    closer.join(90)
    assert not closer.is_alive(), "close() did not return"
    runner.join(30)
    assert not runner.is_alive(), "run() did not return after close()"
    return Closed(box["result"], [target], processes)


def with_suppressed_lookup(action: Callable[[], None]) -> None:
    try:
        action()
    except ProcessLookupError:  # it ended on its own as close() began: killed all the same
        pass
