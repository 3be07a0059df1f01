"""How soon a live ``%%z3sandbox`` display shows its first verdict, by K, with the same jobs:
from the execute request to the first iopub display message whose run document holds a candidate
with a verdict, measured through jupyter_client as a frontend receives it.

    python bench/first_verdict.py [--jobs 4] [--repeats 3] [K ...]     (default: 16 200)

Prints one markdown row per K: the median and each sample, and when the cell ended.  The script is
a trivial sat one, so that what is measured is the kernel's and the engine's own delay.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from kernels import z3sandbox_kernel

MIME_TYPE = "application/vnd.z3sandbox.run+json"
SAT = 'x = Int("x")\ns.add(x > 1, x < 3)\n'


def has_verdict(message: dict[str, Any]) -> bool:
    document = message["content"].get("data", {}).get(MIME_TYPE) or {}
    return any(c.get("verdict") for c in document.get("candidates", ()))


def measure(kc: object, k: int, jobs: int) -> tuple[float, float]:
    """Seconds from the request to the first verdict shown, and to the cell's end."""
    started = time.monotonic()
    msg_id = kc.execute(f"%%z3sandbox -k {k} --jobs {jobs} --timeout 5 --wall 10 --cpu 8\n{SAT}")
    first = None
    while True:
        message = kc.get_iopub_msg(timeout=600)
        if message["parent_header"].get("msg_id") != msg_id:
            continue
        if first is None and message["msg_type"] in ("display_data", "update_display_data") \
                and has_verdict(message):
            first = time.monotonic() - started
        if message["msg_type"] == "status" and message["content"]["execution_state"] == "idle":
            return (first if first is not None else float("nan")), time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ks", nargs="*", type=int, default=[16, 200])
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with z3sandbox_kernel() as (_, kc):
        measure(kc, 4, args.jobs)  # the zygote starts on the first run: not measured
        print("| K | jobs | first verdict (median) | samples | cell ended (median) |\n"
              "|---|---|---|---|---|")
        for k in args.ks:
            samples = [measure(kc, k, args.jobs) for _ in range(args.repeats)]
            firsts = [first for first, _ in samples]
            print(f"| {k} | {args.jobs} | {statistics.median(firsts):.2f} s | "
                  f"{' '.join(f'{s:.2f}' for s in firsts)} | "
                  f"{statistics.median(end for _, end in samples):.2f} s |", flush=True)

if __name__ == "__main__":
    main()
