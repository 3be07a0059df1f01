"""``z3sandbox mcp`` started as an agent client starts it, a real server process: over stdio by the
MCP SDK's own client (``drive``), or over HTTP (``http_server``, then ``over_http``), for the MCP
tests to share."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

import httpx
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.types import CallToolResult

Result = TypeVar("Result")
Session = Callable[[Client], Awaitable[Result]]
SAT = "x = Int('x')\ns.add(x > 1)\ns.check()\n"


def drive(args: list[str], session: Session[Result]) -> Result:
    """Start ``z3sandbox mcp ARGS`` and run ``session(client)`` against it."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "z3sandbox_kernel", "mcp", *args])

    async def main() -> Result:
        async with Client(params) as client:
            return await session(client)

    return asyncio.run(main())


def over_http(base: str, session: Session[Result]) -> Result:
    """Run ``session(client)`` against the server listening at ``base`` (its MCP path added)."""

    async def main() -> Result:
        async with Client(f"{base}/mcp") as client:
            return await session(client)

    return asyncio.run(main())


def run_sat(client: Client) -> Awaitable[CallToolResult]:
    """A session: ``SAT`` run as the one candidate."""
    return client.call_tool("run_candidates", {"scripts": [SAT]})


@contextmanager
def http_server(*flags: str) -> Iterator[str]:
    """``z3sandbox mcp --http FLAGS`` while the block runs, once uvicorn listens: its base URL."""
    server = subprocess.Popen([sys.executable, "-m", "z3sandbox_kernel", "mcp", "--http", *flags],
                              stderr=subprocess.PIPE, text=True)
    try:
        assert server.stderr is not None
        for line in server.stderr:
            if "Uvicorn running on" in line:
                yield line.split("Uvicorn running on ")[1].split()[0]
                return
        raise AssertionError(f"the server did not listen (exit {server.wait(timeout=30)})")
    finally:
        server.terminate()
        server.wait(timeout=30)


def post_initialize(base: str, **headers: str) -> int:
    """The status of an MCP initialize request POSTed to ``base`` with ``headers`` added."""
    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}}
    sent = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"} | headers
    return httpx.post(f"{base}/mcp", json=hello, headers=sent, timeout=30).status_code


def free_port(host: str) -> int:
    """A port free on ``host`` now (the server binds it a moment later)."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])
