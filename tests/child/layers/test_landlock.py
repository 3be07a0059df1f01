"""Landlock on the real kernel: the candidate sees its scratch, the Python installation, and no more."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

import pytest

from z3sandbox_kernel.child.layers import landlock

from . import connect_from_sandbox, require, run_sandboxed

LAYERS = (landlock,)


@pytest.fixture(autouse=True)
def _landlock_available() -> None:
    require(landlock.probe())
    landlock.prepare()


def test_probe_reports_the_abi() -> None:
    probe = landlock.probe()
    assert probe["detail"] == f"ABI {landlock.abi_version()}"
    assert landlock.abi_version() >= 1


def test_apply_reports_what_was_granted(scratch: str) -> None:
    outcome = run_sandboxed(lambda: None, LAYERS, scratch)
    assert outcome.ok, outcome
    detail = outcome.reports[0]["detail"]
    assert detail.startswith(f"ABI {landlock.abi_version()}: ro ")
    assert "rw scratch" in detail
    if landlock.abi_version() >= 4:
        assert "net deny" in detail
    if landlock.abi_version() >= 6:
        assert "scoped signal+abstract-unix" in detail


def test_reading_etc_passwd_is_denied(scratch: str) -> None:
    outcome = run_sandboxed(lambda: Path("/etc/passwd").read_text(), LAYERS, scratch)
    assert outcome.denied, outcome


def test_reading_a_canary_next_to_scratch_is_denied(tmp_path: Path, scratch: str) -> None:
    canary = tmp_path / "canary"
    canary.write_text("escaped")
    outcome = run_sandboxed(canary.read_text, LAYERS, scratch)
    assert outcome.denied, outcome


def test_writing_outside_scratch_is_denied(tmp_path: Path, scratch: str) -> None:
    target = tmp_path / "written-by-candidate"
    outcome = run_sandboxed(lambda: target.write_text("escaped"), LAYERS, scratch)
    assert outcome.denied, outcome
    assert not target.exists()


def test_writing_inside_scratch_is_allowed(scratch: str) -> None:
    def work() -> list[str]:
        os.mkdir("sub")
        Path("sub/a.txt").write_text("data")
        os.rename("sub/a.txt", "b.txt")  # crosses directories: needs REFER
        os.truncate("b.txt", 2)
        os.symlink("b.txt", "link")
        os.unlink("link")
        os.rmdir("sub")
        return sorted(os.listdir("."))

    def in_scratch() -> list[str]:
        os.chdir(scratch)
        return work()

    outcome = run_sandboxed(in_scratch, LAYERS, scratch)
    assert outcome.ok, outcome
    assert outcome.value == ["b.txt"]
    assert Path(scratch, "b.txt").read_text() == "da"


def test_dev_null_is_writable_and_urandom_readable(scratch: str) -> None:
    def devices() -> int:
        Path("/dev/null").write_text("discarded")
        return len(Path("/dev/urandom").open("rb").read(16))

    assert run_sandboxed(devices, LAYERS, scratch).value == 16


def _not_yet_imported(names: tuple[str, ...]) -> str:
    for name in names:
        if name not in sys.modules:
            return name
    pytest.fail(f"every candidate module is already imported: {names}")


@pytest.mark.parametrize(
    "candidates",
    # Long lists: the whole suite runs in one process, and earlier tests import some of these.
    [("tomllib", "wave", "sched", "colorsys", "tabnanny", "pyclbr", "netrc", "xdrlib", "uu", "sndhdr"),
     ("_bz2", "_lzma", "_curses", "mmap", "audioop", "spwd", "nis", "_crypt", "xxlimited",
      "xxsubtype", "_testbuffer", "_xxtestfuzz")],
    ids=["pure-python", "c-extension"],
)
def test_importing_a_new_stdlib_module_works(scratch: str, candidates: tuple[str, ...]) -> None:
    name = _not_yet_imported(candidates)
    outcome = run_sandboxed(lambda: __import__(name).__name__, LAYERS, scratch)
    assert outcome.ok, outcome
    assert outcome.value == name


@pytest.mark.parametrize("target", ["1", "parent"])
def test_reading_another_process_environment_is_denied(scratch: str, target: str) -> None:
    pid = os.getpid() if target == "parent" else 1
    outcome = run_sandboxed(lambda: Path(f"/proc/{pid}/environ").read_bytes(), LAYERS, scratch)
    assert outcome.denied, outcome


def test_tcp_connect_to_loopback_is_denied(scratch: str) -> None:
    if landlock.abi_version() < 4:
        pytest.xfail("TCP rights need Landlock ABI 4 (Linux 6.7)")
    outcome, reached = connect_from_sandbox(LAYERS, scratch, socket.AF_INET, ("127.0.0.1", 0))
    assert outcome.denied and not reached, outcome


def test_tcp_bind_is_denied(scratch: str) -> None:
    if landlock.abi_version() < 4:
        pytest.xfail("TCP rights need Landlock ABI 4 (Linux 6.7)")
    outcome = run_sandboxed(lambda: socket.create_server(("127.0.0.1", 0)).close(),
                            LAYERS, scratch)
    assert outcome.denied, outcome


def test_abstract_unix_connect_is_denied(scratch: str) -> None:
    if landlock.abi_version() < 6:
        pytest.xfail("abstract UNIX socket scoping needs Landlock ABI 6 (Linux 6.12)")
    name = f"\0z3sandbox-test-{os.getpid()}"
    outcome, reached = connect_from_sandbox(LAYERS, scratch, socket.AF_UNIX, name)
    assert outcome.denied and not reached, outcome


def test_signalling_the_parent_is_denied_but_self_is_allowed(scratch: str) -> None:
    if landlock.abi_version() < 6:
        pytest.xfail("signal scoping needs Landlock ABI 6 (Linux 6.12)")
    parent = os.getpid()
    assert run_sandboxed(lambda: os.kill(parent, 0), LAYERS, scratch).denied
    assert run_sandboxed(lambda: os.kill(os.getpid(), 0), LAYERS, scratch).ok


def test_a_missing_scratch_directory_fails_closed(tmp_path: Path) -> None:
    outcome = run_sandboxed(lambda: None, LAYERS, str(tmp_path / "missing"))
    assert "does not exist" in outcome.setup_error, outcome
