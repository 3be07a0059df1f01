"""SMT-LIB 2 text as data: its tokens, its top-level commands, and what its last check asserts.

Only tokens (comments, strings, quoted symbols) and parentheses are known here; z3 parses the
rest.  Nothing in this module runs a command: it decides which text z3 is given.  The candidate's
child (smt2.py) and the verifier (verify.py) read a script the same way, so the verifier checks
what the candidate's check checked, from the text the zygote holds.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

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

    text: str  # from_string input: the loaded commands before the last check, plus its assumptions
    checks: bool  # the text has a (check-sat) or (check-sat-assuming ...)
    logic: str | None
    optimize: bool  # (maximize), (minimize) or (assert-soft): only z3's Optimize reads those
    unread: str = ""  # a command before the check that may assert what ``text`` lacks: (include ...)


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


_TOKEN = re.compile(r'[();"|]|[^\s();"|]+')
_SPECIAL = re.compile(r'[();"|]')


def split_commands(text: str) -> list[Command]:
    """The top-level commands of an SMT-LIB 2 script, in order; text outside them is refused."""
    commands: list[Command] = []
    for start, end in _top_level(text, atoms=False):
        head = _HEAD.match(text, start)
        commands.append(Command(start, end, head.group(1) if head else ""))
    return commands


def _top_level(text: str, atoms: bool) -> Iterator[tuple[int, int]]:
    """The offsets of ``text``'s top-level s-expressions, comments left out; an atom (symbol,
    numeral, string, quoted symbol) among them is refused unless ``atoms``.  Hand-written: only
    the nesting is needed, and z3 parses the rest."""
    depth, start, i = 0, 0, 0
    while True:
        # Inside parentheses only parentheses, strings, quoted symbols and comments matter: the
        # regular expression skips symbols and numerals without a match each (half the time on
        # large scripts); at the top level, any token is found.
        match = (_TOKEN if depth == 0 else _SPECIAL).search(text, i)
        if match is None:
            break
        token, begin, i = match.group(), match.start(), match.end()
        if token in (";", '"', "|"):
            i = _skip_token(text, begin)
            if token == ";" or depth:
                continue
        elif token == "(":
            if depth == 0:
                start = begin
            depth += 1
            continue
        elif token == ")":
            if depth == 0:
                raise Smt2SyntaxError("unexpected ')'", *_position(text, begin))
            depth -= 1
            if depth == 0:
                yield start, i
            continue
        if not atoms:
            raise Smt2SyntaxError(f"unexpected {text[begin:i][:40]!r} outside a command",
                                  *_position(text, begin))
        yield begin, i
    if depth:
        raise Smt2SyntaxError("'(' is never closed", *_position(text, start))


CHECK_HEADS = ("check-sat", "check-sat-assuming")
# What a check's assertions are made of: the commands that declare, define, assert, scope or set
# the logic.  Nothing else of the script is given to z3 again: an (echo), a (get-model) or a
# (set-option :regular-output-channel "f") would print or write, and cannot change what is asserted
# (:global-declarations can: it keeps declarations past a (pop)).
LOADED_COMMANDS = frozenset({
    "set-logic", "set-info", "declare-sort", "define-sort", "declare-fun", "declare-const",
    "define-fun", "define-const", "define-fun-rec", "define-funs-rec", "declare-datatype",
    "declare-datatypes", "declare-codatatypes", "assert", "push", "pop", "reset", "reset-assertions",
    "maximize", "minimize", "assert-soft",
})
# Commands that print, ask, set options or check, and change no assertion: left out of ``text``.
# Any other command z3 knows before the check -- (include "f") reads assertions from a file the
# script may have written with (echo) -- means the text alone does not say what was asserted.
UNLOADED_COMMANDS = frozenset({
    "set-option", "echo", "exit", "check-sat", "check-sat-assuming", "check-sat-using",
    "get-model", "get-value", "get-assignment", "get-assertions", "get-proof", "get-proof-graph",
    "get-unsat-core", "get-unsat-assumptions", "get-info", "get-option", "get-objectives",
    "get-consequences", "simplify", "eval", "display", "labels", "apply", "help", "get-user-tactics",
})
_KEPT_OPTIONS = frozenset({":global-declarations"})
_OBJECTIVES = frozenset({"maximize", "minimize", "assert-soft"})


def until_exit(text: str, commands: list[Command]) -> tuple[str, list[Command]]:
    """The text and commands z3 reads: up to and including the first (exit)."""
    for index, command in enumerate(commands):
        if command.head == "exit":
            return text[: command.end], commands[: index + 1]
    return text, commands


def plan_check(text: str, objectives: bool = True, check: int = -1) -> CheckPlan:
    """The assertions to check for the ``check``-th (check-sat) of ``text`` (from 0; -1, the last;
    up to its first (exit)), as the commands of ``LOADED_COMMANDS`` before it (without (maximize),
    (minimize) and (assert-soft) unless ``objectives``: they constrain no model); raises
    Smt2SyntaxError, and IndexError when the text has no such check."""
    text, commands = read_commands(text)
    checks = [c for c in commands if c.head in CHECK_HEADS]
    chosen = checks[check] if check != -1 or checks else None
    before = commands if chosen is None else [c for c in commands if c.end <= chosen.start]
    logic = None
    for command in before:
        words = text[command.start + 1 : command.end - 1].split()
        if command.head == "set-logic" and len(words) > 1:
            logic = words[1].strip("|")
    optimize = any(c.head in _OBJECTIVES for c in before)
    kept = [text[c.start : c.end] for c in before
            if _loaded(text, c) and (objectives or c.head not in _OBJECTIVES)]
    if chosen is not None and chosen.head == "check-sat-assuming":
        # (check-sat-assuming (l1 l2 ...)): the literals hold for this one check only.
        parts = items(text[chosen.start + 1 : chosen.end - 1])
        if len(parts) == 2 and parts[1].startswith("(") and parts[1].endswith(")"):
            kept.append(f"(assert (and true {parts[1][1:-1]}))")
    unread = next((c.head for c in before
                   if c.head not in LOADED_COMMANDS and c.head not in UNLOADED_COMMANDS), "")
    return CheckPlan("\n".join(kept), chosen is not None, logic, optimize, unread)


def forget_texts() -> None:
    """Between two candidates' checks in one verifier (child/service.py)."""
    _READ.clear()


_READ: dict[str, tuple[str, list[Command]]] = {}


def read_commands(text: str) -> tuple[str, list[Command]]:
    """``until_exit`` of the text's commands, split once for the plans of its several checks and
    their lines (a verifier or a child asks one per check), and known again for the text up to
    its (exit), which the caller goes on with; raises Smt2SyntaxError."""
    found = _READ.get(text)
    if found is None:
        found = until_exit(text, split_commands(text))
        if len(_READ) >= 4:
            _READ.clear()
        _READ[text] = _READ[found[0]] = found
    return found


def check_lines(text: str) -> list[int]:
    """The line of each (check-sat) and (check-sat-assuming) of ``text``, in order, up to its
    first (exit); raises Smt2SyntaxError."""
    text, commands = read_commands(text)
    lines, line, counted = [], 1, 0
    for command in commands:
        if command.head in CHECK_HEADS:
            line, counted = line + text.count("\n", counted, command.start), command.start
            lines.append(line)
    return lines


def _loaded(text: str, command: Command) -> bool:
    if command.head == "set-option":
        parts = items(text[command.start + 1 : command.end - 1])
        return len(parts) == 3 and parts[1] in _KEPT_OPTIONS
    return command.head in LOADED_COMMANDS


def items(text: str) -> list[str]:
    """The top-level s-expressions of ``text`` as text: symbols, numerals, strings, quoted symbols
    and parenthesised groups, whatever a quoted symbol or a string holds; raises Smt2SyntaxError."""
    return [text[start:end] for start, end in _top_level(text, atoms=True)]


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

