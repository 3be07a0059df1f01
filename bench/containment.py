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
* ``layer``: what stopped it, from what the candidate saw (the kill, the verdict, the audit hook's
  denial, the errno of the call that failed: ENOENT is a path outside the filesystem view or the
  candidate's own /proc, EROFS the view's read-only mounts, EACCES Landlock, EPERM seccomp, ESRCH
  the PID namespace, EAGAIN RLIMIT_SIGPENDING), else "... (per cases.py)": the layers
  tests/evil/cases.py says the outcome relies on.

The world of the evil suite (canaries, listeners, watched files) is set up first, and each run is
judged by the suite's own checks (tests/evil/conftest.py: escape markers in what the script printed,
canaries in any output; the listeners; files outside scratch): a script that escaped is printed
with the reason and makes the exit status 1.  As a normal user the repository may not be writable:
pass ``--out`` and copy the file.
"""

from __future__ import annotations

import argparse
import csv
import errno
import os
import pwd
import re
import shutil
import signal
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.evil.cases import CASES, Case, Expect  # noqa: E402
from tests.evil.conftest import (  # noqa: E402
    USER,
    assert_no_canary,
    assert_no_escape_marker,
    cleanup_escapes,
)
from tests.evil.snapshots import changes  # noqa: E402
from tests.evil.world import World  # noqa: E402
from z3sandbox_kernel import CandidateResult, Sandbox  # noqa: E402

COLUMNS = ("tool", "kill_mechanism", "time_to_kill_s", "peak_memory_mb", "verdict", "layer")
KILL_LAYER = {"cpu": "rlimits (RLIMIT_CPU)", "memory": "rlimits (RLIMIT_AS)",
              "file_size": "rlimits (RLIMIT_FSIZE)", "output": "zygote (output cap)",
              "wall": "zygote (wall deadline)", "solver": "harness (solver timeout)",
              "seccomp": "seccomp (SIGSYS)", "disk": "mountns (scratch tmpfs of disk_mb)"}
# The errno of the call a blocked script died of, at the kernel level: the layer that returns it.
ERRNO_LAYER = {errno.ENOENT: ("mountns", "mountns (not in the view)"),
               errno.EROFS: ("mountns", "mountns (read-only view)"),
               errno.EACCES: ("landlock", "landlock"),
               errno.EPERM: ("seccomp", "seccomp (EPERM)"),
               errno.ESRCH: ("pidns", "pidns (not in its PID namespace)"),
               # threads (EAGAIN too) are named before, by the harness's words
               errno.EAGAIN: ("rlimits", "rlimits (RLIMIT_SIGPENDING)")}


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


def errno_layer(result: CandidateResult, active: set[str]) -> str | None:
    """The kernel layer behind the errno the script died of (``[Errno N]`` in its reason)."""
    match = re.search(r"\[Errno (\d+)\]", result.reason)
    code = int(match.group(1)) if match else None
    if code == errno.ENOENT and "'/proc/" in result.reason and "pidns" in active:
        return "pidns (its own /proc)"
    found = ERRNO_LAYER.get(code) if code is not None else None
    if found is None or found[0] not in active:
        return None
    return found[1]


def layer(result: CandidateResult, expect: Expect | None, active: set[str]) -> str:
    """What stopped the script; ``active``: the kernel layers this sandbox applies."""
    reason = result.reason
    if result.kill in KILL_LAYER:
        return KILL_LAYER[result.kill]
    verdict = result.verdict.value if result.verdict else ""
    if verdict == "memory_limit":
        return "rlimits (RLIMIT_AS)"
    if "Too many open files" in reason:
        return "rlimits (RLIMIT_NOFILE)"
    if "sandbox denied" in reason:
        return "harness audit hook"
    if verdict in ("blocked", "runtime_error") and "thread" in reason:
        return "rlimits (RLIMIT_NPROC / RLIMIT_AS)"
    if verdict in ("blocked", "runtime_error"):
        seen = errno_layer(result, active)
        if seen is not None:
            return seen
    if expect is not None and expect.needs:  # no evidence of its own: what the outcome relies on
        return "+".join(expect.needs) + " (per cases.py)"
    if verdict == "blocked":
        return "seccomp (EPERM)" if "Operation not permitted" in reason else "file mode (DAC)"
    if verdict == "no_check" and result.stdout and "HOME is" not in result.stdout:
        return "environment" if "'HOME'" in result.stdout else "none"
    return "none"


def escape(world: World, case: Case, result: CandidateResult, expect: Expect | None,
           before: tuple[dict[str, object], dict[str, int]]) -> str | None:
    """How the script escaped, by the evil suite's checks (test_evil.py, step 2), or None.  A
    documented weaker level (``Expect.escapes``) is not judged, as in the suite."""
    if expect is not None and expect.escapes:
        return None
    snapshot, hits = before
    try:
        assert_no_escape_marker(result, case.name)
        assert_no_canary(world, result, case.name)
    except AssertionError as exc:
        return str(exc)
    if world.hits() != hits:
        return "a loopback listener was reached"
    changed = changes(snapshot, world.snapshot())
    return f"changed outside scratch: {changed[:3]}" if changed else None


def run_case(sandbox: Sandbox, world: World, case: Case, level: str,
             active: set[str]) -> tuple[list[str], str, str | None]:
    """The CSV row, the reason's first line (for the console) and how it escaped, if it did."""
    expect = case.for_(level, USER)
    script = world.render(case.path, sandbox.zygote_pid)
    before = world.snapshot(), world.hits()
    try:
        result = sandbox.run(script, limits=case.limits)[0]
        escaped = escape(world, case, result, expect, before)
    finally:
        cleanup_escapes(world)
    row = [case.name, kill_mechanism(result), f"{result.wall_s:.3f}", f"{result.peak_rss_mb:.1f}",
           result.verdict.value if result.verdict else "", layer(result, expect, active)]
    return row, result.reason.split("\n", 1)[0][:100], escaped


def measure(world: World, level: str) -> tuple[list[list[str]], list[str]]:
    """Every script of the table at ``level``: the CSV rows and the names of those that escaped."""
    rows, escapes = [], []
    with Sandbox(isolation=level) as sandbox:
        active = {layer["name"] for layer in sandbox.isolation()["layers"] if layer.get("active")}
        for case in CASES:
            if case.for_(level, USER) is None:
                continue  # not run at this level (see cases.py)
            row, reason, escaped = run_case(sandbox, world, case, level, active)
            rows.append(row)
            print(" | ".join([*row, reason]), f"<-- ESCAPED: {escaped}" if escaped else "", flush=True)
            if escaped:
                escapes.append(case.name)
    return rows, escapes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    parser.add_argument("--level", choices=("kernel", "process"), default="kernel")
    args = parser.parse_args(argv)
    user = pwd.getpwuid(os.geteuid()).pw_name
    world = World(Path(tempfile.mkdtemp(prefix="z3sb-containment-")))
    try:
        world.start_listeners()
        rows, escapes = measure(world, args.level)
    finally:  # nothing of the world outlives the run: its listeners, SysV segment and folder
        world.stop_listeners()
        world.close()
        shutil.rmtree(world.root, ignore_errors=True)
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
