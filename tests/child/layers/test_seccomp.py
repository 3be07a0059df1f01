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
from z3sandbox_kernel.contracts.oscalls import syscall

from . import Outcome, connect_from_sandbox, require, run_sandboxed
from .bpf import ALL_ONES, emulate, program_for

LAYERS = (seccomp,)
_ARCH = pyseccomp.system_arch()


@pytest.fixture(autouse=True)
def _seccomp_available() -> None:
    require(seccomp.probe())
    seccomp.prepare()


def _run(action: Callable[[], Any], scratch: str) -> Outcome:
    return run_sandboxed(action, LAYERS, scratch)


def _errno_of(number: int, *args: int) -> str:
    """Make a system call by number; return the errno's name, or "ok"."""
    try:
        syscall(number, *args)
    except OSError as exc:
        assert exc.errno is not None
        return errno.errorcode[exc.errno]
    return "ok"


def _raw_syscall(name: str, *args: int) -> str:
    """Make a system call by name; return the errno's name, or "ok"."""
    return _errno_of(pyseccomp.resolve_syscall(_ARCH, name), *args)


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


@pytest.mark.parametrize("signum", [signal.SIGXCPU, signal.SIGXFSZ, signal.SIGSYS])
def test_a_limit_signal_cannot_be_sent_to_ourselves(scratch: str, signum: int) -> None:
    """The kernel's signals for a limit are the kernel's alone: the candidate cannot forge one."""
    assert _run(lambda: os.kill(os.getpid(), signum), scratch).denied
    assert _run(lambda: signal.pthread_kill(threading.get_ident(), signum), scratch).denied
    assert _run(lambda: _raw_syscall("tkill", os.getpid(), signum), scratch).value == "EPERM"


def test_sysinfo_and_posix_timers_are_refused(scratch: str) -> None:
    """sysinfo(2) is the host's (uptime, load, task count): a channel between candidates.  POSIX
    timers would deliver a limit's signal of the candidate's choosing."""
    assert _run(lambda: _raw_syscall("sysinfo", 0), scratch).value == "EPERM"
    assert _run(lambda: _raw_syscall("timer_create", 0, 0, 0), scratch).value == "EPERM"


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
    outcome, reached = connect_from_sandbox(LAYERS, scratch, socket.AF_INET, ("127.0.0.1", 0))
    assert outcome.denied and not reached, outcome


@pytest.mark.parametrize("kind", ["named", "abstract"])
def test_unix_socket_connect_is_denied(tmp_path: Path, scratch: str, kind: str) -> None:
    address = str(tmp_path / "sock") if kind == "named" else f"\0z3sandbox-seccomp-{os.getpid()}"
    outcome, reached = connect_from_sandbox(LAYERS, scratch, socket.AF_UNIX, address)
    assert outcome.denied and not reached, outcome


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
    outcome = _run(lambda: syscall(getpid_x32), scratch)
    assert outcome.signal == signal.SIGSYS, outcome


# ------------------------------------------------------------- classes no solver needs (issue 10)

def _numbers() -> dict[str, int]:
    return seccomp.numbers_for(_ARCH, pyseccomp.resolve_syscall)


def _class_sweep(names: tuple[str, ...]) -> dict[str, str]:
    """Each call of a class (those this architecture has), all arguments -1: the errno."""
    numbers = _numbers()
    return {name: _errno_of(numbers[name], *[ALL_ONES] * 6)
            for name in names if numbers[name] >= 0}


@pytest.mark.parametrize(
    "names", [names for why, names in seccomp.DENIED if not why.startswith("new processes")],
    ids=[why.split(":")[0].split(" (")[0][:40] for why, _ in seccomp.DENIED
         if not why.startswith("new processes")])
def test_every_call_of_a_denied_class_answers_eperm(scratch: str, names: tuple[str, ...]) -> None:
    """No session, so a vhangup that slipped through would reach no terminal."""
    outcome = run_sandboxed(lambda: _class_sweep(names), LAYERS, scratch, before=os.setsid)
    assert outcome.ok, outcome
    assert outcome.value and set(outcome.value.values()) == {"EPERM"}, outcome.value


def test_file_metadata_outside_scratch_is_unchanged(tmp_path: Path) -> None:
    target = tmp_path / "host-file"
    target.write_text("host")
    target.chmod(0o644)
    before = target.stat()
    scratch = tmp_path / "scratch"
    scratch.mkdir()

    def attempts() -> dict[str, str]:
        fd = os.open(target, os.O_RDONLY)
        calls = {
            "chmod": lambda: os.chmod(target, 0o4755),
            "fchmod": lambda: os.fchmod(fd, 0o4755),
            "chown": lambda: os.chown(target, 0, 0),
            "utime": lambda: os.utime(target, (1, 1)),
            "setxattr": lambda: os.setxattr(target, "user.z3sb", b"x"),
            "removexattr": lambda: os.removexattr(target, "user.z3sb"),
        }
        said = {}
        for name, call in calls.items():
            try:
                call()
                said[name] = "ok"
            except OSError as exc:
                said[name] = str(exc)
        return said

    outcome = _run(attempts, str(scratch))
    assert outcome.ok, outcome
    for name, message in outcome.value.items():
        assert f"Operation not permitted (seccomp denies {name})" in message, (name, message)
    after = target.stat()
    assert (after.st_mode, after.st_uid, after.st_gid, after.st_mtime_ns) == (
        before.st_mode, before.st_uid, before.st_gid, before.st_mtime_ns)
    assert os.listxattr(target) == []


def test_memory_outside_the_address_space_limit_is_refused(scratch: str) -> None:
    ipc_private, ipc_creat = 0, 0o1000

    def attempts() -> list[str]:
        name = ctypes.create_string_buffer(b"/z3sb")
        return [
            _raw_syscall("memfd_create", ctypes.addressof(name), 0),
            _raw_syscall("shmget", ipc_private, 384 << 20, ipc_creat | 0o600),
            _raw_syscall("msgget", ipc_private, ipc_creat | 0o600),
            _raw_syscall("semget", ipc_private, 1, ipc_creat | 0o600),
            _raw_syscall("mq_open", ctypes.addressof(name), os.O_CREAT | os.O_RDWR, 0o600, 0),
        ]

    assert _run(attempts, scratch).value == ["EPERM"] * 5
    outcome = _run(lambda: os.memfd_create("z3sb"), scratch)
    assert "seccomp denies memfd_create" in outcome.message, outcome


def test_posix_semaphores_and_thread_pools_still_work(scratch: str) -> None:
    """multiprocessing's locks (sem_open in /dev/shm) and ThreadPool are not SysV IPC.
    (shared_memory.SharedMemory starts a resource-tracker process: refused as a new process.)"""
    def use() -> list[int]:
        import multiprocessing
        from multiprocessing.pool import ThreadPool

        with multiprocessing.Lock():
            pass
        with ThreadPool(2) as pool:
            return pool.map(abs, [-1, -2, -3])

    outcome = _run(use, scratch)
    assert outcome.value == [1, 2, 3], outcome


def test_mount_queries_and_handles_are_refused_even_on_new_kernels(scratch: str) -> None:
    """listmount/statmount are newer than libseccomp 2.5.4: their numbers come from UNIFIED."""
    numbers = _numbers()
    assert numbers["listmount"] == 458 and numbers["statmount"] == 457
    outcome = _run(lambda: {name: _errno_of(numbers[name], 0, 0, 0, 0) for name in (
        "listmount", "statmount", "open_tree", "fsopen", "name_to_handle_at",
        "open_by_handle_at", "listns")}, scratch)
    assert set(outcome.value.values()) == {"EPERM"}, outcome


def test_calls_newer_than_the_table_answer_enosys(scratch: str) -> None:
    beyond = seccomp.NEWEST_REVIEWED + 1
    outcome = _run(lambda: [_errno_of(beyond), _errno_of(beyond + 100)], scratch)
    assert outcome.value == ["ENOSYS", "ENOSYS"], outcome
    assert emulate(program_for(_ARCH), beyond) == "ENOSYS"


def test_file_attribute_ioctls_and_fcntl_commands_are_refused(tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("x")
    fs_ioc_getflags, fs_ioc_setflags = 0x80086601, 0x40086602
    f_setlease, f_notify, f_setown, f_getfl = 1024, 1026, 8, 3

    def attempts() -> list[str]:
        fd = os.open(target, os.O_RDONLY)
        flags = ctypes.c_long(0)
        address = ctypes.addressof(flags)
        return [
            _raw_syscall("ioctl", fd, fs_ioc_setflags, address),
            _raw_syscall("ioctl", fd, (1 << 32) | fs_ioc_setflags, address),
            _raw_syscall("ioctl", fd, fs_ioc_getflags, address),
            _raw_syscall("fcntl", fd, f_setlease, 0),  # F_RDLCK
            _raw_syscall("fcntl", fd, f_notify, 0),
            _raw_syscall("fcntl", fd, f_setown, os.getppid()),
            _raw_syscall("fcntl", fd, f_getfl, 0),
        ]

    outcome = _run(attempts, str(tmp_path))
    assert outcome.value[:2] == ["EPERM", "EPERM"], outcome
    assert outcome.value[2] != "EPERM", outcome  # reading flags is fine (or ENOTTY on tmpfs)
    assert outcome.value[3:] == ["EPERM", "EPERM", "EPERM", "ok"], outcome


def test_scheduling_and_io_priority_of_others_are_refused(scratch: str) -> None:
    parent = os.getpid()
    ioprio_who_process = 1
    mask = ctypes.c_uint64(1)
    assert _run(lambda: [
        _raw_syscall("ioprio_set", ioprio_who_process, parent, 0),
        _raw_syscall("sched_setaffinity", parent, 8, ctypes.addressof(mask)),
    ], scratch).value == ["EPERM", "EPERM"]
