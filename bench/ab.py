"""A/B of zygote trees, interleaved round by round in one run: which change made a candidate faster.

    python bench/ab.py --side base=HEAD~1 --side new=HEAD [--runs 100] [--batches 10] [--noverify]
    python bench/ab.py --side j2=HEAD,jobs=2 --side j4=HEAD,jobs=4      # one tree, two ``jobs``
    python bench/ab.py --side base=/tmp/base-venv/bin/python --side new=/tmp/new-venv/bin/python

Each side is an interpreter whose ``sys.path`` finds one snapshot of the package first (a venv with
a ``.pth`` file naming the snapshot, then this venv's site-packages): its Sandbox's zygote runs that
snapshot's code, the host side is this tree's (so the host <-> zygote protocol must not differ).
A side given as a git revision is snapshotted so (``git archive`` into /tmp/z3ab-<hash>); a side
may set the run's ``jobs`` (``,jobs=N``).
Every side's Sandbox stays alive and ``launch.measure`` runs one candidate per side per round, in a
fresh order every round, so load that comes and goes hits every side alike: on a shared box, only sides of
one run compare.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import sysconfig

from designs import Design, Engine
from launch import measure

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def snapshot(revision: str) -> str:
    """An interpreter that imports the package as it is at ``revision`` (built once per commit)."""
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short=10", revision], check=True,
                            capture_output=True, text=True).stdout.strip()
    home = f"/tmp/z3ab-{commit}"
    python = os.path.join(home, "venv", "bin", "python")
    if not os.path.exists(python):
        os.makedirs(os.path.join(home, "src"), exist_ok=True)
        archive = subprocess.run(["git", "-C", ROOT, "archive", commit, "z3sandbox_kernel"], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", os.path.join(home, "src")], input=archive, check=True)
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", os.path.join(home, "venv")],
                       check=True)
        site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                              check=True, capture_output=True, text=True).stdout.strip()
        with open(os.path.join(site, "z3ab.pth"), "w") as handle:
            handle.write(os.path.join(home, "src") + "\n" + sysconfig.get_paths()["purelib"] + "\n")
    return python


def _engine_at(python: str, label: str, verify: bool, jobs: int | None, back_to_back: bool) -> Engine:
    """An Engine whose zygote is started by ``python`` (read by the first run(), in __init__)."""
    own = sys.executable
    sys.executable = python
    try:
        engine = (BackToBack if back_to_back else Engine)("kernel", verify=verify, jobs=jobs)
    finally:
        sys.executable = own
    engine.key = engine.label = label + ("" if verify else " noverify")
    return engine


class BackToBack(Engine):
    """An Engine whose K=1 sample is a run sent the instant the one before it returned."""

    def timed(self, k: int | None = None) -> tuple[float, float]:
        if k is None:
            Engine.one(self)
        return super().timed(k)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--side", action="append", required=True,
                        help="NAME=PYTHON or NAME=REVISION, optionally ,jobs=N; two or more")
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--batches", type=int, default=10, help="rounds per K")
    parser.add_argument("--noverify", action="store_true", help="also each side with verify=False")
    parser.add_argument("--back-to-back", action="store_true",
                        help="each K=1 sample is the second of two runs, sent the instant the first "
                        "returned (what the first set off after its verdict is still running)")
    args = parser.parse_args(argv)
    designs: dict[str, Design] = {}
    try:
        for side in args.side:
            name, spec = side.split("=", 1)
            where, _, jobs = spec.partition(",jobs=")
            python = where if os.path.sep in where else snapshot(where)
            for verify in (True, False) if args.noverify else (True,):
                engine = _engine_at(python, name, verify, int(jobs) if jobs else None, args.back_to_back)
                designs[engine.key] = engine
        rows, load = measure(designs, None, args.runs, 5, args.batches)
    finally:
        for design in designs.values():
            design.close()
    print(f"load (1 min) during the rounds: {min(load):.2f}-{max(load):.2f}, median "
          f"{statistics.median(load):.2f}; {args.runs} rounds, {args.batches} per K")
    print("| side | median ms | p95 ms | CPU ms/cand K=1 | candidate's own CPU ms | K=16 ms "
          "| K=16 cand/s | CPU ms/cand K=16 |")
    print("|---|---|---|---|---|---|---|---|")
    for key, row in rows.items():
        latency, k16 = row["latency_ms"], row["batches"]["16"]
        own = statistics.median(designs[key].child_cpu_ms)  # type: ignore[attr-defined]
        print(f"| {key} | {latency['median']:.1f} | {latency['p95']:.1f} | "
              f"{row['cpu_ms_per_candidate']:.1f} | {own:.1f} | {k16['elapsed_ms']:.0f} "
              f"| {k16['per_s']:.0f} | {k16['cpu_ms_per_candidate']:.1f} |")
    return 0


if __name__ == "__main__":
    os.chdir(os.path.dirname(os.path.abspath(__file__)))
    sys.exit(main())
