"""Stopping one candidate while its run goes (the labextension's Stop and Skip buttons)."""

from __future__ import annotations

import pytest

from z3sandbox_kernel import CandidateResult, Limits, Verdict

pytestmark = [pytest.mark.timeout(60), pytest.mark.usefixtures("zygote_is_clean")]

LOOPER = "while True:\n    pass\n"
SAT = "x = Int('x')\ns.add(x == 1)\n"


def test_one_running_candidate_is_stopped_and_a_queued_one_skipped_the_rest_go_on(sandbox):
    stopped: list[bool] = []

    def on_update(candidate: CandidateResult) -> None:
        if candidate.index == 0 and candidate.state == "running" and not stopped:
            stopped.append(sandbox.stop_candidate(2))  # queued: skipped
            stopped.append(sandbox.stop_candidate(0))  # running: killed

    result = sandbox.run([LOOPER, SAT, SAT], jobs=1, on_update=on_update,
                         limits=Limits(timeout_s=30, wall_s=30, cpu_s=30))
    assert stopped == [True, True]
    assert [c.verdict for c in result] == [Verdict.CANCELLED, Verdict.SAT, Verdict.CANCELLED]
    assert result[0].kill == "cancel" and result[2].reason == "skipped before it started"
    assert not result.interrupted
    assert sandbox.stop_candidate(0) is False  # no run goes now
