"""What the MCP path adds to a run: ``Sandbox.run`` in this process against ``run_candidates``
called through the MCP SDK's client on a ``z3sandbox mcp`` server process over stdio; the first
call after a fresh start; and the size of what the tool returns.

Both sides are warm (a first call started each zygote) and measured interleaved, round by round,
for K=1 and K=16 copies of the trivial SAT script with a model; times are submit to result, as a
caller sees them.  Then ``--starts`` fresh servers, each timed on its first and second call.  The
client imports jsonschema before the first start: the SDK's client validates each result against
the output schema, and its first validation imports jsonschema, which (with rfc3987-syntax
installed, as Jupyter's jsonschema[format-nongpl] brings it) builds a Lark grammar as it loads,
seconds on a loaded machine, in the client, once per client process; that import is timed apart,
in a fresh interpreter.  Each client session also compiles the schema once (about 0.1 s, inside
its first call): that stays in the first call's time, as a client sees it.  Sizes: the characters
of the text block and of the structured content for 16 labelled trivial candidates and for a
100-check enumeration.  Writes
``results/mcp_overhead.json`` and ``.md`` and prints the table.

    python bench/mcp_overhead.py              # 40 rounds of K=1 and 15 of K=16, 9 fresh starts
    python bench/mcp_overhead.py --quick      # a smoke test (4 rounds, 2 starts); not a result
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from mcp import Client
from mcp.client.stdio import StdioServerParameters
from report import publish

from z3sandbox_kernel import Sandbox

SCRIPT = "x = Int('x')\ns.add(x > 3, x < 10)\n"
ENUMERATION = "x = Int('x')\ns.add(x > 1)\nfor i in range(100):\n    s.check()\n    print(s.model())\n"
SERVER = [sys.executable, "-m", "z3sandbox_kernel", "mcp", "--max-candidates", "16"]
RESULTS = Path(__file__).resolve().parent / "results"


def p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[max(0, round(0.95 * len(ordered)) - 1)]


async def measure(rounds: int) -> dict[str, dict[int, list[float]]]:
    samples: dict[str, dict[int, list[float]]] = {"Sandbox.run": {1: [], 16: []}, "MCP": {1: [], 16: []}}
    params = StdioServerParameters(command=SERVER[0], args=SERVER[1:])
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


async def first_calls(starts: int) -> list[list[float]]:
    """Per fresh server: its first and second call, ms (jsonschema already imported here)."""
    import jsonschema  # noqa: F401  (the client's own one-time cost, timed apart)

    found = []
    for _ in range(starts):
        async with Client(StdioServerParameters(command=SERVER[0], args=SERVER[1:])) as client:
            calls = []
            for _ in range(2):
                start = time.perf_counter()
                await client.call_tool("run_candidates", {"scripts": [SCRIPT]})
                calls.append((time.perf_counter() - start) * 1000)
            found.append(calls)
    return found


def jsonschema_import_ms() -> float:
    """What the SDK client's first validation costs it: importing jsonschema, in a fresh interpreter."""
    code = "import time; t = time.perf_counter(); import jsonschema; print((time.perf_counter() - t) * 1000)"
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(ran.stdout)


async def output_sizes() -> dict[str, tuple[int, int]]:
    """Characters of (text block, structured content JSON) for the issue's two shapes."""
    shapes = {"16 labelled trivial candidates": {"scripts": [SCRIPT] * 16,
                                                 "labels": [f"case-{n}" for n in range(16)]},
              "a 100-check enumeration": {"scripts": [ENUMERATION]}}
    sizes = {}
    async with Client(StdioServerParameters(command=SERVER[0], args=SERVER[1:])) as client:
        for name, arguments in shapes.items():
            result = await client.call_tool("run_candidates", arguments)
            sizes[name] = (len(result.content[0].text), len(json.dumps(result.structured_content)))
    return sizes


def table(samples: dict[str, dict[int, list[float]]]) -> str:
    rows = ["| path | K=1 median ms | K=1 p95 ms | K=16 median ms | K=16 p95 ms |", "|---|---|---|---|---|"]
    for design, by_k in samples.items():
        cells = [f"{statistics.median(by_k[k]):.1f} | {p95(by_k[k]):.1f}" for k in (1, 16)]
        rows.append(f"| {design} | {' | '.join(cells)} |")
    medians = {design: [statistics.median(by_k[k]) for k in (1, 16)] for design, by_k in samples.items()}
    overhead = [mcp - direct for mcp, direct in zip(medians["MCP"], medians["Sandbox.run"], strict=True)]
    rows.append(f"| MCP minus Sandbox.run (medians) | {overhead[0]:.1f} | | {overhead[1]:.1f} | |")
    return "\n".join(rows)


def extras_text(starts: list[list[float]], import_ms: float, sizes: dict[str, tuple[int, int]]) -> str:
    rows = ["| fresh start | first call ms | second call ms |", "|---|---|---|"]
    rows += [f"| {number} | {first:.0f} | {second:.0f} |" for number, (first, second) in enumerate(starts, 1)]
    rows += ["", f"The client's own first validation (import jsonschema, a fresh interpreter): "
             f"{import_ms:.0f} ms.", "", "| output of | text block chars | structured content chars |",
             "|---|---|---|"]
    rows += [f"| {name} | {text} | {structured} |" for name, (text, structured) in sizes.items()]
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--starts", type=int, default=9, help="fresh servers timed on their first call")
    parser.add_argument("--quick", action="store_true", help="4 rounds and 2 starts: a smoke test")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    rounds, starts = (4, 2) if args.quick else (args.rounds, args.starts)
    load_before = os.getloadavg()[0]
    samples = asyncio.run(measure(rounds))
    fresh = asyncio.run(first_calls(starts))
    import_ms = jsonschema_import_ms()
    sizes = asyncio.run(output_sizes())
    load_after = os.getloadavg()[0]
    counts = {design: {k: len(v) for k, v in by_k.items()} for design, by_k in samples.items()}
    text = publish("mcp_overhead", "MCP overhead: run_candidates over stdio vs Sandbox.run",
                   f"rounds {counts['MCP']} (K: count), interleaved; {starts} fresh starts",
                   f"{table(samples)}\n\n{extras_text(fresh, import_ms, sizes)}",
                   {"samples_ms": samples, "first_calls_ms": fresh, "jsonschema_import_ms": import_ms,
                    "sizes": sizes}, args.out, args.quick, (load_before, load_after))
    print(text)


if __name__ == "__main__":
    main()
