"""Run records as an eval log at scale: the size of the records of 1,000 samples, and how long
``load_runs`` and a folder ``diff_runs`` take on them.

An eval is two folders, ``before/`` and ``after/``, each holding ``--samples`` labelled candidates
(runs of ``--batch`` candidates, a mix of sat with a model, unsat, an error and a print: what an
LLM eval records), with ``record_scripts`` on.  Measured: the bytes of each folder (records and
the isolation file), ``load_runs`` of the parent folder (both evals, one row per candidate), and
``diff_runs(before, after)`` (pairing by label), each the best and median of ``--repeats``.
Writes ``results/records_scale.json`` and ``.md`` and prints the table.

    python bench/records_scale.py              # 1,000 samples a folder
    python bench/records_scale.py --quick      # a smoke test (40 samples); not a result
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from report import publish

from z3sandbox_kernel import Limits, Sandbox, diff_runs, load_runs

RESULTS = Path(__file__).resolve().parent / "results"
SCRIPTS = (
    "x, y = Ints('x y')\ns.add(x + y == 10, x > 2, y > 3)\nprint(s.check())\n",
    "x = Int('x')\ns.add(x > 1, x < 0)\nprint(s.check())\n",
    "x = Int('x')\ns.add(x > 1)\nprint(s.check())\nprint(s.model()[x].as_int())\n",
    "for i in range(20):\n    print('step', i)\nx = Int('x')\ns.add(x == 3)\n",
)


def record_eval(folder: Path, samples: int, batch: int, shift: int, sandbox: Sandbox) -> float:
    """``samples`` labelled candidates recorded in ``folder``; the seconds it took (not a result)."""
    start = time.perf_counter()
    for first in range(0, samples, batch):
        indexes = range(first, min(first + batch, samples))
        scripts = [SCRIPTS[(n + shift) % len(SCRIPTS)] for n in indexes]
        sandbox.run(scripts, labels=[f"task-{n}" for n in indexes], expected="sat", record_dir=folder,
                    record_scripts=True, limits=Limits(wall_s=10))
    return time.perf_counter() - start


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def timed(action: object, repeats: int) -> list[float]:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()  # type: ignore[operator]
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1000, help="candidates per folder")
    parser.add_argument("--batch", type=int, default=50, help="candidates per run")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="40 samples, 2 repeats: a smoke test")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    samples, repeats = (40, 2) if args.quick else (args.samples, args.repeats)
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="records-scale-") as root, Sandbox() as sandbox:
        evals = Path(root)
        for shift, name in enumerate(("before", "after")):
            record_eval(evals / name, samples, args.batch, shift, sandbox)
        sizes = {name: folder_bytes(evals / name) for name in ("before", "after")}
        rows = len(load_runs(evals))
        assert rows == 2 * samples, rows
        changes = len(diff_runs(evals / "before", evals / "after").changes)
        load_ms = timed(lambda: load_runs(evals), repeats)
        diff_ms = timed(lambda: diff_runs(evals / "before", evals / "after"), repeats)
    load_after = os.getloadavg()[0]
    table = "\n".join([
        "| what | value |", "|---|---|",
        f"| record folder of {samples} samples | {sizes['before'] / 1024:.0f} KiB "
        f"({sizes['before'] / samples:.0f} bytes a sample) |",
        f"| load_runs of both folders ({rows} rows): best / median ms | {min(load_ms):.0f} / "
        f"{statistics.median(load_ms):.0f} |",
        f"| diff_runs of the two folders ({changes} changes): best / median ms | {min(diff_ms):.0f} / "
        f"{statistics.median(diff_ms):.0f} |"])
    text = publish("records_scale", f"Run records at {samples} samples a folder (bench/records_scale.py)",
                   f"{repeats} repeats", table,
                   {"samples": samples, "bytes": sizes, "rows": rows, "changes": changes, "load_ms": load_ms,
                    "diff_ms": diff_ms}, args.out, args.quick, (load_before, load_after))
    print(text)


if __name__ == "__main__":
    main()
