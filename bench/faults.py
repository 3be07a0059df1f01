"""What a fresh fork pays for its first z3 check, and what preparing the child beforehand saves.

    python bench/faults.py [--runs 15] [--out bench/results]

Run it with the zygote's environment (``GLIBC_TUNABLES=glibc.malloc.hugetlb=1 MALLOC_ARENA_MAX=2``,
host/zygote_client.py) to measure what candidates see.  A process prepared as the zygote prepares
itself (z3 and the harness loaded, ``harness.prepare()``, ``gc.freeze()``) forks one child per
sample; the child measures its own CPU time and minor page faults for one piece of work:

* ``raw``: the trivial check with z3's API (``Solver()``, ``x > 3, x < 10``, ``check()``, model);
* ``harness``: the same script through ``harness.run_candidate`` (what a candidate runs);
* ``verify``: ``verify.verify_model`` of that candidate's report (what the verifier runs);

each in a plain fork, and in a fork *prepared* the way a warm standby child would be before a
candidate arrives (bench/PROFILE.md): every writable private mapping populated
(``MADV_POPULATE_WRITE``: breaks copy-on-write sharing ahead of time), or glibc's trim and mmap
thresholds raised (``mallopt``) with or without a heap block touched and freed (memory malloc then
keeps instead of asking the kernel for it again).  The preparation's own cost is reported beside.
A second check in the same child shows what a warm process pays.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import itertools
import json
import os
import resource
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import z3

from z3sandbox_kernel.child import harness, verify

SCRIPT = "x = Int('x')\ns.add(x > 3, x < 10)\n"
MADV_POPULATE_WRITE = 23  # Linux 5.14
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
HEAP_BLOCK_MB = 16

_libc = ctypes.CDLL(None, use_errno=True)
_libc.malloc.restype = ctypes.c_void_p
_libc.malloc.argtypes = [ctypes.c_size_t]
_libc.free.argtypes = [ctypes.c_void_p]
_libc.memset.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]
_libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]


def _populate_writable() -> None:
    with open("/proc/self/maps") as handle:
        for line in handle:
            fields = line.split()
            path = fields[5] if len(fields) > 5 else ""
            if fields[1] == "rw-p" and not (path.startswith("[") and path != "[heap]"):
                low, high = (int(value, 16) for value in fields[0].split("-"))
                _libc.madvise(low, high - low, MADV_POPULATE_WRITE)


def _malloc_kept(block_mb: int) -> None:
    _libc.mallopt(M_TRIM_THRESHOLD, 256 << 20)
    _libc.mallopt(M_MMAP_THRESHOLD, 32 << 20)
    if block_mb:
        block = _libc.malloc(block_mb << 20)
        _libc.memset(block, 0, block_mb << 20)
        _libc.free(block)


PREPARATIONS: dict[str, Callable[[], None]] = {
    "none": lambda: None,
    "populate writable mappings": _populate_writable,
    "mallopt": lambda: _malloc_kept(0),
    f"mallopt + {HEAP_BLOCK_MB} MB heap touched": lambda: _malloc_kept(HEAP_BLOCK_MB),
}


def _raw() -> None:
    solver = z3.Solver()
    x = z3.Int("x")
    solver.add(x > 3, x < 10)
    solver.check()
    str(solver.model())


def _harness() -> dict[str, Any]:
    report = dict(harness.run_candidate(SCRIPT, language="python", timeout_s=5.0, random_seed=None,
                                        cores=False))
    if report.get("outcome") != "sat":
        raise RuntimeError(f"the harness said {report}")
    return report


def _usage() -> tuple[float, int]:
    return time.process_time() * 1000, resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def _in_child(work: Callable[[], Any]) -> object:
    """Run ``work`` in a fresh fork with stdout on /dev/null; its JSON-able result comes back."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        os.write(write_end, json.dumps(work()).encode())
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as handle:
        data = handle.read()
    os.waitpid(pid, 0)
    return json.loads(data)


def sample(work: Callable[[], Any], prepare: Callable[[], None]) -> list[float]:
    """[preparation ms, its faults, first work ms, its faults, second work ms, its faults]."""
    def measured() -> list[float]:
        marks = [_usage()]
        prepare()
        marks.append(_usage())
        work()
        marks.append(_usage())
        work()
        marks.append(_usage())
        return [value for before, after in itertools.pairwise(marks)
                for value in (after[0] - before[0], after[1] - before[1])]
    result: list[float] = _in_child(measured)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results"))
    args = parser.parse_args(argv)
    harness.prepare()
    gc.collect()
    gc.freeze()
    report = _in_child(_harness)
    works: dict[str, Callable[[], Any]] = {
        "raw": _raw, "harness": _harness,
        "verify": lambda: verify.verify_model(report["assertions_smt2"], report["model_smt2"], 5.0),
    }
    load = os.getloadavg()[0]
    rows = []
    print("| work | preparation | prep CPU ms | prep faults | 1st CPU ms | 1st faults | 2nd CPU ms "
          "| 2nd faults |")
    print("|---|---|---|---|---|---|---|---|")
    for work_name, work in works.items():
        for prep_name, prepare in PREPARATIONS.items():
            samples = [sample(work, prepare) for _ in range(args.runs)]
            medians = [statistics.median(column) for column in zip(*samples, strict=True)]
            rows.append({"work": work_name, "preparation": prep_name, "median": medians})
            cells = [f"{value:.2f}" if index % 2 == 0 else f"{value:.0f}"
                     for index, value in enumerate(medians)]
            print(f"| {work_name} | {prep_name} | " + " | ".join(cells) + " |")
    env = {key: os.environ.get(key, "") for key in ("GLIBC_TUNABLES", "MALLOC_ARENA_MAX")}
    result = {"runs": args.runs, "environment": env, "load_average": [load, os.getloadavg()[0]],
              "columns": ["prep_cpu_ms", "prep_faults", "first_cpu_ms", "first_faults", "second_cpu_ms",
                          "second_faults"], "rows": rows}
    print(f"load average {load:.2f} at start, {os.getloadavg()[0]:.2f} at end; environment {env}")
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "faults.json"), "w") as handle:
        json.dump(result, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
