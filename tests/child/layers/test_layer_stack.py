"""All three layers in bootstrap order, as a candidate gets them: together they still run z3."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest
import z3

from z3sandbox_kernel.child.layers import capabilities, landlock, seccomp

from . import connect_from_sandbox, require, run_sandboxed

# The bootstrap's order: capabilities sets no_new_privs, which Landlock and seccomp need when
# unprivileged; Landlock before seccomp, whose filter would not refuse the Landlock calls anyway.
STACK = (capabilities, landlock, seccomp)


@pytest.fixture(autouse=True)
def _prepared() -> None:
    for layer in STACK:
        require(layer.probe())
        layer.prepare()


def test_a_z3_script_runs_under_every_layer(tmp_path: Path) -> None:
    def script() -> list[str]:
        os.chdir(tmp_path)
        x, y = z3.Ints("x y")
        solver = z3.Solver()
        solver.set("timeout", 2000)
        solver.add(x + y == 10, x - y == 4)
        verdict = str(solver.check())
        Path("model.txt").write_text(str(solver.model()))
        return [verdict, Path("model.txt").read_text()]

    outcome = run_sandboxed(script, STACK, str(tmp_path))
    assert outcome.ok, outcome
    assert outcome.value[0] == "sat"
    assert [r["name"] for r in outcome.reports] == ["capabilities", "landlock", "seccomp"]


def test_named_unix_socket_is_refused_by_the_stack(tmp_path: Path, scratch: str) -> None:
    """Landlock (up to ABI 7) does not check UNIX socket paths; seccomp's socket() refusal does."""
    outcome, reached = connect_from_sandbox(STACK, scratch, socket.AF_UNIX, str(tmp_path / "sock"))
    assert outcome.denied and not reached, outcome
