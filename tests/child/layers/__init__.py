"""Run one probe action in a freshly forked, sandboxed process and bring the outcome back.

The layer tests attack the real kernel mechanisms, so each action runs in its own child: the
child sets no_new_privs (as the bootstrap's capabilities step would), applies the requested layers
in bootstrap order, runs the action, and writes what happened to a pipe as JSON.  A child killed by
a signal (seccomp's SIGSYS, an alarm) comes back as ``Outcome.signal``.
"""

from __future__ import annotations

import json
import signal
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pytest

from tests.conftest import in_ci
from tests.forked import Send, in_fork
from z3sandbox_kernel.child.layers import LayerSetupError, Policy
from z3sandbox_kernel.contracts.limits import Limits
from z3sandbox_kernel.contracts.oscalls import prctl
from z3sandbox_kernel.protocol import LayerReport

_PR_SET_NO_NEW_PRIVS = 38


@dataclass
class Outcome:
    """What the action did in the sandboxed child."""

    value: Any = None  # the action's return value, as JSON (repr() when not JSON-able)
    error: str = ""  # exception type name, "" when the action returned
    errno: int | None = None
    message: str = ""
    signal: int | None = None  # the child died of this signal
    setup_error: str = ""  # a layer's LayerSetupError
    reports: tuple[LayerReport, ...] = ()

    @property
    def ok(self) -> bool:
        return not (self.error or self.signal or self.setup_error)

    @property
    def denied(self) -> bool:
        """The kernel said no (EPERM / EACCES), as Python's PermissionError."""
        return self.error == "PermissionError"


def require(probe: LayerReport) -> None:
    """A missing kernel feature fails in CI and is an expected failure elsewhere, never a skip."""
    if not probe["active"]:
        missing_feature(f"{probe['name']} unavailable: {probe.get('error', '')}")


def missing_feature(reason: str) -> None:
    """Fail in CI (CI=true), expected failure elsewhere."""
    if in_ci():
        pytest.fail(reason)
    pytest.xfail(reason)


def make_policy(scratch: str) -> Policy:
    return Policy(scratch_dir=scratch, limits=Limits(), self_pid=0)


def _child(send: Send, action: Callable[[], Any], layers: Sequence[ModuleType], policy: Policy,
           timeout_s: int, before: Callable[[], None] | None) -> None:
    signal.alarm(timeout_s)
    result: dict[str, Any] = {}
    try:
        if before is not None:
            before()
        prctl(_PR_SET_NO_NEW_PRIVS, 1)
        result["reports"] = [layer.apply(policy) for layer in layers]
        try:
            value = action()
            try:
                json.dumps(value)
                result["value"] = value
            except TypeError:
                result["value"] = repr(value)
        except BaseException as exc:
            result.update(error=type(exc).__name__, errno=getattr(exc, "errno", None),
                          message=str(exc))
    except (LayerSetupError, OSError) as exc:  # OSError: ``before`` failed
        result["setup_error"] = str(exc)
    send(result)


def run_sandboxed(action: Callable[[], Any], layers: Sequence[ModuleType], scratch: str,
                  timeout_s: int = 30, before: Callable[[], None] | None = None) -> Outcome:
    """Fork, run ``before`` (e.g. enter a user namespace), apply ``layers`` with ``scratch`` as the
    scratch directory, then run ``action``."""
    policy = make_policy(scratch)
    forked = in_fork(lambda send: _child(send, action, layers, policy, timeout_s, before),
                     capture=False)
    if forked.signal is not None:
        return Outcome(signal=forked.signal)
    data = forked.frames[0] if forked.frames else {}
    return Outcome(
        value=data.get("value"), error=data.get("error", ""), errno=data.get("errno"),
        message=data.get("message", ""), setup_error=data.get("setup_error", ""),
        reports=tuple(data.get("reports", ())),
    )


def connect_from_sandbox(layers: Sequence[ModuleType], scratch: str, family: int,
                         address: object) -> tuple[Outcome, bool]:
    """Listen at ``address`` (of ``family``: a port 0 is any free one) and connect to it from a
    sandboxed child: its outcome, and whether the connection reached the listener."""
    with socket.socket(family) as listener:
        listener.bind(address)
        listener.listen()
        listener.setblocking(False)
        bound = listener.getsockname()

        def connect() -> None:
            with socket.socket(family) as client:
                client.settimeout(5)
                client.connect(bound)

        outcome = run_sandboxed(connect, layers, scratch)
        try:
            listener.accept()[0].close()
        except BlockingIOError:
            return outcome, False
        return outcome, True
