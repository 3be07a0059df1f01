"""Shared fixtures for the engine's tests: real sandboxes, real processes, read from /proc.

* ``sandbox``: one session-wide ``Sandbox`` per isolation level; tests that take it run at both
  ``kernel`` and ``process``.  ``kernel_sandbox`` / ``process_sandbox`` pin one level.
* ``process_tree_of(pid)``: the live descendants of ``pid``, read from ``/proc`` (no psutil);
  ``ended_within(pids, s)``: which of them still run after waiting on their pidfds.
* ``zygote_is_clean``: after the test, the zygote has no children but the expected one.
* ``loopback_listener``: a TCP listener on 127.0.0.1 that says whether anyone reached it.
* ``require_feature(ok, why)``: a missing kernel feature is an expected failure on a developer's
  machine and a hard failure in CI (``CI=true``), never a skip.
* ``in_ci()``: the one test of "are we in CI" (``CI`` set to 1, true or yes, as CI services do).
* ``require_extra(module, extra)``: a missing optional dependency skips a suite on a developer's
  machine and fails it in CI, which installs every extra.
"""

from __future__ import annotations

import importlib
import os
import select
import socket
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import ModuleType

import pytest

from z3sandbox_kernel import Sandbox
from z3sandbox_kernel.zygote.forker import FORKER_NAMES, NEXT_NAME
from z3sandbox_kernel.zygote.spawn import SPARE_NAME, STANDBY_NAME
from z3sandbox_kernel.zygote.standby import TARGET as STANDBY_TARGET


def in_ci() -> bool:
    """True in CI: ``CI`` set to 1, true or yes (any case), as CI services and .ci/run set it."""
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


LEVELS = ("kernel", "process")


# --------------------------------------------------------------------------------- /proc helpers

@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    state: str  # "R", "S", "Z" ...
    name: str


def all_processes() -> dict[int, Proc]:
    """Every process this user can see, from /proc/<pid>/stat (the name may hold ')' and spaces)."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                stat = handle.read()
        except OSError:  # ended while we looked
            continue
        name = stat.split("(", 1)[1].rsplit(")", 1)[0]
        fields = stat.rsplit(")", 1)[1].split()
        found[int(entry)] = Proc(int(entry), int(fields[1]), fields[0], name)
    return found


def process_tree_of(pid: int) -> list[Proc]:
    """The descendants of ``pid`` (not ``pid`` itself), breadth first."""
    processes = all_processes()
    children: dict[int, list[Proc]] = {}
    for proc in processes.values():
        children.setdefault(proc.ppid, []).append(proc)
    tree, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(0), []):
            tree.append(child)
            todo.append(child.pid)
    return tree


def ended_within(pids: list[int], timeout_s: float) -> list[int]:
    """Wait on pidfds (no sleep) for these processes to end; the pids still running."""
    alive = []
    for pid in pids:
        try:
            pidfd = os.pidfd_open(pid)
        except ProcessLookupError:
            continue
        with os.fdopen(pidfd) as handle:
            ready, _, _ = select.select([handle], [], [], timeout_s)
        if not ready:
            alive.append(pid)
    return alive


@pytest.fixture(name="process_tree_of")
def _process_tree_of() -> Callable[[int], list[Proc]]:
    return process_tree_of


def expected_zygote_tree(sandbox: Sandbox) -> tuple[str, ...]:
    """What an idle zygote looks like from here.  At kernel level the process the host started stays
    as a thin parent of the serving zygote (PID 1 of the zygote's PID namespace); at process level
    the host's child is the serving zygote itself."""
    if sandbox.level == "kernel" and any(
        layer["name"] == "pidns" and layer.get("active") for layer in sandbox.isolation()["layers"]
    ):
        return ("z3sandbox-zyg",)
    return ()


def stray_processes(sandbox: Sandbox) -> list[Proc]:
    """Processes under the zygote beyond the idle shape: candidates, inits or escaped grandchildren."""
    pid = sandbox.zygote_pid
    if pid is None:
        return []
    tree = process_tree_of(pid)
    expected = list(expected_zygote_tree(sandbox))
    # The serving zygote names itself z3sandbox-spare for the instant it forks a spare (the name is
    # inherited at fork, zygote/spawn.py), and the next spare is forked right after a done frame,
    # when a test looks: it is the serving zygote by its place in the tree, whatever its name.
    names = set(expected) | ({SPARE_NAME, STANDBY_NAME} if expected else set())
    serving = [proc.pid for proc in tree if proc.ppid == pid and proc.name in names] or [pid]
    # Every tree is forked by the fork server, the serving zygote's one child of that name
    # (zygote/forker.py): spares and standbys are its children.
    forkers = [proc.pid for proc in tree if proc.ppid in serving and proc.name in FORKER_NAMES][:1]
    spares = 1  # the serving zygote keeps one idle verifier forked ahead (zygote/verifiers.py)
    successors = 1  # and the fork server its successor, idle until it takes over (zygote/forker.py)
    # Standbys exist at the kernel level only (with PID namespaces: an init names one).
    standbys = idle_standbys(tree, forkers) if expected else set()
    strays = []
    for proc in tree:
        if proc.ppid == pid and proc.pid in serving and expected:
            expected.pop()
        elif proc.pid in forkers:
            continue
        elif proc.ppid in forkers and proc.name == SPARE_NAME and spares:
            spares -= 1
        elif proc.ppid in forkers and proc.name == NEXT_NAME and successors:
            successors -= 1
        elif proc.pid not in standbys:
            strays.append(proc)
    return strays


def idle_standbys(tree: list[Proc], serving: list[int]) -> set[int]:
    """Standby candidates waiting for a request (zygote/standby.py): an init under the fork
    server (``serving``) and at most one child, all named STANDBY_NAME (a handed-off child
    renames itself, so a candidate's tree never passes for one), at most STANDBY_TARGET of them."""
    children: dict[int, list[Proc]] = {}
    for proc in tree:
        children.setdefault(proc.ppid, []).append(proc)
    idle: set[int] = set()
    inits = [proc for proc in tree if proc.ppid in serving and proc.name == STANDBY_NAME]
    for init in inits[:STANDBY_TARGET]:
        below = children.get(init.pid, [])
        if len(below) <= 1 and all(c.name == STANDBY_NAME and not children.get(c.pid) for c in below):
            idle |= {init.pid, *(c.pid for c in below)}
    return idle


# ------------------------------------------------------------------------------------- sandboxes

_SANDBOXES: dict[str, Sandbox] = {}


def _sandbox(level: str) -> Sandbox:
    if level not in _SANDBOXES:
        _SANDBOXES[level] = Sandbox(isolation=level)
    return _SANDBOXES[level]


@pytest.fixture(scope="session", autouse=True)
def _close_sandboxes() -> Iterator[None]:
    yield
    for sandbox in _SANDBOXES.values():
        sandbox.close()


@pytest.fixture(scope="session", autouse=True)
def _dask_scratch_in_a_folder_of_the_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Dask's workers keep their files in <temporary-directory>/dask-scratch-space, which they
    never remove (/tmp by default): a folder of this run instead, which pytest cleans up."""
    folder = str(tmp_path_factory.mktemp("dask"))
    before = os.environ.get("DASK_TEMPORARY_DIRECTORY")
    os.environ["DASK_TEMPORARY_DIRECTORY"] = folder  # read by workers in new processes too
    config = sys.modules.get("dask.config")
    if config is not None:
        config.refresh()
    yield
    if before is None:
        os.environ.pop("DASK_TEMPORARY_DIRECTORY", None)
    else:
        os.environ["DASK_TEMPORARY_DIRECTORY"] = before


@pytest.fixture(scope="session", params=LEVELS)
def sandbox(request: pytest.FixtureRequest) -> Sandbox:
    """A long-lived Sandbox at each isolation level (the zygote starts once per level)."""
    return _sandbox(request.param)


@pytest.fixture(scope="session")
def kernel_sandbox() -> Sandbox:
    return _sandbox("kernel")


@pytest.fixture(scope="session")
def process_sandbox() -> Sandbox:
    return _sandbox("process")


@pytest.fixture
def zygote_is_clean() -> Iterator[None]:
    """After the test, every session sandbox's zygote is idle: no candidate, init or grandchild of
    any run is left once the next run has started (a run's verifiers may be exiting as it returns,
    and the next run starts when they are reaped: issue 32, decision 2)."""
    yield
    for sandbox in _SANDBOXES.values():
        if stray_processes(sandbox):
            # A finished run's verifiers may still be exiting (zygote/verifiers.py ``drain``): the
            # next run starts only once they are reaped, so what is left after it is a stray.
            sandbox.run("print('barrier')", language="python", verify=False)
        strays = stray_processes(sandbox)
        assert not strays, f"left under the {sandbox.level} zygote {sandbox.zygote_pid}: {strays}"


def layer_active(sandbox: Sandbox, name: str) -> bool:
    return any(layer["name"] == name and layer.get("active") for layer in sandbox.isolation()["layers"])


def require_extra(module: str, extra: str) -> ModuleType:
    """``module`` from an optional extra; missing, it fails the caller in CI and skips it elsewhere
    (at module level: the whole suite)."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        why = f"{module} is missing ({exc}): install the [{extra}] extra (make install does)"
        if in_ci():
            pytest.fail(f"CI installs every extra; {why}", pytrace=False)
        pytest.skip(why, allow_module_level=True)


def require_feature(available: bool, why: str) -> None:
    """Outside CI a missing kernel feature makes the test an expected failure; in CI it fails."""
    if available:
        return
    if in_ci():
        pytest.fail(f"CI needs this kernel feature: {why}")
    pytest.xfail(f"this machine lacks a kernel feature: {why}")


# ------------------------------------------------------------------------------------- network

@dataclass
class Listener:
    host: str
    port: int
    sock: socket.socket

    def was_reached(self) -> bool:
        """True if any connection is waiting (never blocks)."""
        try:
            connection, _ = self.sock.accept()
        except BlockingIOError:
            return False
        connection.close()
        return True


@pytest.fixture
def loopback_listener() -> Iterator[Listener]:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.setblocking(False)
    try:
        yield Listener("127.0.0.1", listener.getsockname()[1], listener)
    finally:
        listener.close()
