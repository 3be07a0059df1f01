"""SMT-LIB text as data (child/smt2_text.py): the commands a script is split into, and the items
of one, read past comments, strings and quoted symbols; text z3 would not read as a command is
refused with its line and column."""

from __future__ import annotations

import pytest

from z3sandbox_kernel.child.smt2_text import Smt2SyntaxError, items, plan_check, split_commands

SCRIPT = """; a comment with ( and )
(declare-const |a b)| Int) (assert (= |a b)| 1))
(echo "a ) in a string, and a "" quote")
(check-sat)
"""


def test_commands_are_found_past_comments_strings_and_quoted_symbols():
    commands = split_commands(SCRIPT)
    assert [c.head for c in commands] == ["declare-const", "assert", "echo", "check-sat"]
    assert [SCRIPT[c.start:c.end] for c in commands][:2] == ["(declare-const |a b)| Int)",
                                                              "(assert (= |a b)| 1))"]
    assert SCRIPT[commands[2].start:commands[2].end] == '(echo "a ) in a string, and a "" quote")'


@pytest.mark.parametrize(("text", "message", "position"), [
    ("(check-sat)\nx", "unexpected 'x' outside a command", (2, 1)),
    ('(check-sat) "a string"', "unexpected '\"a string\"' outside a command", (1, 13)),
    ("(check-sat)\n  |a symbol|", "unexpected '|a symbol|' outside a command", (2, 3)),
    ("(check-sat))", "unexpected ')'", (1, 12)),
    ("\n(assert (> x 1)", "'(' is never closed", (2, 1)),
    ('(echo "no end)', "unterminated string", (1, 7)),
    ("(declare-const |x Int)", "unterminated quoted symbol", (1, 16)),
])
def test_text_outside_a_command_is_refused_with_its_position(text, message, position):
    with pytest.raises(Smt2SyntaxError) as refused:
        split_commands(text)
    assert (str(refused.value), (refused.value.line, refused.value.column)) == (
        f"line {position[0]} column {position[1]}: {message}", position)


def test_items_are_atoms_and_groups_whatever_a_string_or_symbol_holds():
    assert items('set-option :x "a ) ""b"" (" ; ( not an item\n |q ( r| (f (g 1)) 2.5') == [
        "set-option", ":x", '"a ) ""b"" ("', "|q ( r|", "(f (g 1))", "2.5"]
    assert items("") == []
    with pytest.raises(Smt2SyntaxError, match="never closed"):
        items("(a (b)")


def test_a_check_sat_assuming_asserts_its_literals_for_its_check_only():
    plan = plan_check("(declare-const p Bool)(declare-const q Bool)(check-sat-assuming (p (not q)))"
                      "(check-sat)", check=0)
    assert plan.checks and plan.text.endswith("(assert (and true p (not q)))")
    assert "assert" not in plan_check("(declare-const p Bool)(check-sat-assuming (p))(check-sat)").text
