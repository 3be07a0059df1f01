"""What the worst frame of each kind costs the zygote (issue 37, point 5): its peak memory, and an
honest sibling's wall time under a 3 s wall limit while the zygote reads it.

    python bench/frames.py [--repeats 3]

Each kind (tests/trust/frames.py) runs in a zygote of its own (a process-level Sandbox, warmed by
one run), beside the sibling; recorded: the zygote's peak (VmHWM) before and after, the forger's
verdict and the sibling's verdict and wall time (fork to reaped, measured by the zygote).  Writes
``results/frames.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.trust.frames import SIBLING, SIBLING_WALL_S, WORST_FRAMES, zygote_peak_mb  # noqa: E402
from z3sandbox_kernel import Limits, Sandbox  # noqa: E402


def measure(kind: str) -> dict[str, object]:
    with Sandbox(isolation="process") as sandbox:
        sandbox.run("x = Int('x')\ns.add(x > 0)\n")
        pid = sandbox.zygote_pid
        assert pid is not None
        before = zygote_peak_mb(pid)
        forger, sibling = sandbox.run([WORST_FRAMES[kind], SIBLING],
                                      limits=Limits(timeout_s=2, wall_s=SIBLING_WALL_S, cpu_s=20))
        return {"kind": kind, "peak_before_mb": round(before, 1),
                "peak_added_mb": round(zygote_peak_mb(pid) - before, 1),
                "forger": f"{forger.verdict.value if forger.verdict else None}: {forger.reason[:80]}",
                "sibling": sibling.verdict.value if sibling.verdict else None,
                "sibling_wall_s": round(sibling.wall_s or 0.0, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args()
    rows = []
    for kind in WORST_FRAMES:
        samples = [measure(kind) for _ in range(args.repeats)]
        row = dict(samples[-1])
        row["peak_added_mb"] = max(float(s["peak_added_mb"]) for s in samples)  # type: ignore[arg-type]
        row["sibling_wall_s"] = statistics.median(float(s["sibling_wall_s"]) for s in samples)  # type: ignore[arg-type]
        row["siblings"] = sorted({str(s["sibling"]) for s in samples})
        rows.append(row)
        print(row, flush=True)
    (args.out / "frames.json").write_text(json.dumps({"rows": rows, "load": os.getloadavg()}, indent=2))
    lines = ["# The worst frame of each kind (bench/frames.py)", "",
             f"A sibling sleeps 1.5 s under a {SIBLING_WALL_S:g} s wall limit, beside the forger; "
             f"{args.repeats} samples each (peak: the largest; sibling wall: the median); load "
             f"{os.getloadavg()[0]:.2f} at the end.", "",
             "| frame | zygote peak added | sibling (wall) | forger |", "|---|---|---|---|"]
    lines += [f"| {r['kind']} | {r['peak_added_mb']} MB | {', '.join(r['siblings'])} "  # type: ignore[arg-type]
              f"({r['sibling_wall_s']} s) | {r['forger']} |" for r in rows]
    (args.out / "frames.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
