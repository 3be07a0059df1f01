"""z3 instrumented in place, without changing how it solves: what the harness learns from a script.

The wrappers record the last check(), track assertions for unsat cores (cores=True only) and enforce
the kernel's solver timeout.  They set no z3 parameter and create no term unless the run asked for
cores: a parameter on a solver, or terms made in the main context, change z3's search (other
models, other optima, other solution orders), and a candidate must print what ``python script.py``
prints.  The timeout is a watchdog thread that interrupts the checking context at the deadline,
which is what z3's own timeout does (a timer that cancels the context's resource limit).

The audit hook is here too: it only reports (seccomp and the network namespace enforce).
"""

from __future__ import annotations

import _thread
import heapq
import linecache
import sys
import threading
import time
import types
from collections.abc import Callable
from typing import Any

import z3

from . import models

# CPython audit events for process creation, exec and network access (the audit events table).
DENIED_EVENTS = frozenset({
    "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty",
    "subprocess.Popen", "pty.spawn", "socket.__new__", "socket.connect", "socket.bind",
    "socket.sendto", "socket.sendmsg", "socket.getaddrinfo", "socket.gethostbyname",
    "socket.gethostbyaddr", "socket.getnameinfo",
})


class Watchdog:
    """Interrupts a context whose check() outlived the timeout (``Z3_interrupt``, from a thread of
    its own: a check holds no GIL).  An interrupt that lands just after the check ended is harmless:
    z3 only cancels work in progress.  The thread starts at the first check, in the child: threads
    do not survive the zygote's fork.  It is a bare ``_thread``: ``threading.Thread.start`` waits
    until the new thread has run (2 ms of a busy machine's scheduling, measured, before every first
    check), and the script's ``threading.enumerate()`` does not list it, as in a plain run."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._deadlines: list[tuple[float, int]] = []  # heap of (deadline, token)
        self._contexts: dict[int, z3.Context] = {}  # token -> context of a running check
        self.fired: set[int] = set()
        self._tokens = 0
        self._started = False

    def start(self, ctx: z3.Context, timeout_s: float) -> int:
        with self._condition:
            self._tokens += 1
            token = self._tokens
            self._contexts[token] = ctx
            heapq.heappush(self._deadlines, (time.monotonic() + timeout_s, token))
            if not self._started:
                _thread.start_new_thread(self._serve, ())
                self._started = True
            self._condition.notify()
        return token

    def stop(self, token: int) -> bool:
        """End a check's watch; True when its deadline passed and the context was interrupted."""
        with self._condition:
            self._contexts.pop(token, None)
            return token in self.fired

    def _serve(self) -> None:
        with self._condition:
            while True:
                while self._deadlines and self._deadlines[0][1] not in self._contexts:
                    heapq.heappop(self._deadlines)  # that check already ended
                if not self._deadlines:
                    self._condition.wait()
                    continue
                deadline, token = self._deadlines[0]
                now = time.monotonic()
                if now < deadline:
                    self._condition.wait(deadline - now)
                    continue
                heapq.heappop(self._deadlines)
                self.fired.add(token)
                z3.Z3_interrupt(self._contexts[token].ref())


class Run:
    """The state of one candidate, read by the z3 wrappers and the audit hook."""

    def __init__(self, timeout_s: float, cores: bool, filename: str) -> None:
        self.timeout_s = timeout_s
        self.cores = cores
        self.filename = filename  # the script's name in code objects and tracebacks
        self.last_check: models.CheckRecord | None = None
        self.last_asserted: Any = None
        self.denials: list[str] = []
        # tracking literal id -> (literal, script line, source text); ours are also in our_ids
        self.tracked: dict[int, tuple[z3.BoolRef, int | None, str]] = {}
        self.our_ids: set[int] = set()
        self.watchdog = Watchdog()


RUN = Run(0.0, False, "<candidate>")
ORIGINAL: dict[tuple[type, str], Callable[..., Any]] = {
    (cls, name): getattr(cls, name)
    for cls in (z3.Solver, z3.Optimize)
    for name in ("check", "model", "assert_exprs", "assert_and_track", "unsat_core",
                 "from_string", "from_file")
}
ORIGINAL[(z3.Optimize, "add_soft")] = z3.Optimize.add_soft


def install(run: Run) -> None:
    """Wrap z3's classes in place: the script's ``Solver`` and the one z3's own ``solve()`` and
    ``prove()`` use are the same class.  Nothing is restored: the process ends after the report."""
    global RUN
    RUN = run
    for (cls, name), original in ORIGINAL.items():
        setattr(cls, name, _WRAPPERS[name](original))


def spare_main_context(spare: list[z3.Context], *modules: types.ModuleType | None) -> None:
    """Let z3's main context be ``spare[0]``, made in the zygote and never used there: making a
    context costs milliseconds, and an unused one is what a plain run would make at the script's
    first term, unless global parameters changed before that (z3 reads them when a context is
    made).  So the spare is adopted at the first ``main_ctx()`` and dropped if the script calls
    ``set_param``/``set_option``/``reset_params`` before it.  ``main_ctx`` and those are
    rebound in z3, its package and the script's module (``from z3 import *`` copied them)."""
    original_main, original_set, original_reset = z3.z3.main_ctx, z3.z3.set_param, z3.z3.reset_params

    def main_ctx() -> z3.Context:
        if z3.z3._main_ctx is None and spare:
            z3.z3._main_ctx = spare.pop()
        return original_main()

    def set_param(*args: Any, **keys: Any) -> None:
        spare.clear()
        original_set(*args, **keys)

    def reset_params() -> None:
        spare.clear()
        original_reset()

    for module in (z3.z3, z3, *modules):
        if module is not None:
            module.__dict__.update(main_ctx=main_ctx, set_param=set_param,
                                   reset_params=reset_params)


class LazySolver(z3.Solver):
    """The pre-bound ``s``: a z3 ``Solver`` made at its first use, so that a script that never
    uses it leaves z3's main context as a plain run does (and one that sets parameters first
    gets them)."""

    def __init__(self) -> None:  # nothing in z3 yet
        pass

    def __getattr__(self, name: str) -> Any:  # only for attributes not set yet
        if name in ("ctx", "solver", "backtrack_level"):
            z3.Solver.__init__(self)
            return getattr(self, name)
        raise AttributeError(name)

    def __del__(self) -> None:
        if "solver" in self.__dict__:  # made, so freed; one never used has nothing to free
            z3.Solver.__del__(self)


LazySolver.__name__ = LazySolver.__qualname__ = "Solver"


def _kind(solver: Any) -> type:
    return z3.Optimize if isinstance(solver, z3.Optimize) else z3.Solver


def _wrap_check(original: Callable[..., Any]) -> Callable[..., Any]:
    def check(self: Any, *assumptions: Any) -> Any:
        token = RUN.watchdog.start(self.ctx, RUN.timeout_s)
        try:
            result = original(self, *assumptions)
        finally:
            timed_out = RUN.watchdog.stop(token)
        RUN.last_check = _record(self, result, timed_out)
        return result
    return check


def _record(solver: Any, result: z3.CheckSatResult, timed_out: bool) -> models.CheckRecord:
    """What a report needs of this check, taken before the script changes the solver, except the
    model: asking z3 for a model builds terms (model conversion), and a check that follows then
    searches differently.  The model is the one the script asks for (``_wrap_model``), or is asked
    for once the script is over (``last_check``)."""
    record = models.CheckRecord(solver, result)
    try:
        if result == z3.sat:
            record.assertions = solver.assertions()
        elif result == z3.unsat:
            if RUN.cores:
                record.core = ORIGINAL[(_kind(solver), "unsat_core")](solver)
        else:
            # z3's own word for an interrupt is "interrupted"; the script sees that unchanged
            record.reason = "timeout" if timed_out else str(solver.reason_unknown())
    except Exception:  # the result itself is still worth reporting
        pass
    return record


def _wrap_model(original: Callable[..., Any]) -> Callable[..., Any]:
    def model(self: Any) -> Any:
        found = original(self)
        record = RUN.last_check
        if record is not None and record.solver is self and record.model is None:
            record.model = found
        return found
    return model


def last_check() -> models.CheckRecord | None:
    """The last check's record, with its model asked for now if the script never asked (after
    the script, so nothing it prints can change).  If the script changed the solver after that
    check, z3 may have no model left: the report then has none."""
    record = RUN.last_check
    if record is not None and record.result == z3.sat and record.model is None:
        try:
            record.model = record.solver.model()
        except Exception:
            pass
    return record


def _wrap_assert(original: Callable[..., Any]) -> Callable[..., Any]:
    def assert_exprs(self: Any, *args: Any) -> None:
        RUN.last_asserted = self
        if not RUN.cores:
            return original(self, *args)
        line, text = script_line()
        track = ORIGINAL[(_kind(self), "assert_and_track")]
        boolean = z3.BoolSort(self.ctx)
        for arg in z3.z3._get_args(args):
            formulas = arg if isinstance(arg, (z3.Goal, z3.AstVector)) else [boolean.cast(arg)]
            for formula in formulas:
                literal = z3.FreshBool("z3sb_core", self.ctx)
                RUN.tracked[literal.get_id()] = (literal, line, text)
                RUN.our_ids.add(literal.get_id())
                track(self, formula, literal)
        return None
    return assert_exprs


def _wrap_track(original: Callable[..., Any]) -> Callable[..., Any]:
    def assert_and_track(self: Any, a: Any, p: Any) -> Any:
        RUN.last_asserted = self
        if RUN.cores:
            literal = z3.Bool(p, self.ctx) if isinstance(p, str) else p
            if isinstance(literal, z3.BoolRef):
                line, text = script_line()
                RUN.tracked[literal.get_id()] = (literal, line, text)
        return original(self, a, p)
    return assert_and_track


def _wrap_asserting(original: Callable[..., Any]) -> Callable[..., Any]:
    def asserting(self: Any, *args: Any, **keys: Any) -> Any:
        RUN.last_asserted = self
        return original(self, *args, **keys)
    return asserting


def _wrap_core(original: Callable[..., Any]) -> Callable[..., Any]:
    def unsat_core(self: Any) -> Any:
        """The script's core, without the literals the harness added for cores=True."""
        core = original(self)
        if not RUN.our_ids:
            return core
        kept = z3.AstVector(ctx=self.ctx)
        for literal in core:
            if literal.get_id() not in RUN.our_ids:
                kept.push(literal)
        return kept
    return unsat_core


_WRAPPERS: dict[str, Callable[[Callable[..., Any]], Callable[..., Any]]] = {
    "check": _wrap_check, "model": _wrap_model, "assert_exprs": _wrap_assert, "assert_and_track": _wrap_track,
    "unsat_core": _wrap_core, "from_string": _wrap_asserting, "from_file": _wrap_asserting,
    "add_soft": _wrap_asserting,
}


def script_line(start: int = 2) -> tuple[int | None, str]:
    """The innermost script line on the stack, and its source text."""
    frame: types.FrameType | None = sys._getframe(start)
    while frame is not None and frame.f_code.co_filename != RUN.filename:
        frame = frame.f_back
    if frame is None:
        return None, ""
    return frame.f_lineno, linecache.getline(RUN.filename, frame.f_lineno).strip()


# --------------------------------------------------------------------------------- the audit hook

def audit(event: str, args: tuple[Any, ...], _denied: frozenset[str],
          _deny_it: Callable[[str, tuple[Any, ...]], None]) -> None:
    """Deny process creation and network access, and remember it (a reporting layer: seccomp and
    the network namespace enforce).  Runs on every audit event, every ctypes call included, so it
    must stay cheap.  The script can still get around it through ctypes: at process level nothing
    stops that (SECURITY.md)."""
    if event in _denied:
        _deny_it(event, args)


def deny(event: str, args: tuple[Any, ...]) -> None:
    try:
        shown = ", ".join(_summary(arg) for arg in args)[:200]
        line, text = script_line(3)
        where = f" at line {line}: `{models.clean_text(text, 200)}`" if line else ""
        RUN.denials.append(f"{event} ({shown}){where}")
    except Exception:
        RUN.denials.append(event)
    raise PermissionError(f"blocked by the sandbox: {event} is not allowed")


def _summary(arg: Any) -> str:
    plain = isinstance(arg, (str, bytes, int, float, tuple, list)) or arg is None
    return models.clean_text(repr(arg), 80) if plain else type(arg).__name__  # a new socket...
