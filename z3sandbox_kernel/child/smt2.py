"""SMT-LIB 2 candidates: split the text into commands and find what the last (check-sat) checks.

z3's ``Solver.from_string`` runs declarations, definitions, assertions and push/pop, but ignores
(check-sat).  So the assertions in scope at the last (check-sat) are exactly what ``from_string``
loads from the text *before* that command, and the verdict is one check of them: earlier
(check-sat)s cannot change it and are not run.  The splitter only knows tokens (comments, strings,
quoted symbols) and parentheses; z3 parses everything else, so its messages and positions are what
the user sees.

Not handled: z3 does not see the commands after the last (check-sat), so an error there (say, a
(get-value) of an undeclared name) is not reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import z3

from ..protocol import ChildReport

# z3's parser errors look like: (error "line 4 column 20: unknown constant a")
_POSITION = re.compile(r"line (\d+) column (\d+)")
_HEAD = re.compile(r"\(\s*([^\s()\";|]+)")


class Smt2SyntaxError(Exception):
    """Unbalanced parentheses, an unterminated string or symbol, or text outside a command."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(f"line {line} column {column}: {message}")
        self.line = line
        self.column = column


@dataclass(frozen=True)
class Command:
    start: int  # offset of "(" in the text
    end: int  # offset just after the matching ")"
    head: str  # "check-sat", "assert", ...


@dataclass(frozen=True)
class CheckPlan:
    """What to load into a solver, and whether the text asked for a check at all."""

    text: str  # from_string input: everything before the last check, plus its assumptions
    checks: bool  # the text has a (check-sat) or (check-sat-assuming ...)
    logic: str | None
    optimize: bool  # (maximize), (minimize) or (assert-soft): only z3's Optimize reads those


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _skip_token(text: str, i: int) -> int:
    """The offset after the comment, string or quoted symbol starting at ``i``."""
    char = text[i]
    if char == ";":
        end = text.find("\n", i)
        return len(text) if end < 0 else end
    closing = '"' if char == '"' else "|"
    j = i + 1
    while True:
        end = text.find(closing, j)
        if end < 0:
            what = "string" if char == '"' else "quoted symbol"
            raise Smt2SyntaxError(f"unterminated {what}", *_position(text, i))
        if char == '"' and text.startswith('""', end):
            j = end + 2  # "" is an escaped quote inside a string
            continue
        return end + 1


def split_commands(text: str) -> list[Command]:
    """The top-level commands of an SMT-LIB 2 script, in order."""
    commands: list[Command] = []
    depth, start, i = 0, 0, 0
    special = re.compile(r'[();"|]|[^\s();"|]+')
    while True:
        match = special.search(text, i)
        if match is None:
            break
        token, i = match.group(), match.end()
        if token in (";", '"', "|"):
            i = _skip_token(text, match.start())
        elif token == "(":
            if depth == 0:
                start = match.start()
            depth += 1
        elif token == ")":
            if depth == 0:
                raise Smt2SyntaxError("unexpected ')'", *_position(text, match.start()))
            depth -= 1
            if depth == 0:
                head = _HEAD.match(text, start)
                commands.append(Command(start, i, head.group(1) if head else ""))
        elif depth == 0:
            raise Smt2SyntaxError(f"unexpected {token[:40]!r} outside a command",
                                  *_position(text, match.start()))
    if depth:
        raise Smt2SyntaxError("'(' is never closed", *_position(text, start))
    return commands


def plan_check(text: str) -> CheckPlan:
    """The assertions to check for the last (check-sat) of ``text``; raises Smt2SyntaxError."""
    commands = split_commands(text)
    logic = None
    for command in commands:
        words = text[command.start + 1 : command.end - 1].split()
        if command.head == "set-logic" and len(words) > 1:
            logic = words[1].strip("|")
    optimize = any(c.head in ("maximize", "minimize", "assert-soft") for c in commands)
    checks = [c for c in commands if c.head in ("check-sat", "check-sat-assuming")]
    if not checks:
        return CheckPlan(text, False, logic, optimize)
    last = checks[-1]
    prefix = text[: last.start]
    if last.head == "check-sat-assuming":
        # (check-sat-assuming (l1 l2 ...)): the literals hold for this one check only.
        body = text[last.start + 1 : last.end - 1].strip()[len(last.head) :].strip()
        if body.startswith("(") and body.endswith(")"):
            prefix += f"\n(assert (and true {body[1:-1]}))"
    return CheckPlan(prefix, True, logic, optimize)


def run(text: str, memory_words: tuple[str, ...] = ("out of memory",)) -> ChildReport | None:
    """Load ``text`` and check what its last (check-sat) checks (through the instrumented check(),
    which records the result).  A report for text z3 rejects; None when it checked, or when there
    was nothing to check.  Other exceptions propagate to the caller."""
    try:
        plan = plan_check(text)
    except Smt2SyntaxError as exc:
        return {"outcome": "syntax_error", "reason": str(exc), "line": exc.line,
                "column": exc.column}
    solver = z3.Optimize() if plan.optimize else _solver_for(plan.logic)
    try:
        solver.from_string(plan.text)
        if plan.checks or len(solver.assertions()):
            solver.check()
    except z3.Z3Exception as exc:
        message = error_message(exc.value)
        if any(word in message for word in memory_words):
            return {"outcome": "memory_error", "reason": message}
        line, column = error_position(message)
        return {"outcome": "syntax_error", "reason": message[:3000], "line": line,
                "column": column}
    return None


def _solver_for(logic: str | None) -> Any:
    """The solver z3's own SMT-LIB front end would pick for the declared logic."""
    if logic:
        try:
            return z3.SolverFor(logic)
        except z3.Z3Exception:
            pass
    return z3.Solver()


def error_position(message: str) -> tuple[int | None, int | None]:
    """Line and column from a z3 parser message, when it has them."""
    match = _POSITION.search(message)
    if match is None:
        return None, None
    return int(match.group(1)), int(match.group(2))


def error_message(raw: object) -> str:
    """z3's parser error text without the (error "...") wrapping."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    text = text.strip()
    match = re.fullmatch(r'\(error "(.*)"\)', text, re.DOTALL)
    return match.group(1) if match else text


def warm(ctx: z3.Context) -> None:
    """Warm the SMT-LIB path in ``ctx`` (not z3's main context): the splitter and z3's parser."""
    plan_check("(declare-const y Int)(check-sat)")
    z3.Solver(ctx=ctx).from_string("(declare-const y Int)(assert (> y 0))")
