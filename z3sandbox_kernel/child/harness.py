"""Run one candidate inside its forked child and say what its solver said (a ``ChildReport``).

The zygote calls ``prepare()`` once before forking; the bootstrap then calls ``run_candidate()`` in
the child after redirecting fd 1/2, entering the scratch dir and applying limits and layers.

The script is never rewritten: z3 itself is instrumented (``_install``).  The verdict is the result
of the last check() the script ran, whatever made it: ``Solver.check``, ``Optimize.check``,
``solve()`` or ``prove()`` (both call ``Solver.check``; ``prove()`` checks the negated claim, so
unsat means proved and a model is a counterexample).  A script that asserted but never checked gets
the solver it asserted into last checked for it.

Not protected: user code runs in this process and can undo anything done here (the audit hook only
reports; kernel layers enforce), so the report is the candidate's word, as protocol.py says.
"""

from __future__ import annotations

import builtins
import errno
import functools
import itertools
import linecache
import sys
import types
from collections.abc import Callable
from typing import Any

import z3

from ..protocol import PROTOCOL_VERSION, ChildException, ChildReport
from . import models, smt2

CANDIDATE = "<candidate>"  # the script's filename in code objects and tracebacks
MAX_MESSAGE = 2000  # exception message in the report
MAX_REASON = 2000  # reason text, traceback included (the zygote caps reasons at 2000 too)
REASON_MESSAGE_CAP = 1200  # of the exception message within the reason, so the line still fits
TRACEBACK_LINES = 5
MAX_TIMEOUT_MS = 4_294_967_294  # z3's timeout is an unsigned int; UINT_MAX means "none"
# Random seeds of the engines a check may use (the solver-level "random_seed" is an alias of smt's).
SEED_PARAMS = ("smt.random_seed", "sat.random_seed", "nlsat.seed", "sls.random_seed",
               "fp.spacer.random_seed")
# CPython audit events for process creation, exec and network access (the audit events table).
DENIED_EVENTS = frozenset({
    "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty",
    "subprocess.Popen", "pty.spawn", "socket.__new__", "socket.connect", "socket.bind",
    "socket.sendto", "socket.sendmsg", "socket.getaddrinfo", "socket.gethostbyname",
    "socket.gethostbyaddr", "socket.getnameinfo",
})


class Run:
    """The state of one candidate, read by the z3 wrappers and the audit hook."""

    def __init__(self, timeout_ms: int, cores: bool) -> None:
        self.timeout_ms = timeout_ms
        self.cores = cores
        self.last_check: models.CheckRecord | None = None
        self.last_asserted: Any = None
        self.denials: list[str] = []
        # tracking literal id -> (literal, script line, source text); ours are also in our_ids
        self.tracked: dict[int, tuple[z3.BoolRef, int | None, str]] = {}
        self.our_ids: set[int] = set()


_RUN = Run(MAX_TIMEOUT_MS, False)
_MAIN: types.ModuleType | None = None  # the script's module, filled by prepare()
_ORIGINAL: dict[tuple[type, str], Callable[..., Any]] = {
    (cls, name): getattr(cls, name)
    for cls in (z3.Solver, z3.Optimize)
    for name in ("check", "set", "assert_exprs", "assert_and_track", "unsat_core", "from_string",
                 "from_file")
}
_ORIGINAL[(z3.Optimize, "add_soft")] = z3.Optimize.add_soft


# ------------------------------------------------------------------------------------ entry points

def prepare() -> None:
    """Load and warm everything a candidate needs, so a forked child does no importing or first-use
    set-up.  No timeout is set here: the zygote must not start z3's timer threads before forking.

    The script's module, with ``from z3 import *`` done, is built here and used as is by the child:
    copying 1,900 names after fork costs a millisecond of copy-on-write faults (refcounts)."""
    global _MAIN
    _MAIN = _build_main()
    z3.set_param("timeout", MAX_TIMEOUT_MS + 1)  # the defaults: warms z3's parameter tables
    for name in SEED_PARAMS:
        z3.set_param(name, 0)
    solver = z3.Solver()
    x, flag = z3.Int("x"), z3.Bool("flag")
    solver.add(x > 1, flag, z3.FreshBool() == flag)
    solver.check()
    models.read_model(solver.model())
    models.assertions_smt2(solver.assertions(), solver.ctx)
    z3.parse_smt2_string("(declare-const y Int)(assert (> y 0))")
    str(solver.model())
    smt2.plan_check("(declare-const y Int)(check-sat)")


def _build_main() -> types.ModuleType:
    main = types.ModuleType("__main__")
    exec("from z3 import *", main.__dict__)
    main.__dict__["__builtins__"] = builtins
    return main


def run_candidate(script: str, *, language: str, timeout_s: float, random_seed: int | None,
                  cores: bool) -> ChildReport:
    """Run ``script`` and report its last check.  Never raises: a harness failure becomes an
    ``internal_error`` report, which the zygote's schema check turns into that verdict."""
    global _RUN
    try:
        timeout_ms = max(1, min(int(timeout_s * 1000), MAX_TIMEOUT_MS))
        _RUN = Run(timeout_ms, cores and language == "python")
        z3.set_param("timeout", timeout_ms)  # a fallback for whatever checks outside check()
        for name in SEED_PARAMS if random_seed is not None else ():
            z3.set_param(name, random_seed)
        _install()
        report = _run_smt2(script) if language == "smt2" else _run_python(script)
    except BaseException as exc:  # a harness bug (or a script that broke z3 for us)
        report = {"outcome": "internal_error", "reason": f"the harness failed: {_describe(exc)}"}
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


# ---------------------------------------------------------------------------- z3 instrumentation

def _install() -> None:
    """Wrap z3's classes in place: the script's ``Solver`` and the one z3's own ``solve()`` and
    ``prove()`` use are the same class.  Nothing is restored: the process ends after the report."""
    for (cls, name), original in _ORIGINAL.items():
        setattr(cls, name, _WRAPPERS[name](original))


def _wrap_check(original: Callable[..., Any]) -> Callable[..., Any]:
    def check(self: Any, *assumptions: Any) -> Any:
        _apply_timeout(self)
        result = original(self, *assumptions)
        core = _ORIGINAL[(_kind(self), "unsat_core")] if _RUN.cores else None
        _RUN.last_check = models.CheckRecord.take(self, result, core)
        return result
    return check


def _apply_timeout(solver: Any) -> None:
    """The kernel's timeout, or a smaller one the script asked for with set()."""
    wanted = min(_RUN.timeout_ms, solver.__dict__.get("_z3sb_asked", MAX_TIMEOUT_MS))
    if solver.__dict__.get("_z3sb_timeout") != wanted:
        _ORIGINAL[(_kind(solver), "set")](solver, "timeout", wanted)
        solver._z3sb_timeout = wanted


def _kind(solver: Any) -> type:
    return z3.Optimize if isinstance(solver, z3.Optimize) else z3.Solver


def _wrap_set(original: Callable[..., Any]) -> Callable[..., Any]:
    def set(self: Any, *args: Any, **keys: Any) -> Any:
        result = original(self, *args, **keys)
        asked = [args[i + 1] for i in range(0, len(args) - 1, 2) if args[i] == "timeout"]
        asked += [keys["timeout"]] if "timeout" in keys else []
        for value in asked:
            if isinstance(value, int) and not isinstance(value, bool):
                self._z3sb_asked = value if value > 0 else MAX_TIMEOUT_MS
                self._z3sb_timeout = None  # apply ours again at the next check
        return result
    return set


def _wrap_assert(original: Callable[..., Any]) -> Callable[..., Any]:
    def assert_exprs(self: Any, *args: Any) -> None:
        _RUN.last_asserted = self
        if not _RUN.cores:
            return original(self, *args)
        line, text = script_line()
        track = _ORIGINAL[(_kind(self), "assert_and_track")]
        boolean = z3.BoolSort(self.ctx)
        for arg in z3.z3._get_args(args):
            formulas = arg if isinstance(arg, (z3.Goal, z3.AstVector)) else [boolean.cast(arg)]
            for formula in formulas:
                literal = z3.FreshBool("z3sb_core", self.ctx)
                _RUN.tracked[literal.get_id()] = (literal, line, text)
                _RUN.our_ids.add(literal.get_id())
                track(self, formula, literal)
        return None
    return assert_exprs


def _wrap_track(original: Callable[..., Any]) -> Callable[..., Any]:
    def assert_and_track(self: Any, a: Any, p: Any) -> Any:
        _RUN.last_asserted = self
        if _RUN.cores:
            literal = z3.Bool(p, self.ctx) if isinstance(p, str) else p
            if isinstance(literal, z3.BoolRef):
                line, text = script_line()
                _RUN.tracked[literal.get_id()] = (literal, line, text)
        return original(self, a, p)
    return assert_and_track


def _wrap_asserting(original: Callable[..., Any]) -> Callable[..., Any]:
    def asserting(self: Any, *args: Any, **keys: Any) -> Any:
        _RUN.last_asserted = self
        return original(self, *args, **keys)
    return asserting


def _wrap_core(original: Callable[..., Any]) -> Callable[..., Any]:
    def unsat_core(self: Any) -> Any:
        """The script's core, without the literals the harness added for cores=True."""
        core = original(self)
        if not _RUN.our_ids:
            return core
        kept = z3.AstVector(ctx=self.ctx)
        for literal in core:
            if literal.get_id() not in _RUN.our_ids:
                kept.push(literal)
        return kept
    return unsat_core


_WRAPPERS: dict[str, Callable[[Callable[..., Any]], Callable[..., Any]]] = {
    "check": _wrap_check, "set": _wrap_set, "assert_exprs": _wrap_assert,
    "assert_and_track": _wrap_track, "unsat_core": _wrap_core, "from_string": _wrap_asserting,
    "from_file": _wrap_asserting, "add_soft": _wrap_asserting,
}


def script_line(start: int = 2) -> tuple[int | None, str]:
    """The innermost script line on the stack, and its source text."""
    frame: types.FrameType | None = sys._getframe(start)
    while frame is not None and frame.f_code.co_filename != CANDIDATE:
        frame = frame.f_back
    if frame is None:
        return None, ""
    return frame.f_lineno, linecache.getline(CANDIDATE, frame.f_lineno).strip()


# --------------------------------------------------------------------------------- the audit hook

def _audit(event: str, args: tuple[Any, ...], _denied: frozenset[str],
           _deny_it: Callable[[str, tuple[Any, ...]], None]) -> None:
    """Deny process creation and network access, and remember it (a reporting layer: seccomp and
    the network namespace enforce).  Runs on every audit event, every ctypes call included, so it
    must stay cheap.  The script can still get around it through ctypes: at process level nothing
    stops that (SECURITY.md)."""
    if event in _denied:
        _deny_it(event, args)


def _deny(event: str, args: tuple[Any, ...]) -> None:
    try:
        shown = ", ".join(_summary(arg) for arg in args)[:200]
        line, text = script_line(3)
        where = f" at line {line}: `{models.clean_text(text, 200)}`" if line else ""
        _RUN.denials.append(f"{event} ({shown}){where}")
    except Exception:
        _RUN.denials.append(event)
    raise PermissionError(f"blocked by the sandbox: {event} is not allowed")


def _summary(arg: Any) -> str:
    plain = isinstance(arg, (str, bytes, int, float, tuple, list)) or arg is None
    return models.clean_text(repr(arg), 80) if plain else type(arg).__name__  # a new socket...


# ----------------------------------------------------------------------------------- the languages

def _run_python(script: str) -> ChildReport:
    try:
        code = compile(script, CANDIDATE, "exec", dont_inherit=True)
    except MemoryError as exc:
        return {"outcome": "memory_error", "reason": f"compiling the script: {_describe(exc)}"}
    except (SyntaxError, ValueError, RecursionError, OverflowError) as exc:
        return _syntax_report(exc)
    linecache.cache[CANDIDATE] = (len(script), None, script.splitlines(True), CANDIDATE)
    global _MAIN
    module, _MAIN = _MAIN or _build_main(), None  # one candidate per process: used once
    module.__dict__["s"] = z3.Solver()
    sys.modules["__main__"] = module  # so dataclasses, pickle and inspect find the script
    recursion_limit = sys.getrecursionlimit()
    failure: BaseException | None = None
    # Hooks cannot be removed (one candidate per process); the set and the denial function are bound
    # now, so a script that rebinds the module's names does not switch the hook off.
    sys.addaudithook(functools.partial(_audit, _denied=DENIED_EVENTS, _deny_it=_deny))
    # ------------------------------------------------------------------ user code runs from here on
    try:
        exec(code, module.__dict__)
    except BaseException as exc:
        failure = exc
    sys.setrecursionlimit(recursion_limit)
    return _finish(failure)


def _finish(failure: BaseException | None) -> ChildReport:
    """The report once the script is over: denial, exception, or its last check."""
    if _RUN.denials:
        more = f" and {len(_RUN.denials) - 1} more" if len(_RUN.denials) > 1 else ""
        return {"outcome": "blocked", "reason": f"the sandbox denied {_RUN.denials[0]}{more}"}
    if isinstance(failure, SystemExit) and failure.code in (None, 0):
        failure = None
    if failure is not None:
        return _exception_report(failure)
    if _RUN.last_check is None and _RUN.last_asserted is not None:
        try:
            _RUN.last_asserted.check()  # asserted but never checked: check it for the script
        except BaseException as exc:
            return _exception_report(exc)
    if _RUN.last_check is None:
        return {"outcome": "no_check"}
    return models.check_report(_RUN.last_check, _RUN.tracked, frozenset(_RUN.our_ids),
                               _RUN.cores)


def _run_smt2(script: str) -> ChildReport:
    try:
        report = smt2.run(script, models.MEMORY_WORDS)
    except BaseException as exc:
        return _exception_report(exc)
    if report is not None:
        return report
    # smt2.run already checked whatever asserts something; loading declarations is not asserting.
    _RUN.last_asserted = None
    return _finish(None)


# ------------------------------------------------------------------------------------- exceptions

def _syntax_report(exc: BaseException) -> ChildReport:
    if isinstance(exc, SyntaxError):
        line, column = exc.lineno, exc.offset
        source = models.clean_text((exc.text or "").strip(), 200)
        where = f" (line {line}, column {column}: `{source}`)" if line else ""
        reason = f"{type(exc).__name__}: {_message(exc.msg)}{where}"
        return {"outcome": "syntax_error", "reason": reason, "line": line, "column": column}
    reason = "nested too deeply to compile" if isinstance(exc, RecursionError) else _describe(exc)
    return {"outcome": "syntax_error", "reason": reason, "line": None, "column": None}


def _exception_report(exc: BaseException) -> ChildReport:
    """An exception that escaped the script, classified: memory_error, blocked or exception."""
    message = _message(exc)
    kind = type(exc).__name__
    if isinstance(exc, SystemExit):
        message = f"the script called sys.exit({_message(repr(exc.code))})"
    frames = _script_frames(exc)
    line = frames[-1][0] if frames else None
    details: ChildException = {"type": kind, "message": message, "line": line}
    # The reason is capped as a whole; the message is cut first so the script line always shows.
    shown = message if len(message) <= REASON_MESSAGE_CAP else (
        f"{message[:REASON_MESSAGE_CAP]}… [{len(message) - REASON_MESSAGE_CAP} more characters]")
    reason = f"{kind}: {shown}" if message else kind
    if frames:
        reason += f" (line {line}: `{frames[-1][2]}`)"
    if isinstance(exc, MemoryError) or (
        isinstance(exc, z3.Z3Exception) and any(word in message for word in models.MEMORY_WORDS)
    ):
        return {"outcome": "memory_error", "reason": reason, "exception": details}
    if isinstance(exc, PermissionError) or (
        isinstance(exc, OSError) and exc.errno in (errno.EPERM, errno.EACCES)
    ):
        return {"outcome": "blocked", "reason": reason, "exception": details}
    if len(frames) > 1:
        reason += "\nScript traceback, innermost last:" + _traceback_text(frames)
    return {"outcome": "exception", "exception": details,
            "reason": models.clean_text(reason, MAX_REASON)}


def _message(exc: object) -> str:
    """``str(exc)`` that cannot raise or be huge; z3 messages are sometimes bytes."""
    try:
        value = exc.value if isinstance(exc, z3.Z3Exception) else exc
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    except BaseException:
        text = f"<unprintable {type(exc).__name__}>"
    return models.clean_text(text, MAX_MESSAGE)


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {_message(exc)}"


def _traceback_text(frames: list[tuple[int, str, str]]) -> str:
    """The last few script frames, a run of one repeated frame (recursion) shown once."""
    runs = [(frame, len(list(group))) for frame, group in itertools.groupby(frames)]
    return "".join(
        f"\n  line {line} in {function}: `{text}`" + (f" ({count} times)" if count > 1 else "")
        for (line, function, text), count in runs[-TRACEBACK_LINES:]
    )


def _script_frames(exc: BaseException) -> list[tuple[int, str, str]]:
    """(line, function, source) of the script's frames in the traceback, outermost first."""
    frames = []
    traceback = exc.__traceback__
    while traceback is not None:
        code = traceback.tb_frame.f_code
        if code.co_filename == CANDIDATE:
            text = linecache.getline(CANDIDATE, traceback.tb_lineno).strip()
            frames.append((traceback.tb_lineno, code.co_name, models.clean_text(text, 200)))
        traceback = traceback.tb_next
    return frames
