"""An SMT-LIB script's (get-unsat-core), as z3 printed it for the script: which named assertions
it names, and where they are.  The candidate's child asks z3 for it in private when the script
asked (smt2.py); the verifier checks those assertions alone (confirm.py)."""

from __future__ import annotations

from ..protocol import SHOWN_CORE_MAX_ENTRIES, ChildReport
from .smt2_text import CHECK_HEADS, Command, Smt2SyntaxError, assertion_name, items, read, symbol_name


def named_assertions(text: str, check: int = -1) -> dict[str, int]:
    """Each named assertion before the ``check``-th check, by name: its line."""
    reading = read(text)
    checks = [c for c in reading.commands if c.head in CHECK_HEADS]
    chosen = checks[check] if checks else None
    found: dict[str, int] = {}
    for command in reading.commands:
        if chosen is not None and command.end > chosen.start:
            break
        if command.head == "assert":
            name = assertion_name(reading.text, command)
            if name:
                found.setdefault(name, reading.text.count("\n", 0, command.start) + 1)
    return found


def asks_core(commands: list[Command], last: Command) -> bool:
    """The script asks for its last check's unsat core ((get-unsat-core) after it)."""
    return any(c.head == "get-unsat-core" and c.start > last.start for c in commands)


def core_names(printed: str) -> list[str] | None:
    """The names of a (get-unsat-core) response, ``(a |b c|)``; None when it is not one."""
    printed = printed.strip()
    if not (printed.startswith("(") and printed.endswith(")")) or printed.startswith("(error"):
        return None
    try:
        return [symbol_name(name) for name in items(printed[1:-1])][:SHOWN_CORE_MAX_ENTRIES]
    except Smt2SyntaxError:
        return None


def add_core(report: ChildReport, text: str, names: list[str]) -> None:
    """An SMT-LIB unsat's core as z3 printed it for the script: each named assertion's line and
    name, and the names for the verifier, which checks that those assertions alone are unsat."""
    lines = named_assertions(text)
    report["unsat_core"] = [(lines.get(name, 0), name) for name in names]
    report["core_names"] = names
