"""Saved results in JupyterLab in headless Chromium, opened with no kernel at all.

A hand-written saved result (a document as an older version wrote it: no cells, no reasons as the
rows say them, no payload list) renders through the labextension, with its badges in
verdicts.json's colours (>= 4.5:1 in the light and the dark theme); its model is copied as JSON
(read back from the clipboard), its payload downloaded (the file's bytes compared), its long stderr
expanded; a document of an unknown version says so.  Outputs made by the renderer itself show,
without a click, a proof's "proved" and its stdout, cores in their rows and a payload warning, a
long name cut and the reason readable at 1400 px; a live output saved mid-run says "incomplete".

Every wait is on a selector or a condition, never a sleep.  Screenshots go to
``test-output/browser/``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from z3sandbox_kernel import Verdict

from .conftest import REPO, LabServer
from .pages import (
    MIME_TYPE,
    badge_colours,
    contrast,
    css_rgb,
    expect,
    open_detail,
    open_without_kernel,
    rendered_output,
    screenshot,
    use_theme,
    write_notebook,
)

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

pytestmark = pytest.mark.browser

COLOURS = json.loads((REPO / "z3sandbox_kernel" / "protocol" / "verdicts.json").read_text())["verdicts"]
PAYLOAD_HEX = "5a3373616e64626f780a00ff414243444546474849"
STDERR = "\n".join(f"stderr line {n}" for n in range(1, 31))



def saved_run(version: int) -> dict[str, Any]:
    """A result as an older `z3sandbox_kernel.presentation.render.run_json` wrote it, by hand, three
    candidates: none of the fields the rows are said in now (cells, shown, reason_shown...), which
    the labextension makes as the kernel does (its unsat confirmed, so every badge is filled)."""
    base = {
        "reason": "", "model": None, "payload_hex": None, "payload_error": None,
        "unsat_core": None, "stdout": "", "stderr": "", "stdout_truncated": False,
        "stderr_truncated": False, "kill": None, "exit_code": 0, "signal": None, "verified": None,
    }  # fmt: skip
    candidates = [
        {**base, "index": 0, "verdict": "sat", "model": {"x": 4}, "verified": True,
         "label": "gpt", "source_preview": "x = Int('x')", "payload_hex": PAYLOAD_HEX},
        {**base, "index": 1, "verdict": "unsat", "unsat_core": [[3, "s.add(x > 3)"]], "confirmed_by": ["z3"],
         "label": "claude", "source_preview": "s.add(x > 3, x < 2)"},
        {**base, "index": 2, "verdict": "timeout", "kill": "wall", "exit_code": None,
         "reason": "wall limit 10 s", "stderr": STDERR, "label": None, "source_preview": None},
    ]  # fmt: skip
    return {
        "schema": "z3sandbox.run", "version": version, "verdict": "sat",
        "counts": {"sat": 1, "unsat": 1, "timeout": 1}, "language": "python",
        "limits": {"timeout_s": 5.0, "wall_s": 10.0, "memory_mb": 512},
        "isolation": {"level": "process", "layers": [
            {"name": "rlimits", "active": True, "detail": "7 limits"},
            {"name": "seccomp", "active": False, "error": "libseccomp missing"}]},
        "notes": [], "interrupted": False, "candidates": candidates,
    }  # fmt: skip


def saved_output(version: int) -> dict[str, Any]:
    timings = [{"index": i, "wall_s": 0.1 * (i + 1), "cpu_s": 0.05, "peak_rss_mb": 60.0}
               for i in range(3)]  # fmt: skip
    return {
        "output_type": "display_data",
        "data": {
            "text/plain": "RunResult: sat",
            "text/html": "<p class='z3-html-fallback'>HTML fallback</p>",
            MIME_TYPE: saved_run(version),
        },
        "metadata": {MIME_TYPE: {"elapsed_s": 0.42, "timings": timings}},
    }


LONG_LABEL = "a-candidate-with-a-very-long-name-" * 3
LONG_REASON = "RuntimeError: the script raised after printing its model; " * 4


def rows_that_show_what_matters() -> list[dict[str, Any]]:
    """Outputs made by the renderer itself: a proof alone (its stdout inline), then a run whose
    rows show a core, an SMT-LIB core answer, a payload warning, and a long name and reason."""
    from z3sandbox_kernel import CandidateResult, RunResult
    from z3sandbox_kernel.contracts.found import ModelResult

    proof = RunResult(candidates=[CandidateResult(index=0, verdict=Verdict.UNSAT, stdout="proved\n")])
    several = RunResult(candidates=[
        CandidateResult(index=0, verdict=Verdict.UNSAT, unsat_core=[(3, "s.add(x > 3)")]),
        CandidateResult(index=1, verdict=Verdict.UNSAT, stdout="unsat\n(a1 a3)\n"),
        CandidateResult(index=2, verdict=Verdict.SAT, model={"byte_0": 300},
                        payload_error="byte_0: a bit-vector of width 16, not 8"),
        CandidateResult(index=3, verdict=Verdict.RUNTIME_ERROR, reason=LONG_REASON,
                        label=LONG_LABEL, stdout="printed before the error\n"),
        CandidateResult(index=4, verdict=Verdict.SAT, model={"x": 9}, verified=True,
                        objectives=[{"term": "x", "direction": "maximize", "value": 9,
                                     "optimal": True, "checked": True}],
                        more_models=[ModelResult({"x": 8}, verified=True),
                                     ModelResult({"x": 7}, verified=True)]),
    ])  # fmt: skip
    return [rendered_output(proof), rendered_output(several)]


def interrupted_live_output() -> dict[str, Any]:
    """A live output as a notebook saved mid-run keeps it: two of four candidates done."""
    from z3sandbox_kernel import CandidateResult, RunResult

    rows = [CandidateResult(index=0, verdict=Verdict.SAT, model={"x": 4}),
            CandidateResult(index=1, verdict=Verdict.UNSAT),
            CandidateResult(index=2, verdict=None, state="running"),
            CandidateResult(index=3, verdict=None, state="queued")]  # fmt: skip
    return rendered_output(RunResult(candidates=rows))


# The fields a version-1 document may lack: the labextension makes each as the kernel does
# (labextension/src/upgrade.ts).  isolation_shortfall is kept: an older one always named it.
OLDER_RUN = ("isolation_summary", "limits_shown", "columns", "progress", "words", "vote", "said_once",
             "payload_files")  # fmt: skip
OLDER_CANDIDATE = ("reason_shown", "unconfirmed", "cells", "shown", "show_output", "core_answer")


def older(output: dict[str, Any]) -> dict[str, Any]:
    """The output as a version before those fields wrote it."""
    copy: dict[str, Any] = json.loads(json.dumps(output))
    document = copy["data"][MIME_TYPE]
    for field in OLDER_RUN:
        document.pop(field, None)
    for candidate in document["candidates"]:
        for field in OLDER_CANDIDATE:
            candidate.pop(field, None)
        candidate["preview"] = candidate.pop("source_preview", None)
    return copy


def write_saved_notebook(path: Path) -> None:
    made = rows_that_show_what_matters()
    write_notebook(path, [[saved_output(1)], [saved_output(99)], made, [interrupted_live_output()],
                          [older(output) for output in made]])  # fmt: skip


def result_in(panel: Locator, cell: int) -> Locator:
    return panel.locator(".jp-Cell").nth(cell).locator(".jp-Z3RunRenderer > .jp-Z3Run")


def check_older_documents_read_as_the_kernel_writes(panel: Locator) -> None:
    """The renderer's own outputs (cell 2) and the same made older (cell 4) show the same text."""
    for at in range(2):
        current, made_older = (result_in(panel, cell).nth(at) for cell in (2, 4))
        expect()(made_older.locator(".jp-Z3Run-row")).to_have_count(current.locator(".jp-Z3Run-row").count())
        assert made_older.text_content() == current.text_content()


def check_badge_colours(result: Locator, theme: str) -> None:
    """verdicts.json's colours, and >= 4.5:1 between a badge's text and its background."""
    for label, (text, background) in badge_colours(result.locator(".jp-Z3Run-row .jp-Z3Run-verdict")).items():
        assert background == css_rgb(COLOURS[label][theme]["background"]), (label, background)
        assert text == css_rgb(COLOURS[label][theme]["text"]), (label, text)
        assert contrast(text, background) >= 4.5, (label, text, background)


def check_copy_download_stderr(page: Page, result: Locator, output_dir: Path) -> None:
    first = open_detail(result, 0)
    first.locator(".jp-Z3Run-copyModel").click()
    expect()(first.locator(".jp-Z3Run-copyModel")).to_have_text("Copied")
    assert json.loads(page.evaluate("navigator.clipboard.readText()")) == {"x": 4}

    with page.expect_download() as download_info:
        first.locator(".jp-Z3Run-downloadPayload").click()
    download = download_info.value
    assert download.suggested_filename == "payload-gpt.bin"
    saved = output_dir / download.suggested_filename
    download.save_as(saved)
    assert saved.read_bytes() == bytes.fromhex(PAYLOAD_HEX)

    third = open_detail(result, 2)
    stderr = third.locator(".jp-Z3Run-stderr")
    expect()(stderr).not_to_contain_text("stderr line 30")
    third.locator(".jp-Z3Run-expandStream").click()
    expect()(stderr).to_have_text(STDERR)


def check_rows_show_what_matters(panel: Locator) -> None:
    """Without a click: a proof's "proved" and its stdout, cores, a payload warning; and at
    1400 px a long name is cut while the reason keeps a readable width."""
    proof, several = (panel.locator(".jp-Cell").nth(2).locator(".jp-Z3RunRenderer > .jp-Z3Run").nth(i)
                      for i in (0, 1))  # fmt: skip
    expect()(proof.locator(".jp-Z3Run-row .jp-Z3Run-verdict")).to_have_text("proved")
    expect()(proof.locator(".jp-Z3Run-summary .jp-Z3Run-verdict")).to_have_text("proved")
    expect()(proof.locator(".jp-Z3Run-inlineOutput")).to_have_text("proved")
    expect()(proof.locator(".jp-Z3Run-filter")).to_have_count(0)  # no K-way controls
    expect()(several.locator(".jp-Z3Run-row .jp-Z3Run-verdict")).to_have_text(
        ["unsat", "unsat", "sat · no payload", "runtime_error", "sat"])
    expect()(several.locator(".jp-Z3Run-coreInline:not(.jp-Z3Run-furtherModel):visible")).to_have_text(
        ["core: line 3: s.add(x > 3)", "core: (a1 a3)", "objective: maximize x = 9 (optimal)"])
    models = several.locator('.jp-Z3Run-row[data-index="4"] .jp-Z3Run-preview')
    expect()(models).to_contain_text("3 models: x=9")
    # Every model in the row, without a click (models=3), as the terminal and HTML list them.
    expect()(several.locator(".jp-Z3Run-furtherModel:visible")).to_have_text(
        ["model 2: x=8 (maximize x = 8; need not be optimal)",
         "model 3: x=7 (maximize x = 7; need not be optimal)"])
    expect()(open_detail(several, 4).locator(".jp-Z3Run-section", has_text="Further models")
             ).to_contain_text("model 3: x=7")
    expect()(several.locator(".jp-Z3Run-inlineOutput")).to_have_text(["printed before the error"])
    row = several.locator('.jp-Z3Run-row[data-index="3"]')
    name = row.locator(".jp-Z3Run-candidateLabel").bounding_box()
    # In the reason column, or on its own line under the row when the table is narrow.
    reason = several.locator(".jp-Z3Run-reasonText:visible", has_text="RuntimeError").bounding_box()
    assert name is not None and reason is not None
    assert name["width"] <= 220, name  # capped (14em)
    assert reason["width"] >= 150, reason  # never squeezed to a letter a line
    assert reason["height"] <= 120, reason
    fits = "n => n.querySelector('table').getBoundingClientRect().right <= n.getBoundingClientRect().right+1"
    several.page.wait_for_function(fits, arg=several.element_handle())  # fitted on the next frame
    several.screenshot(path=str(REPO / "test-output" / "browser" / "2-rows-show-what-matters.png"))


def check_interrupted_live_output_says_incomplete(panel: Locator) -> None:
    """A live output saved mid-run (or whose kernel went away) says so once it stops updating."""
    live = panel.locator(".jp-Cell").nth(3).locator(".jp-Z3RunRenderer > .jp-Z3Run")
    expect()(live.locator(".jp-Z3Run-progress")).to_be_visible()
    expect()(live.locator(".jp-Z3Run-incomplete")).to_have_text("incomplete")
    expect()(live.locator(".jp-Z3Run-row .jp-Z3Run-verdict")).to_have_text(
        ["sat", "unsat", "running", "queued"])


def test_saved_result_renders_without_a_kernel(lab: LabServer, page: Page, output_dir: Path) -> None:
    write_saved_notebook(lab.root / "saved.ipynb")
    try:
        panel = open_without_kernel(page, lab, "saved.ipynb")
        result = panel.locator(".jp-Z3RunRenderer > .jp-Z3Run").first
        expect()(result.locator(".jp-Z3Run-row")).to_have_count(3)
        verdicts = result.locator(".jp-Z3Run-row .jp-Z3Run-verdict")
        expect()(verdicts).to_have_text(["sat", "unsat", "timeout"])
        expect()(result.locator(".jp-Z3Run-candidateLabel")).to_have_text(["gpt", "claude", "#2"])
        expect()(result.locator(".jp-Z3Run-source")).to_have_text(["x = Int('x')", "s.add(x > 3, x < 2)"])
        expect()(panel.locator(".z3-html-fallback")).to_have_count(0)
        expect()(result.locator("thead th")).to_contain_text(["wall", "cpu", "memory"])
        check_badge_colours(result, "light")
        check_copy_download_stderr(page, result, output_dir)
        expect()(result.locator(".jp-Z3Run-hexdump")).to_contain_text(
            "00000000  5a 33 73 61 6e 64 62 6f  78 0a 00 ff 41 42 43 44  |Z3sandbox...ABCD|"
        )
        expect()(panel.locator(".jp-Z3Run-unsupported .jp-Z3Run-message")).to_have_text(
            "z3sandbox: unsupported result schema version 99; update z3sandbox-kernel"
        )
        assert lab.api("api/kernels") == []
        check_older_documents_read_as_the_kernel_writes(panel)  # before a row is opened
        check_rows_show_what_matters(panel)
        check_interrupted_live_output_says_incomplete(panel)
        screenshot(page, output_dir, "2-saved-result-no-kernel")
        use_theme(page, "JupyterLab Dark", light=False)
        check_badge_colours(result, "dark")
        screenshot(page, output_dir, "2-saved-result-dark-theme")
        use_theme(page, "JupyterLab Light", light=True)
    finally:
        page.unroute_all()
