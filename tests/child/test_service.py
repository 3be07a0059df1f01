"""One verifier, many checks (child/service.py): each candidate's answer is checked from fresh z3
state, and nothing one answer sends reaches the next check (real z3, in this process)."""

from __future__ import annotations

import resource
from collections.abc import Iterator

import pytest
import z3

from z3sandbox_kernel.child import service
from z3sandbox_kernel.child.verify import parse_assertions
from z3sandbox_kernel.protocol import Limits, VerifyReport, VerifyRequest, join_pairs


def serve(text: str, model: list[list[str]]) -> VerifyReport:
    pairs = join_pairs((name, value) for name, value in model)
    request = VerifyRequest(assertions_smt2=text, model_smt2=pairs, timeout_s=5.0,
                            limits=Limits(verify_s=5.0))
    sent: list[VerifyReport] = []
    service.serve_one(request, 5.0, sent.append)
    service.refresh()  # as the verifier's loop does before its next request (child/bootstrap.py)
    return sent[0]


@pytest.fixture(autouse=True)
def cpu_limit_restored() -> Iterator[None]:
    saved = resource.getrlimit(resource.RLIMIT_CPU)
    yield
    resource.setrlimit(resource.RLIMIT_CPU, saved)


def test_what_one_answer_declared_is_unknown_to_the_next() -> None:
    first = serve("(declare-fun f (Int) Int)(declare-fun x () Int)(assert (= (f x) 3))", [["x", "1"]])
    assert first["verified"] is True
    # The next candidate's text uses f without declaring it: in a shared context it would parse.
    second = serve("(declare-fun y () Int)(assert (= (f y) 3))", [["y", "1"]])
    assert second["verified"] is None and "could not be parsed" in second["reason"]


def test_each_check_gets_a_fresh_main_context() -> None:
    service.rehearse()
    before = z3.main_ctx()
    assert serve("(declare-fun x () Int)(assert (> x 1))", [["x", "2"]])["verified"] is True
    assert z3.main_ctx() is not before


def test_each_check_gets_its_own_cpu_budget_from_now() -> None:
    serve("(declare-fun x () Int)(assert (> x 1))", [["x", "2"]])
    used = sum(resource.getrusage(resource.RUSAGE_SELF)[:2])
    soft, _ = resource.getrlimit(resource.RLIMIT_CPU)
    assert used <= soft <= used + 5.0 + 1.0


@pytest.mark.parametrize("command", [
    '(set-option :regular-output-channel "leak.txt")', "(set-option :timeout 1)", "(eval 1)",
    '(echo "x")', "(push 1)", "(check-sat)", '(include "f.smt2")', "(reset)",
])
def test_the_verifier_gives_z3_no_command_but_declarations_definitions_and_assertions(command: str) -> None:
    with pytest.raises(ValueError, match="does not run"):
        parse_assertions(f"(declare-fun x () Int){command}(assert (> x 1))")


def test_set_info_is_dropped_not_run() -> None:
    parsed = parse_assertions("(set-info :status sat)(set-info :source |x|)(declare-fun x () Int)"
                              "(assert (> x 1))")
    assert [str(formula) for formula in parsed] == ["x > 1"]


def test_an_smt2_scripts_scoping_commands_end_with_its_check() -> None:
    """An SMT-LIB answer's assertions are read by loading its script's scoping commands too
    (set-logic, push, pop, reset: smt2_text.plan_check) into a solver of that answer's own
    context; none of them reaches the next answer's check.  (:global-declarations is kept too, but
    z3's API refuses it once a context exists, in the candidate first: a syntax_error.)"""
    script = ("(set-logic QF_LIA)(declare-fun g () Int)(push 1)(declare-fun h () Int)"
              "(assert (> h 5))(pop 1)(assert (> g 0))(check-sat)(reset)(set-logic QF_LIA)"
              "(declare-fun x () Int)(push 1)(assert (> x 1))(check-sat)")
    request = VerifyRequest(assertions_smt2="", model_smt2=join_pairs([("x", "2")]), timeout_s=5.0,
                            script_smt2=script, limits=Limits(verify_s=5.0))
    sent: list[VerifyReport] = []
    service.serve_one(request, 5.0, sent.append)
    service.refresh()
    assert sent[0]["verified"] is True, sent[0]
    assert sent[0]["model"] == {"x": 2}, sent[0]  # after (reset): only x, asserted in a scope
    # g was declared by that script: in the next answer's context it is unknown, and the logic
    # set there does not keep the next answer's non-linear assertion from being checked.
    unknown = serve("(declare-fun y () Int)(assert (= g y))", [["y", "1"]])
    assert unknown["verified"] is None and "could not be parsed" in unknown["reason"]
    nonlinear = serve("(declare-fun y () Int)(assert (= (* y y) 9))", [["y", "3"]])
    assert nonlinear["verified"] is True, nonlinear
