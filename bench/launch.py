"""Launch benchmark: per-candidate latency, throughput, CPU and time-to-kill of the engine against the
designs it replaces, measured interleaved in one run, with issue 39's targets stated as MET or MISSED.

    python bench/launch.py [--quick] [--runs N] [--out bench/results] [--only KEY ...] [--solve FILE]

Every design is built first and stays alive; then each round times one candidate of every design
(in a fresh order every round) and one kill past a wall limit, and records the load
average, so load that changes during the run hits every row alike.  The K=1/4/16 batches are
interleaved the same way.  Writes ``launch.json`` (every sample, the load of every round, the
machine, the isolation report) and ``launch.md`` (the table and the targets), prints the table and,
when writing to bench/results, refreshes the docs' benchmark block from it.  The solve-time
targets are judged from ``solve.json`` in the same folder (bench/solve.py, which ``make bench`` runs
first), named with its own revision and load.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import z3
from designs import SCRIPT, BareFork, Design, Engine, InProcess, Isolated, Subprocess
from kill import KillProbe
from report import KS, machine, solve_summary, summarize, table, targets

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
ROOT = os.path.dirname(os.path.dirname(RESULTS))
# (runs, warm-up runs, batches per K) for a normal and a --quick run.
NORMAL = (150, 10, 15)
QUICK = (20, 3, 3)

DESIGNS: dict[str, Callable[[], Design]] = {  # in table order
    "engine_kernel": lambda: Engine("kernel", verify=True),
    "engine_kernel_noverify": lambda: Engine("kernel", verify=False),
    "engine_process": lambda: Engine("process", verify=True),
    "engine_process_noverify": lambda: Engine("process", verify=False),
    "subprocess": Subprocess,
    "floor_inprocess": lambda: Isolated(InProcess),
    "floor_fork": lambda: Isolated(BareFork),
}


def _shuffled(keys: list[str], round_index: int) -> list[str]:
    """This round's order: a fresh permutation (seeded, so a run can be repeated).  A rotation kept
    each design behind the same neighbour in all but one round of len(keys), and what a design
    does after its verdict (a zygote forking its next standby or spare) landed on that neighbour
    every time: the engine's verify=False row measured slower than its verify-on row."""
    return random.Random(round_index).sample(keys, len(keys))


def measure(designs: dict[str, Design], kill: KillProbe | None, runs: int, warmup: int,
            batches: int) -> tuple[dict[str, dict[str, Any]], list[float]]:
    """Interleaved rounds: every design once per round, then one kill; the same for each K."""
    keys, load = list(designs), []
    for design in designs.values():
        for _ in range(warmup):
            design.one()
    single: dict[str, list[tuple[float, float]]] = {key: [] for key in keys}
    for index in range(runs):
        for key in _shuffled(keys, index):
            single[key].append(designs[key].timed())
        if kill is not None:
            kill.sample()
        load.append(os.getloadavg()[0])
    per_k: dict[str, dict[int, list[tuple[float, float]]]] = {key: {} for key in keys}
    for k in KS:
        for design in designs.values():
            design.batch(k)  # warm-up for this K (a pool's threads, the zygote's free lists)
        for index in range(batches):
            for key in _shuffled(keys, index):
                per_k[key].setdefault(k, []).append(designs[key].timed(k))
            load.append(os.getloadavg()[0])
    rows = {}
    for key, design in designs.items():
        walls, cpus = zip(*single[key], strict=True)
        stats = summarize(list(walls), list(cpus), per_k[key])
        rows[key] = {"label": design.label, **stats, **design.extra()}
    return rows, load


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs: a smoke test, not a result")
    parser.add_argument("--runs", type=int, help="single-candidate rounds (default 150, --quick 20)")
    parser.add_argument("--out", default=RESULTS, help="folder for launch.json and launch.md")
    parser.add_argument("--only", nargs="*", choices=list(DESIGNS), help="measure only these designs")
    parser.add_argument("--solve", help="bench/solve.py's solve.json to judge the solve targets on "
                        "(default: the one in --out, if any)")
    args = parser.parse_args(argv)
    runs, warmup, batches = QUICK if args.quick else NORMAL
    runs = args.runs or runs
    info = machine(z3.get_version_string())
    designs: dict[str, Design] = {}
    try:
        for key, build in DESIGNS.items():
            if not args.only or key in args.only:
                print(f"starting {key} ...", file=sys.stderr, flush=True)
                designs[key] = build()
        engine = designs.get("engine_kernel")
        kill = KillProbe(engine) if isinstance(engine, Engine) else None
        print(f"measuring {len(designs)} designs interleaved, {runs} rounds ...", file=sys.stderr, flush=True)
        rows, load = measure(designs, kill, runs, warmup, batches)
    finally:
        for design in designs.values():
            design.close()
    info["load_average_at_end"] = list(os.getloadavg())
    info["load_average_per_round"] = load
    isolation = rows.get("engine_kernel", {}).get("isolation_probed")
    result = {"benchmark": "launch", "script": SCRIPT, "quick": args.quick, "interleaved": True,
              "runs": runs, "warmup": warmup, "batches_per_k": batches, "ks": list(KS),
              "machine": {**info, "isolation": isolation}, "designs": rows,
              "kill": kill.result() if kill else None, "solve": _solve(args.solve or args.out)}
    markdown = _markdown(result)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "launch.json"), "w") as handle:
        json.dump(result, handle, indent=1)
    with open(os.path.join(args.out, "launch.md"), "w") as handle:
        handle.write(markdown)
    print(markdown)
    if os.path.samefile(args.out, RESULTS) and not args.quick and not args.only:
        _refresh_docs()
    return 0


def _solve(path: str) -> dict[str, Any] | None:
    """The solve targets' summary of a solve.json (a file, or a folder holding one), if any."""
    if os.path.isdir(path):
        path = os.path.join(path, "solve.json")
    try:
        with open(path) as handle:
            return solve_summary(json.load(handle))
    except (OSError, ValueError):
        return None


def _refresh_docs() -> None:
    """The docs' benchmark block (docs/benchmarks.md) is launch.md as tools/sync_docs.py renders it
    (its --check keeps them equal): that script rewrites it, and only what is stale."""
    subprocess.run([sys.executable, os.path.join(ROOT, "tools", "sync_docs.py")], check=True)
    print("docs/benchmarks.md: benchmark block refreshed", file=sys.stderr)


def _markdown(result: dict[str, Any]) -> str:
    info, rows = result["machine"], result["designs"]
    load = info["load_average_per_round"]
    cold = [f"{row['label']}: {row['cold_start_ms']:.0f} ms"
            for row in rows.values() if "cold_start_ms" in row]
    lines = [
        "# Launch benchmark: trivial SAT candidate with a model",
        "",
        f"{info['cpu_count']} CPUs ({info['cpu_model']}), Linux {info['kernel']}, Python {info['python']}, "
        f"z3 {info['z3']}, revision {info['revision']}; designs measured **interleaved**: "
        f"{result['runs']} rounds of one candidate per design after {result['warmup']} warm-up runs, "
        f"{result['batches_per_k']} rounds per K"
        + (" (**--quick: not a result**)" if result["quick"] else "")
        + ". Latency = submit to verdict; K=16 run ms = one run() of 16 candidates; CPU = every "
        "process's CPU per candidate (this one, the zygote, its fork server, every tree, read once "
        "the zygote has settled after the verdict).",
        "",
        f"Load average (1 min): {info['load_average_at_start'][0]:.2f} at start, {min(load):.2f}–"
        f"{max(load):.2f} during the rounds, {info['load_average_at_end'][0]:.2f} at end "
        "(other work shared these 2 CPUs; see bench/README.md).",
        "",
        table(rows),
        "",
        *targets(rows, result.get("kill"), result.get("solve")),
        "",
    ]
    solve = result.get("solve")
    if solve:
        solve_load = solve["load"]
        lines += [f"Solve targets from bench/solve.py ({solve['machine']}; load "
                  f"{solve_load[0]:.2f} at start, {solve_load[1]:.2f} at end): the candidate's own CPU "
                  "over the same work's in a plain interpreter, files over 100 ms of CPU in-process, "
                  "best of its samples.", ""]
    if cold:
        lines += ["Cold start (first run() of a new Sandbox, zygote start included): "
                  + "; ".join(cold) + ".", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
