"""What the zygote's reading of one large child report costs (issue 23): ``zygote.frames.parse``,
the depth gate and msgspec's decode into ``ChildReport``, on a report of ``CONSTANTS`` model
entries and as many SMT-LIB pairs (what a 400,000-constant model makes, about 16 MB), in this
process, without a sandbox.  Best and median of ``ROUNDS``, with the load average.

    python bench/report_decode.py [--out bench/results]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import struct
import time
from pathlib import Path

from z3sandbox_kernel.zygote import frames

CONSTANTS = 400_000
ROUNDS = 5
SETUP = {"v": 1, "type": "setup", "layers": [{"name": "rlimits", "active": True}], "error": None}


def framed(message: dict[str, object]) -> bytes:
    body = json.dumps(message).encode()
    return struct.pack(">I", len(body)) + body


def report() -> bytes:
    return framed(SETUP) + framed({
        "v": 1, "type": "result", "outcome": "sat", "model": {f"x{i}": i for i in range(CONSTANTS)},
        "model_smt2": [[f"x{i}", str(i)] for i in range(CONSTANTS)], "byte_runs": [[0, "41" * 1000]],
        "assertions_smt2": "(assert true)"})


def measure(data: bytes) -> dict[str, float]:
    depth, total = [], []
    body = data[len(framed(SETUP)) + 4:]
    for _ in range(ROUNDS):
        started = time.perf_counter()
        frames.check_depth(body)
        depth.append(time.perf_counter() - started)
        reader = frames.ResultReader(64 << 20)
        reader.feed(data)
        started = time.perf_counter()
        _, checked, error = frames.parse(reader, "run")
        total.append(time.perf_counter() - started)
        assert error is None and checked is not None, error
    return {"depth_gate_best_s": min(depth), "parse_best_s": min(total),
            "parse_median_s": statistics.median(total)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args()
    data = report()
    result = {"constants": CONSTANTS, "report_bytes": len(data), "rounds": ROUNDS,
              "load_before": os.getloadavg(), **measure(data), "load_after": os.getloadavg()}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "report_decode.json").write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
