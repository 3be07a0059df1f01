"""What the MCP path adds to a run: ``Sandbox.run`` in this process against ``run_candidates``
called through the MCP SDK's client on a ``z3sandbox mcp`` server process over stdio.

Both sides are warm (a first call started each zygote) and measured interleaved, round by round,
for K=1 and K=16 copies of the trivial SAT script with a model; times are submit to result, as a
caller sees them.  Writes ``results/mcp_overhead.json`` and ``.md`` and prints the table.

    python bench/mcp_overhead.py              # 40 rounds of K=1 and 15 of K=16
    python bench/mcp_overhead.py --rounds 10  # a smoke test
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path

from mcp import Client
from mcp.client.stdio import StdioServerParameters

from z3sandbox_kernel import Sandbox

SCRIPT = "x = Int('x')\ns.add(x > 3, x < 10)\n"
RESULTS = Path(__file__).resolve().parent / "results"


def p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[max(0, round(0.95 * len(ordered)) - 1)]


async def measure(rounds: int) -> dict[str, dict[int, list[float]]]:
    samples: dict[str, dict[int, list[float]]] = {"Sandbox.run": {1: [], 16: []}, "MCP": {1: [], 16: []}}
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "z3sandbox_kernel", "mcp", "--max-candidates", "16"])
    with Sandbox() as sandbox:
        async with Client(params) as client:
            async def over_mcp(k: int) -> None:
                result = await client.call_tool("run_candidates", {"scripts": [SCRIPT], "k": k})
                assert result.structured_content["counts"] == {"sat": k}, result

            def direct(k: int) -> None:
                assert sandbox.run(SCRIPT, k=k).counts == {"sat": k}

            for k in (1, 16):  # warm-up: zygotes started, standbys ready
                await over_mcp(k)
                direct(k)
            for number in range(rounds):
                for k in (1, 16) if number < rounds * 3 // 8 else (1,):
                    order = ("MCP", "Sandbox.run") if number % 2 else ("Sandbox.run", "MCP")
                    for design in order:
                        start = time.perf_counter()
                        if design == "MCP":
                            await over_mcp(k)
                        else:
                            await asyncio.to_thread(direct, k)
                        samples[design][k].append((time.perf_counter() - start) * 1000)
    return samples


def table(samples: dict[str, dict[int, list[float]]]) -> str:
    rows = ["| path | K=1 median ms | K=1 p95 ms | K=16 median ms | K=16 p95 ms |", "|---|---|---|---|---|"]
    for design, by_k in samples.items():
        cells = [f"{statistics.median(by_k[k]):.1f} | {p95(by_k[k]):.1f}" for k in (1, 16)]
        rows.append(f"| {design} | {' | '.join(cells)} |")
    medians = {design: [statistics.median(by_k[k]) for k in (1, 16)] for design, by_k in samples.items()}
    overhead = [mcp - direct for mcp, direct in zip(medians["MCP"], medians["Sandbox.run"], strict=True)]
    rows.append(f"| MCP minus Sandbox.run (medians) | {overhead[0]:.1f} | | {overhead[1]:.1f} | |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    samples = asyncio.run(measure(args.rounds))
    load_after = os.getloadavg()[0]
    counts = {design: {k: len(v) for k, v in by_k.items()} for design, by_k in samples.items()}
    header = (f"# MCP overhead: run_candidates over stdio vs Sandbox.run\n\n{os.cpu_count()} CPUs, Python "
              f"{sys.version.split()[0]}; rounds {counts['MCP']} (K: count), interleaved; load average "
              f"(1 min) {load_before:.2f} at start, {load_after:.2f} at end.\n")
    text = f"{header}\n{table(samples)}\n"
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "mcp_overhead.md").write_text(text)
    (args.out / "mcp_overhead.json").write_text(json.dumps(
        {"samples_ms": samples, "load": [load_before, load_after]}, indent=1))
    print(text)


if __name__ == "__main__":
    main()
