"""Time-to-kill past a wall limit, and proof that nothing of the killed tree is left.

A candidate that spins forever runs under ``Limits(wall_s=KILL_WALL_S)``.  Two numbers per sample:

* **host**: submit to verdict minus the wall limit.  The zygote's deadline starts when it forks the
  tree or hands the request to a standby, which is after the submit, so this over-states the
  deadline-to-result time by the launch hop (about a millisecond): it is the conservative number,
  judged against the target.
* **zygote**: the candidate's ``wall_s`` (fork to reaped, measured by the zygote) minus the limit:
  deadline to reaped, without the host's hops.

After each sample every descendant of the zygote is listed from ``/proc``: anything but the zygote
processes themselves, an idle spare verifier and an idle standby candidate's tree (a zombie
included) is a process the kill left.
"""

from __future__ import annotations

import time
from typing import Any

from designs import BadAnswer, Engine

from z3sandbox_kernel import Limits
from z3sandbox_kernel.zygote.forker import FORKER_NAME, FORKER_NAMES, NEXT_NAME
from z3sandbox_kernel.zygote.spawn import SPARE_NAME, STANDBY_NAME, ZYGOTE_NAME
from z3sandbox_kernel.zygote.standby import TARGET as STANDBY_TARGET

KILL_SCRIPT = "while True:\n    pass\n"
KILL_WALL_S = 0.1


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            return [int(child) for child in handle.read().split()]
    except OSError:
        return []


def _describe(pid: int) -> tuple[str, str] | None:
    """(name, state letter), or None if the process is gone."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            text = handle.read()
    except OSError:
        return None
    name = text[text.index("(") + 1 : text.rindex(")")]
    return name, text[text.rindex(")") + 2]


def leftovers(root: int, kernel: bool) -> list[str]:
    """Descendants of ``root`` beyond the idle shape, as "pid name state".  The idle shape, by
    place and name: at the kernel level the serving zygote under ``root``, its fork server, under
    that one spare, the next fork server and one standby init whose only child is the standby; at
    the process level ``root`` serves, with the fork server, one spare and the next fork server
    under it.  A zombie is never idle."""
    found: list[str] = []
    serving = [pid for pid in _children(root) if _is(pid, ZYGOTE_NAME)][:1] if kernel else [root]
    allowed: dict[int, str] = {pid: ZYGOTE_NAME for pid in serving}
    # Every tree is a child of the serving zygote's fork server (zygote/forker.py).
    forkers = [pid for parent in serving for pid in _children(parent)
               if any(_is(pid, name) for name in FORKER_NAMES)][:1]
    allowed.update({pid: FORKER_NAME for pid in forkers})
    for parent in forkers:
        below = _children(parent)
        for pid in [pid for pid in below if _is(pid, SPARE_NAME)][:1]:
            allowed[pid] = SPARE_NAME
        for pid in [pid for pid in below if _is(pid, NEXT_NAME)][:1]:  # its successor (forker.py)
            allowed[pid] = NEXT_NAME
        for init in [pid for pid in below if _is(pid, STANDBY_NAME)][:STANDBY_TARGET] if kernel else []:
            children = _children(init)
            if len(children) <= 1 and all(_is(child, STANDBY_NAME) for child in children):
                allowed.update({init: STANDBY_NAME, **{child: STANDBY_NAME for child in children}})
    todo = _children(root)
    while todo:
        pid = todo.pop()
        todo.extend(_children(pid))
        described = _describe(pid)
        if described is not None and pid not in allowed:
            found.append(f"{pid} {described[0]} {described[1]}")
    return found


def tree(root: int) -> list[str]:
    """Every descendant of ``root`` as "pid parent name state", parents first: what a sample with
    a leftover looked like, to tell a leftover from a tree caught while it was being forked."""
    lines, todo = [], [(root, 0)]
    while todo:
        pid, parent = todo.pop(0)
        described = _describe(pid)
        if described is not None:
            lines.append(f"{pid} {parent} {described[0]} {described[1]}")
        todo.extend((child, pid) for child in _children(pid))
    return lines


def _is(pid: int, name: str) -> bool:
    """Alive (not a zombie) and called ``name``."""
    described = _describe(pid)
    return described is not None and described[0] == name and described[1] != "Z"


class KillProbe:
    """Samples the engine's kill path on the Sandbox of an ``Engine`` design (interleaved with it)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.limits = Limits(wall_s=KILL_WALL_S, cpu_s=5.0)
        self.host_ms: list[float] = []
        self.zygote_ms: list[float] = []
        self.left: list[list[str]] = []
        self.trees: list[list[str]] = []  # the whole tree of each sample that left something
        self.load: list[float] = []

    def sample(self) -> None:
        started = time.perf_counter()
        result = self.engine.sandbox.run(KILL_SCRIPT, limits=self.limits, verify=False)
        elapsed = time.perf_counter() - started
        candidate = result.candidates[0]
        if candidate.kill != "wall":
            raise BadAnswer(f"the spinning candidate was not killed at the wall limit: {candidate}")
        self.host_ms.append((elapsed - KILL_WALL_S) * 1000)
        self.zygote_ms.append((candidate.wall_s - KILL_WALL_S) * 1000)
        root = self.engine.sandbox.zygote_pid
        kernel = self.engine.isolation_level == "kernel"
        self.left.append(leftovers(root, kernel) if root is not None else ["zygote pid unknown"])
        if self.left[-1] and root is not None:
            self.trees.append(tree(root))

    def result(self) -> dict[str, Any]:
        return {"script": KILL_SCRIPT, "wall_limit_s": KILL_WALL_S, "host_ms": self.host_ms,
                "zygote_ms": self.zygote_ms, "leftovers": [left for left in self.left if left],
                "leftover_trees": self.trees,
                "samples_with_leftovers": sum(1 for left in self.left if left), "n": len(self.host_ms)}
