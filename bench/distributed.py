"""Benchmark: 1,000 trivial candidates locally vs on a 2-worker LocalCluster, and cancel-to-free.

    python bench/distributed.py [--candidates 1000] [--cancels 5]

Writes bench/results/distributed.json (every number, with the machine) and distributed.md (the table).

* throughput: candidates per second over the whole run (``RunResult.elapsed_s``).
* per-candidate cost: elapsed x slots / candidates, i.e. how long one slot is busy per candidate;
  the overhead of a cluster is its cost minus the local cost.  ``zygote wall`` is the median time
  the zygote measured for the candidate itself (fork to reap, with verification).
* time to first result: from the call to the first finished candidate's ``on_update``.  The cold
  cluster run includes registering the worker plugin and starting each worker's zygote.
* cancel to free worker: a candidate that never ends runs on a worker (wall limit 60 s);
  ``Sandbox.cancel()``; then the time until a trivial task pinned to that worker (whose only thread
  the candidate held) has run.  The same pinned task on an idle worker is the baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import queue
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

# Run as a script, this file's folder is sys.path[0] and this file would shadow the package.
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
import distributed  # noqa: E402

from z3sandbox_kernel import Limits, Sandbox  # noqa: E402
from z3sandbox_kernel.contracts.results import CandidateResult  # noqa: E402

TRIVIAL = "x = Int('x')\ns.add(x > 1)\n"
FOREVER = "while True:\n    pass\n"
RESULTS = Path(__file__).resolve().parent / "results"
WORKERS, THREADS = 2, 1


def timed_run(sandbox: Sandbox, scripts: list[str], **kwargs: object) -> dict[str, Any]:
    first: list[float] = []
    started = time.monotonic()

    def on_update(candidate: CandidateResult) -> None:
        if candidate.state == "done" and not first:
            first.append(time.monotonic() - started)

    result = sandbox.run(scripts, on_update=on_update, **kwargs)
    slots = kwargs.get("jobs") or 1
    verdicts: dict[str, int] = result.counts
    return {
        "candidates": len(scripts), "jobs": slots, "elapsed_s": result.elapsed_s,
        "throughput_per_s": len(scripts) / result.elapsed_s,
        "cost_per_candidate_ms": result.elapsed_s * 1000 * min(slots, WORKERS * THREADS) / len(scripts),
        "first_result_ms": first[0] * 1000,
        "zygote_wall_median_ms": statistics.median(c.wall_s for c in result) * 1000,
        "verdicts": verdicts, "hosts": sorted({str(c.host) for c in result}),
    }


def pinned_ms(client: object, worker: str) -> float:
    started = time.monotonic()
    client.submit(os.getpid, workers=[worker], allow_other_workers=False, pure=False).result(timeout=120)
    return (time.monotonic() - started) * 1000


def cancel_to_free(sandbox: Sandbox, client: object) -> dict[str, Any]:
    """One never-ending candidate, cancelled once a worker announced it; ms until its worker is free."""
    updates: queue.Queue[CandidateResult] = queue.Queue()
    box: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: box.setdefault("result", sandbox.run(
        FOREVER, limits=Limits(wall_s=60, cpu_s=60), client=client, on_update=updates.put)))
    thread.start()
    while updates.get(timeout=60).state != "running":
        pass
    cancelled = time.monotonic()
    sandbox.cancel()
    thread.join()
    returned_ms = (time.monotonic() - cancelled) * 1000
    worker = box["result"][0].host
    pinned = pinned_ms(client, worker)
    return {"run_returned_ms": returned_ms, "worker_free_ms": returned_ms + pinned,
            "verdict": str(box["result"][0].verdict), "worker": worker}


def machine() -> dict[str, Any]:
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), "")
    return {"cpu_count": os.cpu_count(), "cpu_model": model, "kernel": platform.release(),
            "python": platform.python_version(), "distributed": distributed.__version__,
            "load_average_at_start": list(os.getloadavg())}


def table(data: dict[str, Any]) -> str:
    rows = ["| run | jobs | candidates/s | cost per candidate ms | overhead vs local ms "
            "| first result ms | zygote wall median ms |",
            "|---|---:|---:|---:|---:|---:|---:|"]
    local = data["runs"]["local"]["cost_per_candidate_ms"]
    for name, run in data["runs"].items():
        overhead = run["cost_per_candidate_ms"] - local
        rows.append(f"| {name} | {run['jobs']} | {run['throughput_per_s']:.1f} "
                    f"| {run['cost_per_candidate_ms']:.1f} | {overhead:+.1f} "
                    f"| {run['first_result_ms']:.0f} | {run['zygote_wall_median_ms']:.1f} |")
    cancel = data["cancel_to_free"]
    rows += ["", "| cancel → | median ms | max ms | n |", "|---|---:|---:|---:|"]
    labels = {"run_returned_ms": "run returns", "worker_free_ms": "worker free (pinned task ran)"}
    for key, label in labels.items():
        samples = [c[key] for c in cancel["samples"]]
        rows.append(f"| {label} | {statistics.median(samples):.0f} | {max(samples):.0f} | {len(samples)} |")
    rows.append(f"| baseline: pinned task on an idle worker | {cancel['idle_pinned_ms']:.0f} | | |")
    return "\n".join(rows) + "\n"


def header(data: dict[str, Any], candidates: int) -> str:
    m = data["machine"]
    load = ", ".join(f"{x:.1f}" for x in m["load_average_at_start"])
    return (f"# Distributed: {candidates} trivial candidates, local vs a {WORKERS}-worker LocalCluster\n\n"
            f"{m['cpu_count']} cores ({m['cpu_model']}), Linux {m['kernel']}, Python {m['python']}, "
            f"distributed {m['distributed']}; load average at start {load} (other work on the machine "
            "makes the throughput columns noisy).  `python bench/distributed.py`; see its docstring.\n\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidates", type=int, default=1000)
    parser.add_argument("--cancels", type=int, default=5)
    args = parser.parse_args(argv)
    scripts = [TRIVIAL] * args.candidates
    data: dict[str, Any] = {"machine": machine(), "candidate": TRIVIAL, "runs": {},
                            "cluster": {"workers": WORKERS, "threads_per_worker": THREADS}}
    with Sandbox() as sandbox:
        sandbox.run(TRIVIAL)  # the local zygote is started outside the measurement
        data["runs"]["local"] = timed_run(sandbox, scripts, jobs=2)
        started = time.monotonic()
        cluster = distributed.LocalCluster(n_workers=WORKERS, threads_per_worker=THREADS,
                                           processes=True, dashboard_address=":0")
        client = distributed.Client(cluster)
        client.wait_for_workers(WORKERS, timeout=120)
        data["cluster"]["start_s"] = time.monotonic() - started
        data["runs"]["cluster, cold (plugin + zygotes start)"] = timed_run(sandbox, [TRIVIAL] * 2,
                                                                           client=client, jobs=2)
        for jobs in (2, 8):
            data["runs"][f"cluster, jobs={jobs}"] = timed_run(sandbox, scripts, client=client, jobs=jobs)
        worker = next(iter(client.scheduler_info()["workers"]))
        data["cancel_to_free"] = {
            "idle_pinned_ms": statistics.median(pinned_ms(client, worker) for _ in range(5)),
            "samples": [cancel_to_free(sandbox, client) for _ in range(args.cancels)],
        }
        client.close()
        cluster.close()
    data["machine"]["load_average_at_end"] = list(os.getloadavg())
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "distributed.json").write_text(json.dumps(data, indent=2) + "\n")
    markdown = table(data)
    (RESULTS / "distributed.md").write_text(header(data, args.candidates) + markdown)
    sys.stdout.write(markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
