"""The evil suite: every hostile script in ``scripts/`` against a real Sandbox, at each isolation level.

Each test runs the script next to a well-behaved sibling candidate, then asserts:

1. the verdict, the words in ``reason`` that name the limit or layer, and the kill mechanism;
2. nothing escaped: no escape marker or canary in any output (stdout, stderr, reason, model,
   payload), the loopback listeners saw nothing, no file changed outside scratch (content and
   metadata -- mode, owner, times, xattrs -- of the test's folder, its HOME and the host files a
   candidate can see; /tmp names), no SysV IPC object added, the same hostname;
3. nobody else was harmed: the sibling is sat with its own model, this process's limits are
   unchanged, the zygote has the same pid and answers a follow-up run that also proves nothing
   planted in a scratch folder is loaded (or even visible) later;
4. no process of the run is left (/proc, with a short grace), and no scratch folder.

Expectations live in ``cases.py`` (one row per script, per level and user).
"""

from __future__ import annotations

import os
import re
import resource
import time
from typing import Any

import pytest

from tests.conftest import all_processes
from z3sandbox_kernel import CandidateResult, Limits, RunResult, Sandbox
from z3sandbox_kernel.zygote.namespaces import CANDIDATE_UID

from .cases import CASES, LIMITS, Case, check_table
from .conftest import (
    LEVELS,
    USER,
    assert_no_canary,
    assert_no_escape_marker,
    cleanup_escapes,
    leftover_scratch,
    require_layers,
    wait_no_leftovers,
)
from .snapshots import changes, contents, sysv_objects
from .world import World


def _params() -> list[Any]:
    params = []
    for case in CASES:
        for level in LEVELS:
            expect = case.for_(level, USER)
            marks: list[Any] = []
            if expect is None:
                # Not generated (rather than skipped): at this level the attack would really happen,
                # and the level does not claim to stop it (SECURITY.md).  cases.py lists them.
                continue
            if expect.hole and level == "kernel":
                marks.append(pytest.mark.xfail(reason=expect.hole, strict=True))
            params.append(pytest.param(case, level, marks=marks, id=f"{case.name}-{level}"))
    return params


def sysv_of_candidates(level: str) -> list[str]:
    """The host's SysV objects made by the uid candidates run as (kernel level: root's run as the
    dedicated one).  Not at the process level, where that uid is also every other test run's."""
    if level != "kernel":
        return []
    return sysv_objects(CANDIDATE_UID if os.getuid() == 0 else os.getuid())


def sysv_added(level: str, before: list[str], settle_s: float = 5.0) -> list[str]:
    """Objects added since ``before`` that stay: a normal user's other test runs on this machine
    make and remove objects of the same uid; a candidate's leftover would not go away."""
    deadline = time.monotonic() + settle_s
    while True:
        added = sorted(set(sysv_of_candidates(level)) - set(before))
        if not added or time.monotonic() > deadline:
            return added
        time.sleep(0.2)


def describe(result: CandidateResult) -> str:
    return (f"verdict={result.verdict} kill={result.kill} signal={result.signal} "
            f"exit={result.exit_code} reason={result.reason[:400]!r} stdout={result.stdout[:300]!r} "
            f"stderr={result.stderr[-300:]!r}")


def follow_up_script(paths: list[str]) -> str:
    return (
        "import json, os, sys\n"
        "import z3\n"
        "x = Int('x')\n"
        "s.add(x == 7)\n"
        "print('follow-up', json.__file__, z3.__file__, sys.path)\n"
        f"for p in {paths!r}:\n"
        "    try:\n"
        "        print('SCRATCH-VISIBLE', p, os.listdir(p))\n"
        "    except OSError:\n"
        "        pass\n"
    )


def _check_extras(case: Case, level: str, evil: CandidateResult,
                  sibling: CandidateResult) -> list[str]:
    """Per-script checks beyond the table's columns; returns scratch paths the script revealed."""
    revealed: list[str] = []
    max_threads = case.extra.get("max_threads")
    # root's candidates run as an unprivileged uid: the threads limit binds them too
    if max_threads is not None and level == "kernel":
        match = re.search(r"refused after (\d+) started", evil.reason)
        assert match, describe(evil)
        # the limit counts every task of the candidate: z3's and Python's own threads too
        assert int(match.group(1)) <= int(max_threads), describe(evil)  # type: ignore[call-overload]
    if case.extra.get("follow_up") == "planted":
        match = re.search(r"planted in (\S+)", evil.stdout)
        assert match, describe(evil)
        revealed.append(match.group(1))
        assert not os.path.exists(match.group(1)), "the scratch folder outlived its candidate"
    if case.extra.get("forged"):
        def layers(r: CandidateResult) -> object:
            return [(layer["name"], layer.get("active")) for layer in (r.isolation or {}).get("layers", [])]
        assert layers(evil) == layers(sibling), "user code changed the isolation report"
        assert evil.verified is not True, "a forged result got a verified model"
    if "verified" in case.extra:  # the model shown is the one checked (issue 20)
        assert evil.verified is case.extra["verified"], describe(evil)
        if "model" in case.extra:
            assert evil.model == case.extra["model"], describe(evil)
        if evil.verified:
            assert evil.model != case.extra.get("not_model"), describe(evil)
        else:
            assert RunResult([evil, sibling]).best is sibling, "an unverified model won the vote"
    max_reason = case.extra.get("max_reason")
    if max_reason is not None:
        assert len(evil.reason) <= int(max_reason), len(evil.reason)  # type: ignore[call-overload]
        assert len(evil.stderr) <= 2 * case.limits.output_kb * 1024 + 200  # head, marker, tail
    return revealed


@pytest.mark.parametrize(("case", "level"), _params())
def test_evil_script_is_contained(case: Case, level: str, world: World,
                                  sandboxes: dict[str, Sandbox]) -> None:
    expect = case.for_(level, USER)
    assert expect is not None
    sandbox = sandboxes[level]
    if level == "kernel":
        require_layers(sandbox, expect.needs)
    zygote_pid, restarts = sandbox.zygote_pid, sandbox.restarts
    assert zygote_pid is not None
    nofile = resource.getrlimit(resource.RLIMIT_NOFILE)
    snapshot, hits = world.snapshot(), world.hits()
    sysv = sysv_of_candidates(level)
    script = world.render(case.path, zygote_pid)
    try:
        run = sandbox.run([script, world.sibling_script(case.sibling_hold_s)],
                          limits=case.limits, jobs=2)
        evil, sibling = run[0], run[1]

        # 1. the verdict, and the limit or layer that gave it
        assert evil.verdict is not None and evil.verdict.value in expect.verdicts, describe(evil)
        for word in expect.reason:
            assert word.lower() in evil.reason.lower(), f"{word!r} not in reason: {describe(evil)}"
        if expect.kill is not None:
            assert evil.kill in expect.kill, describe(evil)
        revealed = _check_extras(case, level, evil, sibling)

        # 2. nothing escaped
        if not expect.escapes:
            assert_no_escape_marker(evil, case.name)
            assert_no_canary(world, evil, case.name)
            assert world.hits() == hits, "a loopback listener was reached"
        after = world.snapshot()
        if expect.escapes:  # a documented weaker level: the metadata calls may really go through
            after, snapshot = contents(after), contents(snapshot)
        assert after == snapshot, f"changed outside scratch (content or metadata): {changes(snapshot, after)}"

        assert not sysv_added(level, sysv), "a SysV IPC object outlived its candidate"

        # 3. nobody else harmed
        assert sibling.verdict is not None and sibling.verdict.value == "sat", describe(sibling)
        assert sibling.model == {"x": 42} and "sibling-ok" in sibling.stdout, describe(sibling)
        assert_no_canary(world, sibling, "the sibling")
        assert resource.getrlimit(resource.RLIMIT_NOFILE) == nofile
        assert sandbox.zygote_pid == zygote_pid and sandbox.restarts == restarts, "zygote died"

        # 4. nothing left running, no scratch left behind
        assert not wait_no_leftovers(zygote_pid, level), wait_no_leftovers(zygote_pid, level, 0)
        assert not leftover_scratch(sandbox), "a candidate's scratch folder outlived it"

        follow = sandbox.run(follow_up_script(revealed), limits=LIMITS)[0]
        assert follow.verdict is not None and follow.verdict.value == "sat", describe(follow)
        assert follow.model == {"x": 7}, describe(follow)
        assert_no_escape_marker(follow, "the follow-up candidate")
        assert "SCRATCH-VISIBLE" not in follow.stdout, describe(follow)
        assert sandbox.zygote_pid == zygote_pid
    finally:
        cleanup_escapes(world)


def test_table_covers_every_script() -> None:
    check_table()
    assert len(CASES) >= 30


@pytest.mark.parametrize("level", LEVELS)
def test_zygote_environment_holds_no_parent_secret(level: str, world: World,
                                                   sandboxes: dict[str, Sandbox]) -> None:
    """The zygote's environment is built from nothing: no canary, not even our HOME."""
    sandbox = sandboxes[level]
    pid = sandbox.zygote_pid
    assert pid is not None
    children = [proc.pid for proc in all_processes().values() if proc.ppid == pid]
    for target in [pid, *children]:
        with open(f"/proc/{target}/environ", "rb") as handle:
            environ = handle.read().decode("utf-8", "replace")
        assert world.env_canary not in environ
        assert str(world.home) not in environ
        assert "Z3SB_CANARY" not in environ


def test_required_layer_fails_closed(world: World, sandboxes: dict[str, Sandbox]) -> None:
    """require={"landlock"}: the home-canary reader is blocked by Landlock, finds no such file in its
    view (runtime_error), or is not run."""
    if "kernel" not in LEVELS:
        pytest.skip("kernel isolation is Linux only")
    sandbox = sandboxes["kernel"]
    script = world.render(CASES[[c.name for c in CASES].index("14_read_home_canary")].path,
                          sandbox.zygote_pid)
    try:
        result = sandbox.run(script, limits=LIMITS, require=("landlock",))[0]
        assert result.verdict is not None
        assert result.verdict.value in ("blocked", "runtime_error", "internal_error"), describe(result)
        if result.verdict.value == "internal_error":
            assert "landlock" in result.reason, describe(result)
        if result.verdict.value == "runtime_error":
            assert "No such file" in result.reason, describe(result)
        assert_no_escape_marker(result, "a candidate that required landlock")
        assert_no_canary(world, result, "a candidate that required landlock")
    finally:
        cleanup_escapes(world)



@pytest.mark.parametrize("level", LEVELS)
def test_a_killed_candidate_reports_its_own_cpu_and_memory(level: str,
                                                           sandboxes: dict[str, Sandbox]) -> None:
    """Stopped by the wall limit, a candidate's figures are its own (the init reports them), not
    the init's ~0 s and ~40 MB: at least the CPU time it measured itself before the kill, and the
    300 MB it touched."""
    script = (
        "import time\n"
        "block = bytearray(300 << 20)\n"
        "for i in range(0, len(block), 4096):\n"
        "    block[i] = 1\n"
        "print('touched', flush=True)\n"
        "while True:\n"
        "    for _ in range(100000):\n"
        "        pass\n"
        "    print(time.process_time(), flush=True)\n"
    )
    # 6 s: room to touch the 300 MB and spin on a busy machine; the figures are checked, not times
    result = sandboxes[level].run(script, limits=Limits(wall_s=6, cpu_s=30, memory_mb=1024,
                                                         output_kb=1024))[0]
    assert result.kill == "wall", describe(result)
    lines = result.stdout.split()
    assert lines[:1] == ["touched"] and len(lines) > 1, describe(result)
    assert result.cpu_s >= float(lines[-1]), describe(result)
    assert result.peak_rss_mb >= 300, describe(result)
