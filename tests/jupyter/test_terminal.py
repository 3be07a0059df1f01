"""What terminal IPython prints of a run: the reason as wide as the terminal allows, wrapped there and
never cut in its message, `-k` rows named
by their seed, and an interrupted cell's one line wrapped at words, with no count of none."""

from __future__ import annotations

import pytest
from IPython.core.interactiveshell import InteractiveShell

from tests.jupyter.cells import FAST, SAT
from z3sandbox_kernel import CandidateResult, Limits, RunResult, Verdict
from z3sandbox_kernel.jupyter.outcome import LINE_WIDTH, RunInterrupted, interrupted_line
from z3sandbox_kernel.presentation import textview
from z3sandbox_kernel.presentation.render import run_mimebundle

# A long message from the candidate's line 2: the reason ends in "(line 6 [candidate line 2])".
FAILING = SAT + "# %% candidate broken\nx = 1\nraise ValueError('the input is not what this " \
    "script expected to find at all, ' * 2)\n"


def _reason_lines(table: str) -> tuple[list[str], int]:
    """The ValueError row and the lines its reason wraps onto, and the reason column's offset."""
    lines = table.splitlines()
    start = next(n for n, line in enumerate(lines) if "ValueError" in line)
    column = lines[start].index("ValueError")
    rows = [lines[start]]
    for line in lines[start + 1:]:
        if line[:column].strip() or not line.strip():
            break
        rows.append(line)
    return rows, column


def _reason(rows: list[str], column: int) -> str:
    return " ".join(row[column:].strip() for row in rows)


def test_the_reason_uses_the_terminals_width_and_is_never_cut(
    shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # shutil.get_terminal_size reads it first
    shell.run_cell_magic("z3sandbox", f"{FAST} --quiet --out wide", FAILING)
    result = shell.user_ns["wide"]
    assert "line 6 [candidate line 2]" in result[1].reason
    message = "ValueError: " + "the input is not what this script expected to find at all, " * 2
    for columns, most in ((200, 2), (100, 4)):
        monkeypatch.setenv("COLUMNS", str(columns))
        rows, column = _reason_lines(repr(result))
        assert all(len(row) <= columns for row in rows), rows  # the terminal's room, not more
        assert 1 < len(rows) <= most and max(map(len, rows)) > columns - 20, rows  # its room is used
        reason = _reason(rows, column)  # whole: the message, then its place (the source line cut)
        assert reason.startswith(message.strip()) and "(line 6 [candidate line 2]" in reason, reason
    # In a kernel (no terminal width): a notebook's saved text/plain has the fixed width, and
    # wraps the same whole reason.
    monkeypatch.setattr(textview, "_terminal_width", None)
    saved = run_mimebundle(result)[0]["text/plain"]
    rows, column = _reason_lines(saved)
    assert all(len(row[column:]) <= 60 for row in rows)
    assert _reason(rows, column).startswith(message.strip())


def test_k_rows_are_named_by_their_seed(shell: InteractiveShell) -> None:
    shell.run_cell_magic("z3sandbox", f"{FAST} --quiet --out seeded -k 3", SAT)
    result = shell.user_ns["seeded"]
    assert [c.label for c in result] == ["seed 0", "seed 1", "seed 2"]
    assert [c.source_preview for c in result] == [None, None, None]


def test_an_interrupted_line_drops_counts_of_none_and_wraps_at_words() -> None:
    partial = RunResult(candidates=[
        CandidateResult(index=0, verdict=Verdict.SAT),
        CandidateResult(index=1, verdict=Verdict.CANCELLED, kill="interrupt", reason="interrupted"),
    ], limits=Limits(), interrupted=True)
    line = interrupted_line(partial, "a_rather_long_result_name_that_the_user_chose")
    assert "never started" not in line and "1 stopped:" in line
    lines = RunInterrupted(line)._render_traceback_()
    assert len(lines) > 1 and all(len(part) <= LINE_WIDTH for part in lines)
    assert " ".join(lines) == line  # broken between words only
