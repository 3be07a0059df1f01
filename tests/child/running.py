"""Running one candidate in a fork of this (prepared) process, as the zygote does: the helper the
child tests share (tests/forked.py does the forking)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.forked import Send, in_fork
from z3sandbox_kernel.child import harness
from z3sandbox_kernel.protocol import PROTOCOL_VERSION

DATA = Path(__file__).resolve().parent.parent / "data" / "smt2"


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
