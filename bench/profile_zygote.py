"""The real zygote, with timestamps: run by bench/profile_launch.py instead of ``-m z3sandbox_kernel.zygote``.

    python -I bench/profile_zygote.py CLOCK_FILE --isolation kernel --parent PID

Before the zygote's own ``main`` runs, the functions each step of a launch goes through are wrapped
in place (a fork inherits the wrappers) so that they write ``time.perf_counter()`` (CLOCK_MONOTONIC,
one clock for every process) into a slot of a shared mapping of ``CLOCK_FILE``; the host side reads
the same file.  Nothing else changes: the zygote, its init and its children run the code under test.
A slot keeps the last time its event happened; the host clears the event slots before each request.
Three slots hold values, not times: a bare fork+exit+wait at the zygote's own size (ms, median of
50, taken when the zygote starts serving), and the minor page faults of the last reaped candidate
and verifier (copy-on-write faults show up there).
"""

from __future__ import annotations

import mmap
import os
import resource
import runpy
import statistics
import struct
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from z3sandbox_kernel.zygote.capture import Stream
    from z3sandbox_kernel.zygote.jobs import Job

EVENTS = (
    "host: run() called",
    "host: request frame written",
    "zygote: run request read",
    "candidate: request received (standby woke)",
    "zygote: run tree forked",
    "init: running",
    "candidate: forked",
    "candidate: descriptors",
    *(f"candidate: layer {name}"
      for name in ("environment", "rlimits", "capabilities", "landlock", "seccomp")),
    "candidate: setup frame written",
    "candidate: user code + harness done",
    "candidate: report frame written",
    "zygote: run result EOF",
    "zygote: run status read (init reaped the child)",
    "zygote: run tree reaped",
    "zygote: model handed to a verifier",
    "zygote: verify tree forked",
    "verify: forked",
    "verify: answer received (verifier woke)",
    "verify: checks done",
    "verify: report frame written",
    "zygote: verify tree reaped",
    "zygote: finishing (classify, done frame)",
    "host: done frame read",
    "host: run() returned",
    "zygote: verify spare tree forked",
    "spare: forked",
    "spare: descriptors",
    *(f"spare: layer {name}" for name in ("environment", "capabilities", "landlock", "seccomp")),
    "spare: setup frame written",
    "zygote: standby tree forked",
    "standby init: running",
    "standby: forked",
    "standby: descriptors",
    *(f"standby: layer {name}" for name in ("environment", "capabilities", "landlock", "seccomp")),
)
VALUES = ("zygote: bare fork ms", "candidate: minor faults", "verify: minor faults",
          "candidate: user code minor faults", "candidate: user code CPU ms")
SLOTS = {name: index for index, name in enumerate(EVENTS + VALUES)}
SIZE = 8 * len(SLOTS)

_clock: mmap.mmap | None = None
_phase = "zygote"  # in a child: candidate, verify, spare or standby (set when it is forked)


def put(name: str, value: float | None = None) -> None:
    """Write ``value`` (default: now) into ``name``'s slot; unknown names are ignored."""
    index = SLOTS.get(name)
    if _clock is not None and index is not None:
        struct.pack_into("d", _clock, 8 * index, time.perf_counter() if value is None else value)


def _after(function: Callable[..., Any], name: Callable[..., str]) -> Callable[..., Any]:
    def wrapped(*args: object, **kwargs: object) -> object:
        result = function(*args, **kwargs)
        put(name(*args, **kwargs))
        return result
    return wrapped


def _before(function: Callable[..., Any], name: Callable[..., str]) -> Callable[..., Any]:
    def wrapped(*args: object, **kwargs: object) -> object:
        put(name(*args, **kwargs))
        return function(*args, **kwargs)
    return wrapped


def _become_child(original: Callable[..., Any]) -> Callable[..., Any]:
    def wrapped(job: Job, *args: object, **kwargs: object) -> object:
        global _phase
        _phase = "candidate" if job.role == "run" else str(job.role)  # "standby", "spare" included
        put(f"{_phase}: forked")
        return original(job, *args, **kwargs)
    return wrapped


def _woke(original: Callable[..., Any], phase: str, event: str) -> Callable[..., Any]:
    """A process forked ahead (spare, standby) got its request: from now on it is ``phase``."""
    def wrapped(*args: object, **kwargs: object) -> object:
        global _phase
        result = original(*args, **kwargs)
        _phase = phase
        put(event)
        return result
    return wrapped


def _handed(original: Callable[..., Any], phase: str, event: str) -> Callable[..., Any]:
    """A verifier got an answer to check: from now on it is ``phase``."""
    def wrapped(*args: object, **kwargs: object) -> object:
        global _phase
        _phase = phase
        put(event)
        return original(*args, **kwargs)
    return wrapped


def _job_ended(original: Callable[..., Any]) -> Callable[..., Any]:
    def wrapped(self: object, job: Job, *args: object, **kwargs: object) -> object:
        phase = "candidate" if job.role == "run" else str(job.role)
        put(f"zygote: {job.role} tree reaped")
        faults = getattr(job.rusage, "ru_minflt", None)  # the fork server reports no faults
        if faults is not None:
            put(f"{phase}: minor faults", float(faults))
        return original(self, job, *args, **kwargs)
    return wrapped


def _on_stream(original: Callable[..., Any]) -> Callable[..., Any]:
    """Stamps when the zygote first sees a candidate's status (init reaped the child) and the EOF
    of its result pipe: the two things a finish from the status pipe would wait for."""
    def wrapped(self: object, job: Job, stream: Stream, *args: object, **kwargs: object) -> object:
        result = original(self, job, stream, *args, **kwargs)
        if job.role == "run" and stream.name == "status" and stream.data:
            put("zygote: run status read (init reaped the child)")
        elif job.role == "run" and stream.name == "result" and stream.fd is None:
            put("zygote: run result EOF")
        return result
    return wrapped


def _serve(original: Callable[..., Any]) -> Callable[..., Any]:
    def wrapped(self: object, *args: object, **kwargs: object) -> object:
        samples = []
        for _ in range(50):
            started = time.perf_counter()
            pid = os.fork()
            if pid == 0:
                os._exit(0)
            os.waitpid(pid, 0)
            samples.append((time.perf_counter() - started) * 1000)
        put("zygote: bare fork ms", statistics.median(samples))
        return original(self, *args, **kwargs)
    return wrapped


def _user_code(original: Callable[..., Any]) -> Callable[..., Any]:
    """The harness's own share: its minor faults and CPU, from the child's getrusage (load moves
    these far less than wall times)."""
    def wrapped(*args: object, **kwargs: object) -> object:
        before = resource.getrusage(resource.RUSAGE_SELF)
        result = original(*args, **kwargs)
        after = resource.getrusage(resource.RUSAGE_SELF)
        put("candidate: user code + harness done")
        put("candidate: user code minor faults", float(after.ru_minflt - before.ru_minflt))
        cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        put("candidate: user code CPU ms", cpu * 1000)
        return result
    return wrapped


def _plan_built(original: Callable[..., Any]) -> Callable[..., Any]:
    def wrapped(*args: object, **kwargs: object) -> object:
        plan = original(*args, **kwargs)
        for layer in plan.layers:  # modules: wrapping their apply reaches every caller
            layer.apply = _after(layer.apply, lambda *_, n=layer.NAME, **__: f"{_phase}: layer {n}")
        return plan
    return wrapped


def _frame(original: Callable[..., Any]) -> Callable[..., Any]:
    def wrapped(message: dict[str, Any], *args: object, **kwargs: object) -> object:
        result = original(message, *args, **kwargs)
        kind = "setup" if message.get("type") == "setup" else "report"
        put(f"{_phase}: {kind} frame written")
        return result
    return wrapped


def instrument() -> None:
    from z3sandbox_kernel.child import bootstrap, confirm, harness, service
    from z3sandbox_kernel.protocol.roles import Role
    from z3sandbox_kernel.zygote import sandboxing, server, spawn, trees, verifiers

    zygote: Any = server.Zygote  # methods are replaced on the class, before it is instantiated
    zygote._start = _before(zygote._start, lambda *_: "zygote: run request read")
    forks: Any = trees.Trees
    kinds = {Role.SPARE: "verify spare", Role.STANDBY: "standby"}
    forks.spawn = _after(forks.spawn, lambda self, cid, role, *a, **k:
                         f"zygote: {kinds.get(role, role)} tree forked")
    forks._on_stream = _on_stream(forks._on_stream)
    zygote._job_ended = _job_ended(zygote._job_ended)
    # Before, not after: once the frame is out, the host may clear the clock for its next request.
    zygote._finish = _before(zygote._finish, lambda *_: "zygote: finishing (classify, done frame)")
    zygote.serve = _serve(zygote.serve)
    plan: Any = sandboxing.SandboxPlan
    plan.build = staticmethod(_plan_built(plan.build))
    spawn._run_init = _before(spawn._run_init, lambda job, *_: "standby init: running"
                              if job.role is Role.STANDBY else "init: running")
    starter: Any = verifiers.Verifiers
    starter.start = _before(starter.start, lambda *_: "zygote: model handed to a verifier")
    spawn.become_child = _become_child(spawn.become_child)
    bootstrap._redirect_descriptors = _after(bootstrap._redirect_descriptors,
                                             lambda *_: f"{_phase}: descriptors")
    bootstrap._write_frame = _frame(bootstrap._write_frame)
    service.serve_one = _handed(service.serve_one, "verify", "verify: answer received (verifier woke)")
    bootstrap._read_request = _woke(bootstrap._read_request, "candidate",
                                    "candidate: request received (standby woke)")
    harness.run_candidate = _user_code(harness.run_candidate)
    confirm.verify_request = _after(confirm.verify_request, lambda *_, **__: "verify: checks done")


def main() -> None:
    global _clock
    with open(sys.argv[1], "r+b") as handle:
        _clock = mmap.mmap(handle.fileno(), SIZE)
    instrument()
    sys.argv = ["z3sandbox_kernel.zygote", *sys.argv[2:]]
    runpy.run_module("z3sandbox_kernel.zygote", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
