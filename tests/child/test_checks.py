"""child/checks.py: each check leaves as a frame when it ends, its assertions as ranges into texts
sent once, within the cap and the byte budget."""

from __future__ import annotations

from typing import Any

import pytest

from z3sandbox_kernel.child import checks, models
from z3sandbox_kernel.protocol import CHECKS_REPORT_BYTES, MAX_CHECKS, join_pairs
from z3sandbox_kernel.zygote.checks import assemble

from .running import run_child


def log() -> tuple[checks.CheckLog, list[dict[str, Any]]]:
    sent: list[dict[str, Any]] = []
    return checks.CheckLog(sent.append), sent


def test_an_enumeration_sends_each_assertion_once_and_each_check_as_ranges():
    check_log, sent = log()
    declaration, first, second = "(declare-fun x () Int)\n", "(assert (> x 0))\n", "(assert (< x 9))\n"
    block = "(assert (not (= x 1)))\n"
    check_log.check(1, lambda: 3, lambda: ([first, second], [declaration]))
    check_log.check(1, lambda: 3, lambda: ([first, second, block], [declaration]))
    assert [frame["asserts"] for frame in sent] == [[first, second], [block]]
    assert [frame["assertions"] for frame in sent] == [[(0, 2)], [(0, 3)]]
    assert sent[1]["declarations"] == [] and sent[1]["declared"] == [(0, 1)]
    rebuilt = assemble(sent)
    assert rebuilt.size(rebuilt.entries[1]) == len(declaration + first + second + block)


def test_ranges_that_name_a_text_twice_are_dropped_not_built():
    """The harness names each text once in a check; a forged frame naming one text 200,000 times
    would make whoever builds the check's text build 200,000 copies (zygote/checks.py)."""
    check_log, sent = log()
    check_log.check(1, lambda: 3, lambda: (["(assert (> x 0))\n"], ["(declare-fun x () Int)\n"]))
    for forged in ([(0, 1)] * 200_000, [(0, 1), (0, 1)], [(1, 1)], [(0, 2)]):
        sent[0]["assertions"] = forged
        entry = assemble(sent).entries[0]
        assert entry["assertions"] is None and assemble(sent).size(entry) is None


def test_a_popped_scope_leaves_a_gap_in_the_ranges():
    assert checks.ranges([0, 1, 2, 5, 6]) == [(0, 3), (5, 7)]


def test_past_the_cap_checks_are_counted_not_sent():
    check_log, sent = log()
    for _ in range(MAX_CHECKS + 5):
        check_log.check(-1, lambda: None, lambda: ([], []))
    assert len(sent) == MAX_CHECKS and check_log.made == MAX_CHECKS + 5
    assert check_log.check(-1, lambda: None, lambda: ([], [])) is None


def test_past_the_byte_budget_a_check_travels_without_assertions_or_model():
    check_log, sent = log()
    big = "(assert " + "x" * CHECKS_REPORT_BYTES + ")\n"
    index = check_log.check(1, lambda: 1, lambda: ([big], []))
    assert sent[0]["assertions"] is None and sent[0]["verdict"] == "sat"
    fields = models.ModelFields(model={"x": 1}, size=CHECKS_REPORT_BYTES + 1)
    check_log.model(index, fields)
    assert len(sent) == 1


def test_unknown_assertions_are_sent_as_none():
    check_log, sent = log()
    check_log.check(0, lambda: 7, lambda: None)
    assert sent[0]["assertions"] is None and sent[0]["verdict"] == "unknown"
    assert assemble(sent).size(assemble(sent).entries[0]) is None


def test_forged_ranges_and_models_of_unsat_checks_are_dropped():
    frames = [{"type": "check", "index": 0, "verdict": "unsat", "line": 1, "asserts": ["(assert false)\n"],
               "declarations": [], "assertions": [(0, 5)], "declared": []},
              {"type": "check_model", "index": 0, "model": {"x": 1}, "byte_constants": [],
               "byte_runs": [], "model_smt2": join_pairs([("x", "1")])}]
    entry = assemble(frames).entries[0]
    assert entry["assertions"] is None and entry["found"] is None


@pytest.mark.usefixtures("prepared")  # run_child forks this process, as the zygote forks itself
def test_past_the_cap_an_enumeration_still_reports_its_last_model() -> None:
    """Models of checks past MAX_CHECKS are not read (nothing would send them: observer.py), but
    the last check's is: it is the answer's."""
    script = ("x = Int('x')\ns = Solver()\ns.add(x >= 0, x < 10000)\n"
              f"for i in range({MAX_CHECKS + 20}):\n"
              "    assert s.check() == sat\n    m = s.model()\n    last = m[x].as_long()\n"
              "    s.add(x != last)\n    del m\n"
              "assert s.check() == sat\nm = s.model()\nfinal = m[x].as_long()\ndel m\nprint(final)\n")
    run = run_child(script)
    assert run.report["outcome"] == "sat" and run.report["checks_made"] == MAX_CHECKS + 21
    assert run.report["model"]["x"] == int(run.stdout.split()[-1])
