"""The first hour of a new user (issue 41): `make install` says what is wrong with the node it
found, whatever is wrong with it, before anything is installed."""

from __future__ import annotations

import itertools
import stat
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHECK_NODE = ROOT / "tools" / "check-node.sh"
NEED = "make install needs Node.js 20.19+ or 22.12+ with npm"


def _tool(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text(f"#!/bin/bash\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


GOOD_NODE = "echo v22.12.0"
GOOD_NPM = "echo 10.9.0"


@pytest.mark.parametrize("node, npm, said", [
    (None, None, "node is not on PATH"),
    ("echo 'node: error while loading shared libraries: libnode.so.115' >&2; exit 127", GOOD_NPM,
     "does not run: 'node --version' said: node: error while loading shared libraries"),
    ("kill -SEGV $$", GOOD_NPM, "does not run: 'node --version' said:"),
    ("echo 'Illegal instruction'", GOOD_NPM, "does not run: 'node --version' said: Illegal instruction"),
    (GOOD_NODE, None, "npm is not on PATH (node is v22.12.0)"),
    (GOOD_NODE, "echo 'npm ERR! cannot find module' >&2; exit 1",
     "does not run: 'npm --version' said: npm ERR! cannot find module"),
    ("echo v18.19.0", GOOD_NPM, "this node is v18.19.0"),
    ("echo v20.18.3", GOOD_NPM, "this node is v20.18.3"),
])
def test_check_node_says_what_is_wrong_with_the_node_it_found(
        tmp_path: Path, node: str | None, npm: str | None, said: str) -> None:
    if node is not None:
        _tool(tmp_path, "node", node)
    if npm is not None:
        _tool(tmp_path, "npm", npm)
    done = subprocess.run(["/bin/bash", str(CHECK_NODE)], env={"PATH": str(tmp_path)},
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 1, done
    assert done.stderr.startswith(f"{NEED} to build the JupyterLab extension: ") and said in done.stderr, \
        done.stderr
    assert "nodejs.org" in done.stderr  # and what to do about it


@pytest.mark.parametrize("version", ["v20.19.0", "v22.12.0", "v24.1.0"])
def test_check_node_passes_a_node_in_range(tmp_path: Path, version: str) -> None:
    _tool(tmp_path, "node", f"echo {version}")
    _tool(tmp_path, "npm", GOOD_NPM)
    done = subprocess.run(["/bin/bash", str(CHECK_NODE)], env={"PATH": str(tmp_path)},
                          capture_output=True, text=True, timeout=30)
    assert (done.returncode, done.stderr) == (0, "")


def _readme_commands() -> list[list[str]]:
    """Each command of the README's ```sh blocks, as words (comments dropped)."""
    import shlex

    text = (ROOT / "README.md").read_text()
    blocks = [part.split("```", 1)[0] for part in text.split("```sh\n")[1:]]
    return [shlex.split(line, comments=True) for block in blocks for line in block.splitlines()
            if shlex.split(line, comments=True)]


def test_every_readme_command_works_verbatim_in_the_clone_after_make_demo() -> None:
    """Issue 41: `z3sandbox run` was "command not found" after `make demo` (.venv is not on
    PATH), `pip install '.[mcp]'` was refused outside a virtualenv, and `--record runs/` left an
    untracked folder in the clone.  Each command is `make ...` or one of .venv/bin's programs,
    which the install made (the virtualenv these tests run in), writing nothing into the clone."""
    import sys

    commands = _readme_commands()
    assert ["make", "demo"] in commands and ["make", "test"] in commands
    for words in commands:
        program = words[0]
        if program == "make":
            assert words[1] in ("demo", "test"), words
            continue
        assert program.startswith(".venv/bin/"), words  # not a bare name: .venv is not on PATH
        assert (Path(sys.prefix) / "bin" / program.removeprefix(".venv/bin/")).is_file(), words
        for flag, value in itertools.pairwise(words):  # an output folder is outside the clone
            if flag in ("--record", "--payload-dir"):
                assert value.startswith(("~/", "/")), words


def test_the_readme_s_mcp_command_starts_with_the_sdk_make_demo_installed() -> None:
    import sys

    (command,) = [words for words in _readme_commands() if "mcp" in words]
    program = Path(sys.prefix) / "bin" / "z3sandbox"
    done = subprocess.run([str(program), *command[1:command.index("--max-wall-s")], "--help"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "--max-wall-s" in done.stdout, done.stderr
