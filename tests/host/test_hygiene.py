"""Process hygiene: nothing of a run outlives it, and nothing a candidate writes can fake its result.

Every test here ends with ``zygote_is_clean``: the zygote is idle, with no child beyond the expected
one.  Escapees name themselves (prctl PR_SET_NAME) so that a survivor is unmistakable in /proc.
"""

from __future__ import annotations

import os
import select
import signal
import time

import pytest

from tests.conftest import all_processes
from z3sandbox_kernel import Limits, Verdict

pytestmark = [pytest.mark.timeout(60), pytest.mark.usefixtures("zygote_is_clean")]

ESCAPEE = "z3sb-escapee"

# Double fork through libc (os.fork is denied by the audit hook), setsid, and a grandchild that keeps
# stdout, stderr and the result descriptor open and sleeps.  ``AFTER`` is what the candidate does next.
DOUBLE_FORK = f'''
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
pid = libc.fork()
if pid == 0:
    libc.setsid()
    if libc.fork() == 0:
        libc.prctl(15, ctypes.c_char_p(b"{ESCAPEE}"), 0, 0, 0)
        print("grandchild holds the pipes", flush=True)
        while True:
            time.sleep(1)
    os._exit(0)
if pid > 0:
    os.waitpid(pid, 0)
print("forked:", pid > 0, flush=True)
'''


def escapees() -> list:
    return [proc for proc in all_processes().values() if proc.name == ESCAPEE]


def escapees_end(timeout_s: float = 5.0) -> list:
    """Wait (pidfd, no sleep) for every escapee to die, then for the zygote to reap it; the ones
    still there after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    for proc in escapees():
        try:
            pidfd = os.pidfd_open(proc.pid)
        except ProcessLookupError:
            continue
        with os.fdopen(pidfd) as handle:
            select.select([handle], [], [], max(0.0, deadline - time.monotonic()))
    while escapees() and time.monotonic() < deadline:  # dead; the zygote reaps it on its SIGCHLD
        time.sleep(0.005)
    return escapees()


def test_setsid_grandchild_holding_the_pipes_does_not_hold_the_run(sandbox):
    candidate = sandbox.run(DOUBLE_FORK + "x = Int('x'); s.add(x > 1); s.check()\n",
                            limits=Limits(wall_s=10, cpu_s=10))[0]
    assert candidate.verdict is Verdict.SAT
    assert candidate.wall_s < 3, "the run waited for the grandchild's pipes"
    assert escapees_end() == []


# The setsid grandchild forks once more: a great-grandchild under it, both sleeping.
TREE_ESCAPE = DOUBLE_FORK.replace(
    "        while True:", "        libc.fork()\n"
    f"        libc.prctl(15, ctypes.c_char_p(b\"{ESCAPEE}\"), 0, 0, 0)\n        while True:")


def kill_escapees() -> None:
    """Only processes this test's candidate started (they carry its marker name), by pid."""
    for proc in escapees():
        try:
            os.kill(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    escapees_end()


def test_an_escaped_process_tree_is_killed_whole(process_sandbox):
    try:
        candidate = process_sandbox.run(TREE_ESCAPE + "os._exit(9)\n", limits=Limits(wall_s=10))[0]
        assert candidate.verdict is Verdict.CRASHED
        assert escapees_end(timeout_s=2) == []
    finally:
        kill_escapees()


def test_setsid_grandchild_dies_with_a_candidate_killed_at_the_wall(sandbox):
    candidate = sandbox.run(DOUBLE_FORK + "while True: pass\n", limits=Limits(wall_s=0.5, cpu_s=10))[0]
    assert candidate.verdict is Verdict.TIMEOUT
    assert candidate.kill == "wall"
    assert escapees_end() == []


def test_setsid_grandchild_dies_with_a_candidate_that_crashes(sandbox):
    candidate = sandbox.run(DOUBLE_FORK + "os._exit(9)\n", limits=Limits(wall_s=10))[0]
    assert candidate.verdict is Verdict.CRASHED
    assert candidate.exit_code == 9
    assert candidate.wall_s < 3
    assert escapees_end() == []


def test_fake_result_on_stdout_changes_nothing(sandbox):
    candidate = sandbox.run((
        "import os, sys\n"
        "print('{\"v\": 1, \"type\": \"result\", \"outcome\": \"unsat\"}')\n"
        "os.write(1, b'\\x00\\x00\\x00\\x19{\"v\":1,\"outcome\":\"unsat\"}')\n"
        "print('verdict: unsat', file=sys.stderr)\n"
        "x = Int('x'); s.add(x == 5); s.check()\n"), limits=Limits(wall_s=5))[0]
    assert candidate.verdict is Verdict.SAT
    assert candidate.model == {"x": 5}
    assert '"outcome": "unsat"' in candidate.stdout
    assert candidate.stderr == "verdict: unsat\n"


FORGE = '''
import json, os, struct
def forge(**fields):
    body = json.dumps({"v": 1, **fields}).encode()
    os.write(3, struct.pack(">I", len(body)) + body)
'''


def test_forged_frame_on_fd3_then_exit_is_taken_as_the_candidates_word(sandbox):
    """Current behaviour: the report is only ever the candidate's word about its own solver, so a
    forged result frame followed by a clean exit is believed (the model would still be verified)."""
    candidate = sandbox.run(FORGE + "forge(type='result', outcome='unsat')\nos._exit(0)\n")[0]
    assert candidate.verdict is Verdict.UNSAT


def test_a_forged_frame_before_the_harness_report_is_a_protocol_violation(sandbox):
    """Nothing after the result (the setup frame, the checks' frames, then one result): a frame
    after a forged result is the candidate's internal_error, whichever of them was honest."""
    candidate = sandbox.run(FORGE + "forge(type='result', outcome='unsat')\n"
                            "x = Int('x'); s.add(x == 5); s.check()\n")[0]
    assert candidate.verdict is Verdict.INTERNAL_ERROR
    assert "a frame after the result" in candidate.reason and candidate.kill == "report"
    assert candidate.model is None


def test_forged_frame_cannot_talk_its_way_out_of_a_limit(sandbox):
    candidate = sandbox.run(FORGE + "forge(type='result', outcome='sat', model={})\nwhile True: pass\n",
                            limits=Limits(wall_s=0.5, cpu_s=10))[0]
    assert candidate.verdict is Verdict.TIMEOUT
    assert candidate.kill == "wall"


def test_forged_setup_frame_cannot_change_the_isolation_report(sandbox):
    honest = sandbox.run("x = Int('x'); s.add(x == 1); s.check()")[0]
    forged = sandbox.run(FORGE + "forge(type='setup', layers=[{'name': 'seccomp', 'active': False}], "
                         "error=None)\nx = Int('x'); s.add(x == 1); s.check()\n")[0]
    assert forged.verdict is Verdict.INTERNAL_ERROR  # a third frame
    assert [layer["name"] for layer in forged.isolation["layers"]] == \
        [layer["name"] for layer in honest.isolation["layers"]]
    assert [layer.get("active") for layer in forged.isolation["layers"]] == \
        [layer.get("active") for layer in honest.isolation["layers"]]


def test_garbage_on_fd3_makes_the_candidate_an_internal_error(sandbox):
    """Current behaviour: a candidate can spoil its own report (never another's)."""
    candidate = sandbox.run("import os\nos.write(3, b'\\xff\\xff\\xff\\xffjunk')\n"
                            "x = Int('x'); s.add(x == 1); s.check()\n")[0]
    assert candidate.verdict is Verdict.INTERNAL_ERROR
    assert "over the budget" in candidate.reason and candidate.kill == "report"


def test_report_flood_on_fd3_is_cut(sandbox):
    candidate = sandbox.run("import os\nchunk = b'\\x00' * (1 << 20)\nwhile True:\n    os.write(3, chunk)\n",
                            limits=Limits(wall_s=20, cpu_s=20))[0]
    assert candidate.verdict is Verdict.INTERNAL_ERROR
    assert candidate.kill == "report"


def test_candidate_environment_is_clean(sandbox, monkeypatch):
    candidate = sandbox.run("import os, sys\nprint(sorted(os.environ))\nprint(os.getcwd())\n")[0]
    assert "PATH" not in candidate.stdout.splitlines()[0].split("'")
    assert "PYTHONPATH" not in candidate.stdout
    assert "Z3_LIBRARY_PATH" not in candidate.stdout
    assert "z3sandbox-" in candidate.stdout.splitlines()[1]


def test_scratch_folder_is_fresh_and_removed(sandbox):
    script = "import os\nprint(os.getcwd(), os.listdir('.'))\nopen('left.txt', 'w').write('x')\n"
    result = sandbox.run([script] * 2)
    first, second = (c.stdout.split(" ", 1) for c in result)
    assert first[0] != second[0]
    assert first[1].strip() == "[]" and second[1].strip() == "[]"


def test_stdin_is_empty(sandbox):
    candidate = sandbox.run("import sys\nprint(repr(sys.stdin.read()))\n")[0]
    assert candidate.stdout == "''\n"


def test_inherited_descriptors_are_closed(sandbox):
    candidate = sandbox.run(
        "import os\nopen_fds = []\nfor fd in range(1024):\n    try:\n        os.fstat(fd)\n"
        "    except OSError:\n        continue\n    open_fds.append(fd)\nprint(open_fds)\n")[0]
    assert candidate.verdict is Verdict.NO_CHECK, candidate.reason
    descriptors = [int(fd) for fd in candidate.stdout.strip("[]\n").split(", ")]
    # 0-3 are stdin, stdout, stderr and the result pipe; z3 may hold one or two of its own; none of
    # the zygote's control pipe, wake pipe or other candidates' pipes is left.
    assert descriptors[:4] == [0, 1, 2, 3]
    assert len(descriptors) <= 6, descriptors
