"""One way for a test to run work in a fork of this process and read back what it sent: the
candidate harness, a verifier, a layer or a namespace test all fork as the zygote does, so that
what they change (rlimits, seccomp, namespaces, z3's main context) stays out of pytest."""

from __future__ import annotations

import json
import os
import selectors
import signal
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from z3sandbox_kernel.protocol import encode_frame, split_bodies

Send = Callable[[Mapping[str, Any]], None]
FAILED_EXIT = 70  # the work raised: the fork exits with this (it never returns into pytest)


@dataclass
class Forked:
    """What a fork sent (each frame, decoded), printed, and how it ended."""

    frames: list[dict[str, Any]] = field(default_factory=list)
    stdout: str = ""
    stderr: str = ""
    signal: int | None = None  # the signal that ended it, if one did
    exit_code: int | None = None


def _in_child(work: Callable[[Send], None], pipes: list[tuple[int, int]], capture: bool) -> int:
    for read, _ in pipes:
        os.close(read)
    if capture:
        os.dup2(pipes[0][1], 1)
        os.dup2(pipes[1][1], 2)
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    frames = pipes[2][1]

    def send(frame: Mapping[str, Any]) -> None:
        os.write(frames, encode_frame(dict(frame)))  # JSON, UTF-8, as the bootstrap sends it

    try:
        work(send)
    except BaseException:
        return FAILED_EXIT
    return 0


def in_fork(work: Callable[[Send], None], capture: bool = True, timeout_s: float = 60) -> Forked:
    """Run ``work(send)`` in a fork, ``send`` writing one frame back; with ``capture`` its fd 1/2
    go to pipes too.  A fork still running after ``timeout_s`` is killed (a hung test fails, it
    does not hang the suite)."""
    pipes = [os.pipe() for _ in range(3)]
    pid = os.fork()
    if pid == 0:
        code = FAILED_EXIT
        try:
            code = _in_child(work, pipes, capture)
        finally:
            os._exit(code)
    for _, write in pipes:
        os.close(write)
    data = {read: bytearray() for read, _ in pipes}
    selector = selectors.DefaultSelector()
    for read in data:
        selector.register(read, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout_s
    while selector.get_map() and time.monotonic() < deadline:
        for key, _ in selector.select(1):
            chunk = os.read(key.fd, 1 << 16)
            data[key.fd] += chunk
            if not chunk:
                selector.unregister(key.fd)
                os.close(key.fd)
    if selector.get_map():
        os.kill(pid, signal.SIGKILL)
        for key in list(selector.get_map().values()):
            os.close(key.fd)
    _, status = os.waitpid(pid, 0)
    out, err, sent = (data[read] for read, _ in pipes)
    return Forked([json.loads(body) for body in split_bodies(sent)], out.decode(), err.decode(),
                  os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
                  os.WEXITSTATUS(status) if os.WIFEXITED(status) else None)
