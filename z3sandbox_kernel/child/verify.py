"""Check a candidate's model against its assertions, in a fresh child that ran no user code.

The candidate's own process could have forged its model, so the zygote re-checks it here: the
assertions (SMT-LIB 2 text from the report) are parsed again, every model constant of a basic sort
is fixed to its reported value, and z3 decides whether that is satisfiable.  Functions, arrays and
values of other sorts stay free, so they are checked for existence only.  The rest of a
verifier's job (unsat, cores, objectives, a second solver) is confirm.py's.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import z3

from ..protocol import PROTOCOL_VERSION, Smt2Pairs, VerifyReport, join_pairs, split_pairs
from .models import read_model
from .smt2_front import error_message
from .smt2_text import Smt2SyntaxError, check_lines, plan_check, split_commands
from .terms import walk_terms

MAX_TIMEOUT_MS = 4_294_967_294
# Naming a violated assertion evaluates each one under the model: bounded, as it is only a hint.
MAX_ASSERTIONS_EVALUATED = 10_000
MAX_SHOWN = 300
# What the harness's assertions text (Z3_benchmark_to_smtlib_string) is made of.  z3's parser runs
# every command it is given -- (set-option :regular-output-channel "f") then (echo ...) writes a
# file of the text's choosing --, and the text comes from the candidate: nothing else is run.  A
# verifier serves a run's candidates in turn (service.py), so not even (set-info) is run: the
# benchmark text's (set-info :status ...) lines are dropped, not given to z3.
ALLOWED_COMMANDS = frozenset({
    "assert", "declare-fun", "declare-const", "declare-sort", "define-fun", "define-fun-rec",
    "define-funs-rec", "define-sort", "declare-datatype", "declare-datatypes",
})
DROPPED_COMMANDS = frozenset({"set-info"})


def verify_model(assertions: str | list[z3.BoolRef], model_smt2: Smt2Pairs, timeout_s: float
                 ) -> VerifyReport:
    """verified True (the model satisfies the assertions), False (it violates them) or None (could
    not be decided), with a reason.  Never raises.

    When it decides, the report also holds the model that was checked, read as the harness reads
    one (``model``, ``byte_constants``, ``byte_runs``): the result shows, binds and votes on that
    model, never on the one the candidate reported beside it.  With a solver's help
    (values left free), it is the solver's model: the candidate's values, and the verifier's for
    the rest."""
    return check_model(assertions, model_smt2, timeout_s).report


@dataclass
class ModelCheck:
    """A model check's report, and, for the checks that follow it (confirm.py), the model that
    was checked and the assertions it was checked against (None when not decided)."""

    report: VerifyReport
    model: z3.ModelRef | None = None
    assertions: list[z3.BoolRef] | None = None


def check_model(assertions: str | list[z3.BoolRef], model_smt2: Smt2Pairs, timeout_s: float
                ) -> ModelCheck:
    """``verify_model``, keeping the model checked and the assertions parsed."""
    checked: z3.ModelRef | None = None
    parsed: list[z3.BoolRef] | None = None
    try:
        verified, reason, checked, parsed = _verify(assertions, model_smt2, timeout_s)
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
            checked = None
    return ModelCheck(report, checked if verified else None, parsed if verified else None)


def rehearse() -> None:
    """A spare verifier, while it waits for its model: check a small one, so that z3's parser, its
    main context and the pages the check writes are ready when the real one comes (a verifier runs
    no user code: nothing it does here is seen by a script).  Halves the check's time."""
    verify_model("(declare-fun x () Int)(declare-fun y () Int)(assert (and (> x 3) (< x y)))",
                 join_pairs([("x", "4"), ("y", "7")]), 1.0)


def script_assertions(script: str, check: int = -1, core: frozenset[str] | None = None
                      ) -> list[z3.BoolRef]:
    """The assertions of an SMT-LIB script's ``check``-th check (-1: its last), as z3 reads them
    from the script's one reading (smt2_text.read: the text the candidate's z3 ran), parsed by z3
    itself: scopes, (reset), named terms, definitions and :global-declarations as z3 has them.
    Raises ValueError when the text cannot say them (a doubtful reading, an (include), an option
    the checker does not apply, z3's exception), with why: the answer is then not confirmed, and
    never disputed.  The last check's are asked twice (the answer, and the model the frames sent
    of it): parsed once.  ``core``: only the named assertions of that core, and the unnamed ones
    (smt2_text.plan_check)."""
    count = len(check_lines(script))
    return _script_assertions(script, count - 1 if check == -1 and count else check, core)


def forget_texts() -> None:
    """Between two candidates' checks in one verifier (service.py)."""
    _script_assertions.cache_clear()


@functools.lru_cache(maxsize=2)
def _script_assertions(script: str, check: int, core: frozenset[str] | None) -> list[z3.BoolRef]:
    try:
        plan = plan_check(script, objectives=False, check=check, core=core)
    except IndexError:
        raise ValueError(f"the script has no check {check + 1}") from None
    if plan.doubt:
        raise ValueError(f"z3 may read its text otherwise ({plan.doubt})")
    if plan.unread:
        raise ValueError(f"its ({plan.unread[:40]} ...) may assert what its text does not show")
    if plan.options:
        raise ValueError(f"it sets {', '.join(plan.options[:3])}, which may change what its terms "
                         "mean, and the checker does not apply it")
    try:
        # Parsed from the loaded commands themselves, never printed and read again (z3's printer
        # writes what its parser does not always read back).  Not loaded into a solver: a
        # solver's preprocessing of them costs several times the parse (smt2.py ``_Solver``).
        return list(z3.parse_smt2_string(_script_loadable(plan.text)))
    except z3.Z3Exception as exc:
        raise ValueError(f"z3 could not load them: {_text(exc)}") from None


def _script_loadable(text: str) -> str:
    """A check's loaded commands (smt2_text.plan_check) without (set-info): declaring, defining,
    asserting and scoping commands, the logic and :global-declarations, each local to the solver
    they are loaded into."""
    commands = split_commands(text)
    if not any(command.head in DROPPED_COMMANDS for command in commands):
        return text
    return "\n".join(text[c.start:c.end] for c in commands if c.head not in DROPPED_COMMANDS)


Checked = tuple[bool | None, str, "z3.ModelRef | None", "list[z3.BoolRef] | None"]


def parse_assertions(assertions_smt2: str) -> list[z3.BoolRef]:
    """The assertions text as z3 formulas; raises ValueError (with the reason) when it holds a
    command the verifier does not run or does not parse."""
    loadable, refused = _loadable(assertions_smt2)
    if refused:
        raise ValueError(refused)
    try:
        return list(z3.parse_smt2_string(loadable))
    except z3.Z3Exception as exc:
        raise ValueError(f"the assertions could not be parsed: {_text(exc)}") from None


def timeout_ms(seconds: float) -> int:
    return max(1, min(int(seconds * 1000), MAX_TIMEOUT_MS))


def _verify(given: str | list[z3.BoolRef], model_text: Smt2Pairs, timeout_s: float) -> Checked:
    try:
        model_smt2 = split_pairs(model_text)
    except ValueError as exc:
        return None, f"the model is malformed: {exc}", None, None
    names = [name for name, _ in model_smt2]
    if len(set(names)) != len(names):
        twice = next(name for index, name in enumerate(names) if name in names[:index])
        return None, f"the model is malformed: {twice[:80]} is given more than one value", None, None
    try:
        assertions = given if isinstance(given, list) else parse_assertions(given)
    except ValueError as exc:
        return None, str(exc), None, None
    constants = _constants(assertions)
    pairs = [(name, value) for name, value in model_smt2 if name in constants]
    decls = {constants[name].decl().name(): constants[name].decl() for name, _ in pairs}
    text = "".join(f"(assert (= {name} {value}))" for name, value in pairs)
    if not only_asserts(text, len(pairs)):
        return None, "the model is malformed: a value is not one term (it would add a command)", None, None
    try:
        equalities = list(z3.parse_smt2_string(text, decls=decls))
    except z3.Z3Exception as exc:
        return None, f"the model could not be parsed: {_text(exc)}", None, None
    # (- 2) and (/ 1.0 3.0) are how z3 prints values; anything else (say [["x", "x"]]) is forged.
    fixed = [(e.arg(0), z3.simplify(e.arg(1))) for e in equalities]
    if len(fixed) != len(pairs) or not all(_is_literal(value) for _, value in fixed):
        return None, "the model is malformed: a value is not a literal", None, None
    values = _fixed_model(fixed)
    if _evaluate(assertions, values):
        return True, "", values, assertions
    # Not true under the values alone: a term stayed symbolic (free functions, quantifiers,
    # constants the model left out), or one was false as evaluated -- and evaluation fixes what
    # z3 leaves free: a division or modulo by zero, fp.to_ubv out of range, ... are functions each
    # model interprets its own way.  So a solver decides, with the values fixed and everything
    # else free, as z3's own semantics has it: a model is invalid only when that is unsat.
    solver = z3.Solver()
    solver.set("timeout", timeout_ms(timeout_s))
    solver.add(assertions)
    solver.add([constant == value for constant, value in fixed])
    result = solver.check()
    if result == z3.sat:
        return True, "", solver.model(), assertions
    if result == z3.unsat:
        return False, "the model violates the assertions" + _violated(assertions, values), values, None
    return None, f"verification was inconclusive: {solver.reason_unknown()}", None, None


def _fixed_model(fixed: list[tuple[z3.ExprRef, z3.ExprRef]]) -> z3.ModelRef:
    """The model's values as a z3 model: what is evaluated, and what the result shows."""
    model = z3.Model()
    for constant, value in fixed:
        model.update_value(constant, value)
    return model


def _loadable(text: str) -> tuple[str, str]:
    """(the assertions text without its dropped commands, "") when it holds only declarations,
    definitions and assertions; else ("", why the verifier does not give it to z3)."""
    try:
        commands = split_commands(text)
    except Smt2SyntaxError as exc:
        return "", f"the assertions could not be parsed: {exc}"
    for command in commands:
        if command.head not in ALLOWED_COMMANDS and command.head not in DROPPED_COMMANDS:
            return "", (f"the assertions hold a command the verifier does not run: "
                        f"({command.head[:40]} ...)")
    if not any(command.head in DROPPED_COMMANDS for command in commands):
        return text, ""
    return "\n".join(text[c.start:c.end] for c in commands if c.head not in DROPPED_COMMANDS), ""


def only_asserts(text: str, count: int) -> bool:
    """``text`` is exactly ``count`` (assert ...) commands: no value (or term) the candidate sent
    closed its command early to smuggle in one of its own."""
    try:
        commands = split_commands(text)
    except Smt2SyntaxError:
        return False
    return len(commands) == count and all(command.head == "assert" for command in commands)


def _evaluate(assertions: list[z3.BoolRef], model: z3.ModelRef) -> bool:
    """The fast path: every assertion evaluates to true under the fixed values alone.  Measured: a
    trivial model verifies in ~0.3 ms this way against ~3 ms with Solver().  False says only that
    the fast path does not decide (``_verify``)."""
    return all(z3.is_true(model.eval(assertion, model_completion=False)) for assertion in assertions)


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
