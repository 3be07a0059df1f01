"""The zygote's classify(): what the OS saw comes before what the child said."""

from __future__ import annotations

import signal

import pytest

from z3sandbox_kernel import Limits, Verdict
from z3sandbox_kernel.protocol.roles import Kill
from z3sandbox_kernel.zygote.classify import Observation, classify, failed

LIMITS = Limits(timeout_s=2, wall_s=5, cpu_s=3, memory_mb=256)
SETUP = {"type": "setup", "layers": [{"name": "rlimits", "active": True}], "error": None}
EXITED_0 = 0
SAT_REPORT = {"outcome": "sat", "model": {"x": 1}, "byte_constants": []}


def observe(**fields) -> Observation:
    fields.setdefault("setup", SETUP)
    fields.setdefault("wait_status", EXITED_0)
    return Observation(index=0, limits=LIMITS, level="process", seed=None, **fields)


def verdict(obs: Observation) -> tuple[Verdict, str, str | None]:
    out = classify(obs)
    return Verdict(out["verdict"]), out["reason"], out["kill"]


def test_failed_verification_is_invalid_model_with_the_model_kept():
    out = classify(observe(report=SAT_REPORT, verified=False, verify_reason="the model violates x > 5"))
    assert out["verdict"] == "invalid_model"
    assert out["reason"] == "the model violates x > 5"
    assert out["verified"] is False
    assert out["model"] == {"x": 1}
    assert out["payload_hex"] is None


def test_undecided_verification_leaves_sat():
    out = classify(observe(report=SAT_REPORT, verified=None))
    assert (out["verdict"], out["verified"]) == ("sat", None)


@pytest.mark.parametrize(("kill", "expected"), [
    ("wall", (Verdict.TIMEOUT, "wall")),
    ("output", (Verdict.OUTPUT_LIMIT, "output")),
    ("race", (Verdict.CANCELLED, "race")),
    ("cancel", (Verdict.CANCELLED, "cancel")),
    ("interrupt", (Verdict.CANCELLED, "interrupt")),
])
def test_zygote_kills_beat_the_childs_report(kill, expected):
    got, _, got_kill = verdict(observe(kill=kill, report=SAT_REPORT, wait_status=signal.SIGKILL))
    assert (got, got_kill) == expected


SECCOMP_SETUP = {**SETUP, "layers": [*SETUP["layers"], {"name": "seccomp", "active": True}]}
FILE_SIZE = LIMITS.file_size_mb << 20


@pytest.mark.parametrize(("signum", "seen", "expected", "kill"), [
    (signal.SIGXCPU, {"cpu_s": 3.0}, Verdict.CPU_LIMIT, "cpu"),
    (signal.SIGKILL, {"cpu_s": 4.0}, Verdict.CPU_LIMIT, "cpu"),
    (signal.SIGKILL, {"cpu_s": 0.1}, Verdict.CRASHED, None),
    (signal.SIGXFSZ, {"scratch_largest": FILE_SIZE}, Verdict.OUTPUT_LIMIT, "file_size"),
    (signal.SIGSYS, {"setup": SECCOMP_SETUP}, Verdict.BLOCKED, "seccomp"),
    (signal.SIGSEGV, {}, Verdict.CRASHED, None),
])
def test_signals_beat_the_childs_report(signum, seen, expected, kill):
    got, _, got_kill = verdict(observe(wait_status=signum, report=SAT_REPORT, **seen))
    assert (got, got_kill) == (expected, kill)


@pytest.mark.parametrize(("signum", "seen", "said"), [
    (signal.SIGXCPU, {"cpu_s": 0.004}, "under the CPU-time limit of 3 s"),
    (signal.SIGXFSZ, {"scratch_largest": 10}, "largest file in scratch holds 10 bytes"),
    (signal.SIGXFSZ, {}, "could not be measured"),
    (signal.SIGSYS, {}, "seccomp is not active"),
])
def test_a_limit_signal_the_sandbox_did_not_see_is_a_crash(signum, seen, said):
    """Issue 20: a candidate that sends itself SIGXCPU after 4 ms is not cpu_limit."""
    got, reason, kill = verdict(observe(wait_status=signum, report=SAT_REPORT, **seen))
    assert (got, kill) == (Verdict.CRASHED, None)
    assert said in reason and "sent it to itself" in reason


@pytest.mark.parametrize(("report", "seen", "expected", "kill"), [
    ({"outcome": "memory_error", "reason": "MemoryError"}, {}, Verdict.RUNTIME_ERROR, None),
    ({"outcome": "memory_error", "reason": "MemoryError"}, {"peak_rss_mb": 200}, Verdict.MEMORY_LIMIT,
     "memory"),
    ({"outcome": "unknown", "reason": "out of memory"}, {}, Verdict.UNKNOWN, None),
    ({"outcome": "exception", "reason": "OSError: [Errno 28] No space left on device",
      "exception": {"type": "OSError", "message": "[Errno 28] No space left on device", "line": 1}},
     {"scratch_free_bytes": 50 << 20}, Verdict.RUNTIME_ERROR, None),
    ({"outcome": "exception", "reason": "OSError: [Errno 28] No space left on device",
      "exception": {"type": "OSError", "message": "[Errno 28] No space left on device", "line": 1}},
     {"scratch_free_bytes": 0}, Verdict.OUTPUT_LIMIT, "disk"),
    ({"outcome": "exception", "reason": "OSError: [Errno 28] No space left on device",
      "exception": {"type": "OSError", "message": "[Errno 28] No space left on device", "line": 1}},
     {"scratch_free_bytes": 1 << 20, "scratch_free_inodes": 0}, Verdict.OUTPUT_LIMIT, "disk"),
])
def test_a_limit_is_believed_only_when_the_sandbox_saw_it(report, seen, expected, kill):
    """``raise MemoryError()`` and ``raise OSError(28)`` are not limits unless the memory (rusage)
    or the scratch tmpfs (measured by the candidate's init) says so."""
    got, _, got_kill = verdict(observe(report=report, **seen))
    assert (got, got_kill) == (expected, kill)


def test_segfault_at_the_memory_limit_is_memory_limit():
    got, reason, kill = verdict(observe(wait_status=signal.SIGSEGV, peak_rss_mb=300, baseline_rss_mb=60))
    assert (got, kill) == (Verdict.MEMORY_LIMIT, "memory")
    assert "256 MB" in reason


def test_setup_error_is_internal_error():
    got, reason, _ = verdict(observe(setup={**SETUP, "error": "required layer seccomp failed"}))
    assert (got, reason) == (Verdict.INTERNAL_ERROR, "required layer seccomp failed")


def test_no_setup_frame_is_internal_error():
    got, reason, _ = verdict(observe(setup=None, wait_status=121 << 8))
    assert got is Verdict.INTERNAL_ERROR
    assert "before user code ran" in reason


def test_exit_without_report_is_crashed():
    got, reason, _ = verdict(observe(wait_status=3 << 8))
    assert got is Verdict.CRASHED
    assert "exited with code 3" in reason


@pytest.mark.parametrize(("report", "expected", "kill"), [
    ({"outcome": "unknown", "reason": "timeout", "solver_timeout": True}, Verdict.TIMEOUT, "solver"),
    ({"outcome": "unknown", "reason": "incomplete quantifiers"}, Verdict.UNKNOWN, None),
    ({"outcome": "no_check"}, Verdict.NO_CHECK, None),
    ({"outcome": "blocked", "reason": "os.fork"}, Verdict.RUNTIME_ERROR, None),  # the child's word
    ({"outcome": "exception", "reason": "ValueError: x"}, Verdict.RUNTIME_ERROR, None),
    ({"outcome": "syntax_error", "reason": "bad", "line": 2, "column": 5}, Verdict.SYNTAX_ERROR, None),
    ({"outcome": "made-up"}, Verdict.INTERNAL_ERROR, None),
])
def test_child_outcomes(report, expected, kill):
    got, _, got_kill = verdict(observe(report=report))
    assert (got, got_kill) == (expected, kill)


def test_unknown_reason_is_passed_through():
    assert verdict(observe(report={"outcome": "unknown", "reason": "(incomplete quantifiers)"}))[1] \
        == "(incomplete quantifiers)"


def test_syntax_error_position_is_added_once():
    _, reason, _ = verdict(observe(report={"outcome": "syntax_error", "reason": "bad", "line": 2,
                                           "column": 5}))
    assert reason == "bad (line 2, column 5)"
    _, reason, _ = verdict(observe(report={"outcome": "syntax_error", "reason": "bad (line 2, column 5)",
                                           "line": 2, "column": 5}))
    assert reason == "bad (line 2, column 5)"


def test_reason_is_capped():
    _, reason, _ = verdict(observe(report={"outcome": "exception", "reason": "E" * 5000}))
    assert reason.startswith("E" * 2000)
    assert len(reason) < 2100


def test_model_only_travels_with_sat():
    out = classify(observe(report={"outcome": "unsat", "model": {"x": 1}, "unsat_core": [[1, "a"]]}))
    assert out["model"] is None
    assert out["unsat_core"] == [[1, "a"]]


def test_measurements_and_streams_come_from_the_observation():
    out = classify(observe(report=SAT_REPORT, wall_s=1.25, cpu_s=0.5, peak_rss_mb=70.123,
                           stdout=b"caf\xc3\xa9 \xff", stdout_truncated=True))
    assert (out["wall_s"], out["cpu_s"], out["peak_rss_mb"]) == (1.25, 0.5, 70.12)
    assert out["stdout"] == "café \\xff"
    assert out["stdout_truncated"] is True
    assert out["isolation"] == {"level": "process", "layers": SETUP["layers"]}
    assert out["output_truncated"] is True


def test_z3s_own_out_of_memory_exit_is_memory_limit():
    got, reason, kill = verdict(observe(wait_status=101 << 8, stderr=b"ERROR: out of memory\n",
                                        peak_rss_mb=250))
    assert (got, kill) == (Verdict.MEMORY_LIMIT, "memory")
    assert "out of memory" in reason and "256 MB" in reason


def test_exit_101_without_z3s_message_is_crashed():
    got, reason, _ = verdict(observe(wait_status=101 << 8, stderr=b"my own error\n"))
    assert got is Verdict.CRASHED and "code 101" in reason


def test_a_zygote_that_died_gives_internal_error_not_cancelled():
    got, reason, _ = verdict(observe(kill="died", kill_detail="ValueError: boom", report=SAT_REPORT,
                                     wait_status=signal.SIGKILL))
    assert got is Verdict.INTERNAL_ERROR
    assert reason == "the sandbox process died: ValueError: boom"


def test_hex_only_byte_constants_travel_on_to_the_host():
    report = {"outcome": "sat", "model": {"x": 1, "byte_0": 65}, "byte_constants": [],
              "byte_runs": [[0, "4142"], [4, "ff"]]}
    out = classify(observe(report=report))
    assert out["model"] == {"x": 1, "byte_0": 65}  # the host puts the rest back (expand_model)
    assert out["byte_runs"] == [[0, "4142"], [4, "ff"]]
    assert out["payload_hex"] == "41420000ff"


def test_failed_uses_nothing_the_child_said():
    out = failed(observe(report=SAT_REPORT, stdout=b"hi"), "its result could not be sent")
    assert (out["verdict"], out["reason"], out["model"]) == ("internal_error",
                                                              "its result could not be sent", None)
    assert out["stdout"] == "hi"


def test_a_kill_after_the_scripts_sigxcpu_is_the_cpu_limit_only_if_its_cpu_time_says_so():
    """The zygote kills (Kill.CPU) when the script says SIGXCPU came (child/stack.py): its word,
    believed only with the CPU time the sandbox measured."""
    spent = classify(observe(kill=Kill.CPU, wait_status=signal.SIGKILL, cpu_s=2.9,
                             stack=[(1, "<module>"), (4, "spin")]))
    assert (spent["verdict"], spent["kill"]) == ("cpu_limit", "cpu")
    assert spent["reason"].endswith("(line 4, as the script reported)")
    assert spent["error"]["line"] == 4
    forged = classify(observe(kill=Kill.CPU, wait_status=signal.SIGKILL, cpu_s=0.1, stack=[(2, "<module>")]))
    assert forged["verdict"] == "crashed" and "not by the sandbox's limit" in forged["reason"]
    unread = classify(observe(kill=Kill.CPU, wait_status=None, cpu_s=0.0))
    assert unread["verdict"] == "cpu_limit" and "could not be read" in unread["reason"]
    assert unread["signal"] == signal.SIGKILL and unread["error"]["line"] is None


def test_a_wall_kill_without_a_stack_says_it_could_not_be_taken():
    out = classify(observe(kill=Kill.WALL, wait_status=None))
    assert out["reason"] == "wall-clock limit of 5 s (the script's stack could not be taken)"
    assert out["error"] == {"type": "timeout", "line": None, "message": out["reason"]}


PERMISSION = {"outcome": "exception", "reason": "PermissionError: seccomp denied (line 1: `raise`)",
              "exception": {"type": "PermissionError", "message": "seccomp denied", "line": 1}}


def test_a_permission_error_without_an_observed_refusal_is_a_runtime_error():
    for refused, note in ((0, "the sandbox observed no refused system call"),
                          (-1, "no refusal was observed")):
        got, reason, _ = verdict(observe(report=PERMISSION, refused_calls=refused))
        assert got is Verdict.RUNTIME_ERROR
        assert reason.startswith("PermissionError: seccomp denied (line 1") and note in reason


def test_blocked_needs_the_refusals_its_init_counted():
    got, reason, kill = verdict(observe(report=PERMISSION, refused_calls=3, first_refused=-1))
    assert (got, kill) == (Verdict.BLOCKED, None)
    assert reason.startswith("seccomp refused 3 system calls (the first: ")
    assert reason.endswith("as the candidate's init observed; then PermissionError: seccomp denied "
                           "(line 1: `raise`)")
