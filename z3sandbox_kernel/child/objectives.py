"""The objectives of the script's last ``Optimize`` check and the values z3 found for them.

Observed as observer.py observes solvers (its rules hold here): ``Z3_optimize_maximize``,
``Z3_optimize_minimize`` and ``Z3_optimize_assert_soft`` are rebound in z3.py's module to observers
that call through and remember, per optimize object, each objective's index, direction and the raw
pointer of its term (the optimize object holds the term: no reference is taken, nothing is printed
while the script runs).  After the script, if the last check was an ``Optimize``'s that is still
alive and unchanged, its terms are printed and z3 is asked for the values (``Z3_optimize_get_upper``
for a maximum, ``get_lower`` otherwise, as ``OptimizeObjective.value()`` does): those calls make
numerals in the script's context, which is why they wait until its output is complete.

Not reported: an optimize object the script let go of before it ended (its values would have to be
asked for while the script runs), and objectives the script made through z3's C functions itself.

SMT-LIB scripts: the harness asks the front end ``(get-objectives)`` after the script's commands.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import z3

from ..protocol import Objective, encode_value
from . import models, observer

# A report carries at most this many objectives, each term's text cut to TERM_CHARS.
MAX_OBJECTIVES = 100
TERM_CHARS = 500


@dataclass
class _Goal:
    direction: str  # "maximize", "minimize" or "soft"
    term: int  # raw pointer (the optimize object holds it); 0 for a soft group
    group: str = ""  # a soft group's id


# optimize object (raw pointer) -> objective index -> what it is
_GOALS: dict[int, dict[int, _Goal]] = {}
_C: dict[str, Callable[..., Any]] = {}


def _added(name: str) -> Callable[..., Any]:
    direction = name.rsplit("_", 1)[1]

    def added(ctx: Any, optimize: Any, term: Any) -> Any:
        index = _C[name](ctx, optimize, term)
        _GOALS.setdefault(observer.address(optimize), {})[int(index)] = _Goal(
            direction, observer.address(term))
        return index
    return added


def _soft(ctx: Any, optimize: Any, formula: Any, weight: Any, group: Any) -> Any:
    index = _C["Z3_optimize_assert_soft"](ctx, optimize, formula, weight, group)
    goals = _GOALS.setdefault(observer.address(optimize), {})
    goals.setdefault(int(index), _Goal("soft", 0, _symbol_text(ctx, group)))
    return index


def _symbol_text(ctx: Any, symbol: Any) -> str:
    """A soft group's id (a symbol: reading it makes no term)."""
    try:
        return models.clean_text(str(z3.Z3_get_symbol_string(ctx, symbol)), TERM_CHARS)
    except Exception:
        return ""


def install() -> None:
    """Rebind the three C functions in z3.py's module; nothing is restored (one run per process)."""
    names = z3.z3.__dict__
    makers: dict[str, Callable[..., Any]] = {
        "Z3_optimize_maximize": _added("Z3_optimize_maximize"),
        "Z3_optimize_minimize": _added("Z3_optimize_minimize"),
        "Z3_optimize_assert_soft": _soft,
    }
    for name, made in makers.items():
        _C.setdefault(name, names[name])
        names[name] = made
    for name in ("Z3_optimize_get_upper", "Z3_optimize_get_lower"):
        _C.setdefault(name, names[name])


def read(record: observer.Record) -> list[Objective]:
    """After the script: the objectives of ``record``'s optimize object and their values, or []
    when the object has ended or changed since that check."""
    goals = _GOALS.get(record.solver)
    if (record.kind != "optimize" or record.result != observer.SAT or record.changed or not goals
            or record.solver not in observer.OBSERVER.mirrors):
        return []
    ctx = observer.OBSERVER.context(record.ctx)
    found: list[Objective] = []
    for index in sorted(goals)[:MAX_OBJECTIVES]:
        goal = goals[index]
        try:
            which = "Z3_optimize_get_upper" if goal.direction == "maximize" else "Z3_optimize_get_lower"
            value = z3.z3._to_expr_ref(_C[which](record.ctx, record.solver, index), ctx)
            term = models.value_text(z3.z3._to_expr_ref(goal.term, ctx)) if goal.term else goal.group
            term = models.clean_text(term, TERM_CHARS)
            objective: Objective = {"term": term, "direction": goal.direction,
                                    "value": encode_value(models.python_value(value))}
            term_smt2 = _term_smt2(record.ctx, goal.term) if goal.term else None
            if term_smt2:
                objective["term_smt2"] = term_smt2
            found.append(objective)
        except Exception:  # one the optimize no longer has (popped): the others still count
            continue
    return found


def _term_smt2(ctx: Any, term: int) -> str | None:
    """The objective's term as SMT-LIB, for the verifier: z3's benchmark printer puts a term that
    is not a formula, as is, after the declarations (printing makes no term)."""
    text = models.benchmark(ctx, [term])
    if not text:
        return None
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line[:1] not in ("", " ", ";")
                  and not line.startswith(("(declare", "(define"))), None)
    return "\n".join(lines[start:]) if start is not None else None


# ---------------------------------------------------------------------------------------- SMT-LIB

_GROUP = re.compile(r":id\s+(\|[^|]*\||[^\s()]+)")
_INTEGER = re.compile(r"\(\s*-\s*(\d+)\s*\)|(-?\d+)")


def smt2_directions(commands: list[tuple[str, str]]) -> list[str]:
    """The direction of each objective z3 lists in (get-objectives), from the script's
    (maximize), (minimize) and (assert-soft) commands as (head, text): in order, a soft group once."""
    directions: list[str] = []
    groups: set[str] = set()
    for head, text in commands:
        if head in ("maximize", "minimize"):
            directions.append(head)
        elif head == "assert-soft":
            match = _GROUP.search(text)
            group = match.group(1) if match else ""
            if group not in groups:
                groups.add(group)
                directions.append("soft")
    return directions


def smt2_objectives(answer: str, directions: list[str]) -> list[Objective]:
    """The entries of a ``(get-objectives)`` answer, ``(objectives (TERM VALUE) ...)``."""
    body = answer.strip()
    if not body.startswith("(objectives"):
        return []
    found: list[Objective] = []
    for entry in _entries(body[len("(objectives"):-1]):
        term, value = _split_entry(entry)
        integer = _INTEGER.fullmatch(value)
        number: Any = value
        if integer is not None:
            number = -int(integer.group(1)) if integer.group(1) else int(integer.group(2))
        direction = directions[len(found)] if len(found) < len(directions) else ""
        found.append({"term": models.clean_text(term, TERM_CHARS), "direction": direction,
                      "value": encode_value(number)})
        if len(found) >= MAX_OBJECTIVES:
            break
    return found


def _entries(text: str) -> list[str]:
    """The top-level parenthesised entries of ``text`` (objective terms are z3-printed: strings and
    quoted symbols aside, parentheses balance)."""
    entries, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char == "(":
            if depth == 0:
                start = i
            depth += 1
        elif char == ")" and depth:
            depth -= 1
            if depth == 0:
                entries.append(text[start + 1:i].strip())
    return entries


def _split_entry(entry: str) -> tuple[str, str]:
    """``TERM VALUE`` -> (TERM, VALUE); VALUE is the last token or parenthesised expression."""
    if entry.endswith(")"):
        depth = 0
        for i in range(len(entry) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(entry[i], 0)
            if depth == 0:
                return entry[:i].strip(), entry[i:]
    term, _, value = entry.rpartition(" ")
    return term.strip(), value
