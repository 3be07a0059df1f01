"""One verifier process, many checks: what each check of a run's verifier starts from.

A verifier serves the answers of one run in turn (zygote/verifiers.py), so nothing one check
leaves may reach the next: each runs in a fresh z3 main context (the one every term and parser of
confirm.py uses), with the parsers' caches emptied and its own CPU budget.  What the candidates
send is data: the commands z3 is given are declarations, definitions and assertions only
(verify.ALLOWED_COMMANDS), so no check sets an option, a global parameter or an output channel
that a later check would run under.
"""

from __future__ import annotations

import gc
import math
import resource
from collections.abc import Callable

import z3

from ..protocol import VerifyReport, VerifyRequest
from . import confirm, smt2_text, verify

# A verifier's hard CPU limit (RLIMIT_CPU): each check's own limit is its soft limit, moved up
# before the check (``serve_one``); a verifier runs no user code, so only the soft limit binds.
SERVICE_CPU_CEILING_S = 1_000_000.0


def rehearse() -> None:
    """Before the first request: the parser and the pages a check writes made ready
    (verify.rehearse), then a fresh context for the first check (``_fresh_state``)."""
    verify.rehearse()
    _fresh_state()


def serve_one(request: VerifyRequest, cpu_s: float, send: Callable[[VerifyReport], None]) -> None:
    """Confirm one candidate's answer within ``cpu_s`` of CPU from now (past it, SIGXCPU ends the
    process: the zygote replaces it and re-checks what it had left) and ``send`` the report.  The
    caller then ``refresh``es before the next check, unless none will come."""
    _cpu_budget(cpu_s)

    def partial(report: VerifyReport) -> None:
        """z3's word, before a second solver's: sent, then the second solver's own CPU budget."""
        report["type"] = "result"
        send(report)
        _cpu_budget(cpu_s)

    report = confirm.verify_request(request, partial)
    report["type"] = "result"
    send(report)


def _cpu_budget(cpu_s: float) -> None:
    """``cpu_s`` of CPU from now (RLIMIT_CPU's soft limit)."""
    used = sum(resource.getrusage(resource.RUSAGE_SELF)[:2])
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = math.ceil(used + max(cpu_s, 0.01))
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def refresh() -> None:
    """Between two checks: the next one's fresh z3 state (``_fresh_state``)."""
    _fresh_state()


def _fresh_state() -> None:
    """A new z3 main context (z3py's ``main_ctx()``, which every term and parser of confirm.py
    uses), the old one dropped first; the text caches emptied of the last candidate's script."""
    verify.forget_texts()
    smt2_text.forget_texts()
    z3.z3._main_ctx = None
    gc.collect()  # the last check's terms hold the old context: freed before the new one is made
    z3.z3._main_ctx = z3.Context()
