"""Launch benchmark: per-candidate latency and throughput of the engine against the designs it replaces.

    python bench/launch.py [--quick] [--out bench/results]

Measures, in one run and one process: (a) the engine at isolation="kernel" with and without verify,
(a') at isolation="process", (b) a new ``python`` per script, (c) the floors (z3 in-process, bare
fork).  Writes ``launch.json`` (every sample, the machine, the isolation report) and ``launch.md``
(the table), and prints the table.  See bench/README.md for what each row means.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

import z3
from designs import SCRIPT, BareFork, Design, Engine, InProcess, Subprocess
from report import KS, machine, summarize, table, targets

# (runs, warm-up runs, batches per K) for a normal and a --quick run.
NORMAL = (100, 10, 10)
QUICK = (20, 3, 3)


def measure(design: Design, runs: int, warmup: int, batches: int) -> dict[str, Any]:
    """Warm the design up, then time ``runs`` single candidates and ``batches`` runs of each K."""
    for _ in range(warmup):
        design.one()
    latency = []
    cpu_before = time.process_time() + design.outside_cpu_s()
    for _ in range(runs):
        started = time.perf_counter()
        design.one()
        latency.append(time.perf_counter() - started)
    cpu_ms = (time.process_time() + design.outside_cpu_s() - cpu_before) * 1000 / runs
    throughput: dict[int, list[float]] = {}
    for k in KS:
        design.batch(k)  # warm-up for this K (a pool's threads, the zygote's free lists)
        rates = []
        for _ in range(batches):
            started = time.perf_counter()
            design.batch(k)
            rates.append(k / (time.perf_counter() - started))
        throughput[k] = rates
    return {"label": design.label, **summarize(latency, throughput), "cpu_ms_per_candidate": cpu_ms,
            **design.extra()}


def designs() -> list[tuple[str, Callable[[], Design]]]:
    """In table order.  Built one at a time, so only one design's processes exist at once."""
    return [
        ("engine_kernel", lambda: Engine("kernel", verify=True)),
        ("engine_kernel_noverify", lambda: Engine("kernel", verify=False)),
        ("engine_process", lambda: Engine("process", verify=True)),
        ("engine_process_noverify", lambda: Engine("process", verify=False)),
        ("subprocess", Subprocess),
        ("floor_inprocess", InProcess),
        ("floor_fork", BareFork),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs: a smoke test, not a result")
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results"),
                        help="folder for launch.json and launch.md (default: bench/results)")
    parser.add_argument("--only", nargs="*", help="measure only these designs (keys as in launch.json)")
    args = parser.parse_args(argv)
    runs, warmup, batches = QUICK if args.quick else NORMAL
    info = machine(z3.get_version_string())
    rows: dict[str, dict[str, Any]] = {}
    for key, build in designs():
        if args.only and key not in args.only:
            continue
        print(f"measuring {key} ...", file=sys.stderr, flush=True)
        design = build()
        try:
            rows[key] = measure(design, runs, warmup, batches)
        finally:
            design.close()
    isolation = rows.get("engine_kernel", {}).get("isolation_probed")
    info["load_average_at_end"] = list(os.getloadavg())
    result = {"benchmark": "launch", "script": SCRIPT, "quick": args.quick,
              "runs": runs, "warmup": warmup, "batches_per_k": batches, "ks": list(KS),
              "machine": {**info, "isolation": isolation}, "designs": rows}
    markdown = _markdown(result)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "launch.json"), "w") as handle:
        json.dump(result, handle, indent=1)
    with open(os.path.join(args.out, "launch.md"), "w") as handle:
        handle.write(markdown)
    print(markdown)
    return 0


def _markdown(result: dict[str, Any]) -> str:
    info, rows = result["machine"], result["designs"]
    cold = [f"{row['label']}: {row['cold_start_ms']:.0f} ms"
            for row in rows.values() if "cold_start_ms" in row]
    lines = [
        "# Launch benchmark: trivial SAT candidate with a model",
        "",
        f"{info['cpu_count']} CPUs ({info['cpu_model']}), Linux {info['kernel']}, Python {info['python']}, "
        f"z3 {info['z3']}; {result['runs']} runs per design after {result['warmup']} warm-up runs, "
        f"{result['batches_per_k']} batches per K"
        + (" (**--quick: not a result**)" if result["quick"] else "")
        + ". Latency = submit to verdict; throughput = K / time of one run() of K candidates; "
        "CPU = all processes' CPU per candidate (the contention-robust number).",
        "",
        f"Load average (1 min) at start {info['load_average_at_start'][0]:.2f}, at end "
        f"{info['load_average_at_end'][0]:.2f}: other work shared these CPUs (see bench/README.md).",
        "",
        table(rows),
        "",
        *targets(rows),
        "",
        "Cold start (first run() of a new Sandbox, zygote start included): " + "; ".join(cold) + ".",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
