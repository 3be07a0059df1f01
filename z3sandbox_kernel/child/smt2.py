"""SMT-LIB 2 candidates: run the text as ``z3 file.smt2`` does, print what it prints, and report
what each (check-sat) found, as values z3's API gives, never as text the script shaped.

The text goes through z3's own front end (smt2_front.py), one segment per (check-sat) so each
check runs under the solver timeout; its output (results, models, values, echoes, errors) is the
candidate's stdout and nothing else: the harness reads none of it.  Output is the script's to
shape -- a symbol ``|a\nunsat\n|`` printed by ``:dump-models``, an (echo), a label in a progress
line, an objective term with parentheses in its name -- so no verdict, model or objective is
parsed from it.

What the harness reads instead (smt2_text.py says how the text is read):

- whether z3 raised for a segment (an error: ``syntax_error``) and whether the harness's own
  watchdog interrupted the check (a timeout): values of the API and of the harness;
- the check's assertions, loaded by ``Z3_solver_from_string`` (or the Optimize one) into the
  harness's own context from the script's declaring, asserting and scoping commands before it
  (``plan_check``).  A command that may assert what the text does not show ((include) of a file
  the script wrote) leaves the check ``unknown``, said so: nothing is made up from the text;
- the front end's model, asked privately (``(get-model)``, a command the script never sees,
  skipped under ``:error-behavior immediate-exit``) and read back as z3 values: for the last check
  at once, for an earlier one only right after the script's own (get-model) of it (asking for
  any other makes terms that change later checks: smt2_front.py).  It only counts if every
  assertion evaluates to true in it (or is satisfiable with its constants fixed): a model that
  satisfies the assertions proves sat whatever its text looked like, and costs an evaluation,
  not a search.  This is the common case;
- a (check-sat) run alone, after the commands before it: what that evaluation printed is z3's
  response and nothing else, since no other command of the script is in it.  Exactly "unsat" is
  the answer (an option that adds to the response, :dump-unsat-cores, or sends it to another
  channel makes it anything else, and the next rule decides);
- otherwise (unknown, a response not read, a sat without a model that holds) the harness checks
  the loaded assertions itself, and its answer is the verdict: such a check is solved twice.  The
  last check's is under the solver timeout; an earlier check's under at most the front end's time
  for it (at least RECHECK_MIN_S), so it costs at most about twice what it costs plainly.  A check
  the watchdog interrupted is not solved again (before the lone response was read, every unsat
  was solved twice: CPU of the shared corpus's unsat rows x1.96, bench/PROFILE.md);
- an Optimize's objectives (last check): its terms as z3 holds them, valued in that model.

Every check leaves as frames as it ends (checks.py): verdict, line, and the model when the
script asked for it; the frames carry no assertions, since the verifier reads each check's from
the script the zygote holds.  The verdict stays the last check's.

Why this is sound: the script's printed text never reaches a decision, so a name, an option or
a command that prints changes nothing but stdout; a sat needs a model the API evaluates true; an
unsat is z3's whole response to a (check-sat) evaluated alone, else the API's own answer on
assertions read from the text by the same function the verifier uses (child/verify.py checks the
model against the script the zygote holds).  Why not re-solve always: z3's front end keeps its
check's state inside (no API reaches it), and the output must be z3's own, so the front end
solves anyway; a model it found is reused, and so is a refutation it alone printed.

An error before or at the last (check-sat) makes the verdict ``syntax_error`` (the checks after
it are ``unknown``); one after it only shows in the output, as in z3.  Text the splitter cannot
split (unbalanced parentheses, an unterminated string) is run whole, for its output, and is a
``syntax_error``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import z3

from ..protocol import ChildReport
from . import checks, copies, instrument, models, objectives, observer
from .handles import Loaded
from .smt2_core import add_core, asks_core, core_names
from .smt2_front import (
    FrontEnd,
    Segment,
    at_command_end,
    error_message,
    error_position,
    evaluate,
    model_text,
    private,
)
from .smt2_model import model_from_text
from .smt2_text import (
    CHECK_HEADS,
    Command,
    Reading,
    Smt2SyntaxError,
    check_lines,
    items,
    plan_check,
    read,
)

__all__ = ["plan_check", "read", "run"]

# How z3 prints terms (global parameters a script can set: (set-option :pp.decimal true) prints
# 1/3 as 0.3333333333?), as they were before any script: the report's SMT-LIB values are printed
# with these, so that the verifier can read them.
_PRINTING = {f"pp.{name}": z3.get_param(f"pp.{name}") for name in (
    "decimal", "decimal_precision", "bv_literals", "fp_real_literals", "bounded", "max_depth",
    "max_indent", "max_num_lines", "max_width", "max_ribbon", "min_alias_size", "single_line")}
# The harness's own check of an earlier (check-sat) gets at most this many times the seconds the
# front end's took (at least RECHECK_MIN_S, at most the solver timeout; past it the check is
# unknown): it solves from scratch where z3's front end was incremental, and a script whose
# (set-option :timeout 50) made a check unknown does not make the harness search for seconds.
# Measured: a 10-check chain of 1,500 function assertions, 5.8 s plainly, 10.1 s with every
# check decided (12.8 s when the script also asks for each model: a function's model is
# checked by a search).
RECHECK_FACTOR = 1.0
RECHECK_MIN_S = 1.0
# A (check-sat)'s whole response when z3 refuted its assertions (run alone: smt2_front.py).  Any
# other response -- sat, unknown, one an option such as :dump-unsat-cores adds to, one sent to
# another channel -- is decided from values, as below.
UNSAT_RESPONSE = "unsat\n"
# The error type of a command z3 read and could not carry out ((get-model) with no model): a
# runtime_error of the script, which z3 names so in its own words.
Z3_ERROR = "z3 error"


def run(text: str, memory_words: tuple[str, ...] = ("out of memory",),
        send: checks.Send | None = None) -> ChildReport | None:
    """Run ``text`` through z3's own SMT-LIB front end, printing what ``z3 file.smt2`` prints, and
    report what its last check found; with ``send``, each check as it ends (checks.py).  z3 is
    given the text of the script's one reading (smt2_text.read: comments blanked, quoted command
    heads written plainly), and every check's assertions are cut from the same reading.  None when
    the text has no check: the caller then checks whatever it asserts (after the output, so the
    output is still z3's)."""
    try:
        reading = read(text)  # z3 stops reading at (exit)
    except Smt2SyntaxError as exc:  # z3 still runs the commands before it: the output shows them
        evaluate(exc.text or text, instrument.RUN.timeout_s)
        return {"outcome": "syntax_error", "reason": str(exc), "line": exc.line,
                "column": exc.column}
    given, commands = reading.text, list(reading.commands)
    check_commands = [c for c in commands if c.head in CHECK_HEADS]
    if not check_commands:
        error = evaluate(given, None).error
        if error is not None:
            return _error_report(error, reading, memory_words)
        plan = plan_check(text)
        if plan.unread or plan.doubt:
            return None  # what it asserted is not known: nothing the harness could check
        try:
            solver = _loaded(plan.text, plan.optimize, plan.logic)
        except z3.Z3Exception as exc:  # nothing checked: the sandbox says it could not check it
            return {"outcome": "no_check", "reason": _unreadable(exc)["reason"]}
        if len(solver.assertions()):
            solver.check()  # asserted but never checked: the harness checks it (instrumented)
        return None
    log, lines, front = checks.CheckLog(send), check_lines(text), FrontEnd(reading)
    for ordinal, read_model in enumerate(_model_reads(commands)[:-1]):
        segment = front.run_to(check_commands[ordinal], instrument.RUN.timeout_s)
        answer = _Answer()
        if log.sends() and front.first_error is None:  # past the cap a check is only counted
            model = ""
            # The script's own (get-model) of it: the harness asks after it, at its line's end.
            if read_model is not None and front.run_to(read_model, instrument.RUN.timeout_s).last:
                with _printing():
                    model = model_text()
            answer = _answer(text, ordinal, model, segment, min(
                instrument.RUN.timeout_s, max(RECHECK_MIN_S, RECHECK_FACTOR * segment.seconds)))
            answer.model = answer.model if answer.read else None  # only a model the script read
        _send(log, answer, lines[ordinal], None)
    segment = front.run_to(check_commands[-1], instrument.RUN.timeout_s)
    model, core = "", None
    if segment.last:  # at once: the commands after it may drop it ((pop), (assert) end it)
        with _printing():
            model = model_text()
        if segment.response == UNSAT_RESPONSE and asks_core(commands, check_commands[-1]):
            core = core_names(private("(get-unsat-core)"))
    error = front.first_error  # one after the last check only shows in the output, as in z3
    front.run_to(None, None)  # (get-model), (get-value ...), (echo ...) after it
    if error is not None:
        report = _error_report(error, reading, memory_words)
        _send(log, _Answer(), lines[-1], None)
    else:
        answer = _answer(text, -1, model, segment, instrument.RUN.timeout_s)
        report, fields = _report(answer, given, commands, check_commands[-1], memory_words)
        if report["outcome"] == "unsat" and core is not None:
            add_core(report, text, core)
        if report["outcome"] in ("unknown", "memory_error"):
            report["line"] = lines[-1]  # the check that gave no answer, as a Python check's
        _send(log, answer, lines[-1], fields)
    report["checks_made"] = log.made
    return report


def _unreadable(exc: z3.Z3Exception) -> ChildReport:
    """The harness could not load what z3's front end ran: the sandbox's failure, not the
    script's (no user code runs in an SMT-LIB candidate)."""
    message = error_message(getattr(exc, "value", exc))[:500]
    return {"outcome": "internal_error",
            "reason": f"the sandbox could not load the script's assertions again: {message}"}


def _model_reads(commands: list[Command]) -> list[Command | None]:
    """For each (check-sat), the script's first (get-model) after it and before the next one."""
    reads: list[Command | None] = []
    for command in commands:
        if command.head in CHECK_HEADS:
            reads.append(None)
        elif command.head == "get-model" and reads and reads[-1] is None:
            reads[-1] = command
    return reads


@dataclass
class _Answer:
    """What one check found, from values (unknown until decided)."""

    result: int = z3.Z3_L_UNDEF
    solver: Any = None  # the harness's, loaded with the check's assertions (None: not needed)
    assertions: list[z3.BoolRef] = field(default_factory=list)
    model: z3.ModelRef | None = None  # sat: a model the assertions are true in
    read: bool = False  # the model is the front end's (its constants), not one the harness found
    reason: str = ""
    fired: bool = False  # the watchdog stopped the front end's check or the harness's
    unread: str = ""  # a command before the check that may assert what the text does not show
    doubt: str = ""  # smt2_text.Reading.doubt: z3 may have read the text otherwise
    failure: str = ""  # the harness could not load the assertions (the sandbox's failure)


def _answer(text: str, check: int, model_text: str, segment: Segment, timeout_s: float) -> _Answer:
    """The ``check``-th check's answer: unsat when the check, run alone, printed exactly "unsat"
    (smt2_front.py: only z3 wrote that response); sat with the front end's model if it satisfies
    the check's assertions; else the harness's own check of them under ``timeout_s`` (unless the
    watchdog already stopped z3's; with z3's default solver, whatever tactic z3 checked with).
    Loaded in the harness's own context: nothing is made in the script's."""
    plan = plan_check(text, check=check)
    if plan.unread or plan.doubt:
        return _Answer(unread=plan.unread, doubt=plan.doubt)
    fired = segment.fired
    if segment.response == UNSAT_RESPONSE and not fired:
        return _Answer(z3.Z3_L_FALSE)  # nothing of it is read further: no solver loaded
    ctx = copies.reader_context()
    try:
        if plan.optimize:  # its objectives are read from the Optimize the text is loaded into
            solver: Any = _loaded(plan.text, True, plan.logic, ctx)
            assertions = list(solver.assertions())
        else:  # a solver only if the front end's model does not do (_Solver)
            solver, assertions = None, list(z3.parse_smt2_string(plan.text, ctx=ctx))
        lazy = _Solver(solver, assertions, plan.logic, ctx)
        model = _satisfying(lazy, assertions, model_from_text(model_text, assertions, ctx),
                            timeout_s)
    except z3.Z3Exception as exc:
        return _Answer(failure=_unreadable(exc)["reason"])
    if model is not None:
        return _Answer(z3.Z3_L_TRUE, lazy.made, assertions, model, read=True)
    solver = lazy.get()
    reason = ""
    if not fired:
        result, fired = _check(solver, [], timeout_s)
        if result == z3.unsat:
            return _Answer(z3.Z3_L_FALSE, solver, assertions)
        if result == z3.sat:
            return _Answer(z3.Z3_L_TRUE, solver, assertions, solver.model())
        reason = solver.reason_unknown()
        if plan.tactic:  # z3 answered with the script's tactic, the harness with its own solver
            reason = f"{reason} (z3's own answer with (check-sat-using {plan.tactic[:60]}) was not read)"
    return _Answer(z3.Z3_L_UNDEF, solver, assertions, reason=reason, fired=fired)


def _report(answer: _Answer, text: str, commands: list[Command], last: Command,
            memory_words: tuple[str, ...]) -> tuple[ChildReport, models.ModelFields | None]:
    """The report of the last check, and its model's fields (sat)."""
    if answer.unread:
        return {"outcome": "unknown", "reason": f"not read: the script's ({answer.unread[:40]} ...) "
                "may assert what its text does not show, so its check cannot be reported"}, None
    if answer.doubt:
        return {"outcome": "unknown", "reason": f"not read: z3 may read its text otherwise than "
                f"the sandbox ({answer.doubt}), so its check's answer stays unread"}, None
    if answer.failure:
        return {"outcome": "internal_error", "reason": answer.failure}, None
    if answer.result == z3.Z3_L_FALSE:
        return {"outcome": "unsat"}, None
    if answer.model is None:
        if any(word in answer.reason for word in memory_words):
            return {"outcome": "memory_error", "reason": f"z3 ran out of memory: {answer.reason}"}, None
        return {"outcome": "unknown", "reason": "timeout" if answer.fired else answer.reason,
                "solver_timeout": answer.fired}, None
    solver = answer.solver  # None: the front end's model satisfied the parsed assertions
    with _printing():
        text_of = models.benchmark(answer.model.ctx.ref(), [a.as_ast() for a in answer.assertions])
        fields = models.read_model(answer.model)
    report = models.check_report(models.CheckReport(
        z3.Z3_L_TRUE, fields=fields, assertions=text_of), False)
    if isinstance(solver, z3.Optimize):
        goals = objectives.smt2_objectives(
            solver, answer.model, [items(text[c.start + 1 : c.end - 1]) for c in commands
                                   if c.end <= last.start])
        if goals:
            report["objectives"] = goals
    return report, fields


def _send(log: checks.CheckLog, answer: _Answer, line: int,
          fields: models.ModelFields | None) -> None:
    """One check as its frames (checks.py).  Its assertions travel as None: the zygote holds the
    script, and the verifier reads each check's assertions from it, not from the child."""
    index = log.check(answer.result, lambda: line, lambda: None)
    if index is not None and answer.model is not None:
        if fields is None:
            with _printing():
                fields = models.read_model(answer.model)
        log.model(index, fields)


@contextlib.contextmanager
def _printing() -> Iterator[None]:
    """z3's printing parameters as before any script while the front end prints a model for the
    harness, or the harness prints a model's values (both are read back), then the script's own
    again: a later segment prints as the script set it."""
    changed = {name: z3.get_param(name) for name, value in _PRINTING.items()
               if z3.get_param(name) != value}
    for name in changed:
        z3.set_param(name, _PRINTING[name])
    try:
        yield
    finally:
        for name, value in changed.items():
            z3.set_param(name, value)


class _Solver:
    """The harness's solver of a check's assertions, made when first needed: most front-end models
    satisfy the assertions, which were parsed alone, and loading them into a solver (its tactics,
    its preprocessing) costs several times the parse (QF_LIRA__prp-20-46.smt2: 54 ms against 7)."""

    def __init__(self, made: Loaded | None, assertions: list[z3.BoolRef], logic: str | None,
                 ctx: z3.Context) -> None:
        self.made, self._assertions, self._logic, self._ctx = made, assertions, logic, ctx

    def get(self) -> Loaded:
        if self.made is None:
            self.made = _solver_for(self._logic, self._ctx)
            add = observer.unobserved("Z3_solver_assert")  # the harness's, not the script's
            for assertion in self._assertions:
                add(self._ctx.ref(), self.made.solver, assertion.as_ast())
        return self.made


def _satisfying(solver: _Solver, assertions: list[z3.BoolRef], model: z3.ModelRef | None,
                timeout_s: float) -> z3.ModelRef | None:
    """``model`` if every assertion is true in it, or a model of the assertions with its constants
    fixed (functions, quantifiers: a short search); None if neither holds."""
    if model is None:
        return None
    if all(z3.is_true(model.eval(a, model_completion=True)) for a in assertions):
        return model
    fixed = [decl() == model[decl] for decl in model.decls() if decl.arity() == 0]
    result, _ = _check(solver.get(), fixed, timeout_s)
    return solver.get().model() if result == z3.sat else None


def _check(solver: Loaded, assumptions: list[z3.BoolRef], timeout_s: float
           ) -> tuple[z3.CheckSatResult, bool]:
    """The harness's own check of a solver it loaded, under ``timeout_s``, unobserved (it is not
    one of the script's checks); and whether the watchdog stopped it."""
    optimize = isinstance(solver, z3.Optimize)
    name = "Z3_optimize_check" if optimize else "Z3_solver_check_assumptions"
    vector = (z3.Ast * len(assumptions))(*[a.as_ast() for a in assumptions])
    token = instrument.RUN.watchdog.start(solver.ctx, timeout_s)
    try:
        result = observer.unobserved(name)(solver.ctx.ref(), solver.optimize if optimize
                                           else solver.solver, len(assumptions), vector)
    finally:
        fired = instrument.RUN.watchdog.stop(token)
    return z3.CheckSatResult(result), fired


def _error_report(message: str, reading: Reading, memory_words: tuple[str, ...]) -> ChildReport:
    """z3's first error, as z3 said it: ``syntax_error`` when z3 could not read a command
    (its position is inside the command), ``runtime_error`` when it read the command and then
    could not carry it out ((get-model) with no model: z3 names the command's closing
    parenthesis)."""
    if any(word in message for word in memory_words):
        return {"outcome": "memory_error", "reason": message}
    line, column = error_position(message)
    if at_command_end(reading, line, column):
        return {"outcome": "exception", "reason": message[:3000],
                "exception": {"type": Z3_ERROR, "message": message[:3000], "line": line}}
    return {"outcome": "syntax_error", "reason": message[:3000], "line": line, "column": column}


def _loaded(text: str, optimize: bool, logic: str | None, ctx: z3.Context | None = None) -> Loaded:
    """A solver with the assertions of ``text``, loaded by z3's own from_string: this is the
    harness reading the script, not the script asserting."""
    solver = z3.Optimize(ctx=ctx) if optimize else _solver_for(logic, ctx)
    kind = "optimize" if optimize else "solver"
    observer.unobserved(f"Z3_{kind}_from_string")(solver.ctx.ref(), getattr(solver, kind), text)
    return solver


def _solver_for(logic: str | None, ctx: z3.Context | None) -> Loaded:
    """The solver z3's own SMT-LIB front end would pick for the declared logic."""
    if logic:
        try:
            return z3.SolverFor(logic, ctx=ctx)
        except z3.Z3Exception:
            pass
    return z3.Solver(ctx=ctx)


