"""A dead fork server is replaced like a dead zygote (issue 38, item 1): the candidates it could not
start are started by its successor, the ones it took down say why, the run's notes say what died
and that it was restarted, ``restarts`` counts it, the next run works, and nothing spins (the end
of its pipe is its death, never "nothing new").

Triggers are a candidate's "running" update (in the thread that called ``run()``), never a sleep.
"""

from __future__ import annotations

import os
import re
import signal
from collections.abc import Iterator

import pytest

from tests.conftest import LEVELS, ended_within
from tests.faults.processes import assert_no_busy_loop, await_role, dead_ends
from z3sandbox_kernel import CandidateResult, Sandbox, Verdict
from z3sandbox_kernel.host.plan import Graces

pytestmark = pytest.mark.timeout(180)

SAT = "x = Int('x')\ns.add(x > 1, x < 3)\n"
SHORT_GRACES = Graces(watchdog_grace_s=10.0, cancel_grace_s=10.0, shutdown_grace_s=5.0, exit_grace_s=2.0)


@pytest.fixture(params=LEVELS)
def sandbox(request: pytest.FixtureRequest) -> Iterator[Sandbox]:
    """A Sandbox of the test's own, its zygote started: a fault here must not reach other tests."""
    with Sandbox(isolation=request.param, graces=SHORT_GRACES) as own:
        assert own.run(SAT)[0].verdict is Verdict.SAT
        yield own


def kill_on_first_running(sandbox: Sandbox, *roles: str) -> tuple[list[int], object]:
    """An ``on_update`` that SIGKILLs the processes of ``roles`` when the first candidate runs."""
    killed: list[int] = []

    def on_update(candidate: CandidateResult) -> None:
        if candidate.state == "running" and not killed:
            for role in roles:
                killed.append(await_role(sandbox, role))
            for pid in killed:
                os.kill(pid, signal.SIGKILL)

    return killed, on_update


def assert_lost_say_why(result: object, role: str, at_most: int) -> None:
    lost = [c for c in result if c.verdict is not Verdict.SAT]  # type: ignore[attr-defined]
    for candidate in lost:
        assert candidate.verdict is Verdict.INTERNAL_ERROR and candidate.kill == "died", candidate
        assert role in candidate.reason, candidate.reason
    assert len(lost) <= at_most, [c.reason for c in lost]  # only what its trees held: the rest ran
    for candidate in result:  # type: ignore[attr-defined]
        if candidate.verdict is Verdict.SAT:
            assert candidate.model == {"x": 2} and candidate.confirmed_by == ("z3",), candidate


def test_a_fork_server_killed_mid_run_is_replaced_and_its_successor_starts_the_rest(sandbox: Sandbox) -> None:
    killed, on_update = kill_on_first_running(sandbox, "fork server")
    jobs = 4
    result = sandbox.run(SAT, k=50, jobs=jobs, on_update=on_update)
    assert killed
    # Reproduced before the fix: 38 of 50 internal_error ("could not start its process: Broken
    # pipe"), no note, restarts 0, every later run all internal_error, the zygote at 100% CPU.
    assert_lost_say_why(result, "fork server", at_most=jobs + 1)  # in flight, and a standby
    assert result.notes == ["the fork server process was killed by SIGKILL during this run and was restarted"]
    assert sandbox.restarts == 1
    assert ended_within(killed, 10) == []
    after = sandbox.run(SAT, k=4)
    assert [c.verdict for c in after] == [Verdict.SAT] * 4 and after.notes == []
    assert await_role(sandbox, "fork server") not in killed
    assert_no_busy_loop(sandbox)


def test_a_fork_server_replaced_again_and_again_leaves_the_zygote_nothing(sandbox: Sandbox) -> None:
    """Each death closes the dead one's pipe (and socket): after any number of them the zygote
    holds no pipe whose other end is gone."""
    zygote = sandbox.zygote_pid
    for times in range(1, 4):
        killed, on_update = kill_on_first_running(sandbox, "fork server")
        result = sandbox.run(SAT, k=6, jobs=2, on_update=on_update)
        assert killed and ended_within(killed, 10) == []
        assert_lost_say_why(result, "fork server", at_most=3)
        assert sandbox.restarts == times
    sandbox.run("print('barrier')", language="python", verify=False)
    assert sandbox.zygote_pid == zygote
    assert dead_ends(sandbox) == []
    assert_no_busy_loop(sandbox)


def test_a_fork_server_and_its_successor_killed_together_end_the_zygote_which_is_restarted(
        sandbox: Sandbox) -> None:
    """No process that never held a request is left to fork from: the zygote ends (it may not fork
    trees itself), its candidates say why, and the host starts a new one."""
    first_zygote = sandbox.zygote_pid
    killed, on_update = kill_on_first_running(sandbox, "next fork server", "fork server")
    result = sandbox.run(SAT, k=12, jobs=4, on_update=on_update)
    assert len(killed) == 2
    lost = [c for c in result if c.verdict is not Verdict.SAT]
    assert lost and all(c.verdict is Verdict.INTERNAL_ERROR for c in lost), [c.verdict for c in lost]
    for candidate in lost:  # killed with its tree, or never started: each says why
        died = candidate.kill == "died" and "the sandbox process died" in candidate.reason
        unstarted = candidate.kill is None and candidate.reason == (
            "the sandbox could not start its process: the fork server was killed by SIGKILL and "
            "no successor could take over")
        assert died or unstarted, candidate.reason
    assert any("zygote process exited with code 1" in note for note in result.notes), result.notes
    assert sandbox.restarts >= 2  # the fork server's death told, then the zygote's
    assert [c.verdict for c in sandbox.run(SAT, k=4)] == [Verdict.SAT] * 4
    assert sandbox.zygote_pid not in (None, first_zygote)
    assert ended_within([first_zygote or 0, *killed], 10) == []
    assert_no_busy_loop(sandbox)


def test_a_next_fork_server_killed_while_idle_is_replaced_and_the_next_run_says_so(sandbox: Sandbox) -> None:
    victim = await_role(sandbox, "next fork server")
    os.kill(victim, signal.SIGKILL)
    assert ended_within([victim], 10) == []
    after = sandbox.run(SAT, k=4)
    assert [c.verdict for c in after] == [Verdict.SAT] * 4
    # told as the zygote sees it: before this run, or as it starts (the host may read it then)
    assert len(after.notes) == 1 and re.fullmatch(
        "the next fork server process was killed by SIGKILL (before|during) this run and was restarted",
        after.notes[0]), after.notes
    assert sandbox.restarts == 1
    assert await_role(sandbox, "next fork server") != victim
    assert_no_busy_loop(sandbox)
