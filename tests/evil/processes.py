"""The processes an evil run leaves behind, read from /proc: the evil suite's check (conftest.py)
that a finished run left nothing running but the sandbox's own idle processes, and that no
process anywhere took the name a script gives what it manages to create."""

from __future__ import annotations

from tests.conftest import Proc, all_processes
from z3sandbox_kernel.zygote.forker import FORKER_NAMES, NEXT_NAME
from z3sandbox_kernel.zygote.scratch import REMOVER_NAME
from z3sandbox_kernel.zygote.spawn import SPARE_NAME, STANDBY_NAME
from z3sandbox_kernel.zygote.standby import TARGET as STANDBY_TARGET

EVIL_COMM = "z3sbevil"  # the name a script gives any process it manages to create


def descendants(root: int, processes: dict[int, Proc]) -> dict[int, int]:
    """Every descendant of ``root`` among ``processes``, mapped to its depth below it."""
    children: dict[int, list[int]] = {}
    for proc in processes.values():
        children.setdefault(proc.ppid, []).append(proc.pid)
    depth: dict[int, int] = {}
    frontier = [(root, 0)]
    while frontier:
        pid, below = frontier.pop()
        for child in children.get(pid, []):
            if child not in depth:
                depth[child] = below + 1
                frontier.append((child, below + 1))
    return depth


def leftover_processes(zygote_pid: int, level: str) -> list[str]:
    """Processes of a finished run still alive: anything below the zygote's own process(es), and
    any process anywhere that an evil script renamed to ``EVIL_COMM``.

    At kernel level the host's zygote pid is a thin parent whose one child is the serving zygote
    (PID 1 of the sandbox's PID namespace); candidates are below that.  At process level the
    candidates are the zygote's children."""
    own_depth = 1 if level == "kernel" else 0
    processes = all_processes()  # one reading of /proc: names and parents of the same moment

    def _comm(pid: int) -> str:
        return processes[pid].name if pid in processes else ""

    def parent_of(pid: int) -> int | None:
        return processes[pid].ppid if pid in processes else None

    tree = descendants(zygote_pid, processes)
    # The serving zygote's fork server (zygote/forker.py): every tree is its child.
    forkers = [pid for pid, d in tree.items() if d == own_depth + 1 and _comm(pid) in FORKER_NAMES][:1]
    # It keeps one idle verifier forked ahead, named SPARE_NAME: not a leftover.
    spares = [pid for pid, d in tree.items() if parent_of(pid) in forkers and _comm(pid) == SPARE_NAME][:1]
    # Nor its successor, idle until it takes over (zygote/forker.py).
    spares += [pid for pid in tree if parent_of(pid) in forkers and _comm(pid) == NEXT_NAME][:1]
    # Nor its standby candidates (zygote/standby.py, kernel level only): an init and its one
    # child, both named STANDBY_NAME until handed a request (both rename themselves then).
    inits = [pid for pid, d in tree.items() if parent_of(pid) in forkers and _comm(pid) == STANDBY_NAME]
    standbys: list[int] = []
    for init in inits[:STANDBY_TARGET] if level == "kernel" else []:
        below = [pid for pid in tree if parent_of(pid) == init]
        if len(below) <= 1 and all(_comm(pid) == STANDBY_NAME for pid in below):
            standbys += [init, *below]
    # A scratch-removal helper (process level) is the zygote's own; conftest waits for the folders.
    left = [f"{pid} ({_comm(pid)}, depth {d})"
            for pid, d in tree.items()
            if d > own_depth and pid not in forkers + spares + standbys and _comm(pid) != REMOVER_NAME]
    left += [f"{pid} ({EVIL_COMM}, anywhere)" for pid in processes if _comm(pid) == EVIL_COMM]
    return left
