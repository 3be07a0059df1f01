"""Standby candidates (zygote/standby.py): a tree forked and sandboxed before its request exists
serves the next candidate exactly as a cold fork would, and a request it cannot take forks cold.

The scratch folder's name says which path a candidate took (``standby-...`` or ``run-N-...``): the
script prints its working directory.
"""

from __future__ import annotations

import pytest

from z3sandbox_kernel import Limits, Verdict

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("zygote_is_clean")]

PROBE = """
import os, resource
x = Int('x')
s.add(x > 3, x < 10)
print(os.path.basename(os.getcwd()).split('-')[0])
print(resource.getrlimit(resource.RLIMIT_NOFILE))
print(os.statvfs('.').f_blocks * os.statvfs('.').f_frsize >> 20)
"""


def _run(sandbox, script=PROBE, **kwargs):
    result = sandbox.run(script, verify=True, **kwargs)
    candidate = result[0]
    assert candidate.verdict is Verdict.SAT, (candidate.reason, candidate.stderr)
    path, nofile, disk_mb = candidate.stdout.splitlines()[-3:]
    return candidate, path, nofile, int(disk_mb)


def _layers(candidate):
    layers = candidate.isolation["layers"]
    return [(layer["name"], layer["active"], layer.get("detail", "")) for layer in layers]


def test_the_next_candidate_starts_from_a_standby_like_a_cold_one(kernel_sandbox):
    cold, cold_path, cold_nofile, cold_disk = _run(kernel_sandbox, limits=Limits(disk_mb=32))
    _run(kernel_sandbox)  # the first request of this kind asks for standbys from then on
    warm, warm_path, warm_nofile, warm_disk = _run(kernel_sandbox)
    assert (cold_path, warm_path) == ("run", "standby")
    # The same layers, in the same order, with the same details; its limits are its request's.
    assert _layers(warm) == _layers(cold)
    assert warm_nofile == cold_nofile == f"({Limits().files}, {Limits().files})"
    assert (cold_disk, warm_disk) == (32, Limits().disk_mb)
    assert warm.model == cold.model == {"x": 4}
    assert warm.verified is True


def test_a_standby_takes_the_requests_own_rlimits(kernel_sandbox):
    _run(kernel_sandbox)
    _, path, nofile, _ = _run(kernel_sandbox, limits=Limits(files=40))
    assert path == "standby"
    assert nofile == "(40, 40)"


def test_a_request_larger_than_a_pipe_holds_is_handed_to_a_standby_whole(kernel_sandbox):
    """The zygote writes a request into the go pipe as it drains (issue 20: every tree is handed
    its request after the fork, whatever its size)."""
    _run(kernel_sandbox)
    padded = PROBE + "#" * (700 * 1024) + "\n"
    path = _run(kernel_sandbox, script=padded)[1]
    assert path == "standby"


def test_a_request_no_standby_can_take_is_handed_to_a_fresh_tree(kernel_sandbox):
    _run(kernel_sandbox)
    path = _run(kernel_sandbox, limits=Limits(disk_mb=32))[1]  # a standby's tmpfs has the default
    assert path == "run"


def test_the_process_level_has_no_standby(process_sandbox):
    paths = {_run(process_sandbox)[1] for _ in range(2)}
    assert paths == {"run"}


def test_a_standby_candidate_that_breaks_a_limit_gets_its_verdict(kernel_sandbox):
    _run(kernel_sandbox)
    # Filled as it grows: the sandbox believes a memory limit it saw reached (rusage), not a
    # MemoryError alone (issue 20).
    hog = ("import os\nprint(os.path.basename(os.getcwd()))\nheld = []\n"
           "while True:\n    held.append(b'x' * (8 << 20))\n")
    result = kernel_sandbox.run(hog, limits=Limits(memory_mb=256))
    assert result[0].verdict is Verdict.MEMORY_LIMIT, result[0].reason
    assert result[0].stdout.startswith("standby-")
