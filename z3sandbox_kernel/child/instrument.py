"""What the harness adds to a candidate's process, without changing how z3 solves.

The observers (observer.py) record the last check and what its report needs, and track assertions
for unsat cores (cores=True only).  They set no z3 parameter, and make no term and keep no object
of the script's unless the run asked for cores: a parameter, a term made in a script's context or
an object kept alive changes z3's search (other models, other optima, other solution orders), and
a candidate must print what ``python script.py`` prints.  The solver timeout is a watchdog thread
that interrupts the checking context at the deadline, which is what z3's own timeout does (a timer
that cancels the context's resource limit).

The audit hook is here too: it only reports (seccomp and the network namespace enforce).
"""

from __future__ import annotations

import _thread
import heapq
import linecache
import math
import sys
import threading
import time
import types
from collections.abc import Callable
from typing import Any

import z3

from . import copies, observer
from .handles import Pointer

# CPython audit events for process creation, exec and network access (the audit events table).
DENIED_EVENTS = frozenset({
    "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty",
    "subprocess.Popen", "pty.spawn", "socket.__new__", "socket.connect", "socket.bind",
    "socket.sendto", "socket.sendmsg", "socket.getaddrinfo", "socket.gethostbyname",
    "socket.gethostbyaddr", "socket.getnameinfo",
})
# Those the seccomp filter refuses with an error Python raises (clone, execve, socket): where its
# init observes the filter's refusals, they reach the filter, so that ``blocked`` is observed.
# os.system stays: C's system() hides the refused clone in a return value.
OBSERVED_BY_SECCOMP = frozenset({
    "os.fork", "os.forkpty", "os.exec", "os.posix_spawn", "subprocess.Popen", "pty.spawn",
    "socket.__new__",
})


def denied_events() -> frozenset[str]:
    """The events the audit hook refuses in this process."""
    from .layers import seccomp

    return DENIED_EVENTS - OBSERVED_BY_SECCOMP if seccomp.observed else DENIED_EVENTS


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
        self._contexts: dict[int, Any] = {}  # token -> context of a running check
        self.fired: set[int] = set()
        self._tokens = 0
        self._started = False
        # What the thread sleeps until (inf: no deadline).  A check's start wakes it only for an
        # earlier deadline: a script that checks thousands of times would otherwise pay two
        # thread switches a check (bench/PROFILE.md, step 9).
        self._sleeping_until = math.inf

    def start(self, ctx: z3.Context | Pointer, timeout_s: float) -> int:
        """Watch a check in ``ctx`` (a z3 ``Context`` or its raw pointer)."""
        with self._condition:
            self._tokens += 1
            token = self._tokens
            self._contexts[token] = ctx.ref() if isinstance(ctx, z3.Context) else ctx
            deadline = time.monotonic() + timeout_s
            heapq.heappush(self._deadlines, (deadline, token))
            if not self._started:
                _thread.start_new_thread(self._serve, ())
                self._started = True
            elif deadline < self._sleeping_until:
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
                    self._sleeping_until = math.inf
                    self._condition.wait()
                    continue
                deadline, token = self._deadlines[0]
                now = time.monotonic()
                if now < deadline:
                    self._sleeping_until = deadline
                    self._condition.wait(deadline - now)
                    continue
                heapq.heappop(self._deadlines)
                self.fired.add(token)
                z3.Z3_interrupt(self._contexts[token])


class Run:
    """The state of one candidate, read by the observers and the audit hook."""

    def __init__(self, timeout_s: float, cores: bool, filename: str) -> None:
        self.timeout_s = timeout_s
        self.cores = cores
        self.filename = filename  # the script's name in code objects and tracebacks
        self.watchdog = Watchdog()
        self.observer = observer.Observer(cores, lambda: script_line(3))
        self.observer.on_check = lambda ctx: self.watchdog.start(ctx, self.timeout_s)
        self.observer.after_check = self.watchdog.stop




def install(run: Run) -> None:
    """Observe z3 at its C boundary (observer.py): z3's classes stay as they are."""
    global RUN
    RUN = run
    observer.install(run.observer)


_ADOPTED: list[z3.Context] = []  # spares handed out, kept: the script's Context owns their context


def adopt_spare_contexts(spares: list[z3.Context]) -> None:
    """Let the script's first context be one of ``spares``, made in the zygote and never used:
    making a context costs milliseconds, and an unused one is what a plain run makes at the
    script's first term (``main_ctx()``) or ``Context()``, unless global parameters changed before
    (z3 reads them when a context is made) or the context has parameters of its own.  Done where
    z3.py makes a context, at its C calls (as observer.py does), so ``main_ctx`` and ``set_param``
    stay z3's own functions."""
    names = z3.z3.__dict__
    original = {name: names[name] for name in ("Z3_set_param_value", "Z3_mk_context_rc",
                                                "Z3_global_param_set", "Z3_global_param_reset_all")}
    configured: set[int] = set()  # configs given parameters: their context is not a plain one

    def set_param_value(config: Pointer, key: str, value: str) -> None:
        configured.add(copies.address(config))
        original["Z3_set_param_value"](config, key, value)

    def mk_context_rc(config: Pointer) -> Pointer:
        plain = copies.address(config) not in configured
        configured.discard(copies.address(config))
        if plain and spares:
            _ADOPTED.append(spares.pop())
            adopted: Pointer = _ADOPTED[-1].ctx
            return adopted
        made: Pointer = original["Z3_mk_context_rc"](config)
        return made

    def global_param_set(key: str, value: str) -> None:
        spares.clear()
        original["Z3_global_param_set"](key, value)

    def global_param_reset_all() -> None:
        spares.clear()
        original["Z3_global_param_reset_all"]()

    names.update(Z3_set_param_value=set_param_value, Z3_mk_context_rc=mk_context_rc,
                 Z3_global_param_set=global_param_set,
                 Z3_global_param_reset_all=global_param_reset_all)


class LazySolver(z3.Solver):  # type: ignore[misc, unused-ignore]  # z3 declares no types
    """The pre-bound ``s``: a z3 ``Solver`` made at its first use, so that a script that never
    uses it leaves z3's main context as a plain run does (and one that sets parameters first
    gets them)."""

    def __init__(self) -> None:  # nothing in z3 yet
        pass

    def __getattr__(self, name: str) -> Any:  # noqa: ANN401  # z3.Solver's, made on first use
        if name in ("ctx", "solver", "backtrack_level"):
            z3.Solver.__init__(self)
            return getattr(self, name)
        # as a Solver says it (and so Python's display can suggest a name): 'get_model', alone,
        # would tell the script's author nothing
        raise AttributeError(f"'Solver' object has no attribute '{name}'", name=name, obj=self)

    def __del__(self) -> None:
        if "solver" in self.__dict__:  # made, so freed; one never used has nothing to free
            z3.Solver.__del__(self)


LazySolver.__name__ = LazySolver.__qualname__ = "Solver"


def script_line(start: int = 2) -> tuple[int | None, str]:
    """The innermost script line on the stack, and its source text."""
    frame: types.FrameType | None = sys._getframe(start)
    while frame is not None and frame.f_code.co_filename != RUN.filename:
        frame = frame.f_back
    if frame is None:
        return None, ""
    return frame.f_lineno, linecache.getline(RUN.filename, frame.f_lineno).strip()


RUN = Run(0.0, False, "<candidate>")


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
    """Refuse ``event`` with a PermissionError that names it: the script's exception
    (runtime_error), as a script could raise it too; not a ``blocked`` verdict, which needs the
    sandbox's own observation.  Its arguments stay out: they are the script's own words."""
    raise PermissionError(f"blocked by the sandbox: {event} is not allowed")
