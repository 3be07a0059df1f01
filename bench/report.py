"""Statistics, machine facts and the Markdown table of a launch benchmark run."""

from __future__ import annotations

import math
import os
import platform
import statistics
from typing import Any

KS = (1, 4, 16)


def percentile(samples: list[float], q: float) -> float:
    """Nearest-rank percentile: p95 of 100 samples is the 95th smallest, not an interpolation."""
    ordered = sorted(samples)
    rank = max(1, min(len(ordered), math.ceil(q / 100 * len(ordered))))
    return ordered[rank - 1]


def summarize(latency_s: list[float], throughput: dict[int, list[float]]) -> dict[str, Any]:
    """Median and p95 of the latencies (ms); median candidates/s over the batches of each K."""
    ms = [s * 1000 for s in latency_s]
    return {
        "latency_ms": {"median": statistics.median(ms), "p95": percentile(ms, 95),
                       "min": min(ms), "max": max(ms), "n": len(ms), "samples": ms},
        "throughput_per_s": {str(k): {"median": statistics.median(rates), "samples": rates}
                             for k, rates in throughput.items()},
    }


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
            "load_average_at_start": list(os.getloadavg())}


def table(rows: dict[str, dict[str, Any]], baseline: str = "subprocess") -> str:
    """Rows = designs; speed-up = baseline median latency / row median latency, and the same for
    K=16 throughput (row / baseline)."""
    base = rows.get(baseline)
    head = ("| design | median ms | p95 ms | K=1 cand/s | K=4 cand/s | K=16 cand/s | CPU ms/cand "
            "| speed-up vs (b), latency | speed-up vs (b), K=16 |")
    lines = [head, "|" + "---|" * 9]
    for row in rows.values():
        latency, rates = row["latency_ms"], row["throughput_per_s"]
        cells = [row["label"], f"{latency['median']:.1f}", f"{latency['p95']:.1f}"]
        cells += [f"{rates[str(k)]['median']:.1f}" for k in KS]
        cells.append(f"{row['cpu_ms_per_candidate']:.1f}")
        if base is None:
            cells += ["", ""]
        else:
            cells.append(f"{base['latency_ms']['median'] / latency['median']:.1f}x")
            cells.append(f"{rates['16']['median'] / base['throughput_per_s']['16']['median']:.1f}x")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def targets(rows: dict[str, dict[str, Any]]) -> list[str]:
    """The issue's two targets, judged on the every-layer row, met or missed in plain words."""
    engine, base = rows.get("engine_kernel"), rows.get("subprocess")
    if engine is None or base is None:
        return []
    median = engine["latency_ms"]["median"]
    factor = base["latency_ms"]["median"] / median
    missing = engine.get("layers_not_applied") or []
    lines = [
        f"- Target: engine >= 10x faster than (b). Measured {factor:.1f}x (median latency): "
        + ("**met**." if factor >= 10 else "**missed**."),
        f"- Target: median < 10 ms per trivial candidate with every layer on. Measured {median:.1f} ms: "
        + ("**met**." if median < 10 else "**missed**."),
    ]
    if missing:
        lines.append("- Caveat: layers probed active but NOT applied in the candidates: "
                     f"{', '.join(missing)} (see `isolation_applied` in launch.json); "
                     "the every-layer row runs without them.")
    return lines
