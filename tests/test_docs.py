"""The README is a front door; the docs pages behind it hold the rest.  Their generated tables
match their single sources, and their examples run."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README_MAX_LINES = 300


def doc_pages() -> list[Path]:
    """The README and every Markdown page of the docs site (SECURITY.md is one, where it is)."""
    return [ROOT / "README.md", ROOT / "SECURITY.md", *sorted((ROOT / "docs").glob("*.md"))]


def generated_part(name: str) -> str:
    """The text between ``<!-- BEGIN name -->`` and ``<!-- END name -->``, in the one page that has it."""
    parts = [text.split(f"<!-- BEGIN {name} -->\n", 1)[1].split(f"<!-- END {name} -->", 1)[0]
             for text in (page.read_text() for page in doc_pages()) if f"<!-- BEGIN {name} -->" in text]
    assert len(parts) == 1, f"{name}: in {len(parts)} pages"
    return parts[0]


def test_generated_tables_come_from_their_sources() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "sync_docs.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_readme_names_exactly_two_setup_commands() -> None:
    text = (ROOT / "README.md").read_text()
    block = text.split("## Two commands", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    commands = [line.split("#")[0].strip() for line in block.strip().splitlines()]
    assert commands == ["make demo", "make test"]


def test_readme_is_a_front_door_of_at_most_300_lines() -> None:
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= README_MAX_LINES
    assert "make demo" in text and "make test" in text


def test_readme_links_reach_files_that_exist() -> None:
    """Every relative link of the README and of the docs pages names a file of the checkout (the
    docs build checks links between pages; this also covers the README, which it does not build)."""
    missing = []
    for page in doc_pages():
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", page.read_text()):
            if not (page.parent / target).exists():
                missing.append(f"{page.relative_to(ROOT)}: {target}")
    assert missing == []


def test_run_options_and_kill_reasons_come_from_their_models() -> None:
    from z3sandbox_kernel.contracts.options import kills_table, options_table

    for name, table in (("options", options_table()), ("kills", kills_table())):
        assert generated_part(name) == table + "\n", name


def test_every_kill_the_zygote_makes_is_documented() -> None:
    from z3sandbox_kernel.zygote.classify import ZYGOTE_KILLS

    assert all(f"| `{kill.value}` | {kill.description} |" in generated_part("kills") for kill in ZYGOTE_KILLS)


def test_the_readme_command_line_example_prints_what_the_command_line_prints() -> None:
    """The README shows the CLI's table for the example candidates: it is what the CLI prints."""
    text = (ROOT / "README.md").read_text()
    section = text.split("## Command line", 1)[1]
    command = section.split("```sh\n", 1)[1].split("\n```", 1)[0]
    shown = section.split("```text\n", 1)[1].split("```", 1)[0]
    assert command == ".venv/bin/z3sandbox run --wall 2 examples/candidates/*.py"
    files = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "examples" / "candidates").glob("*.py"))
    piped = {name: value for name, value in os.environ.items() if name not in ("COLUMNS", "LINES")}
    done = subprocess.run([sys.executable, "-m", "z3sandbox_kernel.cli", "run", "--wall", "2", *files],
                          cwd=ROOT, capture_output=True, text=True, timeout=120, env=piped)
    assert done.returncode == 0, done.stderr
    assert _steady(done.stdout) == _steady(shown)


def _steady(table: str) -> str:
    """The table without the one phrase that depends on the machine's load: a wall kill names the
    line the script was running only when its stack arrives before the kill's grace runs out (the
    lines a long reason wraps onto, under its column, are part of it)."""
    return re.sub(r"wall-clock limit of 2 s \(.*(\n {20,}\S.*)*", "wall-clock limit of 2 s (...)", table)


# A ```python block right after this line is not run by the doc test (say why after the colon);
# every other ```python block of the README and the docs pages is.  Other blocks (```sh, a diagram)
# are never run.
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


def python_blocks(page: Path) -> list[tuple[int, str]]:
    """Every ```python block of a page not marked with SKIP_MARK: (its first line, its text)."""
    text = page.read_text()
    blocks = []
    for match in re.finditer(r"^```python\n(.*?)^```", text, flags=re.S | re.M):
        before = text[:match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        if not before.startswith(SKIP_MARK):
            blocks.append((text.count("\n", 0, match.start()) + 2, match.group(1)))
    return blocks


PAGES_WITH_EXAMPLES = [page for page in doc_pages() if python_blocks(page)]


def test_the_examples_are_where_the_doc_test_runs_them() -> None:
    """The README has an example for the notebook, the API and agents; the pages hold the rest."""
    names = {page.name for page in PAGES_WITH_EXAMPLES}
    assert {"README.md", "notebook.md", "api.md", "agents.md", "cluster.md"} <= names
    assert sum(len(python_blocks(page)) for page in PAGES_WITH_EXAMPLES) >= 12


@pytest.mark.timeout(600)
@pytest.mark.parametrize("page", PAGES_WITH_EXAMPLES, ids=lambda page: page.name)
def test_every_python_example_runs_as_pasted_in_order(page: Path, tmp_path: Path) -> None:
    """A page's ```python blocks, in order, in a fresh IPython process whose folder holds the
    clone's examples/ (as a notebook next to the clone would): nothing is defined for them, so each
    page stands on its own."""
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    blocks = python_blocks(page)
    report = tmp_path / "report.json"
    done = subprocess.run([sys.executable, "-c", RUNNER, str(report)], input=json.dumps(blocks),
                          cwd=tmp_path, capture_output=True, text=True, timeout=580)
    assert report.exists(), done.stderr[-3000:]
    outcome = json.loads(report.read_text())
    where = page.relative_to(ROOT)
    assert outcome["failure"] is None, f"{where} line {outcome['failure'][0]}: {outcome['failure'][1:]}"
    if page.name == "notebook.md":  # its fuzzing example writes the solved packet
        solved = (tmp_path / "packet-solved.bin").read_bytes()
        assert solved[:2] == b"\x7fZ"
        assert solved[4:] == (ROOT / "examples" / "packet.bin").read_bytes()[4:]  # the rest of the packet


def test_the_skip_mark_skips_only_the_next_block(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("```python\na = 1\n```\n" + SKIP_MARK + ": needs a GPU -->\n```python\nb = 2\n```\n"
                    "```sh\nmake\n```\n```python\nc = 3\n```\n")
    assert python_blocks(page) == [(2, "a = 1\n"), (12, "c = 3\n")]
