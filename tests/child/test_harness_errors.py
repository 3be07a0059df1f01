"""The harness in a real forked child: what a candidate's report says of its errors, its exits and
what the audit hook refused (tests/child/running.py forks it).
"""

from __future__ import annotations

import pytest

from .running import run_child

pytestmark = pytest.mark.usefixtures("prepared")


def test_syntax_error_has_line_and_column() -> None:
    run = run_child("x = Int('x')\nif x >\n")
    assert run.report["outcome"] == "syntax_error"
    assert (run.report["line"], run.report["column"]) == (2, 7)
    assert "SyntaxError" in run.report["reason"] and "line 2" in run.report["reason"]


def test_runtime_error_names_the_line_and_source() -> None:
    run = run_child("x = 1\n\ndef f(n):\n    return n / 0\n\nf(x)\n")
    assert run.report["outcome"] == "exception"
    assert run.report["exception"] == {"type": "ZeroDivisionError",
                                       "message": "division by zero", "line": 4}
    assert run.report["reason"].startswith(
        "ZeroDivisionError: division by zero (line 4: `return n / 0`)")
    assert "line 6 in <module>: `f(x)`" in run.report["reason"]


def test_huge_exception_message_is_capped() -> None:
    run = run_child("raise ValueError('x' * 1_000_000)\n")
    message = run.report["exception"]["message"]
    assert len(message) < 2100 and message.endswith("[truncated 998000 chars]")
    assert len(run.report["reason"]) < 3100


def test_z3_exception_message_is_text() -> None:
    run = run_child("x = Int('x')\ns.add(x + 1)\n")
    assert run.report["exception"]["type"] == "Z3Exception"
    assert run.report["exception"]["line"] == 2
    assert not run.report["exception"]["message"].startswith("b'")


def test_deep_recursion_is_an_exception_with_a_short_traceback() -> None:
    run = run_child("def f(n):\n    return f(n + 1)\nf(0)\n")
    assert run.report["outcome"] == "exception"
    assert run.report["exception"]["type"] == "RecursionError"
    assert "line 2 in f: `return f(n + 1)` (" in run.report["reason"]


def test_memory_error_is_memory_error() -> None:
    run = run_child("x = Int('x')\ns.add(x > 0)\ns.check()\nraise MemoryError()\n")
    assert run.report["outcome"] == "memory_error"
    assert run.report["reason"] == "MemoryError (line 4: `raise MemoryError()`)"


def test_a_permission_error_is_the_scripts_exception_not_a_refusal() -> None:
    """The child never says ``blocked``: only the sandbox's own observation can (its init counts
    seccomp's refusals), and a script can raise any PermissionError itself."""
    run = run_child("raise PermissionError(13, 'Permission denied', '/etc/shadow')\n")
    assert run.report["outcome"] == "exception"
    assert run.report["exception"]["type"] == "PermissionError"
    assert run.report["reason"].startswith(
        "PermissionError: [Errno 13] Permission denied: '/etc/shadow'")


def test_audit_hook_refuses_os_system_and_a_caught_refusal_leaves_the_answer() -> None:
    run = run_child("import os\ntry:\n    os.system('printf e%sd scape')\nexcept Exception as e:\n"
                    "    print(e)\nx = Int('x')\ns.add(x > 0)\ns.check()\n")
    assert run.report["outcome"] == "sat"
    assert "escaped" not in run.stdout
    assert "blocked by the sandbox: os.system is not allowed" in run.stdout


def test_audit_hook_refuses_sockets_and_subprocesses_with_an_exception_naming_them() -> None:
    sock = run_child("import socket\nsocket.socket(socket.AF_UNIX)\n")
    child = run_child("import subprocess\nsubprocess.run(['true'])\n")
    forked = run_child("import os\nos.fork()\n")
    for run, event, line in ((sock, "socket.__new__", 2), (child, "subprocess.Popen", 2),
                             (forked, "os.fork", 2)):
        assert run.report["outcome"] == "exception", run.report
        assert run.report["exception"]["type"] == "PermissionError"
        assert run.report["exception"]["line"] == line
        assert f"blocked by the sandbox: {event}" in run.report["reason"]


def test_sys_exit_zero_ends_the_script_normally() -> None:
    run = run_child("import sys\nx = Int('x')\ns.add(x == 1)\ns.check()\nsys.exit(0)\n")
    assert run.report["outcome"] == "sat"


def test_sys_exit_nonzero_is_an_exception() -> None:
    run = run_child("import sys\nsys.exit(1)\n")
    assert run.report["exception"] == {"type": "SystemExit",
                                       "message": "the script called sys.exit(1)", "line": 2}


def test_print_goes_to_stdout_and_a_printed_verdict_changes_nothing() -> None:
    run = run_child("import sys\nprint('sat')\nprint('oops', file=sys.stderr)\n"
                    "x = Int('x')\ns.add(x > 1, x < 0)\ns.check()\n")
    assert run.stdout == "sat\n" and run.stderr == "oops\n"
    assert run.report["outcome"] == "unsat"


def test_report_survives_lone_surrogates() -> None:
    run = run_child("raise ValueError('bad \\udcff text')\n")
    assert run.report["exception"]["message"] == "bad \\udcff text"
