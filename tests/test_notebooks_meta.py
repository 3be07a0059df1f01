"""The notebooks in notebooks/ are the tutorial and a regression suite (nbval): check their form.

Every notebook runs on the z3sandbox kernel and has its outputs committed (nbval compares against
them), and every cell that nbval does not compare says why, in a comment on the marker's line.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("[0-9][0-9]-*.ipynb"))
# nbval's markers, as comments in a cell or as cell tags
MARKERS = ("NBVAL_IGNORE_OUTPUT", "NBVAL_SKIP", "NBVAL_RAISES_EXCEPTION", "NBVAL_CHECK_OUTPUT")
TAGS = {"nbval-ignore-output", "nbval-skip", "raises-exception"}
# "# NBVAL_IGNORE_OUTPUT: <reason>" or "# NBVAL_SKIP -- <reason>": at least a few words
REASONED = re.compile(r"#\s*(NBVAL_[A-Z_]+)\b\s*[:\-–—]*\s*(\S.{10,})")


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _code_cells(notebook: dict) -> list[dict]:
    return [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]


def _source(cell: dict) -> str:
    source = cell["source"]
    return source if isinstance(source, str) else "".join(source)


def test_the_notebooks_are_there() -> None:
    assert len(NOTEBOOKS) >= 6, [path.name for path in NOTEBOOKS]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.name)
def test_notebook_runs_on_the_z3sandbox_kernel(path: Path) -> None:
    kernelspec = _load(path)["metadata"].get("kernelspec", {})
    assert kernelspec.get("name") == "z3sandbox", kernelspec


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.name)
def test_notebook_has_its_outputs_committed(path: Path) -> None:
    cells = _code_cells(_load(path))
    unrun = [i for i, cell in enumerate(cells) if cell.get("execution_count") is None]
    assert not unrun, f"code cells never executed (run tools/refresh-notebooks.sh): {unrun}"
    counts = [cell["execution_count"] for cell in cells]
    assert counts == list(range(1, len(cells) + 1)), f"not executed top to bottom: {counts}"
    assert any(cell["outputs"] for cell in cells)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.name)
def test_notebook_has_no_errors_in_its_outputs(path: Path) -> None:
    for cell in _code_cells(_load(path)):
        for output in cell["outputs"]:
            assert output["output_type"] != "error", (_source(cell), output.get("evalue"))
            if output["output_type"] == "stream":
                assert output["name"] != "stderr", (_source(cell), output["text"])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.name)
def test_every_uncompared_cell_says_why(path: Path) -> None:
    for cell in _code_cells(_load(path)):
        source = _source(cell)
        tags = set(cell.get("metadata", {}).get("tags", []))
        assert not tags & TAGS, f"use a marker comment with a reason, not a tag: {tags & TAGS}"
        for line in source.splitlines():
            if any(marker in line for marker in MARKERS):
                assert REASONED.search(line), f"a marker without a reason: {line!r}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.name)
def test_no_widget_state_or_timestamps_are_saved(path: Path) -> None:
    notebook = _load(path)
    assert "widgets" not in notebook["metadata"], "widget state churns on every refresh"
    stamped = [i for i, cell in enumerate(notebook["cells"]) if "execution" in cell["metadata"]]
    assert not stamped, f"cells with execution timestamps: {stamped}"
