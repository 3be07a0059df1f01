"""The README's generated tables match their single sources, and its examples run."""

from __future__ import annotations

import json
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


# A ```python block right after this line is not run by the doc test (say why after the colon);
# every other ```python block of the README is.  Other blocks (```sh, a diagram) are never run.
SKIP_MARK = "<!-- doc-test: skip"

# Runs the blocks in order in one fresh IPython shell, as cells pasted into a new kernel would run;
# stops at the first failure.  A Dask client a block made is closed at the end.
RUNNER = """
import json, sys
from IPython.core.interactiveshell import InteractiveShell

blocks, report = json.load(sys.stdin), sys.argv[1]
shell = InteractiveShell.instance()
failure = None
try:
    for line, block in blocks:
        outcome = shell.run_cell(block)
        if not outcome.success:
            failure = [line, block, repr(outcome.error_in_exec or outcome.error_before_exec)]
            break
finally:
    client = shell.user_ns.get("client")
    if client is not None:
        cluster = client.cluster
        client.close()
        cluster.close()
names = {name: repr(shell.user_ns[name]) for name in ("solved", "res", "result") if name in shell.user_ns}
with open(report, "w") as handle:
    json.dump({"failure": failure, "ran": len(blocks), "names": names}, handle)
"""


def readme_python_blocks() -> list[tuple[int, str]]:
    """Every ```python block of the README not marked with SKIP_MARK: (its first line, its text)."""
    text = (ROOT / "README.md").read_text()
    blocks = []
    for match in re.finditer(r"^```python\n(.*?)^```", text, flags=re.S | re.M):
        before = text[:match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        if not before.startswith(SKIP_MARK):
            blocks.append((text.count("\n", 0, match.start()) + 2, match.group(1)))
    return blocks


@pytest.mark.timeout(600)
def test_every_readme_python_example_runs_as_pasted_in_order(tmp_path: Path) -> None:
    """The README's ```python blocks, in order, in a fresh IPython process whose folder holds the
    clone's examples/ (as a notebook next to the clone would): nothing is defined for them."""
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    blocks = readme_python_blocks()
    assert len(blocks) >= 9
    report = tmp_path / "report.json"
    done = subprocess.run([sys.executable, "-c", RUNNER, str(report)], input=json.dumps(blocks),
                          cwd=tmp_path, capture_output=True, text=True, timeout=580)
    assert report.exists(), done.stderr[-3000:]
    outcome = json.loads(report.read_text())
    assert outcome["failure"] is None, f"README.md line {outcome['failure'][0]}: {outcome['failure'][1:]}"
    solved = (tmp_path / "packet-solved.bin").read_bytes()
    assert solved[:2] == b"\x7fZ"
    assert solved[4:] == (ROOT / "examples" / "packet.bin").read_bytes()[4:]  # the rest of the packet


def test_the_skip_mark_skips_only_the_next_block(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("```python\na = 1\n```\n" + SKIP_MARK + ": needs a GPU -->\n```python\nb = 2\n```\n"
                      "```sh\nmake\n```\n```python\nc = 3\n```\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert readme_python_blocks() == [(2, "a = 1\n"), (12, "c = 3\n")]
