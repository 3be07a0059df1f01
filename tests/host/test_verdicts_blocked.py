"""The ``blocked`` verdict and the refusals under it: what the sandbox refuses a real candidate (a
fork, a socket, a file outside its scratch, the network), where it observes the refusal, and
that a refusal the script catches leaves its answer.
"""

from __future__ import annotations

import pytest

from tests.conftest import layer_active, require_feature
from tests.host.candidates import one
from z3sandbox_kernel import Sandbox, Verdict

pytestmark = [pytest.mark.timeout(60), pytest.mark.usefixtures("zygote_is_clean")]
ANSWER = "x = Int('x'); s.add(x > 0); s.check()\n"  # the script's answer, after what it tried


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
    candidate = one(sandbox, "import os\nos.fork()\n" + ANSWER)
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
        "    if kind in (0, stat.S_IFSOCK):\n        print('held', fd, kind)\n" + ANSWER))
    assert candidate.verdict is Verdict.SAT, candidate.reason
    assert "held" not in candidate.stdout, candidate.stdout


def test_a_caught_refusal_leaves_the_scripts_answer(sandbox):
    caught = "import os\ntry:\n    os.fork()\nexcept PermissionError:\n    pass\n"
    assert one(sandbox, caught + ANSWER).verdict is Verdict.SAT


def test_fork_through_libc_is_denied_at_kernel_level(kernel_sandbox):
    require_feature(layer_active(kernel_sandbox, "seccomp"), "seccomp filter")
    candidate = one(kernel_sandbox, (
        "import ctypes, os\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "pid = libc.fork()\n"
        "if pid == 0:\n    os._exit(0)\n"
        "print(pid, ctypes.get_errno())\n" + ANSWER))
    assert candidate.stdout.split() == ["-1", "1"]  # fork failed with EPERM


def test_reading_a_file_outside_scratch_is_blocked_at_kernel_level(kernel_sandbox, tmp_path):
    require_feature(layer_active(kernel_sandbox, "landlock"), "Landlock")
    secret = tmp_path / "secret.txt"
    secret.write_text("the host's secret")
    secret.chmod(0o644)
    candidate = one(kernel_sandbox, (
        f"print(open({str(secret)!r}).read())\n" + ANSWER))
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
