"""Running one candidate in a fork of this (prepared) process, as the zygote does: the helper the
child tests share (tests/forked.py does the forking); and the same from a fresh interpreter, for
tests of z3's main context."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.forked import Send, in_fork
from z3sandbox_kernel.child import harness
from z3sandbox_kernel.protocol import PROTOCOL_VERSION

DATA = Path(__file__).resolve().parent.parent / "data" / "smt2"
# A check z3 does not end within a fraction of a second: for solver timeouts.
HARD = "a, b, c = Ints('a b c')\ns.add(a > 0, b > 0, c > 0, a*a*a + b*b*b == c*c*c)\n"


@dataclass
class ChildRun:
    report: dict[str, Any]
    stdout: str
    stderr: str
    frames: list[dict[str, Any]] = field(default_factory=list)  # sent as they happened (live)


def run_child(script: str, language: str = "python", timeout_s: float = 5.0,
              random_seed: int | None = None, cores: bool = False, model_count: int = 1,
              live: bool = False) -> ChildRun:
    """Run one candidate in a fresh fork of this (prepared) process, as the zygote does; ``live``:
    its check frames are sent as they happen, as the zygote asks, and kept in ``frames``."""

    def work(send: Send) -> None:
        frames = (lambda frame: send({**frame, "v": PROTOCOL_VERSION})) if live else None
        send(harness.run_candidate(script, language=language, timeout_s=timeout_s,
                                   random_seed=random_seed, cores=cores, model_count=model_count,
                                   send=frames))

    forked = in_fork(work)
    assert forked.frames, "the child sent no report"
    return ChildRun(forked.frames[-1], forked.stdout, forked.stderr, forked.frames[:-1])


def run_child_in_a_fresh_zygote(script: str, random_seed: int | None = None) -> ChildRun:
    """``run_child`` from a new interpreter that only imported and prepared the harness, as the
    zygote is: tests of z3's main context must not depend on what earlier tests in this process
    did with it (the whole suite shares one process)."""
    driver = ("import json, sys\nfrom z3sandbox_kernel.child import harness\nharness.prepare()\n"
              "import z3\nassert z3.z3._main_ctx is None, 'prepare() made the main context'\n"
              "from tests.child.running import run_child\n"
              f"run = run_child(sys.stdin.read(), random_seed={random_seed!r})\n"
              "print(json.dumps([run.report, run.stdout, run.stderr]))\n")
    done = subprocess.run([sys.executable, "-c", driver], input=script, capture_output=True,
                          text=True, check=True, cwd=Path(__file__).resolve().parents[2])
    report, stdout, stderr = json.loads(done.stdout.splitlines()[-1])
    return ChildRun(report, stdout, stderr)
