"""A soak: thousands of mixed candidates through one Sandbox, in batches, with its resources between
batches (issue 38).

    python bench/soak.py [--candidates 10000] [--batch 200] [--isolation kernel] [--out bench/results]
    python bench/soak.py --quick        # a smoke test (120 candidates): not a result

The mix, seeded: SAT (each its own model, checked), UNSAT, runtime errors, 1 s solver timeouts,
memory hogs (grow until the memory limit) and output floods (past the output cap).  Every
candidate's verdict is compared with what its kind must give: a candidate that came back with
another is *wrong*, one that came back ``internal_error`` is *lost*; both are counted and listed.

Between batches the table records the load average, this process (the host: RSS, descriptors,
threads), the zygote (the serving zygote's and the fork server's RSS and the serving zygote's
descriptors) and the processes under the zygote, and at the end whether anything of the sandbox
is left once it is closed.  Flat is the claim: after a warm-up, memory and descriptors do not grow
with the candidates run.  The lead runs the full soak alone (it takes about an hour on 2 cores).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from kill import _children  # the /proc reader of the kill benchmark (a sibling script in bench/)

from z3sandbox_kernel import CandidateResult, Limits, Sandbox, Verdict
from z3sandbox_kernel.protocol.roles import Role
from z3sandbox_kernel.zygote.forker import FORKER_NAMES, NEXT_NAME

RESULTS = Path(__file__).resolve().parent / "results"
LIMITS = Limits(timeout_s=1, wall_s=20, cpu_s=20, memory_mb=256, output_max_mb=1, verify_s=10)
HARD = "a, b, c = Ints('a b c')\ns.add(a > 0, b > 0, c > 0, a*a*a + b*b*b == c*c*c)\ns.check()\n"
# kind: (share of the mix, its script for candidate n, the verdict it must give)
KINDS: dict[str, tuple[float, str, Verdict]] = {
    "sat": (0.30, "x = Int('x')\ns.add(x > {n}, x < {n} + 2)\n", Verdict.SAT),
    "unsat": (0.20, "x = Int('x')\ns.add(x > {n}, x < {n})\n", Verdict.UNSAT),
    "error": (0.20, "x = Int('x')\ns.add(x > {n})\nraise ValueError('soak {n}')\n", Verdict.RUNTIME_ERROR),
    "timeout 1 s": (0.10, HARD, Verdict.TIMEOUT),
    "memory hog": (0.10, "hog = []\nwhile True:\n    hog.append(bytearray(1 << 20))\n",
                   Verdict.MEMORY_LIMIT),
    "output flood": (0.10, "import sys\nwhile True:\n    sys.stdout.write('y' * 65536)\n",
                     Verdict.OUTPUT_LIMIT),
}
SETTLE_S = 2.0  # how long the zygote may take to be idle after a batch (its next standby and spare)


def mix(count: int, seed: int) -> list[tuple[str, int]]:
    """(kind, n) per candidate, in a seeded order."""
    rng = random.Random(seed)
    names, weights = list(KINDS), [share for share, _, _ in KINDS.values()]
    return [(rng.choices(names, weights)[0], n) for n in range(count)]


def judged(kind: str, n: int, candidate: CandidateResult) -> str | None:
    """None if the candidate gave what its kind must give; else what was wrong with it."""
    expected = KINDS[kind][2]
    if candidate.verdict is not expected:
        return f"{kind} {n}: {candidate.verdict} ({(candidate.reason or '')[:160]})"
    if kind == "sat" and (candidate.model != {"x": n + 1} or candidate.confirmed_by != ("z3",)):
        return f"sat {n}: model {candidate.model}, confirmed by {candidate.confirmed_by}"
    if kind == "unsat" and candidate.confirmed_by != ("z3",):
        return f"unsat {n}: confirmed by {candidate.confirmed_by} ({candidate.verify_reason})"
    return None


# --------------------------------------------------------------------------------- /proc readers

def _name(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as handle:
            return handle.read().strip()
    except OSError:
        return ""


def _status(pid: int | str, field: str) -> int:
    """A /proc/PID/status number (VmRSS in KB, Threads), 0 if gone."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _fds(pid: int | str) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


def descendants(root: int) -> list[int]:
    found, todo = [], [root]
    while todo:
        for child in _children(todo.pop()):
            found.append(child)
            todo.append(child)
    return found


@dataclass
class Row:
    """The resources between two batches."""

    batch: int
    candidates: int
    elapsed_s: float
    load_1m: float
    host_rss_mb: float
    host_fds: int
    host_threads: int
    zygote_rss_mb: float  # the serving zygote
    fork_server_rss_mb: float
    zygote_fds: int  # the serving zygote's
    processes: int  # under the zygote the host started
    wrong: int
    lost: int
    restarts: int


def _settled(root: int) -> None:
    """Until no process under the zygote runs or is runnable, twice in a row (``SETTLE_S`` at
    most): after its last result the zygote forks its next standby and spare, and a finished
    run's verifiers exit; the table compares idle sandboxes."""
    deadline, calm = time.monotonic() + SETTLE_S, 0
    while calm < 2 and time.monotonic() < deadline:
        busy = any(_state(pid) in ("R", "D") for pid in [root, *descendants(root)])
        calm = 0 if busy else calm + 1
        time.sleep(0.02)  # polling /proc: the kernel gives no event for "idle"


def _state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return ""


def resources(sandbox: Sandbox, batch: int, done: int, started: float, wrong: int, lost: int) -> Row:
    outer = sandbox.zygote_pid or 0
    _settled(outer)
    serving = next((pid for pid in _children(outer) if _name(pid) == Role.ZYGOTE.process_name), outer)
    # the serving zygote's one child of these names (its successor is the fork server's child)
    fork_server = next((pid for pid in _children(serving) if _name(pid) in FORKER_NAMES - {NEXT_NAME}), 0)
    return Row(batch, done, round(time.monotonic() - started, 1), round(os.getloadavg()[0], 2),
               round(_status("self", "VmRSS") / 1024, 1), _fds("self"), _status("self", "Threads"),
               round(_status(serving, "VmRSS") / 1024, 1), round(_status(fork_server, "VmRSS") / 1024, 1),
               _fds(serving), len(descendants(outer)), wrong, lost, sandbox.restarts)


# ------------------------------------------------------------------------------------------ soak

def soak(count: int, batch: int, isolation: str, seed: int) -> dict[str, Any]:
    plan = mix(count, seed)
    host_fds_before = _fds("self")
    rows: list[Row] = []
    problems: list[str] = []
    wrong = lost = 0
    started = time.monotonic()
    sandbox = Sandbox(isolation=isolation)
    try:
        sandbox.run("x = Int('x')\ns.add(x > 1)\n")  # the zygote is up: row 0 is its start
        rows.append(resources(sandbox, 0, 0, started, 0, 0))
        for first in range(0, count, batch):
            chunk = plan[first:first + batch]
            scripts = [KINDS[kind][1].replace("{n}", str(n)) for kind, n in chunk]
            result = sandbox.run(scripts, limits=LIMITS)
            for (kind, n), candidate in zip(chunk, result, strict=True):
                problem = judged(kind, n, candidate)
                if problem is not None:
                    lost += candidate.verdict is Verdict.INTERNAL_ERROR
                    wrong += candidate.verdict is not Verdict.INTERNAL_ERROR
                    problems.append(problem)
            problems += [f"batch {len(rows)}: {note}" for note in result.notes]
            rows.append(resources(sandbox, len(rows), first + len(chunk), started, wrong, lost))
            print(_line(rows[-1]), flush=True)
        processes = [sandbox.zygote_pid or 0, *descendants(sandbox.zygote_pid or 0)]
    finally:
        sandbox.close()
    left = [pid for pid in processes if pid and os.path.exists(f"/proc/{pid}")]
    return {"candidates": count, "batch": batch, "isolation": isolation, "seed": seed,
            "limits": LIMITS.to_dict(), "mix": {kind: share for kind, (share, _, _) in KINDS.items()},
            "rows": [asdict(row) for row in rows], "problems": problems[:200], "wrong": wrong,
            "lost": lost, "left_after_close": left, "host_fds_before": host_fds_before,
            "host_fds_after_close": _fds("self"), "machine": _machine()}


def _line(row: Row) -> str:
    return (f"batch {row.batch:4} {row.candidates:6} cand {row.elapsed_s:8.1f} s load {row.load_1m:4.1f}"
            f"  host {row.host_rss_mb:6.1f} MB {row.host_fds:3} fds  zygote {row.zygote_rss_mb:6.1f} MB"
            f" {row.zygote_fds:3} fds  fork server {row.fork_server_rss_mb:6.1f} MB  {row.processes:2} procs"
            f"  wrong {row.wrong} lost {row.lost} restarts {row.restarts}")


def _machine() -> dict[str, Any]:
    try:
        revision = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                  cwd=Path(__file__).parent, check=False).stdout.strip()
    except OSError:
        revision = ""
    return {"cpus": os.cpu_count(), "python": platform.python_version(), "kernel": platform.release(),
            "revision": revision, "user": "root" if os.getuid() == 0 else str(os.getuid())}


def growth(rows: list[dict[str, Any]], field: str, warm_up: int) -> float:
    """The field's change from the end of the warm-up to the last row."""
    usable = rows[min(warm_up, len(rows) - 1):]
    return round(usable[-1][field] - usable[0][field], 1)


GROWN = (("host RSS MB", "host_rss_mb"), ("zygote RSS MB", "zygote_rss_mb"),
         ("fork server RSS MB", "fork_server_rss_mb"), ("host descriptors", "host_fds"),
         ("zygote descriptors", "zygote_fds"), ("processes", "processes"))


def markdown(report: dict[str, Any]) -> str:
    rows = report["rows"]
    warm_up = max(1, len(rows) // 10)
    columns = list(rows[0])
    lines = [f"# Soak: {report['candidates']} candidates in batches of {report['batch']} "
             f"({report['isolation']} isolation, seed {report['seed']})", "",
             f"Mix: {', '.join(f'{kind} {share:.0%}' for kind, share in report['mix'].items())}.  "
             f"Wrong verdicts: **{report['wrong']}**, lost: **{report['lost']}**; processes left "
             f"after close(): **{len(report['left_after_close'])}**; host descriptors "
             f"{report['host_fds_before']} before, {report['host_fds_after_close']} after close().", "",
             f"Growth after the warm-up (row {warm_up} to the last): "
             + ", ".join(f"{label} {growth(rows, field, warm_up):+}" for label, field in GROWN) + ".",
             "", "| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(str(row[column]) for column in columns) + " |" for row in rows]
    if report["problems"]:
        lines += ["", "Problems (the first 200):", ""] + [f"- {problem}" for problem in report["problems"]]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--candidates", type=int, default=10_000)
    parser.add_argument("--batch", type=int, default=200)
    parser.add_argument("--isolation", choices=("kernel", "process"), default="kernel")
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--quick", action="store_true", help="120 candidates in batches of 40: a smoke test")
    parser.add_argument("--out", default=None, help="a folder for soak.json and soak.md (default: "
                        "bench/results; a --quick run writes nowhere unless given one)")
    args = parser.parse_args()
    count, batch = (120, 40) if args.quick else (args.candidates, args.batch)
    report = soak(count, batch, args.isolation, args.seed)
    text = markdown(report)
    print(text)
    out = Path(args.out) if args.out else (None if args.quick else RESULTS)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "soak.json").write_text(json.dumps(report, indent=1) + "\n")
        (out / "soak.md").write_text(text)
    return 1 if report["wrong"] or report["lost"] or report["left_after_close"] else 0


if __name__ == "__main__":
    sys.exit(main())
