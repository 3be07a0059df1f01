"""The sandbox's processes by role, as the fault tests find them, and what a fault may not leave.

A role is found by its process name (``roles.Role.process_name``) and its place under the process
the host started, never through a module's internals: the tests then hold for any process layout
that keeps the roles' names (issue 39 may fold a candidate's init into the candidate).  A role that
a layout does not have is said so (``RoleAbsent``), never passed over in silence.

Waits are on conditions read from /proc (a role appears, a process ends), with a deadline: the
kernel gives no event to wait on for another process's child.
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Callable
from dataclasses import dataclass

from tests.conftest import Proc, all_processes, process_tree_of
from z3sandbox_kernel import Sandbox
from z3sandbox_kernel.protocol.roles import Role

ZYGOTE = Role.ZYGOTE.process_name
FORK_SERVER = Role.FORK_SERVER.process_name
NEXT_FORK_SERVER = Role.NEXT_FORK_SERVER.process_name
RUN = Role.RUN.process_name  # a candidate's init and the candidate
STANDBY = Role.STANDBY.process_name
SPARE = Role.SPARE.process_name  # a verifier: idle (a spare) or checking an answer
TICKS = os.sysconf("SC_CLK_TCK")
FOUND_WITHIN_S = 30.0


class RoleAbsent(LookupError):
    """This process layout has no process of that role (now)."""


def outer(sandbox: Sandbox) -> int:
    pid = sandbox.zygote_pid
    if pid is None:
        raise RoleAbsent("the Sandbox has no zygote")
    return pid


def serving(root: int, tree: list[Proc]) -> int:
    """The zygote that serves: PID 1 of the sandbox's PID namespace under the thin parent at the
    kernel level, else the zygote the host started (``root``).  By its place, not its name: it
    carries the fork server's name for the instant it forks it."""
    for child in (p.pid for p in tree if p.ppid == root):
        try:
            with open(f"/proc/{child}/status") as status:
                nspid = next((line.split()[1:] for line in status if line.startswith("NSpid:")), [])
        except OSError:
            continue
        if len(nspid) > 1 and nspid[-1] == "1":
            return child
    return root


def _leaf(proc: Proc, tree: list[Proc]) -> bool:
    return not any(p.ppid == proc.pid and p.name == RUN for p in tree)


def _busy(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] == "R"
    except OSError:
        return False


def _under(name: str, parents: tuple[str, ...], tree: list[Proc]) -> list[Proc]:
    """The processes called ``name`` whose parent is called one of ``parents``.  By place as well
    as by name: a process forking carries its child's name for an instant (zygote/spawn.py)."""
    named = {p.pid: p.name for p in tree}
    return [p for p in tree if p.name == name and named.get(p.ppid) in parents]


FINDERS: dict[str, Callable[[int, list[Proc]], list[int]]] = {
    "outer zygote": lambda root, tree: [root] if serving(root, tree) != root else [],
    "serving zygote": lambda root, tree: [serving(root, tree)],
    "fork server": lambda root, tree: [p.pid for p in tree if p.name == FORK_SERVER
                                       and p.ppid == serving(root, tree)],
    "next fork server": lambda root, tree: [p.pid for p in _under(NEXT_FORK_SERVER, (FORK_SERVER,), tree)],
    # a standby's tree: its top process (killing it takes the tree)
    "standby": lambda root, tree: [p.pid for p in _under(STANDBY, (FORK_SERVER,), tree)],
    "candidate init": lambda root, tree: [p.pid for p in _under(RUN, (FORK_SERVER,), tree)
                                          if not _leaf(p, tree)],
    # under its init where the zygote is PID 1 of a namespace (each candidate has one), else
    # under the fork server
    "candidate": lambda root, tree: [p.pid for p in _under(RUN, (RUN,), tree) if _leaf(p, tree) and p.ppid in
                                     {q.pid for q in _under(RUN, (FORK_SERVER,), tree)}]
    if serving(root, tree) != root else [p.pid for p in _under(RUN, (FORK_SERVER,), tree) if _leaf(p, tree)],
    "verifier": lambda root, tree: [p.pid for p in _under(SPARE, (FORK_SERVER,), tree) if _busy(p.pid)],
    "spare verifier": lambda root, tree: [p.pid for p in _under(SPARE, (FORK_SERVER,), tree)
                                          if not _busy(p.pid)],
}


def find(sandbox: Sandbox | int, role: str) -> list[int]:
    """The live processes of ``role`` under the sandbox's zygote (or the zygote ``sandbox``), now."""
    root = sandbox if isinstance(sandbox, int) else outer(sandbox)
    itself = all_processes().get(root)
    tree = process_tree_of(root) + ([itself] if itself else [])
    return FINDERS[role](root, [p for p in tree if p.state != "Z"])  # a zombie has ended already


def zygote_processes_of(parents: set[int]) -> set[int]:
    """The live processes of the zygotes that ``parents`` started (their command line names the
    parent): the zygotes, their thin parents and every fork of theirs, which share it."""
    found = set()
    for proc in all_processes().values():
        try:
            with open(f"/proc/{proc.pid}/cmdline", "rb") as handle:
                argv = handle.read().split(b"\0")
        except OSError:
            continue
        if b"z3sandbox_kernel.zygote" in argv and b"--parent" in argv and proc.state != "Z":
            parent = argv[argv.index(b"--parent") + 1]
            if parent.isdigit() and int(parent) in parents:
                found.add(proc.pid)
    return found


def zygotes_of(host: int) -> set[int]:
    """The zygotes ``host`` started: one of a Sandbox that is starting has no pid in it yet."""
    processes = all_processes()
    return {pid for pid in zygote_processes_of({host}) if pid in processes and processes[pid].ppid == host}


def await_role(sandbox: Sandbox | Callable[[], int | None], role: str,
               timeout_s: float = FOUND_WITHIN_S) -> int:
    """The first process of ``role`` to appear under the sandbox's zygote (or under the zygote
    that ``sandbox()`` names, once it names one); ``RoleAbsent`` if none did within ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while True:
        root = sandbox.zygote_pid if isinstance(sandbox, Sandbox) else sandbox()
        found = find(root, role) if root is not None else []
        if found:
            return found[0]
        if time.monotonic() > deadline:
            raise RoleAbsent(f"no {role} process under the zygote within {timeout_s:g} s")
        time.sleep(0.005)  # polling /proc: the kernel gives no event to wait on


def descriptors(pid: int | str = "self") -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def _links(pid: int) -> dict[int, str]:
    links = {}
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                links[int(fd)] = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
    except OSError:
        pass
    return links


def dead_ends(sandbox: Sandbox) -> list[str]:
    """The pipes the serving zygote holds that nothing else holds the other end of, and not both
    of its ends either: what a process that died left it (a dead tree's pipe, its fork server's
    reaped pipe, which lives and dies with its socket).  A tree that has just ended leaves one
    for an instant: call it once the sandbox is idle.  (A socket pair's two ends are two inodes:
    not matched here.)"""
    root = outer(sandbox)
    itself = all_processes().get(root)
    zygote = serving(root, process_tree_of(root) + ([itself] if itself else []))
    held: dict[str, int] = {}
    for pid in all_processes():
        for link in _links(pid).values():
            if link.startswith("pipe:"):
                held[link] = held.get(link, 0) + 1
    return sorted(f"{fd} {link}" for fd, link in _links(zygote).items()
                  if link.startswith("pipe:") and held.get(link, 0) == 1)


def _cpu_of(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


@dataclass(frozen=True)
class Spent:
    cpu_s: float
    wall_s: float
    by: dict[str, float]


def idle_cpu(sandbox: Sandbox, window_s: float = 0.5) -> Spent:
    """CPU seconds this process (every thread: the Sandbox's loop) and every process under the
    zygote spend over ``window_s`` of wall time in which nothing is asked of them: a spinning
    survivor spends about the window, an idle one next to nothing."""
    pids = [outer(sandbox), *(p.pid for p in process_tree_of(outer(sandbox)))]
    names = {proc.pid: proc.name for proc in all_processes().values() if proc.pid in pids}
    before_host = sum(resource.getrusage(resource.RUSAGE_SELF)[:2])
    before = {pid: _cpu_of(pid) for pid in pids}
    started = time.monotonic()
    time.sleep(window_s)  # the window measured, not a wait for anything
    wall = time.monotonic() - started
    by = {f"{names.get(pid, '?')} {pid}": _cpu_of(pid) - before[pid] for pid in pids}
    by["host"] = sum(resource.getrusage(resource.RUSAGE_SELF)[:2]) - before_host
    return Spent(sum(by.values()), wall, by)


def assert_no_busy_loop(sandbox: Sandbox) -> None:
    """Nothing spins: over an idle window the sandbox's survivors spend far less CPU than wall
    time (a loop on a dead pipe spent 96-100% of a core)."""
    spent = idle_cpu(sandbox)
    assert spent.cpu_s < 0.25 * spent.wall_s, (
        f"{spent.cpu_s:.2f} s of CPU in {spent.wall_s:.2f} s idle: {spent.by}")
