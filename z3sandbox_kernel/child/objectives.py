"""The objectives of the script's last ``Optimize`` check and the values z3 found for them.

Observed with the solvers, in observer.py's one table (its rules hold here): the observers of
``Z3_optimize_maximize``, ``Z3_optimize_minimize`` and ``Z3_optimize_assert_soft`` call through
and remember, per optimize object, each objective's index, direction and the raw pointer of its
term (``Observer.goals``: the optimize object holds the term, no reference is taken, nothing is
printed while the script runs).  After the script, if the last check was an ``Optimize``'s that is still
alive and unchanged, its terms are printed and z3 is asked for the values (``Z3_optimize_get_upper``
for a maximum, ``get_lower`` otherwise, as ``OptimizeObjective.value()`` does): those calls make
numerals in the script's context, which is why they wait until its output is complete.

Not reported: an optimize object the script let go of before it ended (its values would have to be
asked for while the script runs), and objectives the script made through z3's C functions itself.

SMT-LIB scripts: the objectives of the Optimize the harness loads from the script's text, valued in
the check's model (smt2.py), never read from the front end's ``(get-objectives)`` text.
"""

from __future__ import annotations

from fractions import Fraction

import z3

from ..protocol import Objective, encode_value
from . import models, observer
from .check_record import Record
from .handles import Pointer

MAX_OBJECTIVES = 100  # a report carries at most this many objectives
TERM_CHARS = models.TERM_CHARS


def read(record: Record) -> list[Objective]:
    """After the script: the objectives of ``record``'s optimize object and their values, or []
    when the object has ended or changed since that check."""
    goals = observer.OBSERVER.goals.get(record.solver)
    if (record.kind != "optimize" or record.result != observer.SAT or record.changed or not goals
            or record.solver not in observer.OBSERVER.mirrors):
        return []
    ctx = observer.OBSERVER.context(record.ctx)
    found: list[Objective] = []
    for index in sorted(goals)[:MAX_OBJECTIVES]:
        goal = goals[index]
        try:
            which = "Z3_optimize_get_upper" if goal.direction == "maximize" else "Z3_optimize_get_lower"
            value = z3.z3._to_expr_ref(observer.C[which](record.ctx, record.solver, index), ctx)
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


def _term_smt2(ctx: Pointer, term: int) -> str | None:
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


def smt2_objectives(optimize: z3.Optimize, model: z3.ModelRef, commands: list[list[str]]) -> list[Objective]:
    """The objectives of an SMT-LIB script's last check: the terms of the Optimize the harness
    loaded from its text (``Z3_optimize_get_objectives``, every one as a term to minimize: a
    maximized ``t`` as ``-1 * t``, a soft group as its penalty sum), each valued in the check's
    model.  ``commands`` are the script's commands before the check, as tokens, for each
    objective's direction and a soft group's id; [] when they do not line up with z3's list (an
    objective popped with its scope)."""
    goals = _smt2_goals(commands)
    terms = list(optimize.objectives())
    if len(goals) != len(terms):
        return []
    found: list[Objective] = []
    for (direction, group), term in list(zip(goals, terms, strict=True))[:MAX_OBJECTIVES]:
        if direction == "maximize":
            term = _negated(term)
        try:
            value = model.eval(term, model_completion=True)
            shown = group if direction == "soft" else term.sexpr()
            number = models.python_value(value)
            if direction == "soft" and isinstance(number, Fraction) and number.denominator == 1:
                number = int(number)  # a penalty: weights are reals, the sum is whole
            goal: Objective = {"term": models.clean_text(shown, TERM_CHARS), "direction": direction,
                               "value": encode_value(number)}
            term_smt2 = _term_smt2(term.ctx.ref(), term.as_ast()) if direction != "soft" else None
            if term_smt2:  # for the verifier, which values it in the model it checked
                goal["term_smt2"] = term_smt2
            found.append(goal)
        except Exception:  # one that cannot be valued: the others still count
            continue
    return found


def _smt2_goals(commands: list[list[str]]) -> list[tuple[str, str]]:
    """(direction, soft group id) of each objective z3 lists, in order, a soft group once."""
    goals: list[tuple[str, str]] = []
    groups: set[str] = set()
    for parts in commands:
        if parts and parts[0] in ("maximize", "minimize"):
            goals.append((parts[0], ""))
        elif parts and parts[0] == "assert-soft":
            options = parts[2:]
            group = next((options[i + 1] for i in range(len(options) - 1) if options[i] == ":id"), "")
            if group not in groups:
                groups.add(group)
                goals.append(("soft", group))
    return goals


def _negated(term: z3.ExprRef) -> z3.ExprRef:
    """``t`` from z3's ``-1 * t``; otherwise ``-term`` simplified."""
    if z3.is_mul(term) and term.num_args() == 2:
        factor = term.arg(0)
        if z3.is_int_value(factor) and factor.as_long() == -1:
            return term.arg(1)
        if z3.is_rational_value(factor) and factor.as_fraction() == -1:
            return term.arg(1)
    return z3.simplify(-term)
