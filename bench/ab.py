"""A/B of two engine trees on a loaded box: ``launch.py`` runs of each, alternated, same load.

    python bench/ab.py --a-python /tmp/base-venv/bin/python --a-root /tmp/base [--rounds 4] [--runs 60]

Side A is another checkout run by an interpreter whose ``sys.path`` finds that checkout's package
first (a venv with a ``.pth`` file naming the checkout, then this venv's site-packages); side B is
this tree with ``sys.executable``, or another snapshot the same way (a tree being edited must not
change under a run).  The two cannot share a process (one package name), so the
interleaving is per launch run: A, B, B, A, A, B, ... (each side goes first equally often).  Prints
each side's median of per-run medians, p95s, K=16 run time and CPU per candidate, with the load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROWS = ("engine_kernel", "engine_kernel_noverify")


def _one(python: str, root: str, runs: int, out: str) -> dict[str, Any]:
    command = [python, os.path.join(root, "bench", "launch.py"), "--quick", "--runs", str(runs),
               "--out", out, "--only", *ROWS]
    subprocess.run(command, cwd=os.path.join(root, "bench"), check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "launch.json")) as handle:
        result: dict[str, Any] = json.load(handle)
    return result


def _figures(result: dict[str, Any], row: str) -> dict[str, float]:
    design = result["designs"][row]
    k16 = design["batches"]["16"]
    return {"median": design["latency_ms"]["median"], "p95": design["latency_ms"]["p95"],
            "cpu": design["cpu_ms_per_candidate"], "k16": k16["elapsed_ms"],
            "k16_cpu": k16["cpu_ms_per_candidate"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a-python", required=True)
    parser.add_argument("--a-root", required=True)
    parser.add_argument("--b-python", default=sys.executable)
    parser.add_argument("--b-root", default=os.path.dirname(HERE))
    parser.add_argument("--rounds", type=int, default=4, help="launch runs per side")
    parser.add_argument("--runs", type=int, default=60, help="single-candidate rounds per launch run")
    args = parser.parse_args(argv)
    sides = {"A": (args.a_python, args.a_root), "B": (args.b_python, args.b_root)}
    samples: dict[str, list[dict[str, Any]]] = {"A": [], "B": []}
    loads: list[float] = []
    with tempfile.TemporaryDirectory() as out:
        for index in range(args.rounds * 2):
            side = "AB"[(index + index // 2) % 2]
            python, root = sides[side]
            result = _one(python, root, args.runs, out)
            samples[side].append(result)
            loads += result["machine"]["load_average_per_round"]
            print(f"run {index + 1}: {side} done, load {os.getloadavg()[0]:.2f}", file=sys.stderr)
    print(f"load (1 min) during the runs: {min(loads):.2f}-{max(loads):.2f}, "
          f"median {statistics.median(loads):.2f}")
    print("| side | row | median ms | p95 ms | CPU ms/cand K=1 | K=16 ms | CPU ms/cand K=16 |")
    print("|---|---|---|---|---|---|---|")
    for side in "AB":
        for row in ROWS:
            figures = [_figures(result, row) for result in samples[side]]
            middle = {key: statistics.median(f[key] for f in figures) for key in figures[0]}
            print(f"| {side} | {row} | {middle['median']:.1f} | {middle['p95']:.1f} | {middle['cpu']:.1f} "
                  f"| {middle['k16']:.0f} | {middle['k16_cpu']:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
