"""How many bytes a live ``%%z3sandbox`` display sends, by K: every iopub message of the cell
(display, refreshes, the final table), measured through jupyter_client as a frontend receives it.

    python bench/live_messages.py [K ...]        (default: 20 200 1000)

Prints one markdown row per K: refreshes, bytes of all messages, and the final message alone.
A trivial sat script with --no-verify, so that the run is as fast as the engine allows and the
refreshes are as dense as they get.  The kernel test (tests/jupyter/test_kernel.py) holds the
K=200 budget (under 4 MB); this prints the figures behind it.
"""

from __future__ import annotations

import json
import sys

from kernels import z3sandbox_kernel

SAT = 'x = Int("x")\ns.add(x > 1, x < 3)\n'


def measure(kc: object, k: int) -> tuple[int, int, int]:
    msg_id = kc.execute(f"%%z3sandbox -k {k} --no-verify --timeout 2 --wall 5 --cpu 4\n{SAT}")
    sent = refreshes = last = 0
    while True:
        message = kc.get_iopub_msg(timeout=600)
        if message["parent_header"].get("msg_id") != msg_id:
            continue
        size = len(json.dumps(message["content"])) + len(json.dumps(message["metadata"]))
        sent += size
        if message["msg_type"] == "update_display_data":
            refreshes, last = refreshes + 1, size
        if message["msg_type"] == "status" and message["content"]["execution_state"] == "idle":
            return refreshes, sent, last


def main(ks: list[int]) -> None:
    with z3sandbox_kernel() as (_, kc):
        print("| K | refreshes | all messages | final message |\n|---|---|---|---|")
        for k in ks:
            refreshes, sent, last = measure(kc, k)
            print(f"| {k} | {refreshes} | {sent / 1e6:.2f} MB | {last / 1e3:.0f} KB |")

if __name__ == "__main__":
    main([int(k) for k in sys.argv[1:]] or [20, 200, 1000])
