"""Statistics, machine facts, the Markdown table and the issue's targets of a launch benchmark run."""

from __future__ import annotations

import math
import os
import platform
import statistics
import subprocess
from typing import Any

KS = (1, 4, 16)

# Issue 24's targets, judged on the every-layer row (engine, isolation="kernel", verify on).
TARGET_MEDIAN_MS = 12.0  # K=1, script to verified verdict (on a quiet machine)
TARGET_VS_INTERPRETER = 6.0  # at least this many times faster than (b), same run
TARGET_K16_CPU_MS = 16.0  # K=16 CPU per candidate, host + zygote + fork server + every tree
TARGET_K16_VS_INTERPRETER = 3.5  # K=16 throughput against (b)'s (a new interpreter per core)
TARGET_SOLVE_MEDIAN = 1.05  # solve time, child CPU / in-process CPU: median over the corpus
TARGET_SOLVE_WORST = 1.25  # ... and the worst file
TARGET_KILL_P95_MS = 20.0
SOLVE_OVER_S = 0.1  # solve targets: files over 100 ms of CPU in-process (below, the fixed cost rules)


def percentile(samples: list[float], q: float) -> float:
    """Nearest-rank percentile: p95 of 100 samples is the 95th smallest, not an interpolation."""
    ordered = sorted(samples)
    rank = max(1, min(len(ordered), math.ceil(q / 100 * len(ordered))))
    return ordered[rank - 1]


def summarize(latency_s: list[float], cpu_s: list[float],
              batches: dict[int, list[tuple[float, float]]]) -> dict[str, Any]:
    """Latency median/p95 (ms) and CPU per candidate of the single runs; per K, the median elapsed
    time of one run() of K candidates, its rate and its CPU per candidate."""
    ms = [s * 1000 for s in latency_s]
    per_k: dict[str, Any] = {}
    for k, samples in batches.items():
        elapsed = [wall * 1000 for wall, _ in samples]
        cpu = [used * 1000 / k for _, used in samples]
        middle = statistics.median(elapsed)
        per_k[str(k)] = {"elapsed_ms": middle, "per_s": k * 1000 / middle,
                         "cpu_ms_per_candidate": statistics.median(cpu),
                         "elapsed_samples_ms": elapsed, "cpu_samples_ms": cpu}
    return {
        "latency_ms": {"median": statistics.median(ms), "p95": percentile(ms, 95),
                       "min": min(ms), "max": max(ms), "n": len(ms), "samples": ms},
        "cpu_ms_per_candidate": sum(cpu_s) * 1000 / len(cpu_s),
        "batches": per_k,
    }


def git_revision() -> str:
    """HEAD's short hash (+ a note when tracked files other than the benchmarks' outputs differ), or
    $Z3BENCH_REVISION for a copy of the tree outside git (a snapshot measured while the checkout is
    being edited)."""
    if os.environ.get("Z3BENCH_REVISION"):
        return os.environ["Z3BENCH_REVISION"]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        head = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        # The benchmarks' own outputs (make bench writes solve.json before launch.py starts, and the
        # docs' table) do not make the measured tree another one.
        dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--untracked-files=no", "--",
                                ".", ":!bench/results", ":!docs/benchmarks.md"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (" + uncommitted changes" if dirty else "")


def machine(z3_version: str) -> dict[str, Any]:
    model = ""
    try:
        with open("/proc/cpuinfo") as handle:
            model = next((line.split(":", 1)[1].strip() for line in handle
                          if line.startswith("model name")), "")
    except OSError:
        pass
    return {"cpu_count": os.cpu_count(), "cpu_model": model, "kernel": platform.release(),
            "system": platform.system(), "python": platform.python_version(),
            "python_implementation": platform.python_implementation(), "z3": z3_version,
            "revision": git_revision(), "load_average_at_start": list(os.getloadavg())}


def table(rows: dict[str, dict[str, Any]], baseline: str = "subprocess", floor: str = "floor_fork") -> str:
    """Rows = designs; "x (b)" = (b)'s median latency / this row's, "x fork" = this row's / the
    bare fork's."""
    base, fork = rows.get(baseline), rows.get(floor)
    head = ("| design | median ms | p95 ms | K=1 cand/s | K=4 cand/s | K=16 cand/s | K=16 run ms "
            "| CPU ms/cand K=1 | CPU ms/cand K=16 | faster than (b) | times bare fork |")
    lines = [head, "|" + "---|" * 11]
    for row in rows.values():
        latency, per_k = row["latency_ms"], row["batches"]
        cells = [row["label"], f"{latency['median']:.1f}", f"{latency['p95']:.1f}"]
        cells += [f"{per_k[str(k)]['per_s']:.0f}" for k in KS]
        cells += [f"{per_k['16']['elapsed_ms']:.0f}", f"{row['cpu_ms_per_candidate']:.1f}",
                  f"{per_k['16']['cpu_ms_per_candidate']:.1f}"]
        cells.append(f"{base['latency_ms']['median'] / latency['median']:.1f}x" if base else "")
        cells.append(f"{latency['median'] / fork['latency_ms']['median']:.1f}x" if fork else "")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _judge(name: str, measured: str, met: bool) -> str:
    return f"| {name} | {measured} | {'**MET**' if met else '**MISSED**'} |"


def solve_summary(solve: dict[str, Any]) -> dict[str, Any] | None:
    """The solve targets' figures from a bench/solve.py result: the child's CPU over the in-process
    work's, on every file over ``SOLVE_OVER_S`` of CPU in-process."""
    rows = [row for row in solve.get("files", []) if "cpu_ratio" in row
            and row["best_in_process_cpu_s"] > SOLVE_OVER_S]
    if not rows:
        return None
    worst = max(rows, key=lambda row: row["cpu_ratio"])
    return {"n": len(rows), "median": statistics.median(row["cpu_ratio"] for row in rows),
            "worst": worst["cpu_ratio"], "worst_file": os.path.basename(worst["file"]),
            "machine": solve.get("machine", ""), "load": solve.get("load_average", [])}


def targets(rows: dict[str, dict[str, Any]], kill: dict[str, Any] | None,
            solve: dict[str, Any] | None = None) -> list[str]:
    """Issue 32's targets, each MET or MISSED, on the every-layer row, with the floors measured in
    the same run beside them; nothing judged that was not measured."""
    engine = rows.get("engine_kernel")
    if engine is None:
        return []
    base, fork, inproc = rows.get("subprocess"), rows.get("floor_fork"), rows.get("floor_inprocess")
    latency, k16 = engine["latency_ms"], engine["batches"]["16"]
    floors = []
    if fork:
        floors.append(f"bare fork {fork['latency_ms']['median']:.1f} ms")
    if inproc:
        floors.append(f"z3 in-process {inproc['latency_ms']['median']:.1f} ms")
    if base:
        floors.append(f"new interpreter {base['latency_ms']['median']:.1f} ms")
    lines = ["| target (issue 39; engine, isolation='kernel', every layer, verify on) | measured | |",
             "|---|---|---|",
             _judge(f"K=1 median <= {TARGET_MEDIAN_MS:g} ms, script to verified verdict",
                    f"{latency['median']:.1f} ms (p95 {latency['p95']:.1f}; floors this run: "
                    f"{', '.join(floors) or 'not measured'})", latency["median"] <= TARGET_MEDIAN_MS)]
    if base:
        slow = base["latency_ms"]["median"]
        factor = slow / latency["median"]
        lines.append(_judge(f"K=1 >= {TARGET_VS_INTERPRETER:g}x faster than a new interpreter per script (b)",
                            f"{factor:.1f}x ({slow:.1f} vs {latency['median']:.1f} ms)",
                            factor >= TARGET_VS_INTERPRETER))
    cpu = k16["cpu_ms_per_candidate"]
    lines.append(_judge(f"K=16 CPU per candidate <= {TARGET_K16_CPU_MS:g} ms (host + zygote + fork "
                        "server + every tree)", f"{cpu:.1f} ms", cpu <= TARGET_K16_CPU_MS))
    if base:
        theirs = base["batches"]["16"]["per_s"]
        factor = k16["per_s"] / theirs
        lines.append(_judge(f"K=16 throughput >= {TARGET_K16_VS_INTERPRETER:g}x the new-interpreter design's",
                            f"{factor:.1f}x ({k16['per_s']:.0f} vs {theirs:.0f} cand/s)",
                            factor >= TARGET_K16_VS_INTERPRETER))
    if solve:
        lines.append(_judge(f"solve time, CPU median <= {TARGET_SOLVE_MEDIAN:g}x in-process "
                            f"({solve['n']} corpus files over {SOLVE_OVER_S * 1000:.0f} ms)",
                            f"{solve['median']:.2f}x", solve["median"] <= TARGET_SOLVE_MEDIAN))
        lines.append(_judge(f"solve time, CPU worst <= {TARGET_SOLVE_WORST:g}x",
                            f"{solve['worst']:.2f}x ({solve['worst_file']})",
                            solve["worst"] <= TARGET_SOLVE_WORST))
    if kill and kill["n"]:
        p95 = percentile(kill["host_ms"], 95)
        left = kill["samples_with_leftovers"]
        lines.append(_judge(
            f"time to kill past a wall limit: p95 < {TARGET_KILL_P95_MS:g} ms, whole tree reaped",
            f"p95 {p95:.1f} ms deadline to result (zygote: deadline to reaped p95 "
            f"{percentile(kill['zygote_ms'], 95):.1f} ms); {left} of {kill['n']} kills left a process",
            p95 < TARGET_KILL_P95_MS and left == 0))
    missing = engine.get("layers_not_applied") or []
    if missing:
        lines += ["", f"Caveat: layers probed active but NOT applied in the candidates: {', '.join(missing)} "
                  "(see `isolation_applied` in launch.json); the every-layer row runs without them."]
    return lines


def publish(name: str, title: str, setting: str, body: str, data: dict[str, Any], out: object, quick: bool,
            load: tuple[float, float]) -> str:
    """``out/name.md`` (the title, the machine and load, ``setting``, ``body``) and ``out/name.json``
    (``data`` and the load); a --quick run writes under the temporary folder, never a result.
    Returns the Markdown."""
    import json
    import sys
    import tempfile
    from pathlib import Path

    note = "; --quick: a smoke test, not a result" if quick else ""
    text = (f"# {title}\n\n{os.cpu_count()} CPUs, Python {sys.version.split()[0]}; {setting}; load average "
            f"(1 min) {load[0]:.2f} at start, {load[1]:.2f} at end{note}.\n\n{body}\n")
    folder = Path(tempfile.gettempdir()) if quick else Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text(text)
    (folder / f"{name}.json").write_text(json.dumps({**data, "load": list(load)}, indent=1))
    return text
