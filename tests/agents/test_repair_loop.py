"""The repair loop settles only on what was asked for (``until``, ``expected``), lets the generator
ask for limits within the ceilings, and its feedback carries the check history, the time against
the limits, an unexpected unsat's core and what no verifier checked; z3's own frames stay out."""

from __future__ import annotations

import json
import re

import pytest

from z3sandbox_kernel import Limits, RunResult, Sandbox, Verdict, repair
from z3sandbox_kernel.agents.feedback import compact_repeats, without_z3_frames
from z3sandbox_kernel.agents.repair import Attempt, Feedback
from z3sandbox_kernel.host.records import read_record

pytestmark = [pytest.mark.timeout(180), pytest.mark.usefixtures("zygote_is_clean")]

QUICK = Limits(timeout_s=1, wall_s=3, cpu_s=3)
SAT = "x = Int('x')\ns.add(x > 1)\nprint(s.check())\n"
HARD = "x, y, z = Ints('x y z')\ns.add(x > 0, y > 0, z > 0)\ns.add(x**3 + y**3 == z**3)\n"


def loop(scripts: list[object], sandbox: Sandbox, **options: object) -> tuple[RunResult, list[Feedback]]:
    """repair() over a fixed list of answers (the last one repeated): the result and every
    feedback the generator got."""
    seen: list[Feedback] = []

    def generate(feedback: Feedback | None) -> object:
        if feedback is not None:
            seen.append(feedback)
        return scripts[min(len(seen), len(scripts) - 1)]

    options.setdefault("limits", QUICK)
    return repair(generate, rounds=options.pop("rounds", 3), sandbox=sandbox, **options), seen  # type: ignore[arg-type]


# Scripts that read a verified model and still fail: the old loop settled on each in round 1.
FAIL_AFTER_A_MODEL = {
    "runtime_error_after_a_model": "x = Int('x')\ns.add(x > 1)\ns.check()\nprint(s.model()[x].as_int())\n",
    "enumeration_killed_by_the_wall": ("x = Int('x')\ns.add(x > 1)\nwhile s.check() == sat:\n"
                                       "    m = s.model()\n    print(m[x])\n    s.add(x != m[x])\n"),
    "enumeration_then_raise": ("x = Int('x')\ns.add(x >= 0, x < 3)\nwhile s.check() == sat:\n"
                               "    s.add(x != s.model()[x])\nraise SystemExit('done badly')\n"),
    "model_then_output_flood": ("x = Int('x')\ns.add(x > 1)\ns.check()\nm = s.model()\n"
                                "while True:\n    print('x' * 10000)\n"),
}


@pytest.mark.parametrize("name", sorted(FAIL_AFTER_A_MODEL))
def test_the_loop_does_not_settle_on_a_failure_that_read_a_model(kernel_sandbox: Sandbox, name: str):
    broken = FAIL_AFTER_A_MODEL[name]
    result, seen = loop([broken, SAT], kernel_sandbox, limits=Limits(timeout_s=1, wall_s=2, cpu_s=2,
                                                                      output_max_mb=1))
    first = result.rounds[0][0]
    assert any(check.verified for check in first.checks)  # it did read a verified model
    assert len(result.rounds) == 2 and len(seen) == 1 and result.verdict is Verdict.SAT
    assert "checks: line " in seen[0].text()
    old_rule, _ = loop([broken, SAT], kernel_sandbox, until="any_model",
                       limits=Limits(timeout_s=1, wall_s=2, cpu_s=2, output_max_mb=1))
    assert len(old_rule.rounds) == 1  # the rule of earlier versions, on request


def test_an_enumeration_that_ends_on_its_own_settles(kernel_sandbox: Sandbox):
    script = "x = Int('x')\ns.add(x >= 0, x < 3)\nwhile s.check() == sat:\n    s.add(x != s.model()[x])\n"
    result, seen = loop([script], kernel_sandbox)
    assert len(result.rounds) == 1 and not seen and result.verdict is Verdict.UNSAT


def test_until_may_be_a_callable_of_the_result(kernel_sandbox: Sandbox):
    result, seen = loop([SAT, SAT, SAT], kernel_sandbox, until=lambda run: len(run[0].stdout) > 100)
    assert len(result.rounds) == 3 and len(seen) == 2
    with pytest.raises(ValueError, match="until must be one of clean, expected, any_model"):
        repair(lambda feedback: SAT, until="anything", sandbox=kernel_sandbox)


INT_FOR_REAL = "x = Int('x')\ns.add(2 * x == 3)\ns.add(x > 0)\nprint(s.check())\n"
INT_FOR_REAL_SQRT = "x, y = Ints('x y')\ns.add(x * x == 2)\ns.add(y == x + 1)\nprint(s.check())\n"
DIVIDE = "n = Int('n')\ns.add(n > 0)\ns.add(n * 4 == 10)\nprint(s.check())\n"


@pytest.mark.parametrize("broken", [INT_FOR_REAL, INT_FOR_REAL_SQRT, DIVIDE])
def test_expected_steers_an_unexpected_unsat_gets_its_core(kernel_sandbox: Sandbox, broken: str, tmp_path):
    fixed = broken.replace("Int", "Real")
    result, seen = loop([broken, fixed], kernel_sandbox, expected="sat", record_dir=tmp_path)
    assert [r.verdict for r in result.rounds] == [Verdict.UNSAT, Verdict.SAT]
    text = seen[0].text()
    assert "candidate 0: unsat (expected sat)" in text
    core_line = next(line for line in text.split("\n") if line.startswith("unsat core"))
    conflicting = {number for number, line in enumerate(broken.split("\n"), 1) if "==" in line}
    assert any(f"line {number}: " in core_line for number in conflicting)
    assert sorted(path.stem for path in tmp_path.glob("*.jsonl")) == [r.run_id for r in result.rounds]
    without, _ = loop([broken, fixed], kernel_sandbox)  # no expected: a confirmed unsat is an answer
    assert len(without.rounds) == 1


def test_a_sat_where_unsat_was_expected_goes_on(kernel_sandbox: Sandbox):
    unsat = "x = Int('x')\ns.add(x > 1, x < 0)\nprint(s.check())\n"
    result, seen = loop([SAT, unsat], kernel_sandbox, expected=["unsat"])
    assert [r.verdict for r in result.rounds] == [Verdict.SAT, Verdict.UNSAT]
    assert "candidate 0: sat (expected unsat)" in seen[0].text()


def test_the_generator_may_ask_for_limits_within_the_ceilings(kernel_sandbox: Sandbox, tmp_path):
    slow = "import time\ntime.sleep(1.5)\n" + SAT
    answers = [slow, Attempt(slow, {"wall_s": 4, "cpu_s": 3}), Attempt(slow, {"wall_s": 60})]
    result, seen = loop(answers, kernel_sandbox, limits=Limits(timeout_s=1, wall_s=1, cpu_s=1),
                        ceilings=Limits(timeout_s=2, wall_s=5, cpu_s=3), until=lambda run: False,
                        record_dir=tmp_path, rounds=4)
    assert [r.limits.wall_s for r in result.rounds] == [1, 4, 5, 5]
    assert [r.verdict for r in result.rounds] == [Verdict.TIMEOUT, Verdict.SAT, Verdict.SAT, Verdict.SAT]
    first = seen[0].text()
    assert "Limits of the round: timeout_s 1 s, wall_s 1 s, cpu_s 1 s" in first
    assert "A round may ask for up to: timeout_s 2 s, wall_s 5 s, cpu_s 3 s" in first
    assert re.search(r"time: [\d.]+ s wall, [\d.]+ s CPU: most of it was spent waiting", first)
    headers = [read_record(tmp_path / f"{r.run_id}.jsonl")[0] for r in result.rounds]
    assert [header["limits"]["wall_s"] for header in headers] == [1, 4, 5, 5]
    assert "The generator asked for wall_s 60; the round ran with its ceiling, 5." in seen[-1].text()
    with pytest.raises(ValueError, match="unknown limits: wall"):
        repair(lambda feedback: Attempt(SAT, {"wall": 3}), sandbox=kernel_sandbox)


def test_the_check_history_says_why_a_check_was_unknown(kernel_sandbox: Sandbox):
    python = HARD + "r = s.check()\nprint(r)\nm = s.model()\n"
    smt2 = ("(declare-const x Int)(declare-const y Int)(declare-const z Int)\n"
            "(assert (and (> x 0) (> y 0) (> z 0)))\n"
            "(assert (= (+ (* x x x) (* y y y)) (* z z z)))\n(check-sat)\n")
    _, seen = loop([python], kernel_sandbox, rounds=2)
    text = seen[0].text()
    assert "checks: line 4 unknown (solver timeout 1 s)" in text
    assert "error: Z3Exception on line 6: model is not available" in text
    _, seen = loop([smt2], kernel_sandbox, rounds=2, language="smt2")
    assert "checks: line 4 unknown (solver timeout 1 s)" in seen[0].text()


def test_the_check_history_is_one_line_with_the_checks_kept(kernel_sandbox: Sandbox):
    same = ("x = Int('x')\ns.add(x > 1)\nfor i in range(300):\n    s.check()\n    m = s.model()\n"
            "raise ValueError('no')\n")
    distinct = ("x = Int('x')\ns.add(x >= 0, x < 5)\nwhile s.check() == sat:\n    s.add(x != s.model()[x])\n"
                "print(s.check())\nraise ValueError('no')\n")
    _, seen = loop([same], kernel_sandbox, rounds=2)
    (line,) = [row for row in seen[0].text().split("\n") if row.startswith("checks:")]
    assert line == "checks: line 4 sat x100 (the same model each time: x=2); 100 of its 300 checks kept"
    _, seen = loop([distinct], kernel_sandbox, rounds=2)
    (line,) = [row for row in seen[0].text().split("\n") if row.startswith("checks:")]
    assert line == "checks: line 3 sat x5 (5 distinct models), then line 3 unsat, then line 5 unsat"


def test_z3s_own_frames_stay_in_stderr_out_of_the_feedback(kernel_sandbox: Sandbox):
    scripts = ["x = Int('x')\ns.add(x > 1 and x < 5)\n", "x = Int('x')\ns.check()\nm = Solver().model()\n",
               "a, b = BitVec('a', 8), BitVec('b', 16)\ns.add(a + b == 1)\n"]
    for script in scripts:
        result, seen = loop([script], kernel_sandbox, rounds=2)
        assert 'z3.py", line' in result.rounds[0][0].stderr
        block = seen[0].text()
        assert "z3.py" not in block and "of z3's own code left out]" in block
        assert 'File "candidate.py", line' in block


def test_what_no_verifier_checked_is_in_the_feedback(kernel_sandbox: Sandbox):
    optimize = "x = Int('x')\no = Optimize()\no.add(x < 10)\no.maximize(x)\nprint(o.check())\n"
    _, seen = loop([optimize], kernel_sandbox, rounds=2, verify=False, until=lambda run: False)
    text = seen[0].text()
    assert "unconfirmed: the run did not verify answers (verify=False)" in text
    assert "maximize x = 9: the candidate's claim, not checked by a verifier" in text


def test_labels_and_one_expected_verdict_carry_to_every_round(kernel_sandbox: Sandbox, tmp_path):
    result, _ = loop(["x = Int('x'\n", SAT], kernel_sandbox, labels=["task-7"], expected="sat",
                     record_dir=tmp_path)
    assert [r[0].label for r in result.rounds] == ["task-7", "task-7"]
    headers = [json.loads((tmp_path / f"{r.run_id}.jsonl").read_text().split("\n")[0]) for r in result.rounds]
    assert [h["candidates"][0]["expected"] for h in headers] == ["sat", "sat"]


def test_repeated_lines_are_counted_and_z3_frames_named_once():
    assert compact_repeats("a\n" + "2\n" * 50 + "b") == "a\n2\n2\n[the line above 48 more times]\nb"
    assert compact_repeats("2\n2\n2\n") == "2\n2\n2\n"
    trace = ('Traceback (most recent call last):\n  File "candidate.py", line 2, in <module>\n    s.add(x)\n'
             '  File "/usr/lib/python3/dist-packages/z3/z3.py", line 408, in __bool__\n'
             '    raise Z3Exception("...")\n    ^^^^^\nz3.z3types.Z3Exception: ...\n')
    assert without_z3_frames(trace) == ('Traceback (most recent call last):\n  File "candidate.py", line 2, '
                                        "in <module>\n    s.add(x)\n  [1 frame of z3's own code left out]\n"
                                        "z3.z3types.Z3Exception: ...\n")


def test_k_seeds_of_an_unexpected_unsat_each_get_the_core(kernel_sandbox: Sandbox):
    _, seen = loop([INT_FOR_REAL], kernel_sandbox, k=3, expected="sat", rounds=2)
    blocks = [candidate.text() for candidate in seen[0].candidates]
    core = "unsat core (the assertions that conflict): line 2: "
    assert len(blocks) == 3 and all(core in block for block in blocks)
