"""Types that reach the handlers: mypy refuses a gate built of other kinds than it declares, and a
handler given a message of another type (the tag narrows the union at each dispatch)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

mypy_api = pytest.importorskip("mypy.api")

# Lines marked ``# wrong`` must be mypy errors, and no other line.  The mistakes are of one class:
# a message of one type where another is declared (the wrong kind, one kind too many, a handler of
# another type after the tag narrowed the union).
SNIPPET = """\
from z3sandbox_kernel.protocol import (
    CancelRequest, Gate, Hello, HostRequest, RunRequest, ShutdownRequest, ZygoteEvent)

HELLO: Gate[Hello] = Gate(Hello)
REQUESTS: Gate[HostRequest] = Gate(RunRequest, CancelRequest, ShutdownRequest)
WRONG: Gate[Hello] = Gate(RunRequest)  # wrong
TOO_MANY: Gate[RunRequest] = Gate(RunRequest, CancelRequest)  # wrong


def on_cancel(msg: CancelRequest) -> None: ...


def handle(msg: HostRequest, event: ZygoteEvent) -> None:
    if msg["type"] == "cancel":
        on_cancel(msg)
    if msg["type"] == "run":
        on_cancel(msg)  # wrong
    on_cancel(event)  # wrong
"""


def test_a_mistyped_gate_or_handler_is_a_mypy_error(tmp_path: Path) -> None:
    path = tmp_path / "snippet.py"
    path.write_text(SNIPPET)
    out, err, _ = mypy_api.run(["--strict", "--follow-imports=silent", "--ignore-missing-imports",
                                "--no-error-summary", str(path)])
    wrong = {n for n, line in enumerate(SNIPPET.splitlines(), 1) if line.endswith("# wrong")}
    flagged = {int(n) for n in re.findall(r"snippet\.py:(\d+): error", out)}
    assert flagged == wrong, out + err
