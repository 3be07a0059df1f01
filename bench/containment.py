"""Containment evidence: every evil script once, as the current user, at isolation="kernel".

    python bench/containment.py [--out bench/results] [--level kernel]

Writes ``containment-<user>.csv`` (user = the effective user's name, e.g. root, nobody) with one row
per script of ``tests/evil/scripts`` and the columns

* ``tool``: the script's name;
* ``kill_mechanism``: ``CandidateResult.kill`` (cpu, memory, output, file_size, wall, solver), else
  the signal that ended it (SIGSEGV, SIGABRT), else ``exception`` when the script ended by an
  exception (a denied call, MemoryError ...), else ``none`` (it ran to its end);
* ``time_to_kill_s``: ``wall_s``, fork to reaped, measured by the zygote;
* ``peak_memory_mb``: ``peak_rss_mb`` from the child's rusage;
* ``verdict``;
* ``layer``: what stopped it, from ``reason`` and the table in tests/evil/cases.py (rlimits, the
  zygote's own caps, the harness's audit hook, seccomp, Landlock, the user namespace, the file mode).

The world of the evil suite (canaries, listeners) is set up first, and each output is checked: a
script that escaped is printed and makes the exit status 1.  As a normal user the repository may not
be writable: pass ``--out`` and copy the file.
"""

from __future__ import annotations

import argparse
import csv
import os
import pwd
import signal
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.evil.cases import CASES, Case, Expect  # noqa: E402
from tests.evil.conftest import USER, cleanup_escapes  # noqa: E402
from tests.evil.world import ESCAPE_MARKERS, World  # noqa: E402
from z3sandbox_kernel import CandidateResult, Sandbox  # noqa: E402

COLUMNS = ("tool", "kill_mechanism", "time_to_kill_s", "peak_memory_mb", "verdict", "layer")
KILL_LAYER = {"cpu": "rlimits (RLIMIT_CPU)", "memory": "rlimits (RLIMIT_AS)",
              "file_size": "rlimits (RLIMIT_FSIZE)", "output": "zygote (output cap)",
              "wall": "zygote (wall deadline)", "solver": "harness (solver timeout)",
              "seccomp": "seccomp (SIGSYS)"}


def kill_mechanism(result: CandidateResult) -> str:
    if result.kill:
        return result.kill
    if result.signal:
        try:
            return signal.Signals(result.signal).name
        except ValueError:
            return f"signal {result.signal}"
    if result.verdict is not None and result.verdict.value in (
            "blocked", "runtime_error", "memory_limit", "internal_error"):
        return "exception"
    return "none"


def layer(result: CandidateResult, expect: Expect | None) -> str:
    reason = result.reason
    if result.kill in KILL_LAYER:
        return KILL_LAYER[result.kill]
    verdict = result.verdict.value if result.verdict else ""
    if verdict == "memory_limit":
        return "rlimits (RLIMIT_AS)"
    if "Too many open files" in reason:
        return "rlimits (RLIMIT_NOFILE)"
    if verdict == "blocked":
        if "sandbox denied" in reason:
            return "harness audit hook"
        if "thread" in reason:
            return "rlimits (RLIMIT_NPROC / RLIMIT_AS)"
        if expect is not None and expect.needs:
            return "+".join(expect.needs)
        if "Operation not permitted" in reason:
            return "seccomp (EPERM)"
        return "file mode (DAC)"
    if expect is not None and expect.needs:
        return "+".join(expect.needs)
    if verdict == "no_check" and result.stdout and "HOME is" not in result.stdout:
        return "environment" if "'HOME'" in result.stdout else "none"
    return "none"


def escaped(world: World, result: CandidateResult, expect: Expect | None) -> bool:
    if expect is not None and expect.escapes:
        return False
    text = "\n".join([result.stdout, result.stderr, repr(result.model)])
    return any(m in text for m in ESCAPE_MARKERS) or any(
        c in text + result.reason for c in world.canaries())


def run_case(sandbox: Sandbox, world: World, case: Case, level: str) -> tuple[list[str], bool]:
    expect = case.for_(level, USER)
    script = world.render(case.path, sandbox.zygote_pid)
    try:
        result = sandbox.run(script, limits=case.limits)[0]
        bad = escaped(world, result, expect)
    finally:
        cleanup_escapes(world)
    row = [case.name, kill_mechanism(result), f"{result.wall_s:.3f}", f"{result.peak_rss_mb:.1f}",
           result.verdict.value if result.verdict else "", layer(result, expect)]
    return row, bad


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    parser.add_argument("--level", choices=("kernel", "process"), default="kernel")
    args = parser.parse_args(argv)
    user = pwd.getpwuid(os.geteuid()).pw_name
    world = World(Path(tempfile.mkdtemp(prefix="z3sb-containment-")))
    world.start_listeners()
    rows, escapes = [], []
    with Sandbox(isolation=args.level) as sandbox:
        sandbox.isolation()
        for case in CASES:
            if case.for_(args.level, USER) is None:
                continue  # not run at this level (see cases.py)
            row, bad = run_case(sandbox, world, case, args.level)
            rows.append(row)
            print(" | ".join(row), "<-- ESCAPED" if bad else "", flush=True)
            if bad:
                escapes.append(case.name)
    world.stop_listeners()
    args.out.mkdir(parents=True, exist_ok=True)
    suffix = "" if args.level == "kernel" else f"-{args.level}"
    path = args.out / f"containment-{user}{suffix}.csv"
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(COLUMNS)
        writer.writerows(rows)
    print(f"wrote {path} ({len(rows)} rows)")
    if escapes:
        print("ESCAPED:", ", ".join(escapes))
    return 1 if escapes else 0


if __name__ == "__main__":
    sys.exit(main())
