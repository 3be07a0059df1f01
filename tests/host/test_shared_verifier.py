"""A run's answers are checked by the run's own verifiers, several answers each (zygote/verifiers.py):
every answer is still confirmed on its own, and a candidate can make its siblings' checks fail,
never pass (real sandboxes)."""

from __future__ import annotations

import os

import pytest

from tests.conftest import all_processes
from tests.forgeries import STALLING
from z3sandbox_kernel import CandidateResult, Limits, Sandbox, Verdict
from z3sandbox_kernel.zygote.forker import FORKER_NAMES
from z3sandbox_kernel.zygote.spawn import SPARE_NAME
from z3sandbox_kernel.zygote.verifiers import CORES

pytestmark = [pytest.mark.timeout(180), pytest.mark.usefixtures("zygote_is_clean")]
SAT = ("from z3 import *\nx, y = Ints('x y')\ns = Solver()\ns.add(x > {n}, y == 2 * x, x < 100)\n"
       "print(s.check())\n")
UNSAT = "from z3 import *\nx = Int('x')\ns = Solver()\ns.add(x > {n})\ns.add(x < 0)\nprint(s.check())\n"
WRONG = ("from z3 import *\nimport json, os, struct\n"  # a model that violates its assertions
         "frame = json.dumps({'v': 1, 'type': 'result', 'outcome': 'sat', 'model': {'x': 0},"
         " 'model_smt2': 'x\\x000\\x00', 'assertions_smt2': '(declare-fun x () Int)(assert (> x {n}))'})"
         ".encode()\nos.write(3, struct.pack('>I', len(frame)) + frame)\nos._exit(0)\n")


def test_every_answer_of_a_large_run_is_confirmed_on_its_own(sandbox: Sandbox) -> None:
    scripts = [(SAT if n % 3 else UNSAT if n % 2 else WRONG).replace("{n}", str(n)) for n in range(18)]
    result = sandbox.run(scripts, limits=Limits(timeout_s=5, wall_s=30), jobs=4)
    for n, candidate in enumerate(result):
        if n % 3:
            assert candidate.verdict is Verdict.SAT and candidate.confirmed_by == ("z3",), candidate
            assert candidate.model is not None and candidate.model["x"] > n  # its own model, not a sibling's
        elif n % 2:
            assert candidate.verdict is Verdict.UNSAT and candidate.confirmed_by == ("z3",), candidate
        else:
            assert candidate.verified is False and candidate.confirmed_by == (), candidate


def test_a_check_that_stalls_its_verifier_fails_alone(sandbox: Sandbox) -> None:
    scripts = [STALLING] + [SAT.replace("{n}", str(n)) for n in range(7)]
    result = sandbox.run(scripts, limits=Limits(timeout_s=30, wall_s=30, verify_s=5), jobs=8)
    stalled, *siblings = result
    assert stalled.verified is not True and stalled.confirmed_by == (), stalled
    for candidate in siblings:
        assert candidate.verdict is Verdict.SAT and candidate.confirmed_by == ("z3",), candidate


def idle_spares(sandbox: Sandbox) -> list[int]:
    """The verifiers forked ahead under the sandbox's fork server (named SPARE_NAME until exit)."""
    processes = all_processes()
    return [proc.pid for proc in processes.values() if proc.name == SPARE_NAME
            and proc.ppid in processes and processes[proc.ppid].name in FORKER_NAMES
            and _under(processes, proc.pid, sandbox.zygote_pid)]


def _under(processes: dict, pid: int, root: int | None) -> bool:
    while pid in processes and pid != root:
        pid = processes[pid].ppid
    return pid == root


@pytest.mark.skipif(CORES < 2, reason="a verifier is forked ahead only beside a running job: two cores")
def test_the_next_run_never_starts_beside_an_earlier_runs_verifier(sandbox: Sandbox) -> None:
    """Decision 2 of issue 32: a run's last result is not held for its verifiers' exit, so the
    zygote holds the next run's request until they are reaped."""
    assert sandbox.run(SAT.replace("{n}", "1"))[0].confirmed_by == ("z3",)  # a spare is wanted now
    for _ in range(2):  # the second run is read after the loop turn that forked the spare
        sandbox.run("print('next')", language="python", verify=False)
    spares = idle_spares(sandbox)
    assert len(spares) == 1, spares
    checked = sandbox.run(SAT.replace("{n}", "2"))[0]  # checked by that spare
    assert checked.confirmed_by == ("z3",), checked
    seen: list[bool] = []

    def on_update(candidate: CandidateResult) -> None:
        if candidate.state == "running" and not seen:  # the zygote has started the next run
            seen.append(os.path.exists(f"/proc/{spares[0]}"))

    sandbox.run("print('after')", language="python", verify=False, on_update=on_update)
    assert seen == [False], "the next run started beside the last run's verifier"
