"""Fixtures of the evil suite: the attacked world, one Sandbox per isolation level, and the checks
every evil test makes after its run.

Order matters: the world (canary variable, HOME, listeners) is set up in this process *before* any
Sandbox starts, so a leak of the parent's environment would show.  The zygote's environment is
built from nothing (host/zygote_client.py ``ZYGOTE_ENV``), so nothing here should reach it.

Runs the same as root and as a normal user; see cases.py for where the
expected outcomes differ.  In CI (``CI=true``) a kernel feature the machine lacks fails the test;
elsewhere it is an expected failure with the reason.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import in_ci
from z3sandbox_kernel import CandidateResult, Sandbox
from z3sandbox_kernel.zygote.standby import TARGET as STANDBY_TARGET

from .processes import EVIL_COMM, leftover_processes
from .world import ESCAPE_MARKERS, World

IN_CI = in_ci()
USER = "root" if os.geteuid() == 0 else "user"
LEVELS = ("kernel", "process") if sys.platform == "linux" else ("process",)


@pytest.fixture(scope="session")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    base = tmp_path_factory.mktemp("evil")
    os.chmod(base, 0o755)
    w = World(base / "w")
    w.start_listeners()
    yield w
    w.stop_listeners()
    w.close()


@pytest.fixture(scope="session")
def sandboxes(world: World) -> Iterator[dict[str, Sandbox]]:
    """One Sandbox per level, started lazily, after the world exists."""
    started: dict[str, Sandbox] = {}

    class _Lazy(dict):  # type: ignore[type-arg]
        def __missing__(self, level: str) -> Sandbox:
            sandbox = Sandbox(isolation=level)
            sandbox.isolation()  # start the zygote now, so its pid is known to the scripts
            started[level] = self[level] = sandbox
            return sandbox

    yield _Lazy()
    for sandbox in started.values():
        sandbox.close()


def probe_layers(sandbox: Sandbox) -> dict[str, dict[str, Any]]:
    return {layer["name"]: dict(layer) for layer in sandbox.isolation()["layers"]}


def require_layers(sandbox: Sandbox, needs: tuple[str, ...]) -> None:
    """A kernel feature this machine lacks: a failure in CI, an expected failure elsewhere."""
    layers = probe_layers(sandbox)
    for name in needs:
        layer = layers.get(name, {"active": False, "error": "not reported"})
        if not layer.get("active"):
            why = f"this machine lacks the {name} layer: {layer.get('error', '')}"
            if IN_CI:
                pytest.fail(f"CI requires every kernel feature; {why}")
            pytest.xfail(why)


def outputs(result: CandidateResult) -> str:
    """Everything a candidate can make the user see."""
    return "\n".join([result.stdout, result.stderr, result.reason, repr(result.model),
                      repr(result.payload), str(result.payload_error)])


def assert_no_canary(world: World, result: CandidateResult, what: str) -> None:
    text = outputs(result)
    for canary in world.canaries():
        assert canary not in text, f"{what}: a canary leaked into its output: {canary[:40]!r}"


def assert_no_escape_marker(result: CandidateResult, what: str) -> None:
    """What the script printed or returned; not ``reason``, nor the indented source lines of a
    traceback on stderr: both quote the script's own code."""
    printed = [line for line in result.stderr.splitlines() if not line.startswith(" ")]
    text = "\n".join([result.stdout, *printed, repr(result.model), repr(result.payload)])
    for marker in ESCAPE_MARKERS:
        assert marker not in text, f"{what} escaped: {text[:600]!r}"


def wait_no_leftovers(zygote_pid: int, level: str, grace_s: float = 2.0) -> list[str]:
    deadline = time.monotonic() + grace_s
    while True:
        left = leftover_processes(zygote_pid, level)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


def leftover_scratch(sandbox: Sandbox, grace_s: float = 60.0) -> list[str]:
    """Run folders still in the zygote's scratch base once ``grace_s`` has passed (at the process
    level a removal helper may still be taking a huge tree apart; at the kernel level candidates
    write to a tmpfs of their own and the host's folder stays empty)."""
    zygote = sandbox._zygote
    base = str(zygote.hello.get("scratch") or "") if zygote is not None else ""
    deadline = time.monotonic() + grace_s
    while True:
        try:
            names = sorted(os.listdir(base))
            # A candidate's folder is run-N-... (a cold fork) or standby-... (handed to a
            # standby); the idle standby's own folder is not a leftover (zygote/standby.py).
            standbys = [name for name in names if name.startswith("standby-")]
            left = [name for name in names if name.startswith("run-")] + standbys[STANDBY_TARGET:]
        except OSError:
            left = []
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


def cleanup_escapes(world: World) -> None:
    """Remove what an escaped script may have left outside the sandbox (after the checks)."""
    token = world.token
    for folder in [*sys.path, "/tmp", str(Path.cwd())]:
        for name in (f"z3sbevil_{token}.py", f"z3sbevil-{token}"):
            path = os.path.join(folder or ".", name)
            if os.path.lexists(path):
                try:
                    os.unlink(path)
                except OSError:
                    pass
    for pid in (int(p) for p in os.listdir("/proc") if p.isdigit()):
        try:
            with open(f"/proc/{pid}/comm") as handle:
                if handle.read().strip() == EVIL_COMM:
                    os.kill(pid, 9)
        except OSError:
            pass
    (world.home / ".bashrc").write_text("# the user's real .bashrc\n")
    shutil.rmtree(world.watched, ignore_errors=True)
    world.watched.mkdir(exist_ok=True)
