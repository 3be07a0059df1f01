"""Files a run writes on the host follow no link and replace nothing: ``--payload-dir``,
``save_payloads``, ``afl_sync`` (and ``--afl-sync``'s writer), run records.  A folder a run writes
into may be shared, and whoever else writes there can plant a link where the run is about to write;
run as root, a followed link would put a candidate's bytes in any file of the machine."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from z3sandbox_kernel import CandidateResult, RunResult, Sandbox, Verdict
from z3sandbox_kernel.contracts.hostfiles import Folder, LinkedTarget
from z3sandbox_kernel.contracts.payload_files import afl_sync, digest

pytestmark = pytest.mark.timeout(120)

PAYLOAD_SCRIPT = "b = BitVec('byte_1', 8); s.add(b == 0x42); s.check()\n"


@pytest.fixture
def secret(tmp_path) -> Path:
    """A file only its owner may read or write, outside every folder the run writes into."""
    path = tmp_path / "secret"
    path.write_bytes(b"the owner's own bytes")
    path.chmod(0o600)
    return path


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "z3sandbox_kernel", "run", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=100, env=dict(os.environ))


def test_a_link_planted_in_the_payload_dir_is_left_untouched_and_its_target_unchanged(tmp_path, secret):
    (tmp_path / "bytes.py").write_text(PAYLOAD_SCRIPT)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "candidate-0.bin").symlink_to(secret)
    done = cli("bytes.py", "--isolation", "process", "--payload-dir", "out", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "bytes.py" in done.stdout  # the table is printed before the error
    assert "--payload-dir out: candidate-0.bin is there already, left as it is" in done.stderr
    assert os.readlink(tmp_path / "out" / "candidate-0.bin") == str(secret)
    assert secret.read_bytes() == b"the owner's own bytes"
    assert sorted(os.listdir(tmp_path / "out")) == ["candidate-0.bin"]  # no temporary left


def test_an_existing_file_the_run_did_not_write_is_not_truncated(tmp_path):
    (tmp_path / "bytes.py").write_text(PAYLOAD_SCRIPT)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "candidate-0.bin").write_bytes(b"someone else's file")
    done = cli("bytes.py", "--isolation", "process", "--payload-dir", "out", cwd=tmp_path)
    assert done.returncode == 2 and "candidate-0.bin is there already" in done.stderr
    assert (tmp_path / "out" / "candidate-0.bin").read_bytes() == b"someone else's file"


def test_a_linked_payload_dir_is_refused_before_the_run(tmp_path):
    (tmp_path / "bytes.py").write_text(PAYLOAD_SCRIPT)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "out").symlink_to(tmp_path / "elsewhere")
    done = cli("bytes.py", "--isolation", "process", "--payload-dir", "out", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert "z3sandbox: error: --payload-dir out: a symbolic link" in done.stderr
    assert "Traceback" not in done.stderr and os.listdir(tmp_path / "elsewhere") == []


def test_a_new_file_is_never_written_through_a_link_or_over_a_file(tmp_path, secret):
    (tmp_path / "linked").symlink_to(secret)
    (tmp_path / "taken").write_bytes(b"there before")
    with Folder.open(tmp_path) as folder:
        assert folder.write_new("linked", b"candidate's bytes") is None
        assert folder.write_new("taken", b"candidate's bytes") is None
        assert folder.write_new("new", b"candidate's bytes") == tmp_path / "new"
        with pytest.raises(FileExistsError):
            folder.create("linked")
    assert secret.read_bytes() == b"the owner's own bytes" and (tmp_path / "linked").is_symlink()
    assert (tmp_path / "taken").read_bytes() == b"there before"
    assert (tmp_path / "new").read_bytes() == b"candidate's bytes"
    assert not [name for name in os.listdir(tmp_path) if name.startswith(".")]


@pytest.mark.parametrize("linked", ["sync", "sync/z3sandbox", "sync/z3sandbox/queue"])
def test_a_linked_sync_folder_is_refused_with_a_clear_error(tmp_path, linked):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / linked).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / linked).symlink_to(elsewhere)
    with pytest.raises(LinkedTarget, match=f"{tmp_path / linked}: a symbolic link"):
        afl_sync([b"AB"], tmp_path / "sync")
    assert os.listdir(elsewhere) == []


def test_the_afl_sync_option_refuses_a_linked_folder_before_the_run(tmp_path):
    from IPython.core.error import UsageError

    from z3sandbox_kernel.jupyter.outcome import afl_writer

    (tmp_path / "sync").mkdir()
    (tmp_path / "sync" / "z3sandbox").symlink_to(tmp_path)
    with pytest.raises(UsageError, match=r"--afl-sync: .*z3sandbox: a symbolic link"):
        afl_writer(str(tmp_path / "sync"), None)


def test_afl_sync_writes_past_a_planted_link_and_leaves_it(tmp_path, secret):
    queue = tmp_path / "sync" / "z3sandbox" / "queue"
    queue.mkdir(parents=True)
    (queue / "id:000000,sha256:0000000000000000").symlink_to(secret)
    (written,) = afl_sync([b"AB"], tmp_path / "sync")
    assert written.name == f"id:000001,sha256:{digest(b'AB')}" and written.read_bytes() == b"AB"
    assert secret.read_bytes() == b"the owner's own bytes"


def test_save_payloads_refuses_a_linked_folder(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "out").symlink_to(tmp_path / "elsewhere")
    result = RunResult(candidates=[CandidateResult(index=0, verdict=Verdict.SAT, payload=b"AB")])
    with pytest.raises(LinkedTarget, match="a symbolic link"):
        result.save_payloads(tmp_path / "out")
    assert os.listdir(tmp_path / "elsewhere") == []


def test_a_linked_record_dir_is_refused_with_a_clear_error(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "runs").symlink_to(tmp_path / "elsewhere")
    with Sandbox(isolation="process") as sandbox, pytest.raises(ValueError, match="a symbolic link"):
        sandbox.run("s.check()\n", record_dir=tmp_path / "runs")
    assert os.listdir(tmp_path / "elsewhere") == []
