"""SMT-LIB 2 candidates: run the text as ``z3 file.smt2`` does, print what it prints, and report
what its last (check-sat) said.

The text goes through z3's own front end (``Z3_eval_smtlib2_string``, the command interpreter of
the z3 executable), one segment per (check-sat) so each check runs under the solver timeout; its
output (results, models, values, echoes, errors) is the candidate's stdout.  The splitter only
knows tokens (comments, strings, quoted symbols) and parentheses; z3 parses everything else, so its
messages and positions are what the user sees.  Afterwards the harness asks the front end for the
model (a command the script never sees) and loads the assertions before the last (check-sat) with
``from_string`` (``plan_check``), so a model can be reported and verified.

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
from .terms import walk_terms

# z3's parser errors look like: (error "line 4 column 20: unknown constant a")
_POSITION = re.compile(r"line (\d+) column (\d+)")
_HEAD = re.compile(r"\(\s*([^\s()\";|]+)")


class Smt2SyntaxError(Exception):
    """Unbalanced parentheses, an unterminated string or symbol, or text outside a command."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(f"line {line} column {column}: {message}")
        self.line = line
        self.column = column


@dataclass(frozen=True)
class Command:
    start: int  # offset of "(" in the text
    end: int  # offset just after the matching ")"
    head: str  # "check-sat", "assert", ...


@dataclass(frozen=True)
class CheckPlan:
    """What to load into a solver, and whether the text asked for a check at all."""

    text: str  # from_string input: everything before the last check, plus its assumptions
    checks: bool  # the text has a (check-sat) or (check-sat-assuming ...)
    logic: str | None
    optimize: bool  # (maximize), (minimize) or (assert-soft): only z3's Optimize reads those


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _skip_token(text: str, i: int) -> int:
    """The offset after the comment, string or quoted symbol starting at ``i``."""
    char = text[i]
    if char == ";":
        end = text.find("\n", i)
        return len(text) if end < 0 else end
    closing = '"' if char == '"' else "|"
    j = i + 1
    while True:
        end = text.find(closing, j)
        if end < 0:
            what = "string" if char == '"' else "quoted symbol"
            raise Smt2SyntaxError(f"unterminated {what}", *_position(text, i))
        if char == '"' and text.startswith('""', end):
            j = end + 2  # "" is an escaped quote inside a string
            continue
        return end + 1


def split_commands(text: str) -> list[Command]:
    """The top-level commands of an SMT-LIB 2 script, in order."""
    commands: list[Command] = []
    depth, start, i = 0, 0, 0
    special = re.compile(r'[();"|]|[^\s();"|]+')
    while True:
        match = special.search(text, i)
        if match is None:
            break
        token, i = match.group(), match.end()
        if token in (";", '"', "|"):
            i = _skip_token(text, match.start())
        elif token == "(":
            if depth == 0:
                start = match.start()
            depth += 1
        elif token == ")":
            if depth == 0:
                raise Smt2SyntaxError("unexpected ')'", *_position(text, match.start()))
            depth -= 1
            if depth == 0:
                head = _HEAD.match(text, start)
                commands.append(Command(start, i, head.group(1) if head else ""))
        elif depth == 0:
            raise Smt2SyntaxError(f"unexpected {token[:40]!r} outside a command",
                                  *_position(text, match.start()))
    if depth:
        raise Smt2SyntaxError("'(' is never closed", *_position(text, start))
    return commands


def plan_check(text: str) -> CheckPlan:
    """The assertions to check for the last (check-sat) of ``text``; raises Smt2SyntaxError."""
    commands = split_commands(text)
    logic = None
    for command in commands:
        words = text[command.start + 1 : command.end - 1].split()
        if command.head == "set-logic" and len(words) > 1:
            logic = words[1].strip("|")
    optimize = any(c.head in ("maximize", "minimize", "assert-soft") for c in commands)
    checks = [c for c in commands if c.head in ("check-sat", "check-sat-assuming")]
    if not checks:
        return CheckPlan(text, False, logic, optimize)
    last = checks[-1]
    prefix = text[: last.start]
    if last.head == "check-sat-assuming":
        # (check-sat-assuming (l1 l2 ...)): the literals hold for this one check only.
        body = text[last.start + 1 : last.end - 1].strip()[len(last.head) :].strip()
        if body.startswith("(") and body.endswith(")"):
            prefix += f"\n(assert (and true {body[1:-1]}))"
    return CheckPlan(prefix, True, logic, optimize)


def run(text: str, memory_words: tuple[str, ...] = ("out of memory",)) -> ChildReport | None:
    """Run ``text`` through z3's own SMT-LIB front end, printing what ``z3 file.smt2`` prints, and
    report what its last (check-sat) said.  None when the text has no (check-sat): the caller then
    checks whatever it asserts (after the output, so the output is still z3's)."""
    try:
        commands = split_commands(text)
    except Smt2SyntaxError as exc:  # z3 still runs the commands before it: the output shows them
        _eval_segment(text, instrument.RUN.timeout_s)
        return {"outcome": "syntax_error", "reason": str(exc), "line": exc.line,
                "column": exc.column}
    for index, command in enumerate(commands):
        if command.head == "exit":  # z3 stops reading there
            text, commands = text[: command.end], commands[: index + 1]
            break
    checks = [c for c in commands if c.head in ("check-sat", "check-sat-assuming")]
    if not checks:
        error = _eval_segment(text, None)
        if error is not None:
            return _error_report(error, memory_words)
        solver = _loaded(text, _optimizes(commands), plan_check(text).logic)
        if len(solver.assertions()):
            solver.check()  # asserted but never checked: the harness checks it (instrumented)
        return None
    first_error: str | None = None
    done = 0
    for check in checks:  # one segment per (check-sat), each under the solver timeout
        error = _eval_segment(text[done : check.end], instrument.RUN.timeout_s)
        first_error = first_error or error
        done = check.end
    fired, result, reason = _LAST.fired, _LAST.output, ""
    _eval_segment(text[done:], None)  # (get-model), (get-value ...), (echo ...) after it
    if first_error is not None:
        return _error_report(first_error, memory_words)
    verdict = _answer(result)
    if verdict == "unsat":
        plan = plan_check(text[: checks[-1].end])  # its assumptions asserted too
        return models.unsat_report(_loaded(plan.text, plan.optimize, plan.logic))
    if verdict == "sat":
        report = _sat_report(text[: checks[-1].start], _private("(get-model)"),
                             _optimizes(commands), plan_check(text).logic)
        if _optimizes(commands):
            directions = objectives.smt2_directions(
                [(c.head, text[c.start:c.end]) for c in commands if c.end <= checks[-1].start])
            goals = objectives.smt2_objectives(_private("(get-objectives)"), directions)
            if goals:
                report["objectives"] = goals
        return report
    if not fired:  # the answer looks like (:reason-unknown "incomplete quantifiers")
        quoted = _private("(get-info :reason-unknown)").split('"')
        reason = quoted[1] if len(quoted) > 2 else ""
    if any(word in reason for word in memory_words):
        return {"outcome": "memory_error", "reason": f"z3 ran out of memory: {reason}"}
    return {"outcome": "unknown", "reason": "timeout" if fired else reason,
            "solver_timeout": fired}


@dataclass
class _Segment:
    output: str = ""
    fired: bool = False


_LAST = _Segment()


def _eval_segment(text: str, timeout_s: float | None) -> str | None:
    """Run ``text`` in the main context's SMT-LIB front end (its state carries over from segment
    to segment, line and column numbers too) and print its output; its first error, or None."""
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
    """A command the harness asks after the script's own, whose output the script never sees."""
    try:
        return _text(z3.Z3_eval_smtlib2_string(z3.main_ctx().ref(), command))
    except z3.Z3Exception as exc:
        return _text(exc.value)


def _text(raw: object) -> str:
    return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)


def _optimizes(commands: list[Command]) -> bool:
    return any(c.head in ("maximize", "minimize", "assert-soft") for c in commands)


def _error_report(message: str, memory_words: tuple[str, ...]) -> ChildReport:
    if any(word in message for word in memory_words):
        return {"outcome": "memory_error", "reason": message}
    line, column = error_position(message)
    return {"outcome": "syntax_error", "reason": message[:3000], "line": line, "column": column}


def _answer(output: str) -> str:
    """The (check-sat) answer in the output of the segment it ends: its last line that is one.
    Output options print more after it (:dump-models prints the model) or before (:trace)."""
    answers = [line for line in output.splitlines() if line.strip() in ("sat", "unsat", "unknown")]
    return answers[-1].strip() if answers else ""


def _sat_report(before_check: str, model_text: str, optimize: bool,
                logic: str | None) -> ChildReport:
    """The report of a sat verdict: the assertions parsed again (for the verifier) and the model
    z3's front end printed, read back as z3 values.  If the front end has no model left (the
    script's later commands dropped it), the assertions are checked again for one."""
    solver = _loaded(plan_check(before_check + "(check-sat)").text, optimize, logic)
    assertions = solver.assertions()
    model = _model_from_text(model_text, list(assertions), solver.ctx)
    if model is None and solver.check() == z3.sat:
        model = solver.model()
    fields = models.read_model(model) if model is not None else None
    text = models.benchmark(solver.ctx.ref(), [f.as_ast() for f in assertions])
    return models.check_report(models.CheckReport(z3.Z3_L_TRUE, fields=fields, assertions=text), False)


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
    """(name, sort, value) of each ``(define-fun name () sort value)`` in a (get-model) answer."""
    found = []
    for command in split_commands(model_text):
        if command.head != "define-fun":
            continue
        piece = model_text[command.start + 1 : command.end - 1]
        words = piece.split(None, 2)
        if len(words) < 3 or not words[2].startswith("()"):
            continue  # a function, not a constant
        rest = words[2][2:].lstrip()
        sort_end = _sexpr_end(rest)
        found.append((words[1], rest[:sort_end], rest[sort_end:].strip()))
    return found


def _sexpr_end(text: str) -> int:
    """The offset just after the first symbol or parenthesised expression of ``text``."""
    if not text.startswith("("):
        match = re.match(r"\|[^|]*\||[^\s()]+", text)
        return match.end() if match else 0
    depth = 0
    for offset, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return offset + 1
    return len(text)


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


def error_position(message: str) -> tuple[int | None, int | None]:
    """Line and column from a z3 parser message, when it has them."""
    match = _POSITION.search(message)
    if match is None:
        return None, None
    return int(match.group(1)), int(match.group(2))


def error_message(raw: object) -> str:
    """z3's parser error text without the (error "...") wrapping."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    text = text.strip()
    match = re.fullmatch(r'\(error "(.*)"\)', text, re.DOTALL)
    return match.group(1) if match else text

