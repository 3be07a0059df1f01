"""Driving a kernel through jupyter_client as a frontend would: start one, execute a cell and read
its iopub messages, and read the run document the live display carries (the kernel tests share
these; their fixtures are in conftest.py)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.manager import KernelManager

from z3sandbox_kernel.presentation.render import MIME_TYPE

TIMEOUT = 60
Message = dict[str, Any]


def start(name: str, cwd: Path) -> tuple[KernelManager, BlockingKernelClient]:
    """A kernel reached over IPC (Unix sockets in ``cwd``), as the demo and the notebook refresh
    start it: no loopback TCP, so no "running over TCP without encryption" warning."""
    km = KernelManager(kernel_name=name, transport="ipc", ip=str(cwd / "kernel"))
    km.start_kernel(cwd=str(cwd))
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=TIMEOUT)
    return km, kc


def execute(
    kc: BlockingKernelClient,
    code: str,
    *,
    user_expressions: dict[str, str] | None = None,
    on_message: Callable[[Message], None] | None = None,
    others: list[Message] | None = None,
) -> tuple[Message, list[Message]]:
    """Run ``code``; return the execute_reply and the iopub messages of the request, in order.
    ``on_message`` sees each iopub message as it arrives (while the cell runs); ``others`` gets
    the iopub messages of other requests seen meanwhile."""
    msg_id = kc.execute(code, user_expressions=user_expressions or {})
    messages: list[Message] = []
    while True:
        message = kc.get_iopub_msg(timeout=TIMEOUT)
        if message["parent_header"].get("msg_id") != msg_id:
            if others is not None:
                others.append(message)
            continue
        messages.append(message)
        if on_message is not None:
            on_message(message)
        if message["msg_type"] == "status" and message["content"]["execution_state"] == "idle":
            break
    while True:
        reply = kc.get_shell_msg(timeout=TIMEOUT)
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply, messages


def of_type(messages: list[Message], kind: str) -> list[Message]:
    return [m for m in messages if m["msg_type"] == kind]


def expression(reply: Message, name: str) -> str:
    result = reply["content"]["user_expressions"][name]
    assert result["status"] == "ok", result
    text: str = result["data"]["text/plain"]
    return text


def document(message: Message) -> dict[str, Any]:
    """The run document a display or display update carries, else {}."""
    if message["msg_type"] not in ("display_data", "update_display_data"):
        return {}
    found: dict[str, Any] = message["content"]["data"].get(MIME_TYPE, {})
    return found


def states(message: Message) -> list[str]:
    """Each candidate's verdict or live state in a run document message."""
    return [c["verdict"] or c.get("state", "?") for c in document(message).get("candidates", [])]


@dataclass
class Once:
    """An ``on_message`` for ``execute`` that acts once, on the first message ``when`` is true of
    (a wait on what the live display shows, never on time)."""

    when: Callable[[Message], bool]
    act: Callable[[Message], None]
    at: float | None = None  # time.monotonic() when it acted

    def __call__(self, message: Message) -> None:
        if self.at is None and self.when(message):
            self.at = time.monotonic()
            self.act(message)
