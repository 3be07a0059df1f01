"""Can a candidate find other candidates' data in its own memory (issue 20)?

Per isolation level and kind of fork (a standby, or a tree forked for the request: ``disk_mb``
other than the default), ``EARLIER`` candidates run first, each with a secret of its own in its
script; then evil script 129 (it copies its own address space through a pipe with ctypes and
looks for ``sibling-secret-...`` and a sibling's script text) runs next to a sibling that holds a
secret of its own.  Recorded: how many of the earlier secrets, and whether the running sibling's,
the scan found, and how much it read.  Run as root and as nobody (tests/evil/README.md).

    python bench/memory_scan.py [--out bench/results]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
from pathlib import Path

from z3sandbox_kernel import Limits, Sandbox

EARLIER = 5
SCANNER = Path(__file__).resolve().parent.parent / "tests/evil/scripts/129_scan_own_memory.py"
FORKS = {"standby": Limits(wall_s=15), "fresh tree": Limits(wall_s=15, disk_mb=32)}


def sibling(secret: str, hold_s: float) -> str:
    return (f"import time\nsecret = {secret!r}\ntime.sleep({hold_s})\n"
            "x = Int('x')\ns.add(x == 42)\nprint('sibling-ok')\n")


def measure(level: str, limits: Limits) -> dict[str, object]:
    earlier = [f"sibling-secret-{secrets.token_hex(12)}" for _ in range(EARLIER)]
    running = f"sibling-secret-{secrets.token_hex(12)}"
    with Sandbox(isolation=level) as sandbox:
        for secret in earlier:
            sandbox.run(sibling(secret, 0.0), limits=limits)
        run = sandbox.run([SCANNER.read_text(), sibling(running, 4.0)], limits=limits, jobs=2)
    out = run[0].stdout
    found = set(re.findall(r"sibling-secret-[0-9a-f]{24}", out))
    scanned = re.search(r"scanned (\d+) MB", out)
    return {
        "earlier_found": f"{len(found & set(earlier))}/{EARLIER}",
        "running_sibling_found": running in found,
        "script_copies": "another candidate's script" in out,
        "scanned_mb": int(scanned.group(1)) if scanned else None,
        "verdict": run[0].verdict.value if run[0].verdict else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    user = "root" if os.getuid() == 0 else "nobody"
    rows = {f"{level} {fork}": measure(level, limits)
            for level in ("kernel", "process") for fork, limits in FORKS.items()
            if not (level == "process" and fork == "standby")}  # no standby at the process level
    text = json.dumps({"user": user, "rows": rows, "load_avg": os.getloadavg()}, indent=1)
    print(text)
    if args.out:
        Path(args.out, f"memory_scan-{user}.json").write_text(text + "\n")


if __name__ == "__main__":
    main()
