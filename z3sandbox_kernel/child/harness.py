"""Run one candidate inside its forked child and say what its solver said (a ``ChildReport``).

The zygote calls ``prepare()`` once before forking; the bootstrap then calls ``run_candidate()`` in
the child after redirecting fd 1/2, entering the scratch dir and applying limits and layers.

Fidelity: a candidate prints what ``python candidate.py`` prints with the same z3.  So nothing here
touches z3's main context before the script runs (``prepare`` only makes spare ones), the
script runs as ``__main__`` with the argv, ``__file__`` and ``sys.path[0]`` of a plain run, and z3
is instrumented without parameters (instrument.py).  docs/fidelity.md lists what
still differs.

The script is never rewritten.  The verdict is the result of the last check() the script ran,
whatever made it: ``Solver.check``, ``Optimize.check``, ``solve()`` or ``prove()`` (both call
``Solver.check``; ``prove()`` checks the negated claim, so unsat means proved and a model is a
counterexample).  A script that asserted but never checked gets the solver it asserted into last
checked for it.  Every check, and each model the script read, also leaves as it happens
(checks.py): an enumeration's last ``unsat`` is its verdict, and its models are kept beside it.

Not protected: user code runs in this process and can undo anything done here (the audit hook only
reports; kernel layers enforce), so the report is the candidate's word, as protocol/ says.
"""

from __future__ import annotations

import builtins
import ctypes
import functools
import linecache
import os
import sys
import types

import z3

from ..contracts.oscalls import flush_c_stdio
from ..protocol import PROTOCOL_VERSION, ChildReport, split_pairs
from . import (
    afterwards,
    checks,
    copies,
    errors,
    instrument,
    models,
    more_models,
    objectives,
    observer,
    smt2,
    stack,
)

SCRIPT_NAME = models.SCRIPT_NAME  # sys.argv[0], co_filename; __file__ is its path in the working folder
# Random seeds of the engines a check may use (the solver-level "random_seed" is an alias of smt's).
# Seed 0 is every engine's default, so a candidate run with seed 0 sets nothing.
SEED_PARAMS = ("smt.random_seed", "sat.random_seed", "nlsat.seed", "sls.random_seed",
               "fp.spacer.random_seed")

HARNESS_CHECKED = "the script never called check(): the sandbox checked its assertions"
_MAIN: types.ModuleType | None = None  # the script's module, filled by prepare()
# Main contexts made ahead, untouched (instrument.adopt_spare_contexts), one per language.  The
# SMT-LIB one's command interpreter is not set up ahead: any text evaluated moves z3's count of
# lines and columns, which the script's error messages name (an empty one, one column).
_SPARES: dict[str, list[z3.Context]] = {"python": [], "smt2": []}


# ------------------------------------------------------------------------------------ entry points

def prepare() -> None:
    """Load what a candidate needs before the zygote forks, without touching z3's main context or
    its global parameters: every candidate starts from the z3 state of a fresh
    ``python -c 'import z3'`` (term ids, caches, parameters, random state).

    What costs a child time is making z3's main context (milliseconds): spare contexts are made
    here and left untouched, and the child adopts one at the script's first term
    (instrument.adopt_spare_contexts).  Warming a further context with a check, a model and the
    parser measured no faster child (within the noise of 10-13 ms of CPU) and cost 19 MB, so it is
    not done.  No thread is started: threads do not survive the fork.

    The script's module, with ``from z3 import *`` done, is built here and used as is by the child:
    copying 1,900 names after fork costs a millisecond of copy-on-write faults (refcounts)."""
    global _MAIN
    _MAIN = _build_main()
    _SPARES["python"].append(z3.Context())
    _SPARES["smt2"].append(z3.Context())
    copies.reader_context()  # made here: in the child, a new context would take the script's spare
    smt2.plan_check("(declare-const y Int)(check-sat)")
    smt2.read.cache_clear()


def _build_main() -> types.ModuleType:
    main = types.ModuleType("__main__")
    exec("from z3 import *", main.__dict__)
    main.__dict__["__builtins__"] = builtins
    return main


def run_candidate(script: str, *, language: str, timeout_s: float, random_seed: int | None,
                  cores: bool, model_count: int = 1, plain: bool = False,
                  send: checks.Send | None = None) -> ChildReport:
    """Run ``script`` and report its last check (and, sat, up to ``model_count`` - 1 further models:
    more_models.py); with ``send``, each check of a Python script as it happens (checks.py).
    ``plain``: as ``python file.py`` runs it, without the prelude, ``s`` or a check on its behalf.
    Never raises: a harness failure becomes an ``internal_error`` report, which the zygote's schema
    check turns into that verdict."""
    try:
        filename = SCRIPT_NAME  # as code objects name it: tracebacks say candidate.py
        run = instrument.Run(max(float(timeout_s), 0.001), cores and language == "python",
                             filename)
        for name in SEED_PARAMS if random_seed else ():
            z3.set_param(name, random_seed)
        instrument.install(run)
        run.observer.checks = checks.CheckLog(send if language == "python" else None)
        instrument.adopt_spare_contexts(_SPARES.get(language, []))
        report = (_run_smt2(script, send) if language == "smt2"
                  else _run_python(script, filename, plain))
        run.observer.checks.send = None  # what the harness checks from here on is its own
        if language == "python":
            report["checks_made"] = run.observer.checks.made
        if model_count > 1 and report.get("outcome") == "sat" and report.get("assertions_smt2"):
            _flush()  # the script's output is whole before the harness checks anything more
            report["more_models"] = more_models.find(
                report["assertions_smt2"], split_pairs(report.get("model_smt2") or ""), model_count)
    except BaseException as exc:  # a harness bug (or a script that broke z3 for us)
        report = {"outcome": "internal_error", "reason": f"the harness failed: {errors.describe(exc)}"}
    _flush()
    report["v"] = PROTOCOL_VERSION
    return report


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            if stream is not None:
                stream.flush()
        except Exception:  # a closed or replaced stream has nothing to flush
            continue
    flush_c_stdio()  # the child ends with _exit(), which flushes no C stdio buffer


# ----------------------------------------------------------------------------------- the languages

def _run_python(script: str, filename: str, plain: bool = False) -> ChildReport:
    try:
        code = compile(script, filename, "exec", dont_inherit=True)
    except MemoryError as exc:
        return {"outcome": "memory_error", "reason": f"compiling the script: {errors.describe(exc)}"}
    except (SyntaxError, ValueError, RecursionError, OverflowError) as exc:
        if isinstance(exc, SyntaxError):  # Python's display of it, as a plain run prints it
            errors.print_like_python(exc, filename)
        return errors.syntax_report(exc)
    linecache.cache[filename] = (len(script), None, script.splitlines(True), filename)
    global _MAIN
    module, _MAIN = (_plain_main() if plain else _MAIN or _build_main()), None  # one per process
    path = os.path.join(os.getcwd(), filename)
    module.__dict__.update(__file__=path, __cached__=None)
    if not plain:
        module.__dict__["s"] = instrument.LazySolver()
    sys.modules["__main__"] = module  # so dataclasses, pickle and inspect find the script
    sys.argv[:] = [SCRIPT_NAME]  # as `python candidate.py` gives, in its own folder
    sys.path.insert(0, os.path.dirname(path))
    recursion_limit = sys.getrecursionlimit()
    failure: BaseException | None = None
    # Hooks cannot be removed (one candidate per process); the set and the denial function are bound
    # now, so a script that rebinds the module's names does not switch the hook off.
    sys.addaudithook(functools.partial(instrument.audit, _denied=instrument.denied_events(),
                                       _deny_it=instrument.deny))
    errors.watch_crashes()
    stack.watch(filename, lambda: instrument.RUN.observer.checks.made)
    # ------------------------------------------------------------------ user code runs from here on
    try:
        exec(code, module.__dict__)
    except BaseException as exc:
        failure = exc
    sys.setrecursionlimit(recursion_limit)
    return _finish(failure, check_for_script=not plain)


def _plain_main() -> types.ModuleType:
    """``__main__`` as ``python file.py`` starts it: builtins, nothing imported."""
    main = types.ModuleType("__main__")
    main.__dict__["__builtins__"] = builtins
    return main


def _finish(failure: BaseException | None, check_for_script: bool = True) -> ChildReport:
    """The report once the script is over: its exception, or its last check (made for the script
    if it asserted and never checked, unless ``check_for_script`` is off: plain mode).  A refusal
    is the sandbox's to tell (its init counts seccomp's: zygote/supervisor.py), never the child's."""
    run = instrument.RUN
    if isinstance(failure, SystemExit) and failure.code in (None, 0):
        failure = None
    hint = errors.print_like_python(failure, run.filename) if failure is not None else ""
    afterwards.send_held_models()
    if failure is not None:
        return errors.exception_report(failure, run.filename, hint)
    script_checked = observer.OBSERVER.last is not None
    try:  # asserted but never checked: check it for the script
        kept = _check_unchecked() if check_for_script else None
    except BaseException as exc:
        return errors.exception_report(exc, run.filename)
    record = afterwards.finish()
    del kept
    if record is None:
        return {"outcome": "no_check"}
    report = models.check_report(record, run.cores)
    if not script_checked:
        report["reason"] = "; ".join(filter(None, (HARNESS_CHECKED, report.get("reason"))))
    goals = objectives.read(record)  # after the script: this asks z3 (objectives.py says why)
    if goals:
        report["objectives"] = goals
    return report


def _check_unchecked() -> z3.Solver | None:
    """A script that asserted and never checked: check for it the solver it asserted into last
    (through the observers, so that it is recorded as a check), or, if that solver has ended, its
    assertions in a solver of ours, which is returned to be kept until the report is built."""
    seen = observer.OBSERVER
    if seen.last is not None:
        return None
    asserted = seen.last_asserted
    if asserted is not None and asserted[1] in seen.mirrors:
        ctx, solver, kind = asserted
        check = z3.z3.__dict__[f"Z3_{kind}_check" if kind == "optimize" else "Z3_solver_check_assumptions"]
        check(ctx, ctypes.c_void_p(solver), 0, (z3.Ast * 0)())
        return None
    if seen.unchecked_text is None:
        return None
    ours = z3.Solver()
    ours.from_string(seen.unchecked_text)
    ours.check()
    return ours


def _run_smt2(script: str, send: checks.Send | None) -> ChildReport:
    try:
        report = smt2.run(script, models.MEMORY_WORDS, send)
    except BaseException as exc:
        return errors.exception_report(exc, instrument.RUN.filename)
    if report is not None:
        return report
    # smt2.run already checked whatever asserts something; loading declarations is not asserting.
    instrument.RUN.observer.last_asserted = None
    return _finish(None)
