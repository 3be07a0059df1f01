"""``z3sandbox mcp`` driven by the MCP SDK's own client over stdio: a real server process, started
as an agent client starts it."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require_extra
from z3sandbox_kernel.agents.mcp_server import Operator, ceiling_flag, parse_address
from z3sandbox_kernel.limits import LIMIT_FIELDS, Limits

require_extra("mcp", "mcp")
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

pytestmark = pytest.mark.timeout(120)

SAT = "x = Int('x')\ns.add(x > 1)\ns.check()\n"
UNSAT = "x = Int('x')\ns.add(x > 1, x < 0)\ns.check()\n"
HARD = "x, y, z = Ints('x y z')\ns.add(x > 0, y > 0, z > 0)\ns.add(x**3 + y**3 == z**3)\nr = s.check()\n"


def drive(args: list[str], session: Callable[[Any], Awaitable[Any]]) -> Any:
    """Start ``z3sandbox mcp ARGS`` and run ``session(client)`` against it."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "z3sandbox_kernel", "mcp", *args])

    async def main() -> Any:
        async with Client(params) as client:
            return await session(client)

    return asyncio.run(main())


def test_run_candidates_returns_verdicts_errors_and_progress(tmp_path: Path):
    progress: list[tuple[float, float | None, str | None]] = []

    async def session(client: Any) -> Any:
        tools = (await client.list_tools()).tools
        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            progress.append((done, total, message))
        result = await client.call_tool(
            "run_candidates", {"scripts": [SAT, UNSAT, "x = Int('x'\n", HARD], "timeout_s": 0.5,
                               "labels": ["sat", "unsat", "syntax", "hard"]},
            progress_callback=on_progress)
        isolation = await client.read_resource("z3sandbox://isolation")
        record = await client.read_resource(f"z3sandbox://runs/{result.structured_content['run_id']}")
        return tools, result, isolation, record

    tools, result, isolation, record = drive(["--record", str(tmp_path)], session)
    assert [tool.name for tool in tools] == ["run_candidates"]
    assert tools[0].annotations.read_only_hint is True and tools[0].annotations.open_world_hint is False
    assert {spec.name for spec in LIMIT_FIELDS} <= set(tools[0].input_schema["properties"])
    assert tools[0].output_schema is not None
    assert not result.is_error
    out = result.structured_content
    assert out["verdict"] == "sat" and out["tie"]["winner"] == "sat"  # a verified model wins the tie
    by_label = {c["label"]: c for c in out["candidates"]}
    assert by_label["sat"]["verdict"] == "sat" and by_label["sat"]["model"] == {"x": 2}
    assert by_label["sat"]["verified"] is True and by_label["sat"]["error"] is None
    assert by_label["unsat"]["verdict"] == "unsat"
    assert by_label["syntax"]["verdict"] == "syntax_error"
    assert by_label["syntax"]["error"]["type"] == "SyntaxError" and by_label["syntax"]["error"]["line"] == 1
    assert by_label["hard"]["verdict"] == "timeout" and by_label["hard"]["kill"] == "solver"
    assert by_label["hard"]["error"]["line"] == 4
    assert [done for done, _, _ in progress] == [1, 2, 3, 4]
    assert {total for _, total, _ in progress} == {4}
    assert any("syntax_error" in (message or "") for _, _, message in progress)
    assert '"level"' in isolation.contents[0].text
    assert out["record"] == f"z3sandbox://runs/{out['run_id']}"
    assert record.contents[0].text.count("\n") == 6  # header, four candidates, end


def test_a_client_may_ask_for_less_never_for_more():
    async def session(client: Any) -> Any:
        over_wall = await client.call_tool("run_candidates", {"scripts": [SAT], "wall_s": 30})
        over_count = await client.call_tool("run_candidates", {"scripts": [SAT], "k": 3})
        under = await client.call_tool("run_candidates", {"scripts": [SAT], "wall_s": 2, "k": 2})
        return over_wall, over_count, under

    over_wall, over_count, under = drive(["--max-wall-s", "3", "--max-candidates", "2"], session)
    assert over_wall.is_error and "wall_s" in over_wall.content[0].text
    assert over_count.is_error and "less than or equal to 2" in over_count.content[0].text
    assert not under.is_error
    assert [c["verdict"] for c in under.structured_content["candidates"]] == ["sat", "sat"]


def test_runs_are_not_served_without_a_record_folder():
    async def session(client: Any) -> Any:
        try:
            await client.read_resource("z3sandbox://runs/20260101T000000Z-abcdef")
        except Exception as exc:
            return str(exc)
        return "read"

    assert "--record" in drive([], session)


def test_each_limit_has_a_ceiling_flag_and_defaults_cap_at_it():
    assert ceiling_flag("wall_s") == "--max-wall-s"
    operator = Operator(ceilings=Limits(wall_s=3))
    assert operator.limits({}).wall_s == 3  # the default (10 s) capped by the ceiling
    assert operator.limits({"wall_s": 1}).wall_s == 1
    assert operator.limits({}).memory_mb == Limits().memory_mb
    with pytest.raises(ValueError, match="--max-wall-s"):
        operator.limits({"wall_s": 4})


def test_http_serves_on_loopback_unless_told():
    assert parse_address("8000") == ("127.0.0.1", 8000)
    assert parse_address(":8000") == ("127.0.0.1", 8000)
    assert parse_address("0.0.0.0:9") == ("0.0.0.0", 9)
    assert parse_address("[::1]:9") == ("::1", 9)
    with pytest.raises(ValueError):
        parse_address("host:")


def test_http_serves_the_same_tool_on_loopback():
    import socket
    import subprocess

    with socket.socket() as probe:  # a free port
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "z3sandbox_kernel", "mcp", "--http", str(port)],
                              stderr=subprocess.PIPE, text=True)
    try:
        assert server.stderr is not None
        for line in server.stderr:  # uvicorn says when it listens
            if "Uvicorn running on" in line:
                assert f"http://127.0.0.1:{port}" in line
                break

        async def main() -> Any:
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                return await client.call_tool("run_candidates", {"scripts": [SAT, UNSAT]})

        result = asyncio.run(main())
        assert result.structured_content["counts"] == {"sat": 1, "unsat": 1}
    finally:
        server.terminate()
        server.wait(timeout=30)
