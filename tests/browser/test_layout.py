"""The result view at a laptop's width, in JupyterLab in headless Chromium, with no kernel.

At 1400x900 with the file browser open (the output area is about 970 px wide), a table of wide
rows -- a long name, a failure whose reason ends in "[candidate line 2]", an unsat core, an
objective, three models -- never scrolls sideways, in the light and the dark theme, and the
reason's place stays readable; a run of 200 candidates opens grouped, its toggle counting the rows
it shows; an interrupted run's rows that never ran show "—", not zeros, and say why once; a run of
prove() calls (a law and a wrong law, run in the real sandbox) votes in their words, its tie too.
Outputs are made by the renderer itself (render.run_mimebundle), saved, and opened without a kernel.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from z3sandbox_kernel import CandidateResult, RunResult, Verdict
from z3sandbox_kernel.contracts.found import ModelResult
from z3sandbox_kernel.protocol.roles import Kill

from .conftest import LabServer
from .pages import (
    expect,
    open_without_kernel,
    rendered_output,
    screenshot,
    use_theme,
    wait_fitted,
    with_file_browser,
    write_notebook,
)

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

pytestmark = pytest.mark.browser

NOTEBOOK = "layout.ipynb"
PLACE = "[candidate line 2]"


def wide_rows() -> RunResult:
    """Rows as wide as real ones get: what made the table scroll at 1400 px."""
    name = "a-candidate-with-a-rather-long-descriptive-name"
    source = "print(n + offset_of_the_header_we_need_to_check)  # the value the fuzzer wants"
    return RunResult(candidates=[
        CandidateResult(index=0, verdict=Verdict.RUNTIME_ERROR, label=name, source_preview=source,
                        reason="NameError: name 'n' is not defined (line 11 [candidate line 2]: "
                               f"`{source}`)", wall_s=12.345, cpu_s=11.25, peak_rss_mb=512.5),
        CandidateResult(index=1, verdict=Verdict.UNSAT, label=f"{name}-2", source_preview=source,
                        unsat_core=[(3, "s.add(header_length > maximum_header_length_in_bytes)"),
                                    (4, "s.add(payload_length + header_length < 64)")],
                        confirmed_by=("z3",),
                        wall_s=0.75, cpu_s=0.5, peak_rss_mb=61.0),
        CandidateResult(index=2, verdict=Verdict.SAT, label=f"{name}-3", source_preview=source,
                        model={"header_length": 17, "payload_length": 40, "checksum": 65535},
                        verified=True, more_models=[
                            ModelResult({"header_length": 18, "payload_length": 39, "checksum": 1},
                                        verified=True),
                            ModelResult({"header_length": 19, "payload_length": 38, "checksum": 2},
                                        verified=True)],
                        objectives=[{"term": "header_length + payload_length", "direction":
                                     "maximize", "value": 57, "optimal": True, "checked": True}],
                        confirmed_by=("z3",),
                        wall_s=1.5, cpu_s=1.25, peak_rss_mb=70.0),
    ])  # fmt: skip


def large_run() -> RunResult:
    """K = 200 of one script: seven distinct models and a few timeouts."""
    rows = [CandidateResult(index=i, verdict=Verdict.TIMEOUT, kill=Kill.WALL, label=f"seed {i}",
                            reason="wall-clock limit of 10 s", wall_s=10.0)
            if i % 25 == 0 else
            CandidateResult(index=i, verdict=Verdict.SAT, label=f"seed {i}", model={"x": i % 7},
                            verified=True, wall_s=0.1)
            for i in range(200)]  # fmt: skip
    return RunResult(candidates=rows)


def interrupted_run() -> RunResult:
    return RunResult(candidates=[
        CandidateResult(index=0, verdict=Verdict.SAT, model={"x": 2}, verified=True, wall_s=0.2),
        CandidateResult(index=1, verdict=Verdict.CANCELLED, kill=Kill.INTERRUPT, reason="interrupted",
                        wall_s=1.5, cpu_s=1.4, peak_rss_mb=60.0),
        CandidateResult(index=2, verdict=Verdict.CANCELLED, kill=Kill.INTERRUPT,
                        reason="interrupt before it started"),
    ], interrupted=True)  # fmt: skip


LAW = "p, q = Bools('p q')\nprove(Not(And(p, q)) == Or(Not(p), Not(q)))\n"
WRONG_LAW = "p, q = Bools('p q')\nprove(Not(And(p, q)) == And(Not(p), Not(q)))\n"


def proofs_run() -> RunResult:
    """A law proved and a wrong law with its counterexample: one each, a tie."""
    from z3sandbox_kernel import run

    return run([LAW, WRONG_LAW], labels=["de Morgan", "wrong law"])


def write_layout_notebook(path: Path) -> None:
    write_notebook(path, [[rendered_output(wide_rows())], [rendered_output(large_run())],
                          [rendered_output(interrupted_run())], [rendered_output(proofs_run())]])


def result_of(panel: Locator, cell: int) -> Locator:
    return panel.locator(".jp-Cell").nth(cell).locator(".jp-Z3RunRenderer > .jp-Z3Run")


def check_fits(page: Page, result: Locator) -> None:
    """No sideways scrolling; every column there; the reason's place readable in full."""
    view = wait_fitted(page, result)
    # Every column in sight; the reason's may give way to a full-width line under each row.
    headers = [h.split(" (")[0].strip(" ↕▲▼") for h in result.locator("thead th:visible").all_inner_texts()]
    assert headers[:8] == ["#", "candidate", "verdict", "kill", "model / payload", "wall", "cpu",
                           "memory"], headers
    reason = result.locator(".jp-Z3Run-reasonText:visible", has_text=PLACE)
    expect()(reason).to_have_count(1)
    box, edge = reason.bounding_box(), view.bounding_box()
    assert box is not None and edge is not None
    assert box["x"] + box["width"] <= edge["x"] + edge["width"] + 1, (box, edge)
    expect()(result.locator(".jp-Z3Run-furtherModel:visible")).to_have_text(
        ["model 2: checksum=1, header_length=18, payload_length=39 (need not be optimal)",
         "model 3: checksum=2, header_length=19, payload_length=38 (need not be optimal)"])
    expect()(result.locator(".jp-Z3Run-objective:visible")).to_have_text(
        "objective: maximize header_length + payload_length = 57 (optimal)")
    expect()(result.locator(".jp-Z3Run-coreInline:visible", has_text="core:")).to_have_count(1)


def test_the_table_fits_at_1400_px_with_the_file_browser_open(
    lab: LabServer, page: Page, output_dir: Path
) -> None:
    write_layout_notebook(lab.root / NOTEBOOK)
    try:
        panel = open_without_kernel(page, lab, NOTEBOOK)
        with_file_browser(page)
        result = result_of(panel, 0)
        expect()(result.locator(".jp-Z3Run-row")).to_have_count(3)
        area = panel.locator(".jp-OutputArea-output").first.bounding_box()
        assert area is not None and area["width"] < 1100, area  # the side panel takes its room
        check_fits(page, result)
        screenshot(page, output_dir, "6-layout-1400-light")
        use_theme(page, "JupyterLab Dark", light=False)
        check_fits(page, result)
        screenshot(page, output_dir, "6-layout-1400-dark")
        use_theme(page, "JupyterLab Light", light=True)
        check_large_run_opens_grouped(result_of(panel, 1))
        check_interrupted_rows(result_of(panel, 2))
        check_proofs_vote_in_their_words(result_of(panel, 3))
    finally:
        page.unroute_all()


def check_large_run_opens_grouped(result: Locator) -> None:
    toggle = result.locator(".jp-Z3Run-groupToggle")
    expect()(toggle.locator("input")).to_be_checked()
    match = re.search(r"\((\d+) rows\)", toggle.inner_text())
    assert match is not None, toggle.inner_text()
    rows = int(match.group(1))
    assert rows == 8, rows  # 7 models, the timeouts
    expect()(result.locator(".jp-Z3Run-row")).to_have_count(rows)
    expect()(result.locator(".jp-Z3Run-shown")).to_have_text(f"{rows} rows, 200 of 200 candidates")
    # A grouped row names its seeds: the timeouts are seeds 0, 25, 50, ... (every 25th).
    expect()(result.locator(".jp-Z3Run-candidateLabel").first).to_have_text("seeds 0, 25, 50, … (8)")


def check_interrupted_rows(result: Locator) -> None:
    never = result.locator('.jp-Z3Run-row[data-index="2"]')
    expect()(never.locator(".jp-Z3Run-num")).to_have_text(["—", "—", "—"])
    expect()(result.locator('.jp-Z3Run-row[data-index="1"] .jp-Z3Run-wall')).to_have_text("1.5 s")
    expect()(result.locator(".jp-Z3Run-row .jp-Z3Run-kill")).to_have_text(["", "", ""])
    expect()(result.locator(".jp-Z3Run-reasonText:visible")).to_have_text(
        ["interrupted", "interrupt before it started"])


def check_proofs_vote_in_their_words(result: Locator) -> None:
    expect()(result.locator(".jp-Z3Run-row .jp-Z3Run-verdict")).to_have_text(
        ["proved", "counterexample"])
    expect()(result.locator(".jp-Z3Run-summary > .jp-Z3Run-verdict")).to_have_text("counterexample")
    expect()(result.locator(".jp-Z3Run-tie")).to_contain_text(
        "1 counterexample / 1 proved → counterexample: both answers are confirmed")
