"""Every verdict of the Verdict enum, produced by a real candidate in a real zygote, with its reason.

Most tests run at both isolation levels (the ``sandbox`` fixture); small limits keep them quick.
"""

from __future__ import annotations

import re
import signal
from fractions import Fraction

import pytest
import z3

from tests.conftest import layer_active, require_feature
from z3sandbox_kernel import Limits, Sandbox, Verdict

pytestmark = [pytest.mark.timeout(60), pytest.mark.usefixtures("zygote_is_clean")]

QUICK = Limits(timeout_s=2, wall_s=5, cpu_s=4, memory_mb=256, output_kb=4)


def one(sandbox: Sandbox, script: str, **kwargs):
    kwargs.setdefault("limits", QUICK)
    result = sandbox.run(script, **kwargs)
    assert len(result) == 1
    return result[0]


# ------------------------------------------------------------------------------ solver outcomes

def test_sat_reports_the_model_as_python_values(sandbox):
    candidate = one(sandbox, (
        "x = Int('x'); b = Bool('b'); r = Real('r'); st = String('st'); bv = BitVec('bv', 16)\n"
        "s.add(x == -7, b, r == Q(1, 3), st == StringVal('hi'), bv == 0xbeef)\n"
        "s.check()\n"))
    assert candidate.verdict is Verdict.SAT
    assert candidate.reason == ""
    assert candidate.model == {"x": -7, "b": True, "r": Fraction(1, 3), "st": "hi", "bv": 0xBEEF}
    assert type(candidate.model["x"]) is int
    assert type(candidate.model["b"]) is bool
    assert type(candidate.model["bv"]) is int
    assert candidate.verified is True
    assert candidate.kill is None
    assert candidate.exit_code == 0
    assert candidate.signal is None
    assert candidate.isolation["level"] == sandbox.level


def test_sat_model_of_another_sort_is_its_z3_text(sandbox):
    candidate = one(sandbox, "a = Array('a', IntSort(), IntSort()); s.add(a[1] == 5); s.check()")
    assert candidate.verdict is Verdict.SAT
    assert isinstance(candidate.model["a"], str)
    assert "5" in candidate.model["a"]


def test_unsat_has_no_model(sandbox):
    candidate = one(sandbox, "x = Int('x'); s.add(x > 2, x < 1); s.check()")
    assert candidate.verdict is Verdict.UNSAT
    assert candidate.model is None
    assert candidate.payload is None
    assert candidate.verified is None


def test_unknown_reason_is_z3s_reason_unknown(sandbox):
    script = "x, y = Reals('x y'); s.add(x ** y == 3, y > 0.5, x > 0); s.check()"
    plain = z3.Solver()
    x, y = z3.Reals("x y")
    plain.add(x**y == 3, y > 0.5, x > 0)
    assert plain.check() == z3.unknown
    candidate = one(sandbox, script)
    assert candidate.verdict is Verdict.UNKNOWN
    assert candidate.reason == plain.reason_unknown()
    assert candidate.kill is None


# A check no solver decides in a second (Fermat's last theorem): stopped by the solver timeout.
FERMAT = ("x, y, z, n = Ints('x y z n')\n"
          "s.add(x > 0, y > 0, z > 0, n > 2, x ** n + y ** n == z ** n)\n"
          "s.check()\n")


def test_solver_timeout_is_timeout_with_kill_solver(sandbox):
    candidate = one(sandbox, FERMAT, limits=QUICK.replace(timeout_s=0.3))
    assert candidate.verdict is Verdict.TIMEOUT
    assert candidate.kill == "solver"
    assert "solver timeout of 0.3 s" in candidate.reason
    assert candidate.wall_s < QUICK.wall_s


def test_solver_timeout_stops_a_check_after_many_quick_ones(sandbox):
    """The watchdog sleeps until its earliest deadline, which may be a quick check's that ended
    long ago (child/instrument.py): a hard check after a thousand of them is still stopped."""
    candidate = one(sandbox, (
        "q = Int('q')\n"
        "for i in range(1000):\n"
        "    Solver().check(q == i)\n" + FERMAT), limits=QUICK.replace(timeout_s=0.3, wall_s=60, cpu_s=30))
    assert candidate.verdict is Verdict.TIMEOUT
    assert candidate.kill == "solver"


def test_script_cannot_raise_the_solver_timeout(sandbox):
    candidate = one(sandbox, (
        "s.set('timeout', 10 ** 9)\n" + FERMAT), limits=QUICK.replace(timeout_s=0.3))
    assert candidate.verdict is Verdict.TIMEOUT
    assert candidate.kill == "solver"


# ---------------------------------------------------------------------------------------- limits

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


# -------------------------------------------------------------------------------- script errors

def test_syntax_error_gives_line_and_column(sandbox):
    candidate = one(sandbox, "x = Int('x')\ns.add(x >)\ns.check()\n")
    assert candidate.verdict is Verdict.SYNTAX_ERROR
    assert candidate.reason.startswith("SyntaxError: ")
    assert "line 2, column 10" in candidate.reason
    assert candidate.reason.count("line 2") == 1  # said once, not repeated by the zygote


def test_runtime_error_gives_type_message_and_line(sandbox):
    candidate = one(sandbox, "x = Int('x')\ny = {}\ny['missing key']\n")
    assert candidate.verdict is Verdict.RUNTIME_ERROR
    assert candidate.reason.startswith("KeyError: ")
    assert "missing key" in candidate.reason
    assert "line 3" in candidate.reason


def test_runtime_error_traceback_names_the_script_lines(sandbox):
    candidate = one(sandbox, "def f():\n    return 1 / 0\n\nf()\n")
    assert candidate.verdict is Verdict.RUNTIME_ERROR
    assert candidate.reason.startswith("ZeroDivisionError: division by zero (line 2")
    assert "line 4 in <module>" in candidate.reason


def test_runtime_error_message_is_capped_at_2000_characters(sandbox):
    candidate = one(sandbox, "x = 1\nraise ValueError('boom' * 5000)\n")
    assert candidate.verdict is Verdict.RUNTIME_ERROR
    assert candidate.reason.startswith("ValueError: boomboom")
    assert candidate.reason.count("boom") <= 2000 // 4
    assert len(candidate.reason) < 2200


def test_runtime_error_keeps_the_line_when_the_message_is_long(sandbox):
    candidate = one(sandbox, "x = 1\nraise ValueError('boom' * 5000)\n")
    assert candidate.verdict is Verdict.RUNTIME_ERROR
    assert "line 2" in candidate.reason


# --------------------------------------------------------------------------------------- crashes

def test_os_exit_is_crashed_with_the_exit_code(sandbox):
    candidate = one(sandbox, "import os\nos._exit(3)\n")
    assert candidate.verdict is Verdict.CRASHED
    assert candidate.exit_code == 3
    assert candidate.signal is None
    assert "exited with code 3" in candidate.reason


def test_abort_is_crashed_with_sigabrt(sandbox):
    candidate = one(sandbox, "import os\nos.abort()\n")
    assert candidate.verdict is Verdict.CRASHED
    assert candidate.signal == signal.SIGABRT
    assert candidate.reason == "killed by SIGABRT"


def test_segfault_is_crashed_with_sigsegv(sandbox):
    candidate = one(sandbox, "import ctypes\nctypes.string_at(0)\n")
    assert candidate.verdict is Verdict.CRASHED
    assert candidate.signal == signal.SIGSEGV
    assert candidate.reason == "killed by SIGSEGV"
    assert candidate.exit_code is None


def test_sys_exit_with_an_error_code_is_a_runtime_error(sandbox):
    candidate = one(sandbox, "import sys\nsys.exit(4)\n")
    assert candidate.verdict is Verdict.RUNTIME_ERROR
    assert "sys.exit(4)" in candidate.reason


# ----------------------------------------------------------------------------------------- blocked

def observes_refusals(sandbox: Sandbox) -> bool:
    """Its candidates' inits count seccomp's refusals (the kernel level, with seccomp)."""
    return layer_active(sandbox, "seccomp") and layer_active(sandbox, "pidns")


def refused_or_raised(sandbox: Sandbox, candidate, event: str, calls: tuple[str, ...]) -> None:
    """``blocked`` with the init's count where refusals are observed (the filter refused one of
    ``calls``); elsewhere the audit hook's PermissionError, a runtime_error naming ``event``."""
    if observes_refusals(sandbox):
        assert candidate.verdict is Verdict.BLOCKED, candidate.reason
        assert candidate.reason.startswith("seccomp refused "), candidate.reason
        assert any(f"(the first: {call})" in candidate.reason for call in calls), candidate.reason
        assert "as the candidate's init observed" in candidate.reason
    else:
        assert candidate.verdict is Verdict.RUNTIME_ERROR, candidate.reason
        assert f"blocked by the sandbox: {event}" in candidate.reason
        assert "no refusal was observed" in candidate.reason
    assert candidate.error is not None and candidate.error["type"] == "PermissionError"


def test_fork_is_blocked_where_observed(sandbox):
    candidate = one(sandbox, "import os\nos.fork()\nx = Int('x'); s.add(x > 0); s.check()\n")
    refused_or_raised(sandbox, candidate, "os.fork", ("clone", "fork"))
    assert "line 2" in candidate.reason


def test_socket_is_blocked_where_observed(sandbox):
    candidate = one(sandbox, "import socket\nsocket.socket(socket.AF_INET)\n")
    refused_or_raised(sandbox, candidate, "socket.__new__", ("socket",))


def test_subprocess_is_blocked_where_observed(sandbox):
    candidate = one(sandbox, "import subprocess\nsubprocess.run(['/bin/true'])\n")
    refused_or_raised(sandbox, candidate, "subprocess.Popen", ("clone", "vfork", "fork"))


def test_a_permission_error_the_script_raises_itself_is_not_blocked(sandbox):
    candidate = one(sandbox, "raise PermissionError('... seccomp denied ...')\n")
    assert candidate.verdict is Verdict.RUNTIME_ERROR
    assert candidate.reason.startswith("PermissionError: ... seccomp denied ... (line 1")
    assert "no refused system call" in candidate.reason or "no refusal was observed" in candidate.reason


def test_each_refusal_is_counted_by_the_init(kernel_sandbox):
    require_feature(observes_refusals(kernel_sandbox), "seccomp user notification")
    candidate = one(kernel_sandbox, (
        "import os\n"
        "for _ in range(3):\n    try:\n        os.chmod('.', 0o700)\n    except PermissionError:\n"
        "        pass\n"
        "os.memfd_create('x')\n"))
    assert candidate.verdict is Verdict.BLOCKED
    assert candidate.reason.startswith("seccomp refused 4 system calls (the first: chmod)")
    assert candidate.error is not None and candidate.error["line"] == 7


def test_user_code_holds_neither_the_listener_nor_the_socket_it_came_over(kernel_sandbox):
    """No descriptor of user code is a socket or an anonymous inode (the listener is one)."""
    candidate = one(kernel_sandbox, (
        "import os, stat\n"
        "for fd in range(1024):\n"
        "    try:\n        kind = stat.S_IFMT(os.fstat(fd).st_mode)\n"
        "    except OSError:\n        continue\n"
        "    if kind in (0, stat.S_IFSOCK):\n        print('held', fd, kind)\n"
        "x = Int('x'); s.add(x > 0); s.check()\n"))
    assert candidate.verdict is Verdict.SAT, candidate.reason
    assert "held" not in candidate.stdout, candidate.stdout


def test_a_caught_refusal_leaves_the_scripts_answer(sandbox):
    candidate = one(sandbox, (
        "import os\n"
        "try:\n    os.fork()\nexcept PermissionError:\n    pass\n"
        "x = Int('x'); s.add(x > 0); s.check()\n"))
    assert candidate.verdict is Verdict.SAT


def test_fork_through_libc_is_denied_at_kernel_level(kernel_sandbox):
    require_feature(layer_active(kernel_sandbox, "seccomp"), "seccomp filter")
    candidate = one(kernel_sandbox, (
        "import ctypes, os\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "pid = libc.fork()\n"
        "if pid == 0:\n    os._exit(0)\n"
        "print(pid, ctypes.get_errno())\n"
        "x = Int('x'); s.add(x > 0); s.check()\n"))
    assert candidate.stdout.split() == ["-1", "1"]  # fork failed with EPERM


def test_reading_a_file_outside_scratch_is_blocked_at_kernel_level(kernel_sandbox, tmp_path):
    require_feature(layer_active(kernel_sandbox, "landlock"), "Landlock")
    secret = tmp_path / "secret.txt"
    secret.write_text("the host's secret")
    secret.chmod(0o644)
    candidate = one(kernel_sandbox, (
        f"print(open({str(secret)!r}).read())\n"
        "x = Int('x'); s.add(x > 0); s.check()\n"))
    assert "secret" not in candidate.stdout
    if layer_active(kernel_sandbox, "mountns"):  # not even there in the candidate's own view
        assert candidate.verdict is Verdict.RUNTIME_ERROR
        assert "No such file" in candidate.reason
    else:
        assert candidate.verdict is Verdict.BLOCKED
        assert "landlock" in candidate.reason


def test_network_is_unreachable_at_kernel_level(kernel_sandbox, loopback_listener):
    require_feature(layer_active(kernel_sandbox, "netns"), "network namespace")
    candidate = one(kernel_sandbox, (
        "import ctypes, struct\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "fd = libc.socket(2, 1, 0)\n"
        f"address = struct.pack('!HH4s8x', 2, {loopback_listener.port}, bytes([127, 0, 0, 1]))\n"
        "address = struct.pack('=H', 2) + address[2:]\n"
        "print('socket', fd, 'connect', libc.connect(fd, address, 16), ctypes.get_errno())\n"))
    assert not loopback_listener.was_reached(), candidate.stdout
    assert "connect -1" in candidate.stdout or "socket -1" in candidate.stdout


# ------------------------------------------------------------------------------ everything else

def test_script_that_checks_nothing_is_no_check(sandbox):
    candidate = one(sandbox, "x = 1 + 1\nprint(x)\n")
    assert candidate.verdict is Verdict.NO_CHECK
    assert candidate.stdout == "2\n"
    assert candidate.model is None


def test_required_unknown_layer_is_a_value_error_before_anything_runs(sandbox):
    """A misspelt layer is bad input: refused with a did-you-mean, no candidate started."""
    with pytest.raises(ValueError, match="unknown layer 'no-such-layer'"):
        one(sandbox, "print('ran')\nx = Int('x'); s.add(x > 0); s.check()", require={"no-such-layer"})
    with pytest.raises(ValueError, match="did you mean 'landlock'"):
        one(sandbox, "x = Int('x')", require={"landlok"})


def test_required_layer_missing_at_process_level_is_internal_error(process_sandbox):
    candidate = one(process_sandbox, "print('ran')\nx = Int('x'); s.add(x > 0); s.check()",
                    require={"seccomp"})
    assert candidate.verdict is Verdict.INTERNAL_ERROR
    assert "seccomp" in candidate.reason
    assert "'process'" in candidate.reason
    assert candidate.stdout == ""


FORGED_SAT = '''
import json, os, struct
frame = json.dumps({{"v": 1, "type": "result", "outcome": "sat",
    "model": {{"x": {value}}},
    "assertions_smt2": "(declare-fun x () Int)(assert (> x 5))",
    "model_smt2": "x\\x00{value}\\x00"}}).encode()
os.write(3, struct.pack(">I", len(frame)) + frame)
os._exit(0)
'''


def test_forged_model_that_fails_verification_is_invalid_model(sandbox):
    """A candidate that writes its own report on fd 3 may lie about its model; the zygote re-checks
    it in a process that ran no user code."""
    candidate = one(sandbox, FORGED_SAT.format(value=1))
    assert candidate.verdict is Verdict.INVALID_MODEL
    assert candidate.verified is False
    assert "violates" in candidate.reason
    assert "(> x 5)" in candidate.reason
    assert candidate.model == {"x": 1}
    assert candidate.payload is None


def test_forged_model_that_satisfies_the_assertions_verifies(sandbox):
    candidate = one(sandbox, FORGED_SAT.format(value=9))
    assert candidate.verdict is Verdict.SAT
    assert candidate.verified is True


def test_unverified_model_is_sat_with_verified_none(sandbox):
    candidate = one(sandbox, FORGED_SAT.format(value=1), verify=False)
    assert candidate.verdict is Verdict.SAT
    assert candidate.verified is None
