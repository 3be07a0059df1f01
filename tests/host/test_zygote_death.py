"""A zygote that dies of a signal is reported dead of that signal (not as an exit code, nor as the
SIGKILL the host sends a zygote that closed its pipe but lives on).

At the kernel level the process the host started is a thin parent of the serving zygote (PID 1 of
the sandbox's PID namespace); it mirrors the serving zygote's death.
"""

from __future__ import annotations

import os
import signal
import subprocess

import pytest

from tests.conftest import require_feature
from z3sandbox_kernel import CandidateResult, Limits, Sandbox, Verdict
from z3sandbox_kernel.host.zygote_client import ZYGOTE_ENV, parse_hello, zygote_command
from z3sandbox_kernel.protocol import IsolationReport, frame_length

pytestmark = pytest.mark.timeout(90)

LOOP = "while True: pass"


def require_pid_namespace(report: IsolationReport) -> None:
    active = any(layer["name"] == "pidns" and layer.get("active") for layer in report["layers"])
    require_feature(active, "no PID namespace: the host's child is the serving zygote itself")


def serving_zygote(outer: int) -> int:
    """The thin parent's one child."""
    with open(f"/proc/{outer}/task/{outer}/children") as handle:
        children = [int(pid) for pid in handle.read().split()]
    assert len(children) == 1, children
    return children[0]


def test_the_zygote_process_dies_of_the_signal_that_killed_the_serving_zygote() -> None:
    process = subprocess.Popen(zygote_command("kernel"), stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, env=ZYGOTE_ENV, start_new_session=True)
    assert process.stdin is not None and process.stdout is not None
    try:
        hello = parse_hello(process.stdout.read(frame_length(process.stdout.read(4))))
        require_pid_namespace(hello["isolation"])
        os.kill(serving_zygote(process.pid), signal.SIGKILL)
        assert process.wait(timeout=30) == -signal.SIGKILL  # was 247: (-9) & 0xFF
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdin.close()
        process.stdout.close()


def test_a_zygote_killed_mid_run_is_reported_killed_by_that_signal() -> None:
    with Sandbox(isolation="kernel") as sandbox:
        require_pid_namespace(sandbox.isolation())
        outer = sandbox.zygote_pid
        assert outer is not None
        killed: list[int] = []

        def kill_when_running(candidate: CandidateResult) -> None:  # in this thread, run() delivers
            if candidate.state == "running" and not killed:
                killed.append(serving_zygote(outer))
                os.kill(killed[0], signal.SIGKILL)

        result = sandbox.run(LOOP, limits=Limits(wall_s=20, cpu_s=20), on_update=kill_when_running)
        assert killed
        assert result[0].verdict is Verdict.INTERNAL_ERROR and result[0].kill == "died"
        assert "(the zygote was killed by SIGKILL)" in result[0].reason, result[0].reason
        assert result.notes == ["the zygote process was killed by SIGKILL during this run and was restarted"]
