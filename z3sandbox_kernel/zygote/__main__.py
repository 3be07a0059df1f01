"""The zygote process: ``python -I -m z3sandbox_kernel.zygote --isolation kernel --parent PID``.

Start-up recipe (order matters):

1. Die with the host: parent-death signal, then check the parent did not die before that.
2. Load z3 and the harness, warm z3 outside its main context, prepare the layers (seccomp's filter is compiled
   here, once): everything a candidate needs is in memory before the first fork.
3. Kernel isolation: enter a user and a network namespace and prepare a PID namespace; fork once so
   the serving zygote is PID 1 of that namespace (if it dies, every candidate dies with it).  The
   first process stays as a thin parent that mirrors the zygote's exit, in the host's filesystem.
4. Prepare the layers (seccomp's filter is compiled, Landlock's ABI read) while the host's files
   are still visible, then the serving zygote builds the candidates' filesystem view and moves into
   it (mounts.py): after the PID namespace (its fresh /proc shows that namespace), before the probe
   child (the isolation report is what a child in the view really applied).
5. Serve: one thread, a selector loop (server.py).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import resource
import signal
import sys

from ..oscalls import set_child_subreaper, set_parent_death_signal, set_process_name
from . import scratch
from .namespaces import NamespaceState, enter_sandbox_namespaces
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

    from ..child import bootstrap, harness, verify  # noqa: F401  (loaded before any fork)

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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="z3sandbox-zygote")
    parser.add_argument("--isolation", choices=("kernel", "process"), default="kernel")
    parser.add_argument("--parent", type=int, default=0)
    args = parser.parse_args(argv)
    _die_with(args.parent)
    if sys.platform == "linux":
        set_process_name(ZYGOTE_NAME)
    z3_version = _preload()

    from .sandboxing import SandboxPlan
    from .server import Zygote

    level = args.isolation if sys.platform == "linux" else "process"
    namespaces = enter_sandbox_namespaces() if level == "kernel" else NamespaceState()
    scratch_base = scratch.make_base()
    if namespaces.pid:
        pid = os.fork()
        if pid:
            return _mirror_child(pid, scratch_base)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the outer parent cleans up after us
        set_parent_death_signal(signal.SIGKILL)
    elif sys.platform == "linux":
        set_child_subreaper()
    plan = SandboxPlan.build(level, namespaces, z3_version)
    if namespaces.pid:
        plan.enter_view(scratch_base)
    try:
        Zygote(plan, scratch_base).serve()  # its own finally kills candidates, removes scratch
    except HostDied:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
