"""A candidate cannot make the zygote do unbounded work (zygote/frames.py, zygote/checks.py): the
worst frame of each kind (frames.py) costs the zygote memory bounded by the frame budget, not by
what the frame describes, and an honest sibling keeps its result meanwhile.

Measured on a zygote of its own (a Sandbox per test), at the process level: how the zygote reads
frames does not depend on the level.  The sibling's kill time is a figure for bench/frames.py;
here it must simply finish, well inside its wall limit."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from z3sandbox_kernel import Limits, Sandbox, Verdict

from .frames import SIBLING, WORST_FRAMES, zygote_peak_mb

pytestmark = pytest.mark.timeout(180)

# The most a worst frame may add to the zygote's peak (all measured under 80 MB; before the frames
# were bounded by work: 600 MB for "check ranges", 350 MB for "report model", 127 MB for "report
# byte runs").
BOUND_MB = 120


@pytest.fixture
def own_zygote() -> Iterator[Sandbox]:
    with Sandbox(isolation="process") as sandbox:
        sandbox.run("x = Int('x')\ns.add(x > 0)\n")  # started and warm: its peak is its own
        yield sandbox


@pytest.mark.parametrize("kind", list(WORST_FRAMES))
def test_the_worst_frame_of_each_kind_costs_the_zygote_a_bounded_memory(own_zygote, kind):
    pid = own_zygote.zygote_pid
    assert pid is not None
    before = zygote_peak_mb(pid)
    forger, sibling = own_zygote.run([WORST_FRAMES[kind], SIBLING],
                                     limits=Limits(timeout_s=5, wall_s=30, cpu_s=30))
    assert zygote_peak_mb(pid) - before < BOUND_MB
    assert sibling.verdict is Verdict.SAT, sibling.reason
    assert forger.verdict is not None and forger.payload is None  # no byte it claimed is shown
    assert own_zygote.run("x = Int('x')\ns.add(x > 1)\n")[0].verdict is Verdict.SAT
