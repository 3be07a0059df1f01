"""A solver's assertions as the script made them, kept as SMT-LIB text (observer.py says why text).

Each assertion is printed by z3's own benchmark printer when the script asserts it (printing walks
what exists: it makes no term), split into its declarations (kept once each, in order) and its
assert command, and kept per push scope.  A check marks how many assertions each scope held, so
the report's assertions are those of the check even if the script adds more afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from . import models

Mark = tuple[int, ...]


@dataclass
class Mirror:
    """The assertions one solver holds."""

    ctx: Any  # the solver's raw context
    kind: str  # "solver" or "optimize"
    scopes: list[list[str]] = field(default_factory=lambda: [[]])
    declarations: dict[str, None] = field(default_factory=dict)  # in order, each once
    complete: bool = True  # False once only z3 knows them (text, a copy, threads, too large)
    # Why they are not mirrored (``give_up``): said with an answer the checker cannot confirm.
    why: str = ""
    # A user propagator (UserPropagateBase) takes part in its checks: its conflicts and
    # propagations are the script's code, which no checker replays, so an unsat is not re-checked.
    propagator: bool = False
    refs: int = 0  # the script's Python objects holding the solver
    size: int = 0  # characters held

    def add(self, formula: int, literal: int = 0) -> str | None:
        """Mirror ``formula`` (``(=> literal formula)`` and ``literal``, which z3 assumes at every
        check, for an assert_and_track of the script's).  Returns the formula's own SMT-LIB term,
        or None when it is not mirrored."""
        terms = self._printed([formula, literal] if literal else [formula])
        if terms is None:
            return None
        entry = f"(assert {terms[0]})\n"
        if literal:
            entry = f"(assert (=> {terms[1]} {terms[0]}))\n(assert {terms[1]})\n"
        self.scopes[-1].append(entry)
        return terms[0]

    def assumed(self, formulas: list[int]) -> list[str] | None:
        """The asserts of a check's assumptions (``check(a, b)``), which hold for that check only:
        kept by its record, not in a scope.  None when they are not mirrored."""
        terms = self._printed(formulas) if formulas else []
        return None if terms is None else [f"(assert {term})\n" for term in terms]

    def _printed(self, formulas: list[int]) -> list[str] | None:
        """Each formula's SMT-LIB term, its declarations kept once each, in order; None (and the
        mirror given up) when z3's printer cannot write them so that they split apart."""
        if not self.complete:
            return None
        text = models.benchmark(self.ctx, formulas)
        commands = None if text is None else _commands(text)
        asserts = [c for c in commands or () if c.startswith("(assert")]
        if commands is None or len(asserts) != len(formulas):
            # too large or not printable: this solver's models are not verified
            self.give_up("z3's printer could not write an assertion as SMT-LIB that reads back"
                         if text is not None else "its assertions are too large to print")
            return None
        for command in commands:
            if not command.startswith(("(assert", "(set-info", "(check-sat", ";")):
                self.declarations.setdefault(command)
        self.size += len(text or "")
        if self.size > models.MAX_ASSERTIONS_SMT2:
            self.give_up(f"its assertions are over {models.MAX_ASSERTIONS_SMT2 // 1_000_000} MB as SMT-LIB")
            return None
        return [_term(command) for command in asserts]

    def give_up(self, why: str) -> None:
        self.complete, self.scopes, self.declarations = False, [[]], {}
        self.why = self.why or why

    def push(self) -> None:
        self.scopes.append([])

    def pop(self, count: int) -> None:
        del self.scopes[max(1, len(self.scopes) - count):]

    def reset(self) -> None:
        self.scopes, self.declarations, self.complete, self.size, self.why = [[]], {}, True, 0, ""

    def mark(self) -> Mark | None:
        return tuple(len(scope) for scope in self.scopes) if self.complete else None

    def active(self, assumed: tuple[str, ...] = ()) -> tuple[list[str], list[str]] | None:
        """The assert commands the solver holds now (and ``assumed``, a check's assumptions), and
        the declarations they may use (the strings themselves: checks.py tells a text sent before
        by its identity); None if not known."""
        if not self.complete:
            return None
        return [text for scope in self.scopes for text in scope] + list(assumed), list(self.declarations)

    def text(self, mark: Mark, assumed: tuple[str, ...] = ()) -> str | None:
        """The marked assertions (and ``assumed``) as one SMT-LIB script (declarations, then the
        asserts), or None."""
        if not self.complete:
            return None
        asserts = [text for scope, size in zip(self.scopes, mark, strict=False) for text in scope[:size]]
        return models.clean_text("".join(self.declarations) + "".join(asserts) + "".join(assumed))


def _term(command: str) -> str:
    return command.rstrip()[len("(assert"):-1].strip()


def _commands(text: str) -> list[str] | None:
    """The top-level commands of z3's benchmark text: its declarations, each starting a line (z3
    indents the rest), then its asserts, each starting a line with ``(assert`` (z3 may start a line
    of one with a shared subterm's ``(let``).  A string or symbol with a line break followed by
    "(" would break those rules: then None."""
    head, found, tail = text.partition("\n(assert")
    if not found:
        return None
    commands = [c.rstrip("\n") + "\n" for c in head.split("\n(")]
    commands[1:] = ["(" + c for c in commands[1:]]
    commands += ["(assert" + c.rstrip("\n") + "\n" for c in tail.split("\n(assert")]
    if any(c.count("(") != c.count(")") for c in commands if c.startswith("(")):
        return None
    return commands
