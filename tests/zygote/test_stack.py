"""Where a limit stopped a script: its CPU, wall and output kills name the line it was running,
from the stack the child writes when warned (child/stack.py), and say so when none came.

Real candidates in a real zygote, at both isolation levels.  The limits are generous where the
other limit must not come first: a CPU loop gets a long wall clock, a sleep loop no CPU to speak of.
"""

from __future__ import annotations

import pytest

from z3sandbox_kernel import Limits, Sandbox, Verdict

pytestmark = [pytest.mark.timeout(180), pytest.mark.usefixtures("zygote_is_clean")]

CPU_LOOP = "from z3 import *\nx = Int('x')\nn = 0\nwhile True:\n    n += 1\n"
SLEEP_LOOP = "import time\nready = False\nwhile not ready:\n    time.sleep(0.01)\n"
# The flood never leaves show(): the handler runs between two bytecodes, so a loop in the module
# around a call would let it land, now and then, on the module's own line.
PRINT_FLOOD = ("x = [7, 0, 0, 0, 0, 0]\n\ndef show(row):\n    while True:\n        print('x:', row)\n\n"
               "show(x)\n")


def test_a_cpu_loop_names_its_line(sandbox: Sandbox):
    candidate = sandbox.run(CPU_LOOP, limits=Limits(cpu_s=1, wall_s=120))[0]
    assert candidate.verdict is Verdict.CPU_LIMIT and candidate.kill == "cpu"
    assert candidate.error["line"] in (4, 5)
    assert f"(line {candidate.error['line']}, as the script reported)" in candidate.reason
    assert candidate.error["message"] == candidate.reason


def test_a_sleep_loop_names_its_line(sandbox: Sandbox):
    # Three seconds: the request to write the stack must find the script in its loop, past the
    # harness's set-up, however slowly a loaded machine starts it.
    candidate = sandbox.run(SLEEP_LOOP, limits=Limits(wall_s=3))[0]
    assert candidate.verdict is Verdict.TIMEOUT and candidate.kill == "wall"
    line = candidate.error["line"]
    assert line in (3, 4)  # in the sleep, or testing the loop's condition between two
    assert candidate.error == {"type": "timeout", "line": line,
                               "message": f"wall-clock limit of 3 s (line {line}, as the script reported)"}


def test_a_print_flood_names_its_innermost_line(sandbox: Sandbox):
    candidate = sandbox.run(PRINT_FLOOD, limits=Limits(output_max_mb=1, wall_s=120))[0]
    assert candidate.verdict is Verdict.OUTPUT_LIMIT and candidate.kill == "output"
    # In show(), not its caller on line 7: printing (line 5), or looping back (line 4).
    line = candidate.error["line"]
    assert line in (4, 5)
    assert candidate.reason.endswith(f"(line {line}, as the script reported)")


def test_a_kill_whose_stack_could_not_be_taken_says_so(sandbox: Sandbox):
    script = "import signal, time\nsignal.signal(signal.SIGRTMIN + 2, signal.SIG_IGN)\nwhile True:\n" \
             "    time.sleep(0.01)\n"
    candidate = sandbox.run(script, limits=Limits(wall_s=3))[0]  # past line 2, as above
    assert candidate.verdict is Verdict.TIMEOUT and candidate.kill == "wall"
    assert candidate.error["line"] is None
    assert candidate.reason == "wall-clock limit of 3 s (the script's stack could not be taken)"


def test_a_forged_sigxcpu_stack_is_not_a_cpu_limit(sandbox: Sandbox):
    """The stack is the candidate's word: one that says SIGXCPU came, with no CPU time spent, is
    killed for it and told it was not the limit."""
    script = ("import os, signal, struct, json\n"
              "body = json.dumps({'v': 1, 'type': 'stack', 'signal': int(signal.SIGXCPU), "
              "'lines': [[2, '<module>']]}).encode()\n"
              "os.write(3, struct.pack('>I', len(body)) + body)\n"
              "import time\ntime.sleep(30)\n")
    candidate = sandbox.run(script, limits=Limits(cpu_s=5, wall_s=60))[0]
    assert candidate.verdict is Verdict.CRASHED
    assert "not by the sandbox's limit" in candidate.reason
