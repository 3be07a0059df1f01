"""One reading of an SMT-LIB script (child/smt2_text.py): what z3 runs is what the sandbox read and
what the verifier checks.  A command head that is quoted or follows a comment, a NUL in a comment,
a backslash in a quoted symbol: each run here against ``z3 file.smt2``, whose answer a confirmed
verdict must be, and whose output the candidate's must be."""

from __future__ import annotations

import pytest

from z3sandbox_kernel import Limits, Verdict

from .fuzz import plain_smt2

pytestmark = [pytest.mark.timeout(180), pytest.mark.usefixtures("zygote_is_clean")]

LIMITS = Limits(timeout_s=5, wall_s=20)
DECLARE = "(declare-const x Int)\n"
# Each a command z3 runs under a head the old reader read as "": the sandbox confirmed a problem
# z3 never solved.
HIDDEN_HEADS = {
    "quoted reset": "(assert false)\n(|reset|)\n" + DECLARE + "(assert (> x 5))\n(check-sat)\n",
    "quoted pop": DECLARE + "(push 1)\n(assert false)\n(|pop| 1)\n(assert (> x 5))\n(check-sat)\n",
    "commented reset-assertions": "(assert false)\n(; c\nreset-assertions)\n" + DECLARE
                                  + "(assert (> x 5))\n(check-sat)\n",
    "quoted last check": DECLARE + "(assert (> x 5))\n(check-sat)\n(assert false)\n(|check-sat|)\n",
    "quoted assert": DECLARE + "(|assert| false)\n(check-sat)\n",
    "commented assert": DECLARE + "(assert (> x 5))\n(;c\nassert (< x 0))\n(check-sat)\n",
    "assert with the output moved": DECLARE + '(set-option :regular-output-channel "stdout")\n'
                                    "(;c\nassert false)\n(check-sat)\n",
    "blank before the head": DECLARE + "(\tassert false)\n(\r\n check-sat)\n",
    "NUL in a comment": DECLARE + "; a \x00 b\n(assert (> x 5))\n(check-sat)\n(assert false)\n(check-sat)\n",
    "quoted symbol holding a command": "(declare-const |) (assert false) (| Int)\n"
                                       "(assert (> |) (assert false) (| 2))\n(check-sat)\n",
    "string holding a quote and a command": '(echo "a "" ) (assert false) (echo "" b")\n'
                                            + DECLARE + "(check-sat)\n",
}


@pytest.mark.parametrize("text", list(HIDDEN_HEADS.values()), ids=list(HIDDEN_HEADS))
def test_a_verdict_is_the_answer_z3_gave_to_the_commands_it_ran(sandbox, text):
    [plain] = plain_smt2([text])
    [candidate] = sandbox.run(text, language="smt2", limits=LIMITS)
    assert plain.answer in ("sat", "unsat")
    assert candidate.verdict is Verdict(plain.answer), candidate.reason
    assert candidate.confirmed_by == ("z3",)
    # z3's API writes to the process's stdout, not its result, once a script moves the channel
    assert candidate.stdout == (plain.output if "output-channel" in text else plain.front_end)


def test_two_forged_candidates_do_not_outvote_an_honest_one(sandbox):
    forged = "(assert false)\n(|reset|)\n" + DECLARE + "(assert (> x 5))\n(check-sat)\n"
    honest = DECLARE + "(assert (> x 5))\n(check-sat)\n"
    result = sandbox.run([forged, forged, honest], language="smt2", limits=LIMITS)
    assert [candidate.verdict for candidate in result] == [Verdict.SAT] * 3
    assert result.verdict is Verdict.SAT


@pytest.mark.parametrize("maximized", ["(|maximize| x)", "(; c\nmaximize x)"])
def test_an_objective_is_the_optimum_z3_found(sandbox, maximized):
    text = (DECLARE + "(assert (<= x 10))\n(; c\nassert (<= x 3))\n" + maximized
            + "\n(check-sat)\n(get-objectives)\n")
    [plain] = plain_smt2([text])
    assert "(x 3)" in plain.output
    [candidate] = sandbox.run(text, language="smt2", limits=LIMITS)
    assert candidate.verdict is Verdict.SAT and candidate.model["x"] == 3
    assert [(goal["term"], goal["value"], goal["checked"]) for goal in candidate.objectives] == [
        ("x", 3, True)]


def test_a_backslash_in_a_quoted_symbol_leaves_the_answer_unread(sandbox):
    """z3 refuses the backslash and scans on after it, so the next | opens a symbol where a naive
    reader closes one: the reading is doubtful, and the answer is not the sandbox's to give."""
    text = (DECLARE + "(assert (> x 5))\n(check-sat)\n"
            "(echo |a\\| (reset) (assert false) (check-sat) |)\n")
    [plain] = plain_smt2([text])
    [candidate] = sandbox.run(text, language="smt2", limits=LIMITS)
    assert candidate.stdout == plain.front_end
    assert candidate.verdict is not Verdict.UNSAT and not candidate.confirmed_by


def test_a_nul_outside_a_comment_is_read_as_z3_reads_it_in_a_file(sandbox):
    text = DECLARE + "(assert (> x \x00 5))\n(check-sat)\n"
    [plain] = plain_smt2([text])
    [candidate] = sandbox.run(text, language="smt2", limits=LIMITS)
    assert "unexpected character" in plain.output
    assert candidate.stdout == plain.output
    assert candidate.verdict is Verdict.SYNTAX_ERROR


def test_a_recursive_definition_is_checked_as_z3_read_it(sandbox):
    """The verifier parses the script's own commands: z3's printer writes a define-fun-rec that
    its parser does not read back."""
    text = ("(define-fun-rec fact ((n Int)) Int (ite (<= n 0) 1 (* n (fact (- n 1)))))\n"
            "(declare-const y Int)\n(assert (= (fact y) 6))\n(check-sat)\n")
    [candidate] = sandbox.run(text, language="smt2", limits=LIMITS)
    assert candidate.verdict is Verdict.SAT and candidate.model["y"] == 3
    assert candidate.confirmed_by == ("z3",), candidate.reason
