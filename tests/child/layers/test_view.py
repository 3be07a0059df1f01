"""The filesystem view, IPC/UTS namespaces and the candidate's uid, on the real kernel.

Each test goes the way a candidate does (zygote/__main__.py, spawn.py): a user, network and PID
namespace; a serving process that is PID 1 there and builds the view (mounts.build_view); per
candidate an init in a PID namespace of its own that enters the candidate's mount/IPC/UTS
namespaces and tmpfs, drops to the candidate's ids and its own user namespace; then the child runs
the action.  No Landlock or seccomp here: these are the namespaces' own guarantees.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import socket
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import z3

import z3sandbox_kernel
from tests.forked import Send, in_fork
from z3sandbox_kernel.contracts.readable import read_only_paths
from z3sandbox_kernel.zygote import mounts, namespaces, scratch
from z3sandbox_kernel.zygote.namespaces import (
    CANDIDATE_UID,
    candidate_ids,
    drop_to,
    enter_candidate_user_namespace,
    enter_sandbox_namespaces,
    fork_in_new_pid_namespace,
)

from . import missing_feature

PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.realpath(z3sandbox_kernel.__file__)))
DISK_MB = 8


def _candidate(folder: str, action: Callable[[], Any], send: Send) -> None:
    """In the init: the candidate's namespaces and ids, then the child runs ``action``."""
    uid, gid = candidate_ids()
    mounts.enter_candidate_view(folder, DISK_MB, uid, gid, view=True)
    drop_to(uid, gid)
    enter_candidate_user_namespace()
    child = os.fork()
    if child == 0:
        os.chdir(folder)
        try:
            result: dict[str, Any] = {"value": action()}
        except OSError as exc:
            result = {"errno": exc.errno, "message": str(exc)}
        send(result)
        os._exit(0)
    os.waitpid(child, 0)


def _serving_zygote(base: str, action: Callable[[], Any], send: Send) -> None:
    """PID 1 of the sandbox's PID namespace: the view, then one candidate."""
    try:
        mounts.build_view(base)
    except OSError as exc:
        send({"setup_error": f"build_view: {exc}"})
        return
    folder = scratch.make(base, "run-1")
    init = fork_in_new_pid_namespace(os.open("/proc/self/ns/pid", os.O_RDONLY))
    if init == 0:
        try:
            _candidate(folder, action, send)
        except OSError as exc:
            send({"setup_error": f"candidate: {exc}"})
        os._exit(0)
    os.waitpid(init, 0)


def in_view(action: Callable[[], Any]) -> dict[str, Any]:
    """Run ``action`` as a candidate in its filesystem view; its value or its OSError's errno."""
    base = tempfile.mkdtemp(prefix="z3sandbox-viewtest-")

    def launch(send: Send) -> None:
        state = enter_sandbox_namespaces()
        if not (state.user and state.pid):
            send({"setup_error": str(state.errors)})
            return
        zygote = os.fork()
        if zygote == 0:
            try:
                _serving_zygote(base, action, send)
            finally:
                os._exit(0)
        os.waitpid(zygote, 0)

    forked = in_fork(launch, capture=False)
    os.rmdir(base)  # empty on the host: everything lived on tmpfs mounts in the namespaces
    result: dict[str, Any] = forked.frames[0] if forked.frames else {"setup_error": "no result"}
    if "setup_error" in result:
        missing_feature(result["setup_error"])
    return result


def test_python_and_z3_are_at_their_host_paths() -> None:
    def look() -> list[Any]:
        return [os.path.exists(z3.__file__), os.path.exists(json.__file__),
                os.path.exists(z3sandbox_kernel.__file__)]

    assert in_view(look)["value"] == [True, True, True]


def _passage(path: str) -> bool:
    """A host folder above a path of the view (the project root of this editable install, /home
    when the venv lives in a home folder): in the view it exists only to pass through."""
    return any(bound.startswith(path.rstrip("/") + "/") for bound in read_only_paths())


HIDDEN = (os.path.join(PROJECT_ROOT, ".git"), os.path.join(PROJECT_ROOT, "pyproject.toml"),
          "/etc/passwd", "/etc/shadow", "/root", "/home", "/usr/bin", "/sys/kernel", PROJECT_ROOT,
          os.path.expanduser("~"), "/usr", "/etc")


@pytest.mark.parametrize("path", HIDDEN)
def test_host_paths_are_not_visible(path: str) -> None:
    """A host path off the view does not exist; one above a path of the view (a passage) is
    traverse-only, so nothing else the host keeps there shows."""
    if not _passage(path):
        assert in_view(lambda: os.stat(path).st_size)["errno"] == errno.ENOENT
        return
    mode = in_view(lambda: oct(os.stat(path).st_mode & 0o7777))["value"]
    assert mode == oct(mounts.PASSAGE_MODE)  # a candidate, with no capability, cannot list it:
    # tests/host/test_what_a_candidate_sees.py (here the child keeps its user namespace's)


@pytest.mark.parametrize("change", ["chmod", "chown", "utime", "setxattr", "write"])
def test_metadata_and_writes_outside_scratch_fail_with_erofs(change: str) -> None:
    target = json.__file__

    def attempt() -> None:
        info = os.stat(target)
        calls: dict[str, Callable[[], Any]] = {
            "chmod": lambda: os.chmod(target, info.st_mode & 0o7777 | 0o4000),
            "chown": lambda: os.chown(target, info.st_uid, info.st_gid),
            "utime": lambda: os.utime(target),
            "setxattr": lambda: os.setxattr(target, "user.z3sb", b"1"),
            "write": lambda: os.open(os.path.join(os.path.dirname(target), "planted.py"),
                                     os.O_CREAT | os.O_WRONLY),
        }
        calls[change]()

    assert in_view(attempt)["errno"] == errno.EROFS


def test_the_candidate_never_runs_as_a_uid_that_owns_host_files() -> None:
    ids = in_view(lambda: [os.getuid(), os.geteuid()])["value"]
    expected = CANDIDATE_UID if os.getuid() == 0 else os.getuid()
    assert ids == [expected, expected]


def test_the_candidate_keeps_none_of_the_users_supplementary_groups() -> None:
    """Root's candidates drop them in drop_to; a normal user's zygote drops them through newgidmap
    (Debian's uidmap, a range in /etc/subgid): without it the kernel lets no one drop them."""
    groups = in_view(os.getgroups)["value"]
    droppable = os.getuid() == 0 or (os.access(namespaces.NEWGIDMAP, os.X_OK)
                                     and namespaces._subordinate_gid(os.getuid()) is not None)
    if droppable:
        assert groups == []
    elif set(os.getgroups()) - {os.getgid()}:
        missing_feature(f"{namespaces.KEEPS_GROUPS}: the candidate has {groups}")
    else:  # the user's only group is its own gid: nothing beyond it
        assert set(groups) <= {os.getgid()}


def test_the_isolation_report_says_whether_the_groups_were_dropped(kernel_sandbox) -> None:
    """The same through a Sandbox: the candidate's groups, and the userns entry saying so."""
    result = kernel_sandbox.run("import os\nprint(os.getgroups())\n")[0]
    userns = next(layer for layer in result.isolation["layers"] if layer["name"] == "userns")
    if not userns.get("active"):
        missing_feature(f"userns: {userns.get('error')}")
    if "supplementary groups kept" in userns.get("detail", ""):
        missing_feature(userns["detail"])
    if os.getuid() == 0 or "supplementary groups dropped" in userns.get("detail", ""):
        assert result.stdout == "[]\n"
    else:  # the user's only group is its own gid, mapped to itself: nothing to drop
        assert set(json.loads(result.stdout)) <= {os.getgid()}


def test_scratch_is_a_tmpfs_of_disk_mb() -> None:
    def fill() -> int:
        written = 0
        with open("big.bin", "wb") as handle:
            while written < (DISK_MB + 4) << 20:
                handle.write(b"\0" * (1 << 20))
                handle.flush()
                written += 1 << 20
        return written

    assert in_view(fill)["errno"] == errno.ENOSPC


def test_scratch_has_an_inode_limit() -> None:
    def folders() -> int:
        for index in range(mounts.inode_limit(DISK_MB) + 10):
            os.mkdir(f"d{index}")
        return index

    assert in_view(folders)["errno"] == errno.ENOSPC


def test_dev_shm_is_writable_and_counts_against_the_disk_limit() -> None:
    def shm() -> list[int]:
        with open("/dev/shm/sem.test", "wb") as handle:
            handle.write(b"\1" * (2 << 20))
        info = os.statvfs(".")
        used_mb = (info.f_blocks - info.f_bfree) * info.f_frsize >> 20
        return [used_mb, len(os.listdir("."))]

    assert in_view(shm)["value"] == [2, 0]  # on scratch's tmpfs, not in the candidate's folder


def test_threadpool_semaphores_work() -> None:
    def pool() -> list[int]:
        from multiprocessing.pool import ThreadPool

        with ThreadPool(2) as workers:
            return workers.map(abs, [-1, -2, -3])

    assert in_view(pool)["value"] == [1, 2, 3]


def test_devices_are_there_and_nothing_else_in_dev() -> None:
    def devices() -> list[Any]:
        with open("/dev/null", "w") as null:
            null.write("x")
        with open("/dev/urandom", "rb") as random_source:
            entropy = len(random_source.read(8))
        return [sorted(os.listdir("/dev")), entropy]

    assert in_view(devices)["value"] == [["null", "random", "shm", "urandom", "zero"], 8]


def test_proc_shows_only_the_candidates_pid_namespace() -> None:
    assert in_view(lambda: sorted(int(p) for p in os.listdir("/proc") if p.isdigit()))["value"] == [1, 2]


def test_sysv_objects_die_with_the_candidate() -> None:
    libc = ctypes.CDLL(None, use_errno=True)

    def segment() -> int:
        ident = libc.shmget(0, ctypes.c_size_t(1 << 20), 0o1000 | 0o600)
        if ident < 0:
            raise OSError(ctypes.get_errno(), "shmget")
        return len(Path("/proc/sysvipc/shm").read_text().splitlines()) - 1

    before = Path("/proc/sysvipc/shm").read_text()
    assert in_view(segment)["value"] == 1  # its own namespace holds only its own segment
    assert Path("/proc/sysvipc/shm").read_text() == before


def test_hostname_cannot_be_changed() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    name = socket.gethostname().encode()

    def rename() -> int:
        if libc.sethostname(name, len(name)) != 0:
            raise OSError(ctypes.get_errno(), "sethostname")
        return 0

    assert in_view(rename)["errno"] == errno.EPERM
