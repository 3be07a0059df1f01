"""SMT-LIB 2 text as data: one reading of a script, which z3 runs and the verifier checks.

``read`` scans a script as z3's own scanner does (its tokens: comments, strings, quoted symbols,
parentheses; z3 parses the rest) and returns a ``Reading``: the script's top-level commands, each
with the head z3 reads, and the text z3 is given.  That text is the script with every comment
blanked (spaces, the line breaks kept) and every quoted command head written plainly
(``(|reset|)`` is ``(reset  )``), so every line and column stays where the script has it.  The
candidate's child runs that text through z3's front end (smt2.py), and the child and the verifier
cut each check's assertions from the same reading (``plan_check``): what the sandbox reads is
what z3 runs, and a reading z3 would not share is a ``doubt``, which leaves the answer the
candidate's claim.  Hand-written: z3's scanner has no API, and no maintained SMT-LIB reader
matches its rules (a ``""`` escape only, ``\\`` refused in a quoted symbol, and what it does
after an error).

Nothing in this module runs a command.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

# What z3's scanner treats as blank; any other control character is an error to it.
_BLANK = " \t\r\n"
# The characters of a simple symbol (SMT-LIB 2.6, 3.1; z3's scanner: letters, digits, these).
_SYMBOL = re.compile(r"[A-Za-z0-9~!@$%^&*_\-+=<>.?/]+")
_SIMPLE = re.compile(r"[A-Za-z~!@$%^&*_\-+=<>.?/][A-Za-z0-9~!@$%^&*_\-+=<>.?/]*")
# Inside a command only these characters start or end a token the nesting depends on.
_SPECIAL = re.compile(r'[()";|]')
_OUTSIDE = re.compile(r'[^ \t\r\n]')
_ATOM_END = re.compile(r'[ \t\r\n()";|]')


class Smt2SyntaxError(Exception):
    """Unbalanced parentheses, an unterminated string or symbol, or text outside a command.
    ``text``: the script as z3 may be given it (comments blanked as far as it was read), which the
    caller runs for its output."""

    def __init__(self, message: str, line: int, column: int, text: str = "") -> None:
        super().__init__(f"line {line} column {column}: {message}")
        self.line = line
        self.column = column
        self.text = text


@dataclass(frozen=True)
class Command:
    start: int  # offset of "(" in the text
    end: int  # offset just after the matching ")"
    head: str  # "check-sat", "assert", ... as z3 reads it ("" when it reads no symbol there)


@dataclass(frozen=True)
class Reading:
    """A script as z3 reads it, up to and with its first (exit)."""

    text: str  # what z3 is given: comments blanked, quoted heads plain; same lines and columns
    commands: tuple[Command, ...]
    # Why z3 may read the text otherwise than this reading ("" when it cannot): a decisive
    # answer of such a script stays the candidate's claim.
    doubt: str = ""


CHECK_HEADS = ("check-sat", "check-sat-assuming", "check-sat-using")
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
    "set-option", "echo", "exit", *CHECK_HEADS,
    "get-model", "get-value", "get-assignment", "get-assertions", "get-proof", "get-proof-graph",
    "get-unsat-core", "get-unsat-assumptions", "get-info", "get-option", "get-objectives",
    "get-consequences", "simplify", "eval", "display", "labels", "apply", "help", "get-user-tactics",
})
_COMMANDS = LOADED_COMMANDS | UNLOADED_COMMANDS | {"include"}
_KEPT_OPTIONS = frozenset({":global-declarations"})
# Options that change how z3 prints, searches or reports, never what a term means: any other
# option a script sets (z3 takes any of its parameters: :rewriter.hi_div0 false makes a division
# by zero free, :encoding ascii narrows a string's characters) is one the verifier does not apply,
# so it cannot confirm the answer, nor dispute it.
NEUTRAL_OPTIONS = frozenset({
    ":print-success", ":diagnostic-output-channel", ":regular-output-channel", ":interactive-mode",
    ":produce-assertions", ":produce-assignments", ":produce-models", ":produce-proofs",
    ":produce-unsat-assumptions", ":produce-unsat-cores", ":produce-interpolants",
    ":random-seed", ":reproducible-resource-limit", ":verbosity", ":global-declarations",
    ":error-behavior", ":timeout", ":rlimit", ":dump-models", ":model", ":unsat-core", ":proof",
    ":auto-config", ":auto_config", ":smt.random_seed", ":sat.random_seed", ":smt.auto_config",
    ":model_validate", ":model-validate", ":stats", ":trace", ":well-sorted-check",
    ":type-check", ":smt.mbqi", ":smt.relevancy", ":smt.phase_selection", ":parallel.enable",
})
_NEUTRAL_PREFIXES = (":pp.", ":model.", ":opt.", ":trace_file_name", ":verbose")
_OBJECTIVES = frozenset({"maximize", "minimize", "assert-soft"})


@dataclass(frozen=True)
class CheckPlan:
    """What to load into a solver, and whether the text asked for a check at all."""

    text: str  # from_string input: the loaded commands before the check, plus its assumptions
    checks: bool  # the text has a check command
    logic: str | None
    optimize: bool  # (maximize), (minimize) or (assert-soft): only z3's Optimize reads those
    unread: str = ""  # a command before the check that may assert what ``text`` lacks: (include ...)
    doubt: str = ""  # Reading.doubt
    options: tuple[str, ...] = ()  # options set before the check that are not NEUTRAL_OPTIONS
    tactic: str = ""  # (check-sat-using TACTIC): its tactic, which z3 checked with


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


class _Scanner:
    """One pass over a script: its commands, the text z3 is given, and any doubt."""

    def __init__(self, text: str) -> None:
        self.source = text
        self.pieces: list[str] = []  # the text z3 is given, up to ``copied``
        self.copied = 0
        self.doubt = ""

    def given(self, end: int) -> str:
        """The text z3 is given, up to ``end``.  A NUL would end it (z3's API reads a C string):
        z3 is given \x01 in its place, which it reads as it reads a NUL in a file (an unexpected
        character, or a character of a string)."""
        return ("".join(self.pieces) + self.source[self.copied : end]).replace("\x00", "\x01")

    def refuse(self, message: str, offset: int) -> Smt2SyntaxError:
        """The error, with the text to run for its output: blanked as far as it was read."""
        return Smt2SyntaxError(message, *_position(self.source, offset), self.given(len(self.source)))

    def nul(self, end: int) -> None:
        """A NUL before ``end`` outside a comment is a doubt: in a string or a symbol, z3 reads a
        character other than the script's."""
        text = "".join(self.pieces) + self.source[self.copied : end]
        offset = text.find("\x00")
        if offset >= 0 and not self.doubt:
            line, column = _position(text, offset)
            self.doubt = (f"a NUL character (line {line}, column {column}), which z3's API cannot "
                          "be given")

    def replace(self, start: int, end: int, text: str) -> None:
        self.pieces.append(self.source[self.copied : start])
        self.pieces.append(text)
        self.copied = end

    def comment(self, start: int) -> int:
        """Blank the comment at ``start``; the offset of the line break that ends it."""
        end = self.source.find("\n", start)
        end = len(self.source) if end < 0 else end
        self.replace(start, end, " " * (end - start))
        return end

    def string(self, start: int) -> int:
        """The offset after the string at ``start``: z3 reads ``""`` as a quote, nothing else."""
        text, j = self.source, start + 1
        while True:
            end = text.find('"', j)
            if end < 0:
                raise self.refuse("unterminated string", start)
            if text.startswith('"', end + 1):
                j = end + 2
                continue
            return end + 1

    def quoted(self, start: int) -> tuple[int, str | None]:
        """The offset after the quoted symbol at ``start``, and its name (None: z3 refuses it)."""
        text = self.source
        end = text.find("|", start + 1)
        if end < 0:
            raise self.refuse("unterminated quoted symbol", start)
        backslash = text.find("\\", start + 1, end)
        if backslash >= 0:
            # z3 refuses a backslash in a quoted symbol at once and scans on after it: the next
            # "|" opens a symbol where this reading would have closed one.  Read as z3 does, and
            # doubted: its recovery is z3's to change.
            line, column = _position(text, backslash)
            self.doubt = self.doubt or (f"a backslash in a quoted symbol (line {line}, column "
                                        f"{column}), which z3 refuses")
            return backslash + 1, None
        return end + 1, text[start + 1 : end]

    def head(self, start: int) -> tuple[str, int]:
        """The head z3 reads after the "(" at ``start``, past blanks and comments, and the offset
        after it; a quoted head that names a command is written plainly, padded to its length."""
        text, i = self.source, start + 1
        while i < len(text):
            if text[i] in _BLANK:
                i += 1
            elif text[i] == ";":
                i = self.comment(i)
            else:
                break
        if i >= len(text):
            return "", i
        if text[i] == "|":
            end, name = self.quoted(i)
            if name is not None and name in _COMMANDS:
                self.replace(i, end, name.ljust(end - i))
            return name or "", end
        symbol = _SYMBOL.match(text, i)
        if symbol is None or not _SIMPLE.fullmatch(symbol.group()):
            return "", i
        return symbol.group(), symbol.end()

    def commands(self, atoms: bool) -> list[tuple[int, int, str]]:
        """The top-level s-expressions (``atoms``: symbols, strings and the like too) as (start,
        end, head), up to and with a command whose head is ``exit`` unless ``atoms``."""
        text, found, depth, start, i, head = self.source, [], 0, 0, 0, ""
        while True:
            if depth == 0:
                outside = _OUTSIDE.search(text, i)
                if outside is None:
                    break
                begin = outside.start()
                char = text[begin]
                if char == ";":
                    i = self.comment(begin)
                    continue
                if char == "(":
                    start, depth = begin, 1
                    head, i = ("", begin + 1) if atoms else self.head(begin)
                    continue
                if char == ")":
                    raise self.refuse("unexpected ')'", begin)
                i = self.atom(begin)
                if not atoms:
                    raise self.refuse(f"unexpected {text[begin:i][:40]!r} outside a command", begin)
                found.append((begin, i, ""))
                continue
            special = _SPECIAL.search(text, i)
            if special is None:
                raise self.refuse("'(' is never closed", start)
            char, at = special.group(), special.start()
            if char == "(":
                depth, i = depth + 1, at + 1
            elif char == ")":
                depth, i = depth - 1, at + 1
                if depth == 0:
                    found.append((start, i, head))
                    if head == "exit" and not atoms:
                        break
            elif char == ";":
                i = self.comment(at)
            elif char == '"':
                i = self.string(at)
            else:
                i = self.quoted(at)[0]
        return found

    def atom(self, begin: int) -> int:
        """The offset after the atom (a symbol, numeral, keyword, string or quoted symbol) at
        ``begin``, at the top level."""
        char = self.source[begin]
        if char == '"':
            return self.string(begin)
        if char == "|":
            return self.quoted(begin)[0]
        end = _ATOM_END.search(self.source, begin)
        return len(self.source) if end is None else end.start()


@functools.lru_cache(maxsize=8)
def read(text: str) -> Reading:
    """The one reading of ``text``: its commands up to and with its first (exit) (z3 reads no
    further), and the text z3 is given; raises Smt2SyntaxError.  Cached: a child and a verifier
    ask for it once per check."""
    scanner = _Scanner(text)
    found = scanner.commands(atoms=False)
    end = found[-1][1] if found and found[-1][2] == "exit" else len(text)
    scanner.nul(end)
    return Reading(scanner.given(end), tuple(Command(*c) for c in found), scanner.doubt)


def forget_texts() -> None:
    """Between two candidates' checks in one verifier (child/service.py)."""
    read.cache_clear()


def split_commands(text: str) -> list[Command]:
    """The top-level commands of an SMT-LIB 2 script, in order, up to its first (exit); text
    outside them is refused (Smt2SyntaxError)."""
    return list(read(text).commands)


def items(text: str) -> list[str]:
    """The top-level s-expressions of ``text`` as text: symbols, numerals, strings, quoted symbols
    and parenthesised groups, whatever a quoted symbol or a string holds (comments are left out);
    raises Smt2SyntaxError."""
    scanner = _Scanner(text)
    found = scanner.commands(atoms=True)
    given = scanner.given(len(text))
    return [given[start:end] for start, end, _ in found]


def check_lines(text: str) -> list[int]:
    """The line of each check command of ``text``, in order, up to its first (exit); raises
    Smt2SyntaxError."""
    reading = read(text)
    lines, line, counted = [], 1, 0
    for command in reading.commands:
        if command.head in CHECK_HEADS:
            line, counted = line + reading.text.count("\n", counted, command.start), command.start
            lines.append(line)
    return lines


def plan_check(text: str, objectives: bool = True, check: int = -1,
               core: frozenset[str] | None = None) -> CheckPlan:
    """The assertions to check for the ``check``-th check command of ``text`` (from 0; -1, the
    last), as the commands of ``LOADED_COMMANDS`` before it (without (maximize), (minimize) and
    (assert-soft) unless ``objectives``: they constrain no model), cut from the text z3 is given;
    with ``core`` (names, as ``assertion_name`` gives them), only the named assertions it names
    and every unnamed one, as SMT-LIB's (get-unsat-core) means them; raises Smt2SyntaxError, and
    IndexError when the text has no such check."""
    reading = read(text)
    given, commands = reading.text, reading.commands
    checks = [c for c in commands if c.head in CHECK_HEADS]
    chosen = checks[check] if check != -1 or checks else None
    before = commands if chosen is None else [c for c in commands if c.end <= chosen.start]
    logic = None
    options: list[str] = []
    for command in before:
        if command.head == "set-logic":
            words = items(given[command.start + 1 : command.end - 1])
            logic = words[1].strip("|") if len(words) > 1 else logic
        elif command.head == "set-option":
            words = items(given[command.start + 1 : command.end - 1])
            name = words[1] if len(words) > 1 else ""
            if not _neutral(name) and name not in options:
                options.append(name[:60])
        elif command.head == "reset":
            options.clear()  # (reset) sets every option back
    optimize = any(c.head in _OBJECTIVES for c in before)
    kept = [given[c.start : c.end] for c in before
            if _loaded(given, c) and (objectives or c.head not in _OBJECTIVES)
            and (core is None or c.head != "assert" or assertion_name(given, c) in (core | {""}))]
    tactic = ""
    if chosen is not None and chosen.head != "check-sat-using":
        # (check-sat-assuming (l1 l2 ...)) and z3's (check-sat l1 l2 ...): the literals hold for
        # this one check only.
        parts = items(given[chosen.start + 1 : chosen.end - 1])
        literals = parts[1:]
        if chosen.head == "check-sat-assuming":
            group = parts[1] if len(parts) == 2 else ""
            literals = [group[1:-1]] if group.startswith("(") and group.endswith(")") else []
        if literals:
            kept.append(f"(assert (and true {' '.join(literals)}))")
    elif chosen is not None:
        tactic = " ".join(items(given[chosen.start + 1 : chosen.end - 1])[1:])[:200]
    unread = next((c.head or "?" for c in before
                   if c.head not in LOADED_COMMANDS and c.head not in UNLOADED_COMMANDS), "")
    return CheckPlan("\n".join(kept), chosen is not None, logic, optimize, unread, reading.doubt,
                     tuple(options), tactic)


def assertion_name(text: str, command: Command) -> str:
    """The name of an (assert (! F :named N)) (its symbol without |quotes|), or ""."""
    parts = items(text[command.start + 1 : command.end - 1])
    formula = parts[1] if len(parts) == 2 else ""
    if not (formula.startswith("(") and formula.endswith(")")):
        return ""
    inner = items(formula[1:-1])
    if not inner or inner[0] != "!":
        return ""
    for key, value in zip(inner[2::2], inner[3::2], strict=False):
        if key == ":named":
            return symbol_name(value)
    return ""


def symbol_name(symbol: str) -> str:
    """A symbol as z3 compares them: ``|a b|`` and ``a b``, ``|x|`` and ``x`` are one."""
    return symbol[1:-1] if len(symbol) >= 2 and symbol[0] == symbol[-1] == "|" else symbol


def _neutral(option: str) -> bool:
    return option in NEUTRAL_OPTIONS or option.startswith(_NEUTRAL_PREFIXES)


def _loaded(text: str, command: Command) -> bool:
    if command.head == "set-option":
        parts = items(text[command.start + 1 : command.end - 1])
        return len(parts) == 3 and parts[1] in _KEPT_OPTIONS
    return command.head in LOADED_COMMANDS
