"""The libc bindings: real calls, the kernel's errno in every error, and a cheap import."""

from __future__ import annotations

import ctypes
import errno
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from z3sandbox_kernel.contracts import oscalls

_PR_GET_DUMPABLE = 3


def _refused(code: int, call: str) -> str:
    return f"[Errno {code}] {call}: {os.strerror(code)}"


@pytest.mark.parametrize(("call", "code", "message"), [
    (lambda: oscalls.setns(-1, 0), errno.EBADF, _refused(errno.EBADF, "setns")),
    (lambda: oscalls.prctl(0x7FFF_FFFF), errno.EINVAL, _refused(errno.EINVAL, "prctl(2147483647)")),
    (lambda: oscalls.syscall(100_000, what="number 100000"), errno.ENOSYS,
     _refused(errno.ENOSYS, "number 100000")),
    (lambda: oscalls.mount(None, "/nonexistent/z3sb", None, 0), errno.ENOENT,
     _refused(errno.ENOENT, "mount(/nonexistent/z3sb)")),
    (lambda: oscalls.umount2("/nonexistent/z3sb", 0), errno.ENOENT,
     _refused(errno.ENOENT, "umount2(/nonexistent/z3sb)")),
    # What macOS gets for unshare, prctl and the like: the import works, a call says why not.
    (oscalls._bind("z3sb_not_in_libc", (), ctypes.c_int), errno.ENOSYS,
     f"[Errno {errno.ENOSYS}] z3sb_not_in_libc: not in this C library ({sys.platform})"),
])
def test_a_refusal_keeps_the_errno_and_names_the_call(call: Callable[[], object], code: int,
                                                      message: str) -> None:
    with pytest.raises(OSError) as raised:
        call()
    assert raised.value.errno == code
    assert str(raised.value) == message


def test_calls_return_what_the_kernel_answers() -> None:
    assert oscalls.prctl(_PR_GET_DUMPABLE) in (0, 1, 2)
    effective, permitted, inheritable = oscalls.capget()
    status = dict(line.split(":\t") for line in Path("/proc/self/status").read_text().splitlines()
                  if line.startswith("Cap"))
    assert (effective, permitted, inheritable) == (
        int(status["CapEff"], 16), int(status["CapPrm"], 16), int(status["CapInh"], 16))


def test_set_process_name_names_the_calling_thread_in_15_bytes() -> None:
    names: list[str] = []

    def rename() -> None:
        oscalls.set_process_name("z3sandbox-renamed-thread")
        names.append(Path("/proc/thread-self/comm").read_text().strip())

    thread = threading.Thread(target=rename)
    thread.start()
    thread.join()
    assert names == ["z3sandbox-renam"]


def test_the_import_loads_nothing_heavy() -> None:
    """The zygote and every candidate import it: no subprocess (ctypes.util), nothing else of ours."""
    code = ("import sys, json, z3sandbox_kernel; before = set(sys.modules)\n"
            "import z3sandbox_kernel.contracts.oscalls\n"
            "print(json.dumps(sorted(set(sys.modules) - before)))")
    loaded = set(json.loads(subprocess.run([sys.executable, "-c", code], check=True,
                                           capture_output=True, text=True).stdout))
    assert loaded <= {"z3sandbox_kernel.contracts", "z3sandbox_kernel.contracts.oscalls", "ctypes",
                      "ctypes._endian", "_ctypes", "errno", "struct", "_struct"}, loaded


def test_flush_c_stdio_writes_what_c_buffered_before_os_exit() -> None:
    """z3 prints some output through C stdio; a candidate ends with os._exit, which flushes none."""
    code = ("import ctypes, os, sys\n"
            "from z3sandbox_kernel.contracts.oscalls import flush_c_stdio\n"
            "ctypes.CDLL(None).printf(b'from C stdio')\n"
            "if sys.argv[1] == 'flush':\n"
            "    flush_c_stdio()\n"
            "os._exit(0)\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # -u unbuffers C too
    outputs = [subprocess.run([sys.executable, "-c", code, mode], check=True, capture_output=True,
                              text=True, env=env).stdout for mode in ("flush", "no flush")]
    assert outputs == ["from C stdio", ""]
