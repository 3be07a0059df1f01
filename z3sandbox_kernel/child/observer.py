"""What the harness learns of a script's solvers, observed at z3's C API boundary without changing z3.

The rule (a candidate prints what ``python script.py`` prints): between the script's own calls,
the harness leaves z3 exactly as a plain run would.

1. No call into the script's solvers that it did not make: ``assertions()`` makes a QF_FD solver
   drop its model (the SAT solver converts its clauses back to formulas), and asking a solver for
   a model runs model conversion, which makes terms.
2. No term made in the script's contexts: a new term takes an id, and z3's search follows ids.
3. No object of the script's kept alive longer than the script keeps it: a solver or model kept
   alive keeps its terms alive, so the next search meets other ids and caches.

So z3's Python classes are left as they are (``help(s.check)``, their names and doctests too), and
the C functions that z3.py calls by their names in its own module (``Z3_solver_assert``,
``Z3_solver_check_assumptions``, ``Z3_solver_dec_ref``...) are rebound there to observers that call
through and remember raw pointers, never Python objects of the script's:

- a solver's assertions are mirrored as SMT-LIB text, printed as the script asserts each formula
  (a reference to the formula would keep it alive: a simplifying solver such as SimpleSolver keeps
  only its own rewritten form, and a plain run frees the script's);
- a check is a ``Record``: its result and reason, and a mark of the mirror (how many assertions each
  scope held then), not a copy; a pop, a reset or the solver's end turns the mark into text; each
  check also leaves the child as it ends (checks.py);
- the model the script asked for is read when it asks (or, past checks.py's cap, before its model
  object ends), from a copy in a context of the harness's own: nothing is made in the script's
  context, and no reference outlives the call;
- after the script, what is still alive is read the same way (a model is asked for only then).

A script that calls z3's C functions itself (``Z3_solver_assert(...)`` from ``from z3 import *``)
bypasses the observers, as it bypasses z3.py: the report then knows less, the script runs the same.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, cast

import z3

from . import copies, models
from .check_record import PROPAGATED, Goal, Record
from .checks import CheckLog
from .copies import BorrowedContext, address
from .handles import Pointer, Pointers
from .mirror import Mirror

SAT, UNSAT = z3.Z3_L_TRUE, z3.Z3_L_FALSE


class Observer:
    """The observers' state for one candidate (one per process)."""

    def __init__(self, cores: bool, script_line: Callable[[], tuple[int | None, str]]) -> None:
        self.cores = cores
        self.script_line = script_line
        self.mirrors: dict[int, Mirror] = {}
        self.last: Record | None = None
        self.last_asserted: tuple[Pointer, int, str] | None = None  # (ctx, solver, kind) of a later add()
        self.unchecked_text: str | None = None  # the assertions of an unchecked solver that ended
        # cores=True: tracking literal id -> (script line, source); our literals are kept alive
        self.tracked: dict[int, tuple[int | None, str]] = {}
        self.our_literals: dict[int, z3.BoolRef] = {}
        self.tracked_terms: dict[int, str | None] = {}  # tracking literal id -> its formula as SMT-LIB
        self._contexts: dict[int, BorrowedContext] = {}
        self.checks = CheckLog(None)  # every check, sent as it happens (set by the harness)
        # Earlier checks whose model the script still holds: read when it lets go (model address).
        self.models: dict[int, Record] = {}
        self.on_check: Callable[[Pointer], int] = lambda ctx: 0  # the watchdog's start, set by install
        self.after_check: Callable[[int], bool] = lambda token: False
        self.goals: dict[int, dict[int, Goal]] = {}  # optimize object -> objective index -> goal

    def context(self, raw: Pointer) -> z3.Context:
        main = z3.z3._main_ctx
        if main is not None and address(main.ref()) == address(raw):
            return main
        return self._contexts.setdefault(address(raw), BorrowedContext(raw))


OBSERVER = Observer(False, lambda: (None, ""))
# The C functions as z3.py found them, before install().
C: dict[str, Callable[..., Any]] = {}


# ------------------------------------------------------------------------------ what is observed

def _created(name: str) -> Callable[..., Any]:
    def created(*args: object) -> Pointer:
        pointer: Pointer = C[name](*args)
        OBSERVER.mirrors[address(pointer)] = Mirror(args[0], _kind(name))
        return pointer
    return created


def _inc_ref(name: str) -> Callable[..., Any]:
    kind = _kind(name)

    def inc_ref(ctx: Pointer, solver: Pointer) -> None:
        C[name](ctx, solver)
        key = address(solver)
        mirror = OBSERVER.mirrors.get(key)
        if mirror is None:  # a solver the observers did not see made (a translate, a copy)
            mirror = OBSERVER.mirrors[key] = Mirror(
                ctx, kind, complete=False, why="the script copied or translated the solver")
        mirror.refs += 1
    return inc_ref


def _dec_ref(name: str) -> Callable[..., Any]:
    def dec_ref(ctx: Pointer, solver: Pointer) -> None:
        key = address(solver)
        mirror = OBSERVER.mirrors.get(key)
        if mirror is not None:
            mirror.refs -= 1
            if mirror.refs <= 0:  # the script lets go: take what the report needs, then forget it
                _settle(key, mirror)
                del OBSERVER.mirrors[key]
        C[name](ctx, solver)
    return dec_ref


def _asserted(name: str) -> Callable[..., Any]:
    tracked = name.endswith("_and_track")
    track_name = name if tracked else name.replace("assert", "assert_and_track")

    def asserted(ctx: Pointer, solver: Pointer, formula: Pointer, literal: Pointer | None = None) -> None:
        key = address(solver)
        mirror = OBSERVER.mirrors.get(key)
        if OBSERVER.cores:
            literal = _core_literal(ctx, literal)
            C[track_name](ctx, solver, formula, literal)
        elif tracked:
            C[name](ctx, solver, formula, literal)
        else:
            C[name](ctx, solver, formula)
        if mirror is not None:
            ours = OBSERVER.cores and address(literal) in OBSERVER.our_literals
            if _alone():
                term = mirror.add(address(formula), 0 if ours or not tracked else address(literal))
                OBSERVER.tracked_terms[address(literal)] = term  # read for cores only
            else:
                mirror.give_up("a thread of the script used z3 while it asserted")
            _changed(key)
            OBSERVER.last_asserted = (ctx, key, mirror.kind)
    return asserted


def _core_literal(ctx: Pointer, literal: Pointer | None) -> Pointer:
    """cores=True: the script line of each assertion, tracked by a literal (a fresh one of ours
    for a plain add(), never reported; the script's own for assert_and_track)."""
    line, text = OBSERVER.script_line()
    if literal is None:
        made = z3.FreshBool("z3sb_core", OBSERVER.context(ctx))
        OBSERVER.our_literals[address(made.as_ast())] = made
        literal = made.as_ast()
    OBSERVER.tracked[address(literal)] = (line, text)
    return literal


def _added(name: str) -> Callable[..., Any]:
    """A push, or assertions loaded from text (which only z3 knows): after z3, the mirror."""
    def added(ctx: Pointer, solver: Pointer, *args: object) -> None:
        C[name](ctx, solver, *args)
        mirror = OBSERVER.mirrors.get(key := address(solver))
        if mirror is not None:
            if name.endswith("_push"):
                mirror.push()
            else:
                mirror.give_up("the script loaded assertions from text, which only z3 read")
                OBSERVER.last_asserted = (ctx, key, mirror.kind)
            _changed(key)
    return added


def _dropped(name: str) -> Callable[..., Any]:
    """A pop (``Z3_optimize_pop`` takes no count: one scope) or a reset.  The record's assertions
    are taken first; the mirror drops scopes only once z3 has (a pop z3 refuses, which the script
    may catch, leaves the solver and so the mirror as they were)."""
    def dropped(ctx: Pointer, solver: Pointer, *count: int) -> None:
        mirror = OBSERVER.mirrors.get(key := address(solver))
        if mirror is not None:
            _settle(key, mirror)
        C[name](ctx, solver, *count)
        if mirror is not None:
            if name.endswith("_reset"):
                mirror.reset()
            else:
                mirror.pop(int(count[0]) if count else 1)
            _changed(key)
    return dropped


def _checked(name: str) -> Callable[..., Any]:
    kind = _kind(name)

    def checked(ctx: Pointer, solver: Pointer, count: int, assumptions: Pointers) -> int:
        token = OBSERVER.on_check(ctx)
        try:
            result: int = C[name](ctx, solver, count, assumptions)
        finally:
            timed_out = OBSERVER.after_check(token)
        key = address(solver)
        mirror = OBSERVER.mirrors.get(key)
        record = Record(result=int(result), solver=key, ctx=ctx, kind=kind, timed_out=timed_out)
        if mirror is not None and count and _alone():
            # The assumptions hold for this check only: its assertions are the solver's and these.
            assumed = mirror.assumed([address(assumptions[i]) for i in range(int(count))])
            record.assumptions = tuple(assumed or ())
            record.assumed = assumed is None
        else:
            record.assumed = bool(count)
        record.mark = mirror.mark() if mirror is not None else None
        if mirror is None:
            record.why = "the sandbox did not see the solver made"
        else:
            record.why = PROPAGATED if mirror.propagator else mirror.why
            record.propagated = mirror.propagator
        record.index = OBSERVER.checks.check(
            record.result, lambda: OBSERVER.script_line()[0],
            (lambda: mirror.active(record.assumptions)) if mirror is not None else lambda: None)
        if record.result == UNSAT and OBSERVER.cores:
            record.core, record.core_smt2 = _core(ctx, solver, kind)
        elif record.result not in (SAT, UNSAT):
            record.line = OBSERVER.script_line()[0]  # a timeout names the line that checked
            try:  # z3's own word for an interrupt is "interrupted": the script sees that unchanged
                reason = C[f"Z3_{kind}_get_reason_unknown"]
                record.reason = "timeout" if timed_out else str(reason(ctx, solver))
            except Exception:
                record.reason = "unknown"
        earlier = OBSERVER.last
        # its model is read when the script lets go, if sent (past MAX_CHECKS never: checks.py)
        if earlier is not None and earlier.model and earlier.index is not None:
            OBSERVER.models[earlier.model] = earlier
        OBSERVER.last = record
        OBSERVER.last_asserted = None
        return result
    return checked


def _core(ctx: Pointer, solver: Pointer, kind: str) -> tuple[list[list[Any]], list[str] | None]:
    """The core as script lines, and as the asserts of its formulas (None: one is not mirrored)."""
    try:
        literals = [address(literal.as_ast()) for literal in z3.AstVector(
            C[f"Z3_{kind}_get_unsat_core"](ctx, solver), OBSERVER.context(ctx))]
    except Exception:
        return [], None
    lines = {OBSERVER.tracked[literal] for literal in literals if literal in OBSERVER.tracked}
    terms = [OBSERVER.tracked_terms.get(literal) for literal in literals]
    return [[line, models.clean_text(text, 500)]
            for line, text in sorted((line, text) for line, text in lines if line is not None)], (
        None if None in terms else [f"(assert {term})" for term in terms])


def _unsat_core(name: str) -> Callable[..., Any]:
    def unsat_core(ctx: Pointer, solver: Pointer) -> Pointer:
        """The script's core, without the literals the harness added for cores=True."""
        vector: Pointer = C[name](ctx, solver)
        if not OBSERVER.our_literals:
            return vector
        borrowed = OBSERVER.context(ctx)
        core = z3.AstVector(vector, borrowed)  # first: z3 frees an unreferenced result at the next call
        kept = z3.AstVector(ctx=borrowed)
        for literal in core:
            if address(literal.as_ast()) not in OBSERVER.our_literals:
                kept.push(literal)
        z3.Z3_ast_vector_inc_ref(ctx, kept.vector)  # the caller's wrapper takes its own reference
        return cast(Pointer, kept.vector)
    return unsat_core


def _got_model(name: str) -> Callable[..., Any]:
    def got_model(ctx: Pointer, solver: Pointer) -> Pointer:
        model: Pointer = C[name](ctx, solver)
        record = OBSERVER.last
        if (record is not None and record.solver == address(solver) and record.result == SAT
                and not record.changed and record.fields is None and not record.model):
            record.model = address(model)
            if record.index is not None and _alone():  # a check sent: its model now, in case
                record.fields = read_model(ctx, model)  # a limit ends the script while it holds it
                OBSERVER.checks.model(record.index, record.fields)
        return model
    return got_model


def _model_dec_ref(ctx: Pointer, model: Pointer) -> None:
    key = address(model)
    record = OBSERVER.last
    if record is None or not record.model or record.model != key:
        record = OBSERVER.models.pop(key, None)
    if record is not None:
        record.model = 0  # the script lets go of the model it asked for: read it first
        if record.fields is None and _alone():
            record.fields = read_model(ctx, model)
            OBSERVER.checks.model(record.index, record.fields)
    C["Z3_model_dec_ref"](ctx, model)


def _propagate_init(ctx: Pointer, solver: Pointer, *args: object) -> None:
    """A UserPropagateBase attached to a solver: its unsat answers are the script's to vouch for."""
    mirror = OBSERVER.mirrors.get(address(solver))
    if mirror is not None:
        mirror.propagator = True
    C["Z3_solver_propagate_init"](ctx, solver, *args)


def _objective(name: str) -> Callable[..., Any]:
    direction = name.rsplit("_", 1)[1]

    def objective(ctx: Pointer, optimize: Pointer, term: Pointer) -> int:
        index: int = C[name](ctx, optimize, term)
        OBSERVER.goals.setdefault(address(optimize), {})[int(index)] = Goal(direction, address(term))
        return index
    return objective


def _soft(ctx: Pointer, optimize: Pointer, formula: Pointer, weight: str, group: Pointer) -> int:
    index: int = C["Z3_optimize_assert_soft"](ctx, optimize, formula, weight, group)
    try:  # a soft group's id is a symbol: reading it makes no term
        text = models.clean_text(str(z3.Z3_get_symbol_string(ctx, group)), models.TERM_CHARS)
    except Exception:
        text = ""
    OBSERVER.goals.setdefault(address(optimize), {}).setdefault(int(index), Goal("soft", 0, text))
    return index


def _alone() -> bool:
    """True when only the script's main thread runs z3: z3's printer shares state between contexts,
    and printing while a thread of the script makes a context crashed z3.  With threads, the
    harness takes nothing between the script's calls, and what it misses is not verified."""
    return threading.active_count() == 1


def _kind(name: str) -> str:
    return "optimize" if "optimize" in name else "solver"


# Each observed C function of z3.py by name, and what observes it.
OBSERVED: dict[str, Callable[[str], Callable[..., Any]]] = {
    **dict.fromkeys(("Z3_mk_solver", "Z3_mk_simple_solver", "Z3_mk_solver_for_logic",
                     "Z3_mk_solver_from_tactic", "Z3_mk_optimize"), _created),
    **{f"Z3_{kind}_{what}": maker for kind in ("solver", "optimize") for what, maker in (
        ("inc_ref", _inc_ref), ("dec_ref", _dec_ref), ("push", _added), ("pop", _dropped),
        ("from_string", _added), ("from_file", _added), ("get_model", _got_model),
        ("get_unsat_core", _unsat_core), ("assert", _asserted), ("assert_and_track", _asserted))},
    "Z3_solver_reset": _dropped,
    "Z3_solver_check_assumptions": _checked,
    "Z3_optimize_check": _checked,
    "Z3_model_dec_ref": lambda name: _model_dec_ref,
    "Z3_optimize_maximize": _objective,
    "Z3_optimize_minimize": _objective,
    "Z3_optimize_assert_soft": lambda name: _soft,
    "Z3_solver_propagate_init": lambda name: _propagate_init,
}


def install(observer: Observer) -> None:
    """Rebind the observed C functions in z3.py's module (where its classes look them up).  Nothing
    is restored: the process ends after the report."""
    global OBSERVER
    OBSERVER = observer
    names = z3.z3.__dict__
    for name, maker in OBSERVED.items():
        C.setdefault(name, names[name])
        names[name] = maker(name)
    for name in ("Z3_solver_get_reason_unknown", "Z3_optimize_get_reason_unknown",
                 "Z3_solver_get_assertions", "Z3_optimize_get_assertions",
                 "Z3_optimize_get_upper", "Z3_optimize_get_lower"):
        C.setdefault(name, names[name])


# ---------------------------------------------------------------------- taking what a report needs

def _changed(solver: int) -> None:
    record = OBSERVER.last
    if record is not None and record.solver == solver:
        record.changed = True


def _settle(solver: int, mirror: Mirror) -> None:
    """Before the last record's solver pops, resets or ends: its assertions as text."""
    record = OBSERVER.last
    if record is not None and record.solver == solver:
        if record.result in (SAT, UNSAT) and record.assertions is None and record.mark is not None:
            record.assertions = mirror.text(record.mark, record.assumptions)
        record.mark = None
    asserted = OBSERVER.last_asserted
    if asserted is not None and asserted[1] == solver and mirror.refs <= 0:
        if mirror.complete:
            OBSERVER.unchecked_text = mirror.text(mirror.mark() or ())
        OBSERVER.last_asserted = None


def read_model(ctx: Pointer, model: Pointer | int) -> models.ModelFields:
    """The fields of a model object of the script's, without the harness's core literals."""
    return copies.read_model(ctx, model, OBSERVER.our_literals.values())


def unobserved(name: str) -> Callable[..., Any]:
    """z3's C function itself, for the harness's own solvers (reading an SMT-LIB script)."""
    return C.get(name) or z3.z3.__dict__[name]
