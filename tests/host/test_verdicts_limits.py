"""The verdicts of a limit reached (wall, CPU, memory, output), each produced by a real candidate in a
real zygote, with its reason and its kill; at both isolation levels (the ``sandbox`` fixture).
"""

from __future__ import annotations

import re
import signal

import pytest

from tests.host.candidates import QUICK, one
from z3sandbox_kernel import Verdict

pytestmark = [pytest.mark.timeout(60), pytest.mark.usefixtures("zygote_is_clean")]


def test_wall_limit_is_timeout_with_kill_wall(sandbox):
    candidate = one(sandbox, "while True: pass", limits=QUICK.replace(wall_s=0.5, cpu_s=5))
    assert candidate.verdict is Verdict.TIMEOUT
    assert candidate.kill == "wall"
    # The line comes from the script's stack, taken before the kill when the script answers in time.
    assert re.fullmatch(r"wall-clock limit of 0\.5 s \((line 1, as the script reported|the script's "
                        r"stack could not be taken)\)", candidate.reason), candidate.reason
    assert 0.5 <= candidate.wall_s < 3


def test_wall_limit_ends_a_sleeping_script(sandbox):
    candidate = one(sandbox, "import time\ntime.sleep(60)", limits=QUICK.replace(wall_s=0.3))
    assert candidate.verdict is Verdict.TIMEOUT
    assert candidate.kill == "wall"


# A CPU limit is time on a core, however long the wait for one: on a loaded machine a 1 s CPU limit
# can take many seconds of wall time, so these tests give the wall limit no chance to come first.
CPU_BOUND = QUICK.replace(cpu_s=1, wall_s=240)


@pytest.mark.timeout(300)
def test_cpu_limit_is_cpu_limit_with_kill_cpu(sandbox):
    candidate = one(sandbox, "while True: pass", limits=CPU_BOUND)
    assert candidate.verdict is Verdict.CPU_LIMIT
    assert candidate.kill == "cpu"
    assert re.fullmatch(r"CPU-time limit of 1 s \(SIGXCPU(, then SIGKILL)?\) \((line 1, as the "
                        r"script reported|the script's stack could not be taken)\)", candidate.reason), \
        candidate.reason
    # SIGXCPU ends it by its default action, or the sandbox's SIGKILL once the script wrote its
    # stack (or at the hard limit): the reason says which.
    killed = signal.SIGKILL if "then SIGKILL" in candidate.reason else signal.SIGXCPU
    assert candidate.signal == killed
    assert candidate.cpu_s > 0.5  # from rusage, not the child's word


@pytest.mark.timeout(300)
def test_cpu_limit_holds_when_the_script_ignores_sigxcpu(sandbox):
    candidate = one(sandbox, (
        "import signal\n"
        "signal.signal(signal.SIGXCPU, signal.SIG_IGN)\n"
        "while True: pass\n"), limits=CPU_BOUND)
    assert candidate.verdict is Verdict.CPU_LIMIT
    assert candidate.kill == "cpu"
    assert candidate.signal == signal.SIGKILL
    assert "SIGKILL" in candidate.reason
    assert candidate.cpu_s > 1.2  # past the soft limit: the hard one is a second later


def test_huge_allocation_refused_whole_is_a_runtime_error_that_says_so(sandbox):
    """RLIMIT_AS refuses 8 GiB at once with the candidate's memory far from its limit: nothing the
    sandbox observes tells it from ``raise MemoryError()`` (issue 20), so the verdict says what it
    saw rather than claim the limit."""
    candidate = one(sandbox, "blob = bytearray(8 << 30)")
    assert candidate.verdict is Verdict.RUNTIME_ERROR
    assert candidate.kill is None
    assert "MemoryError" in candidate.reason
    assert "of the 256 MB memory limit" in candidate.reason
    assert "line 1" in candidate.reason


def test_growing_lists_are_memory_limit(sandbox):
    candidate = one(sandbox, "kept = []\nwhile True:\n    kept.append([0] * 100_000)\n")
    assert candidate.verdict is Verdict.MEMORY_LIMIT
    assert candidate.kill == "memory"
    assert candidate.peak_rss_mb < 256 + 200  # the limit held (the zygote's own size is below 200 MB)


OUTPUT_CAP = QUICK.replace(output_max_mb=1)


def test_print_flood_is_output_limit_at_the_hard_cap_with_head_and_tail_kept(sandbox):
    candidate = one(sandbox, "while True:\n    print('x' * 99)\n", limits=OUTPUT_CAP)
    assert candidate.verdict is Verdict.OUTPUT_LIMIT
    assert candidate.kill == "output"
    assert candidate.stdout_truncated is True and candidate.output_truncated is True
    assert candidate.stdout.startswith("x" * 99 + "\n")
    head, marker, tail = candidate.stdout.partition("bytes of stdout dropped")
    assert marker and len(head.encode()) < 4 * 1024 + 100 and len(tail.encode()) < 4 * 1024 + 100
    assert "stdout" in candidate.reason and "1 MB" in candidate.reason


def test_stderr_flood_is_output_limit(sandbox):
    candidate = one(sandbox, "import sys\nwhile True:\n    sys.stderr.write('e' * 1000)\n",
                    limits=OUTPUT_CAP)
    assert candidate.verdict is Verdict.OUTPUT_LIMIT
    assert candidate.stderr_truncated is True
    assert candidate.stdout_truncated is False
    assert len(candidate.stderr.encode()) < 2 * 4 * 1024 + 200


def test_verbose_stderr_keeps_head_and_tail_and_the_real_verdict(sandbox):
    """210 KB on stderr (z3's verbose=1 progress) is not a limit: the script runs to its verdict."""
    candidate = one(sandbox, (
        "import sys\nsys.stderr.write('first line\\n' + 'v' * 210_000 + '\\nlast line\\n')\n"
        "x = Int('x'); s.add(x > 1); s.check()\n"))
    assert candidate.verdict is Verdict.SAT, candidate.reason
    assert candidate.kill is None
    assert candidate.stderr_truncated is True and candidate.output_truncated is True
    assert candidate.stderr.startswith("first line\n") and candidate.stderr.endswith("last line\n")
    dropped = 210_000 + len("first line\nlast line\n") + 1 - 2 * 4096
    assert f"[{dropped} bytes of stderr dropped" in candidate.stderr


def test_output_below_the_kept_size_is_whole(sandbox):
    candidate = one(sandbox, "print('a' * 8000)\nx = Int('x'); s.add(x > 1); s.check()\n")
    assert candidate.stdout == "a" * 8000 + "\n"
    assert candidate.output_truncated is False
