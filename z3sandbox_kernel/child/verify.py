"""Check a candidate's model against its assertions, in a fresh child that ran no user code.

The candidate's own process could have forged its model, so the zygote re-checks it here: the
assertions (SMT-LIB 2 text from the report) are parsed again, every model constant of a basic sort
is fixed to its reported value, and z3 decides whether that is satisfiable.  Functions, arrays and
values of other sorts stay free, so they are checked for existence only.
"""

from __future__ import annotations

import time
from typing import Any, cast

import z3

from ..protocol import PROTOCOL_VERSION, CheckedModel, VerifyReport, VerifyRequest
from .models import read_model
from .smt2 import Smt2SyntaxError, error_message, split_commands
from .terms import walk_terms
from .verify_checks import verify_checks

MAX_TIMEOUT_MS = 4_294_967_294
# Naming a violated assertion evaluates each one under the model: bounded, as it is only a hint.
MAX_ASSERTIONS_EVALUATED = 10_000
MAX_SHOWN = 300
# What the harness's assertions text (Z3_benchmark_to_smtlib_string) is made of.  z3's parser runs
# every command it is given -- (set-option :regular-output-channel "f") then (echo ...) writes a
# file of the text's choosing --, and the text comes from the candidate: nothing else is run.
ALLOWED_COMMANDS = frozenset({
    "set-info", "assert", "declare-fun", "declare-const", "declare-sort", "define-fun",
    "define-fun-rec", "define-funs-rec", "define-sort", "declare-datatype", "declare-datatypes",
})


def verify_model(assertions_smt2: str, model_smt2: list[list[str]], timeout_s: float
                 ) -> VerifyReport:
    """verified True (the model satisfies the assertions), False (it violates them) or None (could
    not be decided), with a reason.  Never raises.

    When it decides, the report also holds the model that was checked, read as the harness reads
    one (``model``, ``byte_constants``, ``byte_runs``): the result shows, binds and votes on that
    model, never on the one the candidate reported beside it (issue 20).  With a solver's help
    (values left free), it is the solver's model: the candidate's values, and the verifier's for
    the rest."""
    checked: z3.ModelRef | None = None
    try:
        verified, reason, checked = _verify(assertions_smt2, model_smt2, timeout_s)
    except BaseException as exc:  # MemoryError, or anything unexpected: undecided, not a crash
        verified, reason = None, f"verification failed: {type(exc).__name__}: {_text(exc)}"
    report: VerifyReport = {"v": PROTOCOL_VERSION, "verified": verified}
    if reason:
        report["reason"] = reason[:2000]
    if checked is not None:
        try:
            fields = read_model(checked)
            report["model"] = fields.model
            report["byte_constants"] = fields.byte_constants
            report["byte_runs"] = fields.byte_runs()
        except BaseException as exc:  # a model that cannot be shown is not shown as verified
            report = {"v": PROTOCOL_VERSION, "verified": None,
                      "reason": f"the checked model could not be read: {type(exc).__name__}"}
    return report


def verify_request(request: VerifyRequest) -> VerifyReport:
    """The model of ``request``, and each further one (``more_models_smt2``) on its own, with
    the same assertions: a further model is verified as the first one is.  The further ones share
    half the verifier's wall limit (the zygote kills it at the whole): past it, they are left
    undecided, and the first model's verdict still arrives."""
    started = time.monotonic()
    if "assertions_smt2" in request:
        report = verify_model(request["assertions_smt2"], request["model_smt2"], request["timeout_s"])
    else:  # only the models of the script's checks (verify_checks.py)
        report = {"v": PROTOCOL_VERSION, "verified": None, "reason": "no model to verify"}
    budget = float((request.get("limits") or {}).get("wall_s", 10.0)) / 2
    more: list[CheckedModel] = []
    for pairs in request.get("more_models_smt2") or []:
        left = budget - (time.monotonic() - started)
        if left < 0.05:
            more.append({"verified": None, "reason": "not verified: the verifier's time ran out"})
            continue
        checked = verify_model(request["assertions_smt2"], pairs, min(request["timeout_s"], left))
        more.append(cast(CheckedModel, {key: value for key, value in checked.items() if key != "v"}))
    if more:
        report["more"] = more
    if request.get("checks"):
        report["checks"] = verify_checks(request, verify_model, started, budget)
    return report


def rehearse() -> None:
    """A spare verifier, while it waits for its model: check a small one, so that z3's parser, its
    main context and the pages the check writes are ready when the real one comes (a verifier runs
    no user code: nothing it does here is seen by a script).  Halves the check's time."""
    verify_model("(declare-fun x () Int)(declare-fun y () Int)(assert (and (> x 3) (< x y)))",
                 [["x", "4"], ["y", "7"]], 1.0)


Checked = tuple[bool | None, str, "z3.ModelRef | None"]


def _verify(assertions_smt2: str, model_smt2: list[list[str]], timeout_s: float) -> Checked:
    refused = _refused_command(assertions_smt2)
    if refused:
        return None, refused, None
    names = [name for name, _ in model_smt2]
    if len(set(names)) != len(names):
        twice = next(name for index, name in enumerate(names) if name in names[:index])
        return None, f"the model is malformed: {twice[:80]} is given more than one value", None
    try:
        assertions = list(z3.parse_smt2_string(assertions_smt2))
    except z3.Z3Exception as exc:
        return None, f"the assertions could not be parsed: {_text(exc)}", None
    constants = _constants(assertions)
    pairs = [(name, value) for name, value in model_smt2 if name in constants]
    decls = {constants[name].decl().name(): constants[name].decl() for name, _ in pairs}
    text = "".join(f"(assert (= {name} {value}))" for name, value in pairs)
    if not _one_equality_each(text, len(pairs)):
        return None, "the model is malformed: a value is not one term (it would add a command)", None
    try:
        equalities = list(z3.parse_smt2_string(text, decls=decls))
    except z3.Z3Exception as exc:
        return None, f"the model could not be parsed: {_text(exc)}", None
    # (- 2) and (/ 1.0 3.0) are how z3 prints values; anything else (say [["x", "x"]]) is forged.
    fixed = [(e.arg(0), z3.simplify(e.arg(1))) for e in equalities]
    if len(fixed) != len(pairs) or not all(_is_literal(value) for _, value in fixed):
        return None, "the model is malformed: a value is not a literal", None
    values = _fixed_model(fixed)
    evaluated = _evaluate(assertions, values)
    if evaluated is not None:
        return (*evaluated, values)
    solver = z3.Solver()
    solver.set("timeout", max(1, min(int(timeout_s * 1000), MAX_TIMEOUT_MS)))
    solver.add(assertions)
    solver.add([constant == value for constant, value in fixed])
    result = solver.check()
    if result == z3.sat:
        return True, "", solver.model()
    if result == z3.unsat:
        return False, "the model violates the assertions" + _violated(assertions, values), values
    return None, f"verification was inconclusive: {solver.reason_unknown()}", None


def _fixed_model(fixed: list[tuple[z3.ExprRef, z3.ExprRef]]) -> z3.ModelRef:
    """The model's values as a z3 model: what is evaluated, and what the result shows."""
    model = z3.Model()
    for constant, value in fixed:
        model.update_value(constant, value)
    return model


def _refused_command(text: str) -> str:
    """Why the assertions text cannot be given to z3's parser, or "" when it holds only
    declarations and assertions."""
    try:
        commands = split_commands(text)
    except Smt2SyntaxError as exc:
        return f"the assertions could not be parsed: {exc}"
    for command in commands:
        if command.head not in ALLOWED_COMMANDS:
            return (f"the assertions hold a command the verifier does not run: "
                    f"({command.head[:40]} ...)")
    return ""


def _one_equality_each(text: str, count: int) -> bool:
    """Each model pair became exactly one (assert ...): no value closed its term early to smuggle
    in a command of its own."""
    try:
        commands = split_commands(text)
    except Smt2SyntaxError:
        return False
    return len(commands) == count and all(command.head == "assert" for command in commands)


def _evaluate(assertions: list[z3.BoolRef], model: z3.ModelRef) -> tuple[bool, str] | None:
    """The fast path: every assertion evaluates to true or false under the fixed values alone.
    None when one stays symbolic (free functions, quantifiers, values left free): then a solver
    decides.  Measured: a trivial model verifies in ~0.3 ms this way against ~3 ms with Solver()."""
    for assertion in assertions:
        result = model.eval(assertion, model_completion=False)
        if z3.is_false(result):
            shown = " ".join(assertion.sexpr()[:MAX_SHOWN].split())
            return False, f"the model violates the assertions, e.g. {shown}"
        if not z3.is_true(result):
            return None
    return True, ""


def _constants(assertions: list[z3.BoolRef]) -> dict[str, z3.ExprRef]:
    """The uninterpreted constants in the assertions, by their SMT-LIB name (as in model_smt2)."""
    return {term.sexpr(): term for term in walk_terms(assertions)
            if z3.is_const(term) and term.decl().kind() == z3.Z3_OP_UNINTERPRETED}


def _is_literal(value: z3.ExprRef) -> bool:
    return bool(
        z3.is_true(value) or z3.is_false(value) or z3.is_int_value(value)
        or z3.is_rational_value(value) or z3.is_bv_value(value) or z3.is_string_value(value)
        or z3.is_fp_value(value)
    )


def _violated(assertions: list[z3.BoolRef], model: z3.ModelRef) -> str:
    """``: `<assertion>` `` for the first assertion that is false under the fixed values, if any."""
    try:
        for assertion in assertions[:MAX_ASSERTIONS_EVALUATED]:
            if z3.is_false(model.eval(assertion, model_completion=False)):
                shown = assertion.sexpr()
                cut = "…" if len(shown) > MAX_SHOWN else ""
                return f", e.g. {' '.join(shown[:MAX_SHOWN].split())}{cut}"
    except Exception:  # only a hint: the verdict stands without it
        return ""
    return ""


def _text(exc: BaseException) -> str:
    value: Any = exc.value if isinstance(exc, z3.Z3Exception) else exc
    return error_message(value)[:1000]
