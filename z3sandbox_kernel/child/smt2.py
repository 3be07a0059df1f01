"""SMT-LIB 2 candidates: run the text as ``z3 file.smt2`` does, print what it prints, and report
what its last (check-sat) found, as values z3's API gives, never as text the script shaped.

The text goes through z3's own front end (``Z3_eval_smtlib2_string``, the command interpreter of
the z3 executable), one segment per (check-sat) so each check runs under the solver timeout; its
output (results, models, values, echoes, errors) is the candidate's stdout and nothing else: the
harness reads none of it.  Output is the script's to shape -- a symbol ``|a\nunsat\n|`` printed by
``:dump-models``, an (echo), a label in a progress line, an objective term with parentheses in its
name -- so no verdict, model or objective is parsed from it.

What the harness reads instead, for the last check (smt2_text.py says how the text is read):

- whether z3 raised for a segment (an error: ``syntax_error``) and whether the harness's own
  watchdog interrupted the check (a timeout): values of the API and of the harness;
- the check's assertions, loaded by ``Z3_solver_from_string`` (or the Optimize one) from the
  script's declaring, asserting and scoping commands before it (``plan_check``).  A command that
  may assert what the text does not show ((include) of a file the script wrote) leaves the check
  ``unknown``, said so: nothing is made up from the text;
- the front end's model, asked privately right after the check (``(get-model)``, a command the
  script never sees, skipped under ``:error-behavior immediate-exit``) and read back as z3 values.
  It only counts if every assertion evaluates to true in it (or is satisfiable with its constants
  fixed): a model that satisfies the assertions proves sat whatever its text looked like, and
  costs an evaluation, not a search.  This is the common case;
- otherwise (unsat, unknown, no model kept) the harness checks the loaded assertions itself, under
  the same solver timeout, and its answer is the verdict: an unsat SMT-LIB check is solved twice
  (measured on the shared SMT-LIB corpus: CPU of unsat rows x1.96, of sat rows x1.06), a check
  the watchdog interrupted is not solved again;
- an Optimize's objectives: its terms as z3 holds them, valued in that model.

Why this is sound: the front end's printed text never reaches a decision, so a name, an option or
a command that prints changes nothing but stdout; a sat needs a model the API evaluates true; unsat
and unknown are the API's own answer on assertions read from the text by the same function the
verifier uses (child/verify.py checks the model against the script the zygote holds).  Why not
re-solve always: z3's front end keeps its check's state inside (no API reaches it), and the output
must be z3's own, so the front end solves anyway; a model it found is reused, a refutation cannot be.

An error before or at the last (check-sat) makes the verdict ``syntax_error``; one after it only
shows in the output, as in z3.  Text the splitter cannot split (unbalanced parentheses, an
unterminated string) is run whole, for its output, and is a ``syntax_error``.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import Any

import z3

from ..protocol import ChildReport
from . import instrument, models, objectives, observer
from .smt2_text import (
    CHECK_HEADS,
    Command,
    Smt2SyntaxError,
    error_message,
    error_position,
    items,
    plan_check,
    split_commands,
    until_exit,
)
from .terms import walk_terms

__all__ = ["Smt2SyntaxError", "error_message", "error_position", "plan_check", "run",
           "split_commands"]

# How z3 prints terms (global parameters a script can set: (set-option :pp.decimal true) prints
# 1/3 as 0.3333333333?), as they were before any script: the report's SMT-LIB values are printed
# with these, after the script's output is complete, so that the verifier can read them.
_PRINTING = {f"pp.{name}": z3.get_param(f"pp.{name}") for name in (
    "decimal", "decimal_precision", "bv_literals", "fp_real_literals", "bounded", "max_depth",
    "max_indent", "max_num_lines", "max_width", "max_ribbon", "min_alias_size", "single_line")}

# The private (get-model) is asked only when an error cannot end the process: under
# (set-option :error-behavior immediate-exit) z3 exits on "model is not available".
_CONTINUES = "(:error-behavior continued-execution)"


def run(text: str, memory_words: tuple[str, ...] = ("out of memory",)) -> ChildReport | None:
    """Run ``text`` through z3's own SMT-LIB front end, printing what ``z3 file.smt2`` prints, and
    report what its last (check-sat) found.  None when the text has no (check-sat): the caller then
    checks whatever it asserts (after the output, so the output is still z3's)."""
    try:
        commands = split_commands(text)
    except Smt2SyntaxError as exc:  # z3 still runs the commands before it: the output shows them
        _eval_segment(text, instrument.RUN.timeout_s)
        return {"outcome": "syntax_error", "reason": str(exc), "line": exc.line,
                "column": exc.column}
    text, commands = until_exit(text, commands)  # z3 stops reading at (exit)
    checks = [c for c in commands if c.head in CHECK_HEADS]
    if not checks:
        error = _eval_segment(text, None)
        if error is not None:
            return _error_report(error, memory_words)
        plan = plan_check(text)
        if plan.unread:
            return None  # what it asserted is not known: nothing the harness could check
        solver = _loaded(plan.text, plan.optimize, plan.logic)
        if len(solver.assertions()):
            solver.check()  # asserted but never checked: the harness checks it (instrumented)
        return None
    first_error: str | None = None
    done = 0
    for check in checks:  # one segment per (check-sat), each under the solver timeout
        error = _eval_segment(text[done : check.end], instrument.RUN.timeout_s)
        first_error = first_error or error
        done = check.end
    fired = _LAST.fired
    # Before the script's later commands can drop it ((pop), (assert) end the check's model).
    model_text = _private("(get-model)") if _CONTINUES in _private(
        "(get-info :error-behavior)").splitlines() else ""
    _eval_segment(text[done:], None)  # (get-model), (get-value ...), (echo ...) after it
    if first_error is not None:
        return _error_report(first_error, memory_words)
    return _decide(text, commands, checks[-1], model_text, fired, memory_words)


def _decide(text: str, commands: list[Command], last: Command, model_text: str, fired: bool,
            memory_words: tuple[str, ...]) -> ChildReport:
    """The last check's answer from values: the front end's model if it satisfies the check's
    assertions, else the harness's own check of them (unless the watchdog already stopped z3's)."""
    plan = plan_check(text)
    if plan.unread:
        return {"outcome": "unknown", "reason": f"not read: the script's ({plan.unread[:40]} ...) "
                "may assert what its text does not show, so its check cannot be reported"}
    solver = _loaded(plan.text, plan.optimize, plan.logic)
    assertions = list(solver.assertions())
    model = _satisfying(solver, assertions, _model_from_text(model_text, assertions, solver.ctx))
    reason = ""
    if model is None and not fired:
        result, fired = _check(solver, [])
        if result == z3.unsat:
            return {"outcome": "unsat"}
        if result == z3.sat:
            model = solver.model()
        else:
            reason = solver.reason_unknown()
    if model is None:
        if any(word in reason for word in memory_words):
            return {"outcome": "memory_error", "reason": f"z3 ran out of memory: {reason}"}
        return {"outcome": "unknown", "reason": "timeout" if fired else reason,
                "solver_timeout": fired}
    for name, value in _PRINTING.items():
        if z3.get_param(name) != value:
            z3.set_param(name, value)
    text_of = models.benchmark(solver.ctx.ref(), [a.as_ast() for a in assertions])
    report = models.check_report(models.CheckReport(
        z3.Z3_L_TRUE, fields=models.read_model(model), assertions=text_of), False)
    if plan.optimize:
        goals = objectives.smt2_objectives(
            solver, model, [items(text[c.start + 1 : c.end - 1]) for c in commands
                            if c.end <= last.start])
        if goals:
            report["objectives"] = goals
    return report


def _satisfying(solver: Any, assertions: list[z3.BoolRef], model: z3.ModelRef | None
                ) -> z3.ModelRef | None:
    """``model`` if every assertion is true in it, or a model of the assertions with its constants
    fixed (functions, quantifiers: a short search); None if neither holds."""
    if model is None:
        return None
    if all(z3.is_true(model.eval(a, model_completion=True)) for a in assertions):
        return model
    fixed = [decl() == model[decl] for decl in model.decls() if decl.arity() == 0]
    result, _ = _check(solver, fixed)
    return solver.model() if result == z3.sat else None


def _check(solver: Any, assumptions: list[z3.BoolRef]) -> tuple[z3.CheckSatResult, bool]:
    """The harness's own check of a solver it loaded, under the solver timeout, unobserved (it is
    not one of the script's checks); and whether the watchdog stopped it."""
    optimize = isinstance(solver, z3.Optimize)
    name = "Z3_optimize_check" if optimize else "Z3_solver_check_assumptions"
    vector = (z3.Ast * len(assumptions))(*[a.as_ast() for a in assumptions])
    token = instrument.RUN.watchdog.start(solver.ctx, instrument.RUN.timeout_s)
    try:
        result = observer.unobserved(name)(solver.ctx.ref(), solver.optimize if optimize
                                           else solver.solver, len(assumptions), vector)
    finally:
        fired = instrument.RUN.watchdog.stop(token)
    return z3.CheckSatResult(result), fired


@dataclass
class _Segment:
    output: str = ""
    fired: bool = False


_LAST = _Segment()


def _eval_segment(text: str, timeout_s: float | None) -> str | None:
    """Run ``text`` in the main context's SMT-LIB front end (its state carries over from segment
    to segment, line and column numbers too) and print its output; its first error, or None
    (whether z3 raised decides; the lines only give the message shown)."""
    global _LAST
    if not text.strip():
        _LAST = _Segment()
        return None
    ctx = z3.main_ctx()
    token = instrument.RUN.watchdog.start(ctx, timeout_s) if timeout_s is not None else None
    try:
        output, failed = z3.Z3_eval_smtlib2_string(ctx.ref(), text), False
    except z3.Z3Exception as exc:  # z3 ran every command anyway; the output holds the errors
        output, failed = _text(exc.value), True
    finally:
        fired = instrument.RUN.watchdog.stop(token) if token is not None else False
    _LAST = _Segment(output, fired)
    sys.stdout.write(output)
    sys.stdout.flush()
    if not failed:
        return None
    errors = [line for line in output.splitlines() if line.startswith("(error ")]
    return error_message(errors[0]) if errors else output


def _private(command: str) -> str:
    """A command the harness asks between the script's own, whose output the script never sees
    (each evaluation starts with z3's output channels reset to the returned string)."""
    try:
        return _text(z3.Z3_eval_smtlib2_string(z3.main_ctx().ref(), command))
    except z3.Z3Exception as exc:
        return _text(exc.value)


def _text(raw: object) -> str:
    return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)


def _error_report(message: str, memory_words: tuple[str, ...]) -> ChildReport:
    if any(word in message for word in memory_words):
        return {"outcome": "memory_error", "reason": message}
    line, column = error_position(message)
    return {"outcome": "syntax_error", "reason": message[:3000], "line": line, "column": column}


def _loaded(text: str, optimize: bool, logic: str | None) -> Any:
    """A solver with the assertions of ``text``, loaded by z3's own from_string: this is the
    harness reading the script, not the script asserting."""
    solver = z3.Optimize() if optimize else _solver_for(logic)
    kind = "optimize" if optimize else "solver"
    observer.unobserved(f"Z3_{kind}_from_string")(solver.ctx.ref(), getattr(solver, kind), text)
    return solver


def _model_from_text(text: str, assertions: list[z3.BoolRef], ctx: z3.Context
                     ) -> z3.ModelRef | None:
    """A model with the constants of a (get-model) answer, or None if there is no answer.

    Fast path: the answer's constants become declarations and equalities parsed in ONE call of
    z3's parser (z3 hash-conses declarations, so they are the assertions' own).  Where that cannot
    work (sorts the script declared itself, values that name auxiliary functions), each value is
    parsed alone with the assertions' declarations, and one that does not parse (or a function) is
    left out, as the verifier leaves out what it cannot fix."""
    body = text.strip()
    if not body.startswith("(") or body.startswith("(error"):
        return None
    inner = body[1:-1]
    constants = _constants(inner)
    model = z3.Model(ctx)
    if all(_BUILTIN_SORT.fullmatch(sort) for _, sort, _ in constants):
        declared = "".join(f"(declare-fun {name} () {sort})" for name, sort, _ in constants)
        equalities = "".join(f"(assert (= {name} {value}))" for name, _, value in constants)
        try:
            parsed = z3.parse_smt2_string(declared + equalities, ctx=ctx)
        except z3.Z3Exception:
            parsed = None
        if parsed is not None and len(parsed) == len(constants):
            for equality in parsed:
                model.update_value(equality.arg(0).decl(), z3.simplify(equality.arg(1)))
            return model
    decls, sorts = _symbols(assertions)
    for name, _sort, value in constants:
        decl = decls.get(name.strip("|"))
        if decl is None or decl.arity() != 0:
            continue
        try:
            parsed = z3.parse_smt2_string(f"(assert (= {name} {value}))", sorts=sorts, decls=decls,
                                          ctx=ctx)
            model.update_value(decl, z3.simplify(parsed[0].arg(1)))  # (- 4) is -4
        except (z3.Z3Exception, IndexError):
            continue
    return model


# Sorts z3 knows without a declaration of the script's: a constant of any other sort takes the
# slow path (a datatype or uninterpreted sort must not be declared a second time).
_BUILTIN_SORT = re.compile(r"Int|Real|Bool|String|RegLan|RoundingMode|Float(16|32|64|128)"
                           r"|\(_ (BitVec|FloatingPoint) \d+( \d+)?\)")


def _constants(model_text: str) -> list[tuple[str, str, str]]:
    """(name, sort, value) of each ``(define-fun name () sort value)`` in a (get-model) answer,
    read as tokens: a quoted name holds any parentheses and line breaks it likes."""
    found = []
    try:
        entries = items(model_text)
    except Smt2SyntaxError:
        return []
    for entry in entries:
        if not entry.startswith("(define-fun"):
            continue
        try:
            parts = items(entry[1:-1])
        except Smt2SyntaxError:
            continue
        if len(parts) == 5 and parts[0] == "define-fun" and parts[2] == "()":
            found.append((parts[1], parts[3], parts[4]))  # else a function, not a constant
    return found


def _symbols(assertions: list[z3.BoolRef]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Every declaration (constants, functions, constructors) and sort the assertions use."""
    decls: dict[str, Any] = {}
    sorts: dict[str, Any] = {}
    for term in walk_terms(assertions):
        if z3.is_app(term):
            decl = term.decl()
            if decl.kind() in (z3.Z3_OP_UNINTERPRETED, z3.Z3_OP_DT_CONSTRUCTOR):
                decls.setdefault(decl.name(), decl)
            sort = term.sort()
            if sort.kind() in (z3.Z3_UNINTERPRETED_SORT, z3.Z3_DATATYPE_SORT):
                sorts.setdefault(sort.name(), sort)
    return decls, sorts


def _solver_for(logic: str | None) -> Any:
    """The solver z3's own SMT-LIB front end would pick for the declared logic."""
    if logic:
        try:
            return z3.SolverFor(logic)
        except z3.Z3Exception:
            pass
    return z3.Solver()


