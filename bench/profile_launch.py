"""Where a candidate's launch time goes: the zygote's pieces run directly, each step timestamped.

    python bench/profile_launch.py [--isolation kernel|process] [--runs 50] [--out bench/results]

Why not a profiler: the interesting costs are spread over three processes (zygote, the namespace's
init, the child) and the kernel (fork, exit), so each process writes ``time.perf_counter()``
(CLOCK_MONOTONIC, one clock for all processes) into a shared anonymous mapping at fixed slots; the
profiling process reads them when the tree has ended.  The layers and the bootstrap steps are wrapped
in place, which a fork inherits; the code under test is otherwise unchanged.

It also times, at the same process size: a bare fork+exit from the zygote, the zygote's own
per-candidate bookkeeping, and the whole zygote round trip (request frame in, done frame out) with
no host in the way; Sandbox.run() minus that round trip is the host's share.
"""

from __future__ import annotations

import argparse
import json
import mmap
import os
import shutil
import statistics
import struct
import sys
import tempfile
import time
import types
from collections.abc import Callable
from typing import Any

from z3sandbox_kernel.child import bootstrap, harness
from z3sandbox_kernel.limits import Limits
from z3sandbox_kernel.protocol import PROTOCOL_VERSION, encode_frame, split_frames
from z3sandbox_kernel.zygote import __main__ as zygote_main
from z3sandbox_kernel.zygote import scratch, server, spawn
from z3sandbox_kernel.zygote.classify import classify
from z3sandbox_kernel.zygote.namespaces import (
    NamespaceState,
    enter_sandbox_namespaces,
    fork_in_new_pid_namespace,
)
from z3sandbox_kernel.zygote.sandboxing import SandboxPlan

SCRIPT = "x = Int('x')\ns.add(x > 3, x < 10)\n"
# Timestamp slots, in the order the steps happen; each step's cost is its slot minus the previous.
STEPS = (
    "zygote: pipes + fork (parent side)",
    "init: running (fork + unshare/setns done)",
    "child: forked by init",
    "child: signals, setsid, descriptors redirected",
    "layer environment",  # includes the chdir to scratch before it (0.01 ms)
    "layer rlimits",
    "layer capabilities",
    "layer landlock",
    "layer seccomp",
    "child: setup frame written",
    "child: user code + harness (run_candidate / verify_model)",
    "child: report frame written",
    "zygote: child+init exited, reaped",
)
_SLOT = {name: index for index, name in enumerate(STEPS)}
_clock: mmap.mmap | None = None


def _stamp(step: str) -> None:
    assert _clock is not None
    struct.pack_into("d", _clock, 8 * (_SLOT[step] + 1), time.perf_counter())


def _after(function: Callable[..., Any], step: str) -> Callable[..., Any]:
    """``function`` that stamps ``step`` when it returns (a layer's apply, a bootstrap step)."""
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        result = function(*args, **kwargs)
        _stamp(step)
        return result
    return wrapped


def _before(function: Callable[..., Any], step: str) -> Callable[..., Any]:
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        _stamp(step)
        return function(*args, **kwargs)
    return wrapped


def _instrument(plan: SandboxPlan) -> list[Any]:
    """Wrap the bootstrap's steps in place; return the plan's layers wrapped the same way."""
    spawn._run_init = _before(spawn._run_init, "init: running (fork + unshare/setns done)")
    spawn.become_child = _before(spawn.become_child, "child: forked by init")
    bootstrap._redirect_descriptors = _after(bootstrap._redirect_descriptors,
                                             "child: signals, setsid, descriptors redirected")
    write_frame = bootstrap._write_frame

    def frame(message: dict[str, Any]) -> None:
        write_frame(message)
        _stamp("child: setup frame written" if message.get("type") == "setup"
               else "child: report frame written")

    bootstrap._write_frame = frame
    harness.run_candidate = _after(harness.run_candidate,
                                   "child: user code + harness (run_candidate / verify_model)")
    from z3sandbox_kernel.child import verify
    verify.verify_model = _after(verify.verify_model,
                                 "child: user code + harness (run_candidate / verify_model)")
    return [types.SimpleNamespace(NAME=layer.NAME, apply=_after(layer.apply, f"layer {layer.NAME}"))
            for layer in plan.layers]


def _request(verify: bool) -> dict[str, Any]:
    return {"v": PROTOCOL_VERSION, "type": "run", "id": 1, "index": 0, "script": SCRIPT,
            "language": "python", "limits": Limits().to_dict(), "random_seed": None, "cores": False,
            "verify": verify, "seed_hex": None, "require": []}


def _one_tree(plan: SandboxPlan, layers: list[Any], kind: str, request: dict[str, Any]
              ) -> tuple[list[float], bytes]:
    """Spawn one tree as the zygote does, wait for it, return the step times (ms) and its result."""
    assert _clock is not None
    _clock[:] = bytes(len(_clock))
    scratch = tempfile.mkdtemp(prefix="prof-")

    def make_job(out_w: int, err_w: int, res_w: int, in_pid_ns: bool) -> bootstrap.ChildJob:
        return bootstrap.ChildJob(kind=kind, request=request,
                                  policy=plan.policy(scratch, Limits(), in_pid_ns), stdout_fd=out_w,
                                  stderr_fd=err_w, result_fd=res_w, layers=layers,
                                  address_space_base=plan.address_space_base(),
                                  in_pid_namespace=in_pid_ns, preset_reports=plan.namespace_reports)

    started = time.perf_counter()
    spawned = spawn.spawn(make_job, plan.pid_ns_fd)
    _stamp("zygote: pipes + fork (parent side)")
    os.waitpid(spawned.pid, 0)
    result = bytearray()
    for fd in (spawned.stdout_fd, spawned.stderr_fd, spawned.result_fd, spawned.status_fd):
        if fd is None:
            continue
        try:
            while chunk := os.read(fd, 1 << 16):
                if fd == spawned.result_fd:
                    result += chunk
        except BlockingIOError:
            pass
        os.close(fd)
    _stamp("zygote: child+init exited, reaped")
    shutil.rmtree(scratch, ignore_errors=True)
    stamps = struct.unpack_from(f"{len(STEPS) + 1}d", _clock)[1:]
    steps, last = [], started
    for stamp in stamps:
        steps.append((stamp - last) * 1000 if stamp else float("nan"))
        last = stamp or last
    return steps, bytes(result)


def _bookkeeping(plan: SandboxPlan, runs: int) -> dict[str, float]:
    """The zygote's per-candidate work outside the tree: scratch, policy, statm, classify, frames."""
    base = tempfile.mkdtemp(prefix="prof-book-")
    timings: dict[str, list[float]] = {"mkdtemp+rmtree": [], "policy+address_space_base": [],
                                       "classify+encode done frame": []}
    obs = server.Observation(index=0, limits=Limits(), level=plan.level, seed=None,
                             namespace_layers=plan.namespace_reports)
    obs.report = {"v": PROTOCOL_VERSION, "outcome": "sat", "model": {"x": 4}}
    obs.wait_status, obs.wall_s, obs.cpu_s = 0, 0.01, 0.01
    for _ in range(runs):
        t0 = time.perf_counter()
        scratch = tempfile.mkdtemp(dir=base)
        shutil.rmtree(scratch)
        t1 = time.perf_counter()
        plan.policy(scratch, Limits(), True)
        plan.address_space_base()
        t2 = time.perf_counter()
        encode_frame({"type": "done", "id": 1, "result": classify(obs)})
        t3 = time.perf_counter()
        for key, value in zip(timings, (t1 - t0, t2 - t1, t3 - t2), strict=True):
            timings[key].append(value * 1000)
    shutil.rmtree(base, ignore_errors=True)
    return {key: statistics.median(values) for key, values in timings.items()}


def _bare_forks(runs: int, pid_ns_fd: int | None) -> float:
    """Median ms of fork+_exit+waitpid at the zygote's size (z3, harness and plan loaded)."""
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        pid = fork_in_new_pid_namespace(pid_ns_fd) if pid_ns_fd is not None else os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        samples.append((time.perf_counter() - t0) * 1000)
    return statistics.median(samples)


def _round_trips(plan: SandboxPlan, runs: int, verify: bool) -> float:
    """Median ms from a run frame written to the zygote's stdin to its done frame: no host."""
    to_zygote_r, to_zygote_w = os.pipe()
    from_zygote_r, from_zygote_w = os.pipe()
    pid = os.fork()  # the serving zygote: a child of this PID 1, sharing its namespace fd
    if pid == 0:
        os.close(to_zygote_w)
        os.close(from_zygote_r)
        server.Zygote(plan, scratch.make_base(), to_zygote_r, from_zygote_w).serve()
        os._exit(0)
    os.close(to_zygote_r)
    os.close(from_zygote_w)
    buffer = bytearray()
    samples = []

    def next_frame() -> dict[str, Any]:
        while True:
            frames = split_frames(buffer)
            if frames:
                assert len(frames) == 1, frames
                return frames[0]
            buffer.extend(os.read(from_zygote_r, 1 << 16))

    assert next_frame()["type"] == "hello"
    for index in range(runs + 3):
        request = {**_request(verify), "id": index + 1}
        t0 = time.perf_counter()
        os.write(to_zygote_w, encode_frame(request))
        while (frame := next_frame())["type"] != "done":
            pass
        if index >= 3:  # warm-up
            samples.append((time.perf_counter() - t0) * 1000)
        assert frame["result"]["verdict"] == "sat", frame
    os.close(to_zygote_w)
    os.waitpid(pid, 0)
    return statistics.median(samples)


def profile(level: str, runs: int) -> dict[str, Any]:
    """Set up as the zygote does (preload, namespaces, plan), then measure each piece."""
    global _clock
    z3_version = zygote_main._preload()
    namespaces = enter_sandbox_namespaces() if level == "kernel" else NamespaceState()
    if namespaces.pid:  # as zygote/__main__.py: we become PID 1 of the namespace, or it dies early
        pid = os.fork()
        if pid:
            os._exit(zygote_main._mirror_child(pid))
    plan = SandboxPlan.build(level, namespaces, z3_version)
    result: dict[str, Any] = {"level": level, "runs": runs, "namespaces": vars(namespaces)}
    result["bare_fork_ms"] = _bare_forks(runs, None)
    if plan.pid_ns_fd is not None:
        result["bare_fork_new_pidns_ms"] = _bare_forks(runs, plan.pid_ns_fd)
    result["zygote_bookkeeping_ms"] = _bookkeeping(plan, runs)
    result["zygote_round_trip_ms"] = {"verify": _round_trips(plan, runs, True),
                                      "noverify": _round_trips(plan, runs, False)}
    _clock = mmap.mmap(-1, 8 * (len(STEPS) + 1))
    layers = _instrument(plan)
    verify_request: dict[str, Any] = {}  # filled from the first candidate's report
    for kind in ("candidate", "verify"):
        samples: list[list[float]] = []
        for index in range(runs + 3):
            request = _request(False) if kind == "candidate" else verify_request
            steps, raw = _one_tree(plan, layers, kind, request)
            if kind == "candidate" and not verify_request:
                report = server._parse_result(bytearray(raw))[1] or {}
                verify_request.update(assertions_smt2=report["assertions_smt2"],
                                      model_smt2=report["model_smt2"], timeout_s=10.0)
            if index >= 3:
                samples.append(steps)
        result[f"{kind}_steps_ms"] = {
            step: statistics.median(column)
            for step, column in zip(STEPS, zip(*samples, strict=True), strict=True)
            if not all(value != value for value in column)  # a layer this level does not apply
        }
        result[f"{kind}_total_ms"] = statistics.median(sum(v for v in row if v == v) for row in samples)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--isolation", choices=("kernel", "process"), default="kernel")
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results"))
    args = parser.parse_args(argv)
    # As the zygote: the user-namespace dance happens in a child, never in the caller's process.
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        with os.fdopen(write_end, "w") as handle:
            json.dump(profile(args.isolation, args.runs), handle)
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end) as handle:
        text = handle.read()
    os.waitpid(pid, 0)
    result = json.loads(text)
    result["load_average"] = list(os.getloadavg())
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"profile_{args.isolation}.json")
    with open(path, "w") as handle:
        json.dump(result, handle, indent=1)
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
