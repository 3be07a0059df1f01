"""Where a candidate's launch time goes: one timeline per request, host to zygote to children and back.

    python bench/profile_launch.py [--isolation kernel|process] [--runs 50] [--out bench/results]

A real ``Sandbox`` runs the trivial SAT candidate, but its zygote is started as
``bench/profile_zygote.py``: the real zygote with timestamps at each step (request read, tree
forked, init running, the child's descriptors and each layer, user code, frames, reaped, the
verifier woken, done frame sent).  This process adds the host's own (run() called, request
written, done frame read, run() returned).  Every process writes CLOCK_MONOTONIC into one shared
file mapping, so the steps of one request line up across processes; each event's offset from
``run()`` is the median over the runs, and each step's cost is the median of its per-run
difference to the event before it on the timeline.  Events that happen off the critical path (the
next spare verifier being prepared) show where they overlap it.

Writes ``results/profile_<isolation>.json`` with the timeline for verify on and off, the zygote's
bare fork time at its own size, the children's minor page faults, and the load average.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import mmap
import os
import statistics
import struct
import sys
import tempfile
from collections.abc import Callable
from typing import Any

import profile_zygote as pz
from report import machine

from z3sandbox_kernel import Sandbox
from z3sandbox_kernel.host import sandbox as host_sandbox
from z3sandbox_kernel.host import zygote_client

SCRIPT = "x = Int('x')\ns.add(x > 3, x < 10)\n"
WARMUP = 5


def _patch_host(clock_path: str) -> None:
    """Start profile_zygote.py in place of the zygote module; stamp the host's own steps."""
    create = asyncio.create_subprocess_exec

    async def create_instrumented(*command: str, **kwargs: object) -> object:
        words = list(command)
        if "z3sandbox_kernel.zygote" in words:
            at = words.index("-m")
            words[at : at + 2] = [os.path.abspath(pz.__file__), clock_path]
        return await create(*words, **kwargs)

    asyncio.create_subprocess_exec = create_instrumented  # type: ignore[assignment]
    send = zygote_client.ZygoteProcess.send

    def sent(self: object, msg: dict[str, Any]) -> bool:
        result = send(self, msg)
        if msg.get("type") == "run":
            pz.put("host: request frame written")
        return result

    zygote_client.ZygoteProcess.send = sent  # type: ignore[method-assign]
    on_message: Callable[..., None] = host_sandbox.Sandbox._on_message

    def received(self: object, msg: dict[str, Any]) -> None:
        if msg.get("type") == "done":
            pz.put("host: done frame read")
        on_message(self, msg)

    host_sandbox.Sandbox._on_message = received  # type: ignore[method-assign]


def _read(clock: mmap.mmap) -> tuple[dict[str, float], dict[str, float]]:
    """(event -> ms after run() was called, value slots) of the request that just ended."""
    slots = struct.unpack_from(f"{len(pz.SLOTS)}d", clock)
    start = slots[pz.SLOTS["host: run() called"]]
    events = {name: (slots[i] - start) * 1000 for name, i in pz.SLOTS.items()
              if name in pz.EVENTS and slots[i]}
    values = {name: slots[pz.SLOTS[name]] for name in pz.VALUES if slots[pz.SLOTS[name]]}
    return events, values


def timeline(samples: list[dict[str, float]]) -> list[dict[str, Any]]:
    """Events by median offset; each with the median step from the event before it (same run)."""
    names = {name for sample in samples for name in sample}
    ordered = sorted(names, key=lambda name: statistics.median(s[name] for s in samples if name in s))
    rows, previous = [], None
    for name in ordered:
        present = [s for s in samples if name in s]
        steps: list[float] = [s[name] - s[previous] for s in present if previous in s] if previous else []
        rows.append({"event": name, "at_ms": statistics.median(s[name] for s in present),
                     "n": len(present), "step_ms": statistics.median(steps) if steps else None})
        previous = name
    return rows


def profile(level: str, runs: int, clock: mmap.mmap, verify: bool) -> dict[str, Any]:
    samples, values = [], []
    with Sandbox(isolation=level) as sandbox:
        for index in range(runs + WARMUP):
            clock[: 8 * len(pz.EVENTS)] = bytes(8 * len(pz.EVENTS))  # the values stay
            pz.put("host: run() called")
            result = sandbox.run(SCRIPT, verify=verify)
            pz.put("host: run() returned")
            candidate = result.candidates[0]
            verdict = candidate.verdict.value if candidate.verdict else None
            if verdict != "sat" or (verify and not candidate.verified):
                raise RuntimeError(f"unexpected result: {candidate}")
            if index >= WARMUP:
                events, value = _read(clock)
                samples.append(events)
                values.append(value)
    return {"timeline": timeline(samples), "runs": runs,
            "values": {name: statistics.median(v[name] for v in values if name in v)
                       for name in pz.VALUES if any(name in v for v in values)}}


def print_timeline(title: str, rows: list[dict[str, Any]]) -> None:
    print(f"\n{title}\n| at ms | step ms | event | n |\n|---|---|---|---|")
    for row in rows:
        step = "" if row["step_ms"] is None else f"{row['step_ms']:.2f}"
        print(f"| {row['at_ms']:.2f} | {step} | {row['event']} | {row['n']} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--isolation", choices=("kernel", "process"), default="kernel")
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results"))
    args = parser.parse_args(argv)
    info = machine("")
    shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
    with tempfile.NamedTemporaryFile(prefix="z3bench-clock-", dir=shm) as handle:
        handle.write(bytes(pz.SIZE))
        handle.flush()
        os.chmod(handle.name, 0o666)  # the zygote may run as another uid after dropping privileges
        pz._clock = clock = mmap.mmap(handle.fileno(), pz.SIZE)
        _patch_host(handle.name)
        result: dict[str, Any] = {"level": args.isolation, "script": SCRIPT}
        for verify in (True, False):
            result["verify" if verify else "noverify"] = profile(args.isolation, args.runs, clock, verify)
    result["machine"] = {**info, "load_average_at_end": list(os.getloadavg())}
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, f"profile_{args.isolation}.json"), "w") as out:
        json.dump(result, out, indent=1)
    print(f"isolation={args.isolation}, {args.runs} runs, load average "
          f"{info['load_average_at_start'][0]:.2f} at start, {os.getloadavg()[0]:.2f} at end; "
          f"values: {result['verify']['values']}")
    for key in ("verify", "noverify"):
        print_timeline(f"verify {'on' if key == 'verify' else 'off'}", result[key]["timeline"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
