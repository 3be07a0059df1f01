"""Asking a verifier as the zygote asks it: the request built by the zygote's own
``jobs.verify_request`` from a candidate and its report, the verifier run in a fork (tests/forked.py)
so that z3's main context is made there, not in this process (the harness tests expect none made
before their forks)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

from tests.forked import in_fork
from z3sandbox_kernel import Limits
from z3sandbox_kernel.child import confirm
from z3sandbox_kernel.zygote.classify import Observation
from z3sandbox_kernel.zygote.jobs import Candidate
from z3sandbox_kernel.zygote.jobs import verify_request as zygote_request


def candidate(script: str = "", language: str = "smt2", limits: Limits | None = None,
              **request: object) -> Candidate:
    """A candidate as the zygote holds it once its run request arrived (``request``: more of it,
    e.g. ``cores=True``, ``cross_check="cvc5"``)."""
    limits = limits or Limits()
    run: Any = {"v": 1, "type": "run", "id": 1, "index": 0, "script": script,
                "language": language, "limits": limits, "random_seed": None, "cores": False,
                "verify": True, "seed_hex": None, "require": [], **request}
    return Candidate(run, Observation(index=0, limits=limits, level="process", seed=None))


def budget(verify_s: float) -> Limits:
    """Limits of which the verifier reads ``verify_s`` alone, which may be 0 (no budget at all:
    ``Limits`` refuses it, and the request goes to the verifier in-process, never decoded)."""
    return cast(Limits, SimpleNamespace(verify_s=verify_s))


def verify_request(request: object) -> dict[str, Any]:
    """The verifier's report on ``request``, from a fork, as the zygote runs one."""
    forked = in_fork(lambda send: send(confirm.verify_request(request)), capture=False)
    assert forked.frames, f"the verifier sent nothing (exit {forked.exit_code}, signal {forked.signal})"
    return forked.frames[0]


def verified(asked: Candidate, report: dict[str, Any],
             verify_s: float | None = None) -> dict[str, Any]:
    """What a verifier says of ``report`` from ``asked``: the zygote's request, with the budget the
    zygote adds when it starts the verifier (verifiers.py); ``verify_s``: another budget (0: none,
    which ``Limits`` would refuse)."""
    seconds = asked.observation.limits.verify_s if verify_s is None else verify_s
    return verify_request({**zygote_request(asked, report), "limits": budget(seconds)})
