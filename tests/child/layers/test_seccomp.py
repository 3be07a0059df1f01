"""The seccomp filter on the real kernel: no processes, no exec, no sockets, no reaching others --
and z3's threads, parallel solving and timeouts still work."""

from __future__ import annotations

import ctypes
import errno
import os
import resource
import signal
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyseccomp
import pytest
import z3

from z3sandbox_kernel.child.layers import seccomp

from . import Outcome, require, run_sandboxed

LAYERS = (seccomp,)
_libc = ctypes.CDLL(None, use_errno=True)
_ARCH = pyseccomp.system_arch()


@pytest.fixture(autouse=True)
def _seccomp_available() -> None:
    require(seccomp.probe())
    seccomp.prepare()


@pytest.fixture
def scratch(tmp_path: Path) -> str:
    return str(tmp_path)


def _run(action: Callable[[], Any], scratch: str) -> Outcome:
    return run_sandboxed(action, LAYERS, scratch)


def _raw_syscall(name: str, *args: int) -> str:
    """Make a system call by name; return the errno's name, or "ok"."""
    number = pyseccomp.resolve_syscall(_ARCH, name)
    result = _libc.syscall(ctypes.c_long(number), *(ctypes.c_long(a) for a in args))
    return "ok" if result >= 0 else errno.errorcode[ctypes.get_errno()]


def test_probe_and_prepare_report_the_filter() -> None:
    assert seccomp.probe()["active"]
    assert "rules" in seccomp.prepare()["detail"]


def test_apply_reports_rules(scratch: str) -> None:
    outcome = _run(lambda: None, scratch)
    assert outcome.ok, outcome
    assert outcome.reports[0]["detail"].endswith("rules, default allow, EPERM")


@pytest.mark.parametrize(
    "action",
    [
        os.fork,
        lambda: os.execv("/bin/true", ["true"]),
        lambda: os.posix_spawn("/bin/true", ["true"], {}),
    ],
    ids=["fork", "execv", "posix_spawn"],
)
def test_new_processes_and_programs_are_denied(scratch: str, action: Callable[[], Any]) -> None:
    outcome = _run(action, scratch)
    assert outcome.denied, outcome


def test_clone3_answers_enosys(scratch: str) -> None:
    assert _run(lambda: _raw_syscall("clone3", 0, 0), scratch).value == "ENOSYS"


def test_threads_work(scratch: str) -> None:
    def spawn() -> list[int]:
        results: list[int] = []
        threads = [threading.Thread(target=results.append, args=(i,)) for i in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return sorted(results)

    assert _run(spawn, scratch).value == [0, 1, 2, 3]


def test_z3_parallel_solving_works(scratch: str) -> None:
    def solve() -> str:
        z3.set_param("parallel.enable", True)
        x, y = z3.Ints("x y")
        solver = z3.Solver()
        solver.add(x * x + y * y == 25, x > 0, y > 0, x < y)
        return str(solver.check())

    outcome = _run(solve, scratch)
    assert outcome.value == "sat", outcome


def test_z3_solver_timeout_works(scratch: str) -> None:
    def solve() -> list[str]:
        x, y, z = z3.Ints("x y z")
        solver = z3.Solver()
        solver.set("timeout", 200)
        solver.add(x**3 + y**3 == z**3, x > 1000, y > 1000, z > 0)
        return [str(solver.check()), solver.reason_unknown()]

    outcome = _run(solve, scratch)
    assert outcome.value == ["unknown", "timeout"], outcome


def test_signals_reach_only_ourselves(scratch: str) -> None:
    parent = os.getpid()
    assert _run(lambda: os.kill(parent, 0), scratch).denied
    assert _run(lambda: os.kill(0, 0), scratch).denied  # the process group
    assert _run(lambda: os.kill(-1, 0), scratch).denied  # everyone
    assert _run(lambda: os.kill(os.getpid(), 0), scratch).ok
    assert _run(lambda: signal.pthread_kill(threading.get_ident(), 0), scratch).ok
    assert _run(lambda: _raw_syscall("tgkill", parent, parent, 0), scratch).value == "EPERM"
    assert _run(lambda: _raw_syscall("pidfd_open", parent, 0), scratch).value == "EPERM"


def test_a_pid_with_high_bits_set_is_denied(scratch: str) -> None:
    """The kernel truncates pid_t to 32 bits; the filter must not be fooled by the high word."""
    parent = os.getpid()
    assert _run(lambda: _raw_syscall("kill", (1 << 32) | parent, 0), scratch).value == "EPERM"


def test_prlimit_on_the_parent_is_denied_and_on_self_allowed(scratch: str) -> None:
    parent = os.getpid()
    nofile = resource.RLIMIT_NOFILE
    assert _run(lambda: resource.prlimit(parent, nofile), scratch).denied
    assert _run(lambda: resource.setrlimit(nofile, resource.getrlimit(nofile)), scratch).ok
    assert _run(lambda: resource.prlimit(os.getpid(), nofile), scratch).ok


def test_other_processes_memory_is_out_of_reach(scratch: str) -> None:
    parent = os.getpid()
    ptrace_attach = 16
    assert _run(lambda: _raw_syscall("ptrace", ptrace_attach, parent, 0, 0), scratch).value == (
        "EPERM"
    )
    assert _run(lambda: _raw_syscall("process_vm_readv", parent, 0, 0, 0, 0, 0), scratch).value == (
        "EPERM"
    )


@pytest.mark.parametrize(
    "family", [socket.AF_INET, socket.AF_INET6, socket.AF_UNIX, socket.AF_NETLINK, socket.AF_PACKET]
)
def test_sockets_of_every_family_are_denied(scratch: str, family: int) -> None:
    assert _run(lambda: socket.socket(family, socket.SOCK_DGRAM), scratch).denied
    assert _run(lambda: socket.socketpair(family), scratch).denied


def test_tcp_connect_to_loopback_is_denied(scratch: str) -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.setblocking(False)
        address = listener.getsockname()
        outcome = _run(lambda: socket.create_connection(address, timeout=5).close(), scratch)
        assert outcome.denied, outcome
        with pytest.raises(BlockingIOError):
            listener.accept()


@pytest.mark.parametrize("kind", ["named", "abstract"])
def test_unix_socket_connect_is_denied(tmp_path: Path, kind: str) -> None:
    address = str(tmp_path / "sock") if kind == "named" else f"\0z3sandbox-seccomp-{os.getpid()}"
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(address)
        listener.listen()
        listener.setblocking(False)

        def connect() -> None:
            with socket.socket(socket.AF_UNIX) as client:
                client.connect(address)

        scratch = tmp_path / "scratch"
        scratch.mkdir()
        assert _run(connect, str(scratch)).denied
        with pytest.raises(BlockingIOError):
            listener.accept()


def test_tiocsti_is_denied_even_with_high_bits(scratch: str) -> None:
    tiocsti = 0x5412
    assert _run(lambda: _raw_syscall("ioctl", 0, tiocsti, 0), scratch).value == "EPERM"
    assert _run(lambda: _raw_syscall("ioctl", 0, (1 << 32) | tiocsti, 0), scratch).value == "EPERM"


@pytest.mark.parametrize("name", ["unshare", "mount", "bpf", "io_uring_setup", "userfaultfd"])
def test_kernel_surface_is_denied(scratch: str, name: str) -> None:
    assert _run(lambda: _raw_syscall(name, 0, 0, 0, 0, 0), scratch).value == "EPERM"


def test_namespace_flags_are_denied_even_for_threads(scratch: str) -> None:
    thread_flags = 0x00010000 | 0x00000800 | 0x00000100  # CLONE_THREAD | SIGHAND | VM
    new_net = 0x40000000
    assert _run(lambda: _raw_syscall("clone", thread_flags | new_net, 0, 0, 0, 0), scratch).value == (
        "EPERM"
    )


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the x32 ABI exists on x86_64 only")
def test_x32_system_calls_kill_the_process(scratch: str) -> None:
    getpid_x32 = 0x40000000 | 39
    outcome = _run(lambda: _libc.syscall(ctypes.c_long(getpid_x32)), scratch)
    assert outcome.signal == signal.SIGSYS, outcome
