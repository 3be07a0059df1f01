"""``python -m z3sandbox_kernel run``: JSON lines, the table, and exit codes (0 ran, 2 usage error,
130/143 after Ctrl-C/SIGTERM)."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from z3sandbox_kernel import CandidateResult

pytestmark = pytest.mark.timeout(120)

SAT = "x = Int('x'); s.add(x > 1, x < 3); s.check()\n"
UNSAT = "x = Int('x'); s.add(x > 1, x < 0); s.check()\n"


def cli(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "z3sandbox_kernel", "run", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=100, env=dict(os.environ))


@pytest.fixture
def files(tmp_path):
    (tmp_path / "sat.py").write_text(SAT)
    (tmp_path / "unsat.py").write_text(UNSAT)
    (tmp_path / "crash.py").write_text("import os\nos._exit(3)\n")
    (tmp_path / "bytes.py").write_text("b = BitVec('byte_1', 8); s.add(b == 0x42); s.check()\n")
    (tmp_path / "f.smt2").write_text("(declare-const x Int)(assert (> x 2))(check-sat)\n")
    return tmp_path


@pytest.mark.parametrize("level", ["kernel", "process"])
def test_json_is_one_object_per_candidate_with_the_result_field_names(files, level):
    done = cli("sat.py", "unsat.py", "crash.py", "--json", "--isolation", level, cwd=files)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 3
    objects = [json.loads(line) for line in lines]
    names = {field.name for field in dataclasses.fields(CandidateResult)}
    for obj in objects:
        assert names <= set(obj), names - set(obj)
    assert [o["verdict"] for o in objects] == ["sat", "unsat", "crashed"]
    assert [o["index"] for o in objects] == [0, 1, 2]
    assert objects[0]["model"] == {"x": 2}
    assert objects[2]["exit_code"] == 3
    assert objects[0]["isolation"]["level"] == level


def test_the_reason_column_takes_the_terminals_width(tmp_path):
    (tmp_path / "long.py").write_text(f"raise ValueError('{'a' * 150}')\n")
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    args = [sys.executable, "-m", "z3sandbox_kernel", "run", "long.py", "--isolation", "process"]
    piped = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=100, env=env)
    wide = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=100,
                          env={**env, "COLUMNS": "250"})
    assert piped.returncode == wide.returncode == 0, piped.stderr + wide.stderr
    # The fixed width: the message wraps under the reason column, whole (issue 41: never cut).
    lines = piped.stdout.splitlines()
    start = next(n for n, line in enumerate(lines) if "ValueError" in line)
    column = lines[start].index("ValueError")
    wrapped = [lines[start]] + [line for line in lines[start + 1:] if not line[:column].strip()]
    reason = "".join(line[column:].strip() for line in wrapped)
    assert "a" * 150 in reason and reason.endswith("(line 1)") and "…" not in reason
    assert len(wrapped) == 3 and all(len(line) - column <= 60 for line in wrapped)
    row = next(line for line in wide.stdout.splitlines() if "a" * 150 in line)
    assert len(row) <= 250 and "(line 1" in row


def test_json_with_k_and_payload_dir(files):
    done = cli("bytes.py", "-k", "3", "--json", "--isolation", "process", "--payload-dir", "out",
               cwd=files)
    assert done.returncode == 0, done.stderr
    objects = [json.loads(line) for line in done.stdout.splitlines()]
    assert [o["verdict"] for o in objects] == ["sat"] * 3
    assert objects[0]["payload"] == "0042"
    assert sorted(p.name for p in (files / "out").iterdir()) == [f"candidate-{i}.bin" for i in range(3)]
    assert (files / "out" / "candidate-0.bin").read_bytes() == b"\x00\x42"


def test_seed_file_is_the_payload_base(files):
    (files / "seed.bin").write_bytes(b"abc")
    done = cli("bytes.py", "--seed-file", "seed.bin", "--json", "--isolation", "process", cwd=files)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["payload"] == b"aBc".hex()


def test_smt2_files_are_smt_lib_without_the_flag(files):
    done = cli("f.smt2", "--json", "--isolation", "process", cwd=files)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["verdict"] == "sat"


def test_a_file_that_looks_like_smt_lib_run_as_python_gets_a_note(files):
    (files / "g.txt").write_text((files / "f.smt2").read_text())
    done = cli("g.txt", "--isolation", "process", cwd=files)
    assert done.returncode == 0, done.stderr
    assert "g.txt looks like SMT-LIB but runs as Python (name it *.smt2 or pass --smt2)" in done.stderr
    assert "syntax_error" in done.stdout


def test_smt2_and_python_files_in_one_run_are_a_usage_error(files):
    done = cli("f.smt2", "sat.py", "--isolation", "process", cwd=files)
    assert done.returncode == 2
    assert "*.smt2 files and Python files in one run" in done.stderr


def test_smt2_flag(files):
    done = cli("f.smt2", "--smt2", "--json", "--isolation", "process", cwd=files)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["verdict"] == "sat"


def test_table_rows_name_each_file_and_its_verdict(files):
    done = cli("sat.py", "unsat.py", "--isolation", "process", cwd=files)
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines() if line.lstrip()[:1].isdigit()]
    assert [row[:3] for row in rows] == [["0", "sat.py", "sat"], ["1", "unsat.py", "unsat"]]
    assert done.stderr == ""  # no progress line: stderr is not a terminal


def test_verbose_cores_and_output_show_everything(files):
    (files / "talk.py").write_text("print('hello from the script')\n" + "x = Int('x')\n" * 3
                                   + "s.add(x > 1)\nraise ValueError('" + "long " * 30 + "end')\n")
    (files / "core.py").write_text("x = Int('x')\ns.add(x > 1)\ns.add(x < 0)\n")
    done = cli("talk.py", "core.py", "-v", "--cores", "--show-output", "--isolation", "process",
               cwd=files)
    assert done.returncode == 0, done.stderr
    assert "long " * 30 + "end" in done.stdout  # the full reason, with -v
    assert "--- stdout of 0 (talk.py) ---\nhello from the script" in done.stdout
    assert "core: line 2: s.add(x > 1); line 3: s.add(x < 0)" in done.stdout


def test_show_output_escapes_control_characters(files):
    """Issue 20: a candidate's "\r", escape sequences or bell never reach the terminal raw."""
    (files / "ctl.py").write_text('print("ab\\rX\\x1b[31mred\\x07\\u2028z")\n')
    done = cli("ctl.py", "--show-output", "--isolation", "process", cwd=files)
    assert done.returncode == 0, done.stderr
    assert "ab\\x0dX\\x1b[31mred\\x07\\u2028z" in done.stdout
    assert not any(ch in done.stdout for ch in "\r\x1b\x07\u2028")


def test_show_output_shows_a_file_name_escaped_in_its_header(files):
    """Issue 41: an OSC 52 sequence (a clipboard write) or a bidi override in a file name is
    shown escaped in the --show-output header, as in the table, never sent to the terminal."""
    name = "evil\x1b]52;c;ZXZpbA==\x07\u202e.py"
    (files / name).write_text('print("hi")\n')
    done = cli(name, "--show-output", "--isolation", "process", cwd=files)
    assert done.returncode == 0, done.stderr
    assert "--- stdout of 0 (evil\\x1b]52;c;ZXZpbA==\\x07\\u202e.py) ---" in done.stdout
    assert not any(ch in done.stdout for ch in "\x1b\x07\u202e")


def test_a_line_break_at_the_start_of_a_stdout_line_draws_no_row(files):
    """Only "\n" ends a line of the table: VT, FF, CR or U+2028 that a candidate printed at the
    start of a line are shown escaped, never as a row of their own."""
    (files / "fake.py").write_text('print("x\\n\\x0b1  sat.py  sat\\n\\u20282  a  sat\\n\\r3  b  sat")\n'
                                   "raise ValueError('no')\n")
    done = cli("fake.py", "--isolation", "process", cwd=files)
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines() if line.lstrip()[:1].isdigit()]
    assert [row[:3] for row in rows] == [["0", "fake.py", "runtime_error"]]
    assert "\\x0b1  sat.py  sat" in done.stdout and "\\u20282" in done.stdout and "\\x0d3" in done.stdout


def test_expected_verdicts_and_scripts_go_to_the_record(files):
    done = cli("sat.py", "unsat.py", "--record", "runs", "--expected", "sat,unsat", "--record-scripts",
               "--isolation", "process", cwd=files)
    assert done.returncode == 0, done.stderr
    (record,) = (files / "runs").glob("*.jsonl")
    header = json.loads(record.read_text().splitlines()[0])
    assert [(c["expected"], c["script"]) for c in header["candidates"]] == [("sat", SAT), ("unsat", UNSAT)]
    typo = cli("sat.py", "--expected", "sta", cwd=files)
    assert typo.returncode == 2 and "'sta' is not a verdict (did you mean sat?)" in typo.stderr


def test_limit_errors_name_the_flag_and_typos_get_a_suggestion(files):
    done = cli("sat.py", "--memory", "1", "--isolation", "process", cwd=files)
    assert done.returncode == 2
    assert "error: --memory 1: not allowed: it must be at least 64 MB" in done.stderr
    typo = cli("sat.py", "--memroy", "100", cwd=files)
    assert typo.returncode == 2
    assert "unrecognized arguments: --memroy 100 (did you mean --memory?)" in typo.stderr


def test_limits_from_flags_apply(files):
    (files / "loop.py").write_text("while True: pass\n")
    done = cli("loop.py", "--wall", "0.5", "--cpu", "5", "--json", "--isolation", "process", cwd=files)
    assert done.returncode == 0, done.stderr
    obj = json.loads(done.stdout)
    assert (obj["verdict"], obj["kill"]) == ("timeout", "wall")


@pytest.mark.parametrize("args", [
    ["sat.py", "--no-such-flag"],
    ["missing.py"],
    ["sat.py", "--memory", "1"],
    ["sat.py", "--wall", "-1"],
    ["sat.py", "--timeout", "soon"],
    ["sat.py", "unsat.py", "-k", "2"],
    ["sat.py", "--jobs", "0"],
    [],
], ids=["bad-flag", "missing-file", "memory-1", "negative-wall", "non-number", "k-with-files",
        "jobs-zero", "no-file"])
def test_usage_errors_exit_2_with_a_message(files, args):
    done = cli(*args, "--isolation", "process", cwd=files)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stdout == ""
    assert "error" in done.stderr


def test_a_failing_candidate_still_exits_0(files):
    done = cli("crash.py", "--isolation", "process", cwd=files)
    assert done.returncode == 0


def test_the_demo_candidates_run_with_their_file_names():
    """The command `make demo` runs (examples/), as a user would type it."""
    root = Path(__file__).resolve().parents[2]
    names = sorted(path.name for path in (root / "examples" / "candidates").glob("*.py"))
    done = cli("--wall", "2", *(f"examples/candidates/{name}" for name in names), cwd=root)
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines() if line.lstrip()[:1].isdigit()]
    assert [row[1] for row in rows] == names
    verdicts = dict((row[1], row[2]) for row in rows)
    assert verdicts["03_syntax_error.py"] == "syntax_error"
    assert verdicts["04_loops.py"] in ("timeout", "cpu_limit")


def test_record_writes_the_run_with_each_file_name(files):
    done = cli("sat.py", "unsat.py", "--record", "runs", "--isolation", "process", cwd=files)
    assert done.returncode == 0, done.stderr
    (record,) = (files / "runs").glob("*.jsonl")
    header, *rest = [json.loads(line) for line in record.read_text().splitlines()]
    assert [c["label"] for c in header["candidates"]] == ["sat.py", "unsat.py"]
    assert sorted(line["verdict"] for line in rest if line["record"] == "candidate") == ["sat", "unsat"]


def test_mcp_help_lists_a_ceiling_per_limit(tmp_path):
    from z3sandbox_kernel.contracts.limits import LIMIT_FIELDS

    done = subprocess.run([sys.executable, "-m", "z3sandbox_kernel", "mcp", "--help"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=100)
    assert done.returncode == 0, done.stderr
    for spec in LIMIT_FIELDS:
        assert "--max-" + spec.name.replace("_", "-") in done.stdout
    assert "--max-candidates" in done.stdout and "--http" in done.stdout
    for flag in ("--max-models", "--allow-origin", "--allow-host", "--allow-remote", "--record-scripts"):
        assert flag in done.stdout

def test_a_payload_dir_that_cannot_take_files_is_a_usage_error_before_the_run(files):
    (files / "taken").write_text("a file")
    done = cli("bytes.py", "--isolation", "process", "--payload-dir", "taken", cwd=files)
    assert (done.returncode, done.stdout) == (2, "")
    assert "z3sandbox: error: --payload-dir taken: not a folder" in done.stderr
    done = cli("bytes.py", "--isolation", "process", "--payload-dir", "taken/inside", cwd=files)
    assert (done.returncode, done.stdout) == (2, "")
    assert "--payload-dir taken/inside: cannot make it" in done.stderr


def test_a_binary_input_file_is_named_in_the_error(files):
    (files / "blob.py").write_bytes(b"x = 1\n\xff\xfe\x00")
    done = cli("sat.py", "blob.py", "--isolation", "process", cwd=files)
    assert (done.returncode, done.stdout) == (2, "")
    assert "z3sandbox: error: blob.py: not UTF-8 text (byte 0xff at offset 6)" in done.stderr


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_ctrl_c_and_sigterm_print_the_partial_table_and_exit_128_plus_the_signal(files, signum, status):
    """--jobs 1: sat.py has its verdict before loop.py starts, and loop.py says it started by
    making a file (at the process level a candidate can write where the user can)."""
    started = files / "started"
    (files / "loop.py").write_text(f"open({str(started)!r}, 'w').close()\nwhile True: pass\n")
    process = subprocess.Popen(
        [sys.executable, "-m", "z3sandbox_kernel", "run", "sat.py", "loop.py", "--jobs", "1",
         "--isolation", "process", "--wall", "60", "--cpu", "60"],
        cwd=files, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not started.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)  # polling a condition, not a timing
        assert started.exists(), process.communicate(timeout=10)
        process.send_signal(signum)
        stdout, stderr = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == status, stderr
    rows = [line.split() for line in stdout.splitlines() if line.lstrip()[:1].isdigit()]
    assert [row[:3] for row in rows] == [["0", "sat.py", "sat"], ["1", "loop.py", "cancelled"]]
    assert f"z3sandbox: stopped by {signal.Signals(signum).name}" in stderr


def test_help_is_plain_text_and_typos_get_the_right_usage_and_a_suggestion(files):
    for args in ([], ["run"], ["install"]):
        shown = subprocess.run([sys.executable, "-m", "z3sandbox_kernel", *args, "--help"],
                               capture_output=True, text=True, timeout=60)
        assert shown.returncode == 0
        assert "``" not in shown.stdout
    typo = cli("sat.py", "--memroy", "100", cwd=files)
    assert typo.stderr.startswith("usage: z3sandbox run ")
    install = subprocess.run([sys.executable, "-m", "z3sandbox_kernel", "install", "--usr"],
                             capture_output=True, text=True, timeout=60)
    assert install.returncode == 2
    assert install.stderr.startswith("usage: z3sandbox install ")
    assert "(did you mean --user?)" in install.stderr
    command = subprocess.run([sys.executable, "-m", "z3sandbox_kernel", "rn", "sat.py"], cwd=files,
                             capture_output=True, text=True, timeout=60)
    assert command.returncode == 2
    assert "error: unknown command 'rn' (did you mean run?)" in command.stderr


def test_progress_is_a_line_now_and_then_when_stderr_is_not_a_terminal():
    from z3sandbox_kernel.contracts.results import RunResult
    from z3sandbox_kernel.presentation.progress import ProgressLine

    stream = io.StringIO()
    line = ProgressLine(stream, lines_s=0.01)
    line.start(RunResult(candidates=[CandidateResult(index=i, verdict=None, state="queued")
                                     for i in range(3)]))
    deadline = time.monotonic() + 30
    while stream.getvalue().count("\n") < 2 and time.monotonic() < deadline:
        time.sleep(0.01)  # polling a condition, not a timing
    line.finish(None)
    lines = stream.getvalue().splitlines()
    assert len(lines) >= 2 and "\r" not in stream.getvalue()
    assert lines[0].startswith("z3sandbox [........................] 0/3 done, ")


def test_plain_runs_the_file_as_python_would(tmp_path):
    (tmp_path / "bare.py").write_text("x = Int('x')\nprint(x)\n")
    done = cli("bare.py", "--plain", "--json", cwd=tmp_path)
    (candidate,) = [json.loads(line) for line in done.stdout.splitlines()]
    assert candidate["verdict"] == "runtime_error"
    assert candidate["error"]["type"] == "NameError" and candidate["error"]["line"] == 1
    done = cli("bare.py", "--json", cwd=tmp_path)
    assert json.loads(done.stdout)["verdict"] == "no_check"
