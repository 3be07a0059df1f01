"""A verifier's whole job: confirm a candidate's decisive answer in a process that ran no user code.

sat: the model satisfies the assertions (verify.py), each shown objective value is the model's
value of its term, and no better value exists (the objective asserted strictly better than it is
unsat).  unsat: the assertions the candidate checked are unsat again, and with cores the reported
core is unsat by itself (each of its formulas one of those assertions).  With ``cross_check``, a
second solver (cross_check.py) checks the same text.  Everything runs within the candidate's
``verify_s``: a check that does not fit leaves the answer unconfirmed and says so; the zygote kills
the verifier at ``verify_s`` in any case.

``confirmed_by`` names the solvers that confirmed the answer; ``disputed`` says why a checker
contradicts it; ``unconfirmed`` says what was not confirmed (out of budget, not cross-checked: ...).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import z3

from ..protocol import (
    PROTOCOL_VERSION,
    CheckedModel,
    CheckedObjective,
    ObjectiveToCheck,
    VerifyReport,
    VerifyRequest,
    encode_value,
)
from . import cross_check
from .models import benchmark, python_value
from .smt2_core import named_assertions
from .verify import (
    ModelCheck,
    check_model,
    only_asserts,
    parse_assertions,
    script_assertions,
    timeout_ms,
    verify_model,
)
from .verify_checks import as_checked, verify_checks

DEFAULT_BUDGET_S = 10.0
# Kept back from the budget for what follows the checks (reading a model, writing the report), so
# that the verifier reports before the zygote's kill at verify_s.
REPORT_MARGIN_S = 0.2
OUT_OF_BUDGET = "not confirmed: its check ran out of the verification budget"


class Budget:
    """What is left of ``verify_s`` for the checks."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.started = time.monotonic()
        self.deadline = self.started + max(0.0, seconds - min(REPORT_MARGIN_S, seconds / 5))

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def out(self) -> str:
        return f"{OUT_OF_BUDGET} (verify_s = {self.seconds:g} s)"


@dataclass
class Checked:
    """The assertions the candidate checked, parsed once: an SMT-LIB candidate's from its script
    as the zygote holds it (verify.script_assertions: its one reading), a Python script's from
    the mirror text of its report."""

    formulas: list[z3.BoolRef]
    text: str | None = None  # the mirror's text; an SMT-LIB script's is printed if cvc5 asks
    pairs: list[tuple[str, str]] = field(default_factory=list)  # the checked model's constants

    def smt2(self) -> str:
        """As SMT-LIB text, for a second solver."""
        if self.text is None:
            ctx = self.formulas[0].ctx if self.formulas else z3.main_ctx()
            self.text = benchmark(ctx.ref(), [f.as_ast() for f in self.formulas],
                                  limit=sys.maxsize) or ""
        return self.text


def checked_assertions(request: VerifyRequest) -> Checked:
    """The one place a verifier takes the assertions from.  Raises ValueError (why) when they
    cannot be read."""
    script = request.get("script_smt2")
    if script is not None:
        return Checked(script_assertions(script))
    text = request["assertions_smt2"]
    return Checked(parse_assertions(text), text)


def verify_request(request: VerifyRequest,
                   partial: Callable[[VerifyReport], None] | None = None) -> VerifyReport:
    """Confirm the answer of ``request`` (its ``outcome``: sat, the default, or unsat).  With
    ``cross_check``, z3's word is given to ``partial`` first, then a second solver gets a budget
    of its own (``verify_s`` again): a second solver adds to z3's word, never takes it away
    (the zygote keeps the partial report if the second solver's never comes)."""
    limits = request.get("limits")
    seconds = float(limits.verify_s) if limits is not None else DEFAULT_BUDGET_S
    budget = Budget(seconds)
    checked: list[Checked] = []
    report = _confirm_answer(request, budget, checked)
    if request.get("checks"):  # the models the script read at its checks, each against its own
        report["checks"] = verify_checks(request, verify_model, budget.started,
                                         budget.deadline - budget.started)
    second = request.get("cross_check")
    if second != "cvc5" or not checked or not report.get("confirmed_by"):
        return report
    if partial is not None:
        partial({**report, "partial": True,
                 "unconfirmed": f"not cross-checked: cvc5 ran out of its own budget "
                                f"(verify_s = {seconds:g} s)"})
    own = Budget(seconds)
    if request.get("outcome") == "unsat":
        _cross(report, cross_check.unsat_holds(checked[0].smt2(), own.left()))
    else:
        _cross(report, cross_check.model_holds(checked[0].smt2(), report_pairs(report, checked[0]),
                                               own.left()))
    return report


def _confirm_answer(request: VerifyRequest, budget: Budget, checked: list[Checked]) -> VerifyReport:
    """z3's word on the answer; ``checked`` gets the assertions it was checked against."""
    if "assertions_smt2" not in request:  # only the models of the script's checks (verify_checks.py)
        return {"v": PROTOCOL_VERSION, "verified": None, "reason": "no answer to confirm"}
    try:
        text = checked_assertions(request)
    except BaseException as exc:  # the script's text cannot be read: undecided, not a crash
        reason = f"the script's assertions could not be read: {exc}"
        return {"v": PROTOCOL_VERSION, "verified": None, "reason": reason,
                "unconfirmed": f"not confirmed: {reason}"}
    checked.append(text)
    if request.get("outcome") == "unsat":
        return _confirm_unsat(request, text, budget)
    return _confirm_sat(request, text, budget)


# ------------------------------------------------------------------------------------------- sat

def _confirm_sat(request: VerifyRequest, text: Checked, budget: Budget) -> VerifyReport:
    first = ModelCheck({"v": PROTOCOL_VERSION, "verified": None, "reason": budget.out()})
    if budget.left() > 0:
        first = check_model(text.formulas, request.get("model_smt2") or "",
                            min(float(request.get("timeout_s", DEFAULT_BUDGET_S)), budget.left()))
    report = first.report
    if report.get("verified") is None and budget.left() <= 0:
        report["reason"] = budget.out()
    more = _more_models(request, text, budget)
    if more:
        report["more"] = more
    if report.get("verified") is not True:
        return report
    report["confirmed_by"] = ["z3"]
    if request.get("objectives"):
        report["checked_objectives"] = _objectives(first, request.get("objectives") or [], budget)
    if first.model is not None:
        text.pairs = _model_pairs(first)
    return report


def _more_models(request: VerifyRequest, text: Checked, budget: Budget) -> list[CheckedModel]:
    """models=N: each further model on its own, in half of what is left of the budget (past it,
    they are left undecided, and the first model's verdict still arrives)."""
    more: list[CheckedModel] = []
    share = time.monotonic() + budget.left() / 2
    for pairs in request.get("more_models_smt2") or []:
        left = share - time.monotonic()
        if left < 0.05:
            more.append({"verified": None, "reason": "not verified: the verifier's time ran out"})
            continue
        checked = check_model(text.formulas, pairs,
                              min(float(request.get("timeout_s", 5.0)), left)).report
        more.append(as_checked(checked))
    return more


def report_pairs(report: VerifyReport, checked: Checked) -> list[tuple[str, str]]:
    """The constants of the model z3 confirmed, for a second solver."""
    return checked.pairs if report.get("verified") is True else []


def _model_pairs(first: ModelCheck) -> list[tuple[str, str]]:
    """The checked model's constants as SMT-LIB ``(name, value)`` pairs, for a second solver."""
    assert first.model is not None
    pairs = []
    for decl in first.model.decls():
        if decl.arity() == 0:
            value = first.model.get_interp(decl)
            if value is not None:
                pairs.append((decl().sexpr(), value.sexpr()))
    return pairs


def _objectives(first: ModelCheck, goals: list[ObjectiveToCheck], budget: Budget) -> list[CheckedObjective]:
    """Each objective's value in the checked model, and whether a better one exists.  z3 orders
    several objectives lexicographically by default: each is checked with the ones before it held
    at their values."""
    assert first.model is not None and first.assertions is not None
    decls = {term.decl().name(): term.decl() for term in _constants(first.assertions)}
    held: list[z3.BoolRef] = []
    checked: list[CheckedObjective] = []
    for goal in goals:
        term = _term(goal.get("term_smt2"), decls)
        if term is None:
            checked.append({"value": goal["value"], "optimal": None, "checked": False})
            continue
        value = first.model.eval(term, model_completion=True)
        shown = encode_value(python_value(value))
        direction = goal["direction"]
        optimal: bool | None = None
        if direction in ("maximize", "minimize") and budget.left() > 0:
            better = term > value if direction == "maximize" else term < value
            optimal = _unsat(first.assertions + held + [better], budget)
        checked.append({"value": shown, "optimal": optimal, "checked": True})
        held.append(term == value)
    return checked


def _term(text: object, decls: dict[str, z3.FuncDeclRef]) -> z3.ArithRef | None:
    """An objective's term, parsed with the assertions' declarations (an arithmetic one only)."""
    if not isinstance(text, str) or not text:
        return None
    command = f"(assert (= {text} {text}))"
    if not only_asserts(command, 1):  # z3's parser runs any command: the text is the candidate's
        return None
    try:
        parsed = z3.parse_smt2_string(command, decls=decls)
    except z3.Z3Exception:
        return None
    if len(parsed) != 1:
        return None
    term = parsed[0].arg(0)
    return term if isinstance(term, z3.ArithRef) else None


def _unsat(formulas: list[Any], budget: Budget) -> bool | None:
    """True when z3 finds ``formulas`` unsat within the budget, False when sat, None undecided."""
    solver = z3.Solver()
    solver.set("timeout", timeout_ms(budget.left()))
    solver.add(formulas)
    result = solver.check()
    return True if result == z3.unsat else False if result == z3.sat else None


def _constants(assertions: list[z3.BoolRef]) -> list[z3.ExprRef]:
    from .terms import walk_terms

    return [term for term in walk_terms(assertions)
            if z3.is_const(term) and term.decl().kind() == z3.Z3_OP_UNINTERPRETED]


# ----------------------------------------------------------------------------------------- unsat

def _confirm_unsat(request: VerifyRequest, text: Checked, budget: Budget) -> VerifyReport:
    report: VerifyReport = {"v": PROTOCOL_VERSION, "verified": None}
    assertions = text.formulas
    core = request.get("core_smt2")
    script, names = request.get("script_smt2"), request.get("core_names")
    if script is not None and names:
        disputed = _smt2_core_disputed(script, names, budget)
        if disputed:
            report["disputed" if not disputed.startswith("not confirmed") else "unconfirmed"] = disputed
            return report
    elif core is not None:
        disputed = _core_disputed(assertions, core, budget)
        if disputed:
            report["disputed" if not disputed.startswith("not confirmed") else "unconfirmed"] = disputed
            return report
    elif budget.left() > 0:
        again = _unsat(assertions, budget)
        if again is False:
            report["disputed"] = "z3 finds the assertions the candidate checked satisfiable"
            return report
        if again is None:
            report["unconfirmed"] = budget.out() if budget.left() <= 0 else (
                "not confirmed: z3 could not decide the assertions again")
            return report
    else:
        report["unconfirmed"] = budget.out()
        return report
    report["confirmed_by"] = ["z3"]
    return report


def _core_disputed(assertions: list[z3.BoolRef], core: list[str], budget: Budget) -> str:
    """'' when the core is unsat by itself (so the assertions are too), else why not.  Each core
    formula must be one of the assertions, or the formula of a tracked one (``(=> p f)``)."""
    decls = {term.decl().name(): term.decl() for term in _constants(assertions)}
    if not all(only_asserts(entry, 1) for entry in core):
        return "not confirmed: a core entry is not one assertion"
    try:
        formulas = [f for entry in core for f in z3.parse_smt2_string(entry, decls=decls)]
    except z3.Z3Exception:
        return "not confirmed: the core's formulas could not be parsed"
    held = set()
    for assertion in assertions:
        held.add(assertion.get_id())
        if z3.is_implies(assertion):
            held.add(assertion.arg(1).get_id())
    if len(formulas) != len(core) or any(f.get_id() not in held for f in formulas):
        return "the reported core holds a formula the candidate never checked"
    return _unsat_alone(formulas, budget, "core")


def _smt2_core_disputed(script: str, names: list[str], budget: Budget) -> str:
    """'' when an SMT-LIB script's (get-unsat-core) is unsat by itself: the named assertions it
    names and the unnamed ones, read from the script (so its whole unsat is too); else why not."""
    missing = [name for name in names if name not in named_assertions(script)]
    if missing:
        return (f"not confirmed: the unsat core names {', '.join(missing[:3])[:200]}, which no "
                "assertion of the script is named")
    try:
        formulas = script_assertions(script, core=frozenset(names))
    except ValueError as exc:
        return f"not confirmed: {exc}"
    return _unsat_alone(formulas, budget, "unsat core")


def _unsat_alone(formulas: list[z3.BoolRef], budget: Budget, what: str) -> str:
    """'' when the reported core's ``formulas`` are unsat by themselves; else why not."""
    if budget.left() <= 0:
        return budget.out()
    alone = _unsat(formulas, budget)
    if alone is False:
        return f"z3 finds the reported {what} satisfiable by itself"
    if alone is None:
        return budget.out() if budget.left() <= 0 else "not confirmed: z3 could not decide the core"
    return ""


# ------------------------------------------------------------------------------------ cross-check

def _cross(report: VerifyReport, answer: cross_check.Answer) -> None:
    """A second solver's word: agreement confirms, a contradiction disputes, anything else is a
    note that changes nothing (z3's confirmation stands, and the note says what cvc5 did not)."""
    if answer.agrees is True:
        report["confirmed_by"] = [*report.get("confirmed_by", []), answer.solver]
    elif answer.agrees is False:
        report["disputed"] = answer.detail
    else:
        report["unconfirmed"] = f"not cross-checked: {answer.detail}"

