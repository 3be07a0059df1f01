"""The README's generated tables match their single sources, and its examples run."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_readme_tables_are_generated_from_the_sources() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "sync_docs.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_readme_names_exactly_two_setup_commands() -> None:
    text = (ROOT / "README.md").read_text()
    block = text.split("## Two commands", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    commands = [line.split("#")[0].strip() for line in block.strip().splitlines()]
    assert commands == ["make demo", "make test"]


def test_readme_run_options_and_kill_reasons_come_from_their_models() -> None:
    from z3sandbox_kernel.options import kills_table, options_table

    text = (ROOT / "README.md").read_text()
    for name, table in (("options", options_table()), ("kills", kills_table())):
        section = text.split(f"<!-- BEGIN {name} -->\n", 1)[1].split(f"<!-- END {name} -->", 1)[0]
        assert section == table + "\n", name


def test_every_kill_the_zygote_makes_is_documented() -> None:
    from z3sandbox_kernel.options import KILL_REASONS
    from z3sandbox_kernel.zygote.classify import ZYGOTE_KILLS

    assert not ZYGOTE_KILLS - set(KILL_REASONS)


def readme_python_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text()
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def test_every_readme_python_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's examples, in order, in one IPython shell, as a reader would paste them: the
    variables they assume (answers, scripts, candidates, packet.bin) are made first."""
    from IPython.core.interactiveshell import InteractiveShell

    monkeypatch.chdir(tmp_path)
    (tmp_path / "packet.bin").write_bytes(b"\x00\x00\x07\x00rest of the packet")
    shell = InteractiveShell.instance()
    sat, unsat = "x = Int('x')\ns.add(x > 1)\n", "x = Int('x')\ns.add(x > 1, x < 0)\n"
    shell.user_ns.update(answers=[sat, unsat], scripts=[sat, unsat], candidates=[sat, sat])
    blocks = readme_python_blocks()
    assert len(blocks) >= 8
    try:
        for block in blocks:
            outcome = shell.run_cell(block)
            assert outcome.success, (block, outcome.error_in_exec or outcome.error_before_exec)
    finally:
        client = shell.user_ns.get("client")
        if client is not None:
            cluster = client.cluster
            client.close()
            cluster.close()
    assert shell.user_ns["_z3"].payload[:2] == b"\x7fZ"
    assert (tmp_path / "packet-solved.bin").read_bytes() == shell.user_ns["_z3"].payload
    assert shell.user_ns["res"].verdict.value in ("sat", "unsat", "internal_error")
