"""The zygote process: ``python -I -m z3sandbox_kernel.zygote --isolation kernel --parent PID``.

It dies with the host, loads z3 and the harness before any fork, then walks the zygote's steps of
the isolation recipe (recipe.py: namespaces, the serving zygote as PID 1, the layers prepared, the
filesystem view, the probe child, the fork server) and serves (server.py: one thread, a selector
loop).  ``Launch`` is what those steps act on.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import resource
import signal
import sys

from ..contracts.limits import Limits
from ..contracts.oscalls import set_child_subreaper, set_parent_death_signal, set_process_name
from ..protocol.roles import Level, Role
from . import scratch
from .jobs import NO_CANDIDATE, run_report
from .namespaces import NamespaceState
from .recipe import set_up_zygote
from .sandboxing import SandboxPlan
from .server import Zygote
from .spawn import ZYGOTE_NAME


class HostDied(SystemExit):
    """The host died without shutting us down: unwind, killing candidates and removing scratch."""


def _host_died(*_: object) -> None:
    raise HostDied(1)


def _die_with(parent: int) -> None:
    # The host cancels runs itself; a terminal's Ctrl-C is not for us (we run in our own session).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # SIGTERM, not SIGKILL, when the host dies: there is still time to kill candidates and to remove
    # the scratch folders (a kernel killed by Jupyter would otherwise leave them in /tmp).
    signal.signal(signal.SIGTERM, _host_died)
    if sys.platform == "linux":
        set_parent_death_signal(signal.SIGTERM)
    if parent and os.getppid() != parent:
        os._exit(1)


def _preload() -> str:
    import z3

    from ..child import bootstrap, confirm, harness, service, verify  # noqa: F401  (loaded before any fork)

    harness.prepare()
    # Everything loaded so far lives as long as the zygote: out of the collector's sight, a child's
    # collections do not write to (and so copy) the pages it shares with the zygote.
    gc.collect()
    gc.freeze()
    return str(z3.get_version_string())


def _mirror_child(pid: int, scratch_base: str) -> int:
    """The thin outer parent: wait for the serving zygote and exit as it did.  If the host dies,
    the serving zygote dies with us (its parent-death signal) and we remove the scratch folders."""
    for stream in (0, 1):
        os.close(stream)
    try:
        _, status = os.waitpid(pid, 0)
    except HostDied:
        os.kill(pid, signal.SIGKILL)  # PID 1 of its namespace: every candidate goes with it
        os.waitpid(pid, 0)
        return 1
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # done: a late parent-death signal is moot
        scratch.remove(scratch_base)
    code = os.waitstatus_to_exitcode(status)  # -N: killed by signal N
    return _die_of(-code) if code < 0 else code


def _die_of(signum: int) -> int:
    """Die of the signal the serving zygote died of, so that the host reads the same death (a
    returncode of -signum: "the zygote was killed by SIGKILL"), not an exit code.  The thin parent
    dumps no core of its own.  If the signal cannot kill us, 128 + signum, as a shell reports it."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))
    with contextlib.suppress(OSError, ValueError):  # SIGKILL has no disposition to reset
        signal.signal(signum, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signum})
    os.kill(os.getpid(), signum)
    return 128 + signum


class Mirrored(Exception):
    """The thin outer parent's end: the serving zygote exited with this code."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


class Launch:
    """The zygote's side of the recipe (``recipe.ZygoteSide``): what its start-up steps act on."""

    def __init__(self, level: Level, z3_version: str) -> None:
        self.level = level
        self.z3_version = z3_version
        self.namespaces = NamespaceState()
        self.scratch_base = ""
        self.plan: SandboxPlan | None = None
        self.server: Zygote | None = None

    def become_serving(self) -> None:
        self.scratch_base = scratch.make_base()  # inside the user namespace, if any
        if self.namespaces.pid:
            pid = os.fork()
            if pid:
                raise Mirrored(_mirror_child(pid, self.scratch_base))
            signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the outer parent cleans up after us
            set_parent_death_signal(signal.SIGKILL)
        elif sys.platform == "linux":
            set_child_subreaper()

    def prepare_layers(self) -> None:
        self.plan = SandboxPlan.build(self.level, self.namespaces, self.z3_version)

    def build_view(self) -> None:
        if self.namespaces.pid:
            assert self.plan is not None
            self.plan.enter_view(self.scratch_base)

    def probe_layers(self) -> None:
        """Fork one child that applies every layer and runs nothing: the isolation report is what
        really applied, not what the probes expected (a layer can probe fine and still fail)."""
        assert self.plan is not None
        self.server = Zygote(self.plan, self.scratch_base)
        trees = self.server.trees
        job = trees.spawn(NO_CANDIDATE, Role.PROBE, Limits())
        while job.pid in trees.jobs_by_pid:
            self.server.selector.select(1.0)
            trees.on_wake()
        setup, _, _ = run_report(job)
        self.plan.confirm(setup["layers"] if setup else None)

    def start_fork_server(self) -> None:
        assert self.server is not None
        self.server.trees.start_forker()  # before the first request: every later tree is forked there


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="z3sandbox-zygote")
    parser.add_argument("--isolation", type=Level, choices=list(Level), default=Level.KERNEL)
    parser.add_argument("--parent", type=int, default=0)
    args = parser.parse_args(argv)
    _die_with(args.parent)
    if sys.platform == "linux":
        set_process_name(ZYGOTE_NAME)
    launch = Launch(args.isolation if sys.platform == "linux" else Level.PROCESS, _preload())
    try:
        set_up_zygote(launch)
        assert launch.server is not None
        launch.server.serve()  # its own finally kills candidates, removes scratch
    except Mirrored as mirrored:
        return mirrored.code
    except HostDied:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
