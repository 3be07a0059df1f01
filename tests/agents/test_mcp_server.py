"""``z3sandbox mcp`` driven by the MCP SDK's own client over stdio: a real server process, started
as an agent client starts it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.conftest import all_processes, process_tree_of, require_extra
from z3sandbox_kernel.agents.mcp_operator import Operator, ceiling_flag, parse_address
from z3sandbox_kernel.contracts.limits import LIMIT_FIELDS, Limits
from z3sandbox_kernel.zygote.spawn import ZYGOTE_NAME

require_extra("mcp", "mcp")
from mcp import Client  # noqa: E402
from mcp.types import CallToolResult  # noqa: E402

from tests.agents.serving import (  # noqa: E402
    SAT,
    drive,
    free_port,
    http_server,
    over_http,
    post_initialize,
    run_sat,
)

pytestmark = pytest.mark.timeout(120)

UNSAT = "x = Int('x')\ns.add(x > 1, x < 0)\ns.check()\n"
HARD = "x, y, z = Ints('x y z')\ns.add(x > 0, y > 0, z > 0)\ns.add(x**3 + y**3 == z**3)\nr = s.check()\n"


def test_run_candidates_returns_verdicts_errors_and_progress(tmp_path: Path):
    progress: list[tuple[float, float | None, str | None]] = []

    async def session(client: Client) -> tuple[object, ...]:
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
    by_label = {c["labels"][0]: c for c in out["candidates"]}
    assert by_label["sat"]["verdict"] == "sat" and by_label["sat"]["model"] == {"x": 2}
    assert by_label["sat"]["verified"] is True and "error" not in by_label["sat"]
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
    header = json.loads(record.contents[0].text.split("\n")[0])
    assert header["isolation"]["level"] and header["isolation_ref"].startswith("isolation-")


def test_a_client_may_ask_for_less_never_for_more():
    async def session(client: Client) -> tuple[object, ...]:
        over_wall = await client.call_tool("run_candidates", {"scripts": [SAT], "wall_s": 30})
        over_count = await client.call_tool("run_candidates", {"scripts": [SAT], "k": 3})
        under = await client.call_tool("run_candidates", {"scripts": [SAT], "wall_s": 2, "k": 2})
        return over_wall, over_count, under

    over_wall, over_count, under = drive(["--max-wall-s", "3", "--max-candidates", "2"], session)
    assert over_wall.is_error and "wall_s 30 is over --max-wall-s 3" in over_wall.content[0].text
    assert over_count.is_error and "3 is over --max-candidates 2" in over_count.content[0].text
    assert not under.is_error
    assert under.structured_content["counts"] == {"sat": 2}


def test_runs_are_not_served_without_a_record_folder():
    async def session(client: Client) -> str:
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
    port = free_port("127.0.0.1")
    with http_server(str(port)) as base:
        assert base == f"http://127.0.0.1:{port}"
        result = over_http(base, lambda client: client.call_tool("run_candidates", {"scripts": [SAT, UNSAT]}))
    assert result.structured_content["counts"] == {"sat": 1, "unsat": 1}


def server_process() -> int:
    """The ``z3sandbox mcp`` process the SDK's stdio client started (a child of this one)."""
    import os

    for proc in all_processes().values():
        if proc.ppid == os.getpid():
            try:
                command = Path(f"/proc/{proc.pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"z3sandbox_kernel" in command and b"mcp" in command:
                return proc.pid
    raise AssertionError("no z3sandbox mcp process under this one")


def test_the_sandbox_is_started_before_the_first_call():
    async def session(client: Client) -> tuple[object, ...]:
        started = [proc.name for proc in process_tree_of(server_process())]  # right after initialize
        result = await client.call_tool("run_candidates", {"scripts": [SAT]})
        return started, result

    started, result = drive([], session)
    assert ZYGOTE_NAME in started
    assert result.structured_content["verdict"] == "sat"


def test_identical_candidates_are_one_entry_and_the_output_is_compact():
    async def session(client: Client) -> tuple[object, ...]:
        tools = (await client.list_tools()).tools
        copies = await client.call_tool("run_candidates", {"scripts": [SAT] * 16})
        seeds = await client.call_tool("run_candidates", {"scripts": [SAT], "k": 16})
        return tools[0], copies, seeds

    tool, copies, seeds = drive([], session)
    for result in (copies, seeds):
        out = result.structured_content
        assert len(json.dumps(out)) < 3000 and len(result.content[0].text) < 3000
        (entry,) = out["candidates"]
        assert entry["indexes"] == list(range(16))
        assert entry["verdict"] == "sat" and entry["model"] == {"x": 2} and entry["verified"] is True
        assert out["counts"] == {"sat": 16}
        assert result.content[0].text.startswith(f"Run {out['run_id']}: the vote is sat (16 sat)")
        assert "#0-15: sat, model verified, confirmed by z3" in result.content[0].text  # a summary
        assert "null" not in json.dumps(out)  # no null fields anywhere
    schema = tool.output_schema
    candidate = schema["properties"]["candidates"]["items"]["properties"]  # each type where it is used
    assert all(field.get("description") for field in candidate.values())
    assert all(field.get("description") for field in schema["properties"].values())
    assert '"fraction"' in candidate["model"]["description"]  # how model values are encoded
    verdicts = json.dumps(candidate["verdict"])
    assert "runtime_error" in verdicts and "enum" in verdicts and '"wall"' in json.dumps(candidate["kill"])


def test_distinct_outcomes_stay_apart_with_their_errors():
    async def session(client: Client) -> CallToolResult:
        return await client.call_tool("run_candidates", {"scripts": [SAT, "x = Int('x'\n", SAT, UNSAT]})

    out = drive([], session).structured_content
    assert [entry["indexes"] for entry in out["candidates"]] == [[0, 2], [1], [3]]
    assert out["candidates"][1]["error"]["line"] == 1 and "model" not in out["candidates"][1]


def test_raising_the_wall_ceiling_raises_cpu_and_timeout_with_it():
    async def session(client: Client) -> tuple[object, ...]:
        fits = await client.call_tool("run_candidates", {"scripts": [SAT], "wall_s": 15, "cpu_s": 12,
                                                         "timeout_s": 10})
        over = await client.call_tool("run_candidates", {"scripts": [SAT], "wall_s": 600})
        below = await client.call_tool("run_candidates", {"scripts": [SAT], "wall_s": 0})
        models = await client.call_tool("run_candidates", {"scripts": [SAT], "models": 3})
        return fits, over, below, models

    fits, over, below, models = drive(["--max-wall-s", "20", "--max-models", "2"], session)
    assert not fits.is_error and fits.structured_content["verdict"] == "sat"
    assert over.is_error and "wall_s 600 is over --max-wall-s 20" in over.content[0].text
    assert below.is_error and "greater than or equal" in below.content[0].text
    assert models.is_error and "models 3 is over --max-models 2" in models.content[0].text
    for refused in (over, below, models):
        assert "pydantic" not in refused.content[0].text and "http" not in refused.content[0].text


def test_cpu_and_timeout_ceilings_set_by_the_operator_stay_as_set():
    from z3sandbox_kernel.agents.mcp_operator import ceilings_from

    raised = ceilings_from({"wall_s": 20.0})
    assert (raised.wall_s, raised.cpu_s, raised.timeout_s) == (20, 20, 20)
    kept = ceilings_from({"wall_s": 20.0, "cpu_s": 4.0})
    assert (kept.cpu_s, kept.timeout_s) == (4, 20)
    assert ceilings_from({"wall_s": 2.0}).cpu_s == Limits().cpu_s  # lowering the wall lowers nothing else
    assert ceilings_from({}) == Limits()


def test_http_off_the_default_bind_refuses_a_foreign_host_and_origin():
    port = free_port("127.0.0.2")
    with http_server(f"127.0.0.2:{port}") as base:
        assert base == f"http://127.0.0.2:{port}"

        def post(**extra: str) -> int:
            return post_initialize(base, **extra)

        assert post(Host="evil.example") == 421
        assert post(Host=f"evil.example:{port}") == 421
        assert post(Host=f"localhost:{port + 1}") == 421  # loopback's names, with the bound port only
        assert post(Origin="http://evil.example") == 403
        assert post(Origin=f"http://localhost:{port + 1}") == 403
        assert post() == 200 and post(Origin=base) == 200
        assert over_http(base, run_sat).structured_content["verdict"] == "sat"


def test_http_allows_the_origins_the_operator_adds():
    port = free_port("127.0.0.1")
    with http_server(f"127.0.0.1:{port}", "--allow-origin", "https://app.example") as base:
        statuses = [post_initialize(base, Origin=origin)
                    for origin in ("https://app.example", "https://other.example")]
    assert statuses == [200, 403]


def test_a_bind_beyond_loopback_needs_allow_remote():
    import subprocess

    refused = subprocess.run([sys.executable, "-m", "z3sandbox_kernel", "mcp", "--http", "0.0.0.0:9"],
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "--allow-remote" in refused.stderr


def test_expected_verdicts_are_recorded_and_labels_are_capped(tmp_path: Path):
    from z3sandbox_kernel.host.plan import MAX_LABEL_CHARS

    async def session(client: Client) -> tuple[object, ...]:
        ran = await client.call_tool("run_candidates", {"scripts": [SAT, UNSAT], "expected": ["sat", "sat"]})
        record = await client.read_resource(f"z3sandbox://runs/{ran.structured_content['run_id']}")
        long_label = await client.call_tool("run_candidates", {"scripts": [SAT],
                                                               "labels": ["x" * (MAX_LABEL_CHARS + 1)]})
        return record, long_label

    record, long_label = drive(["--record", str(tmp_path), "--record-scripts"], session)
    header = json.loads(record.contents[0].text.splitlines()[0])
    assert [(c["expected"], c["script"]) for c in header["candidates"]] == [("sat", SAT), ("sat", UNSAT)]
    assert long_label.is_error and f"a label has at most {MAX_LABEL_CHARS}" in long_label.content[0].text


def test_only_loopback_binds_go_without_allow_remote_and_the_rest_are_warned_about():
    from z3sandbox_kernel.agents.mcp_operator import check_bind, transport_security

    assert check_bind(("127.0.0.2", 9), allow_remote=False) is None
    assert check_bind(("::1", 9), allow_remote=False) is None
    assert check_bind(("localhost", 9), allow_remote=False) is None
    with pytest.raises(ValueError, match="--allow-remote"):
        check_bind(("192.0.2.1", 9), allow_remote=False)
    assert "no authentication" in (check_bind(("0.0.0.0", 9), allow_remote=True) or "")
    security = transport_security(("::1", 8000), ["box.example:8000"], ["https://app.example"])
    assert security.enable_dns_rebinding_protection
    assert security.allowed_hosts == ["[::1]:8000", "localhost:8000", "127.0.0.1:8000", "box.example:8000"]
    assert security.allowed_origins == ["http://[::1]:8000", "http://localhost:8000", "http://127.0.0.1:8000",
                                        "https://app.example"]
    remote = transport_security(("192.0.2.1", 8000), [], [])
    assert remote.allowed_hosts == ["192.0.2.1:8000"]  # beyond loopback: its own address alone
