"""What candidates' reports cost the host (issue 20): memory, render times, and other candidates'
kill delay under a flood of reports.

Two measurements, each in a fresh ``Sandbox`` at the kernel level:

* **12 x 400,000**: twelve candidates each write their own report (they share the harness's
  process) with a 400,000-constant model, inside the report budget.  Recorded: this process's RSS
  before and after the run (``/proc/self/status`` VmRSS, and the peak VmHWM), and the time and
  size of each rendering of the run: the text table (``repr``), the HTML (``text/html`` of the
  mime bundle) and ``to_json``.
* **kill delay under a flood**: a spinning candidate under ``wall_s=KILL_WALL_S`` next to
  ``FLOOD`` candidates that each write the 400,000-constant report above (the zygote reads, checks
  and classifies each while the victim's deadline passes); the victim's measured ``wall_s`` minus
  its limit is how late its kill was.  Compared with the same victim alone.

    python bench/host_cost.py [--out bench/results]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

from z3sandbox_kernel import Limits, Sandbox
from z3sandbox_kernel.presentation import html

CONSTANTS = 400_000
CANDIDATES = 12
KILL_WALL_S = 1.0
FLOOD = 6
ROUNDS = 5

FORGED_MODEL = f"""
import json, os, struct
model = {{f"v{{i}}": i for i in range({CONSTANTS})}}
body = json.dumps({{"v": 1, "type": "result", "outcome": "sat", "model": model,
                   "byte_constants": []}}).encode()
os.write(3, struct.pack(">I", len(body)) + body)
os._exit(0)
"""

SPIN = "while True:\n    pass\n"


def _status(field: str) -> float:
    """A VmRSS-like figure of this process, in MB."""
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


def _timed(action: object) -> tuple[float, int]:
    started = time.perf_counter()
    produced = action()
    return time.perf_counter() - started, len(produced)


def big_models(sandbox: Sandbox) -> dict[str, Any]:
    rss_before = _status("VmRSS")
    with sandbox:
        started = time.perf_counter()
        run = sandbox.run([FORGED_MODEL] * CANDIDATES, limits=Limits(wall_s=60, cpu_s=60), jobs=2,
                          verify=False)
        elapsed = time.perf_counter() - started
        rss_after = _status("VmRSS")
        text_s, text_len = _timed(lambda: repr(run))
        html_s, html_len = _timed(lambda: html.run_html(run))
        bundle_s, _ = _timed(run._repr_mimebundle_)  # text, HTML and JSON, as Jupyter asks
        json_s, json_len = _timed(run.to_json)
    return {
        "candidates": CANDIDATES, "constants": CONSTANTS, "run_s": round(elapsed, 2),
        "verdicts": run.counts, "model_entries": [len(c.model or {}) for c in run][:2],
        "host_rss_before_mb": round(rss_before, 1), "host_rss_after_mb": round(rss_after, 1),
        "host_rss_peak_mb": round(_status("VmHWM"), 1),
        "text_s": round(text_s, 3), "text_chars": text_len,
        "html_s": round(html_s, 3), "html_chars": html_len,
        "json_s": round(json_s, 3), "json_chars": json_len, "mimebundle_s": round(bundle_s, 3),
    }


def kill_delay(sandbox: Sandbox, flood: int) -> list[float]:
    """The victim's wall time past its limit, per round, with ``flood`` flooding siblings."""
    delays = []
    with sandbox:
        for _ in range(ROUNDS):
            victim = Limits(wall_s=KILL_WALL_S, cpu_s=30)
            scripts = [SPIN] + [FORGED_MODEL] * flood
            run = sandbox.run(scripts, limits=victim, jobs=flood + 1, verify=False)
            delays.append(round(run[0].wall_s - KILL_WALL_S, 4))
    return delays


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=None)
    parser.add_argument("--models-only", action="store_true", help="skip the kill-delay rounds")
    args = parser.parse_args()
    # Every zygote starts now, and the renderers are imported: what is measured is this revision's
    # code even if the tree changes while the bench runs.
    from z3sandbox_kernel.presentation import render  # noqa: F401

    sandboxes = [Sandbox(isolation="kernel") for _ in range(3)]
    for sandbox in sandboxes:
        sandbox.run("x = Int('x'); s.add(x > 1)")
    load = os.getloadavg()
    big = big_models(sandboxes[0])
    print(json.dumps(big), flush=True)
    if args.models_only:
        return
    alone, flooded = kill_delay(sandboxes[1], 0), kill_delay(sandboxes[2], FLOOD)
    result = {
        "load_avg": load,
        "big_models": big,
        "kill_delay_s": {
            "alone": alone, "alone_median": statistics.median(alone),
            f"flood_{FLOOD}x{CONSTANTS}": flooded, "flood_median": statistics.median(flooded),
        },
        "load_avg_after": os.getloadavg(),
    }
    text = json.dumps(result, indent=1)
    print(text)
    if args.out:
        Path(args.out, "host_cost.json").write_text(text + "\n")


if __name__ == "__main__":
    main()
