"""JupyterLab in headless Chromium: the kernel in the launcher, saved results, a live run, status.

The steps share one server and one page and run in file order:

1. the launcher offers "Z3 Sandbox (Python 3)" with the kernelspec's logo;
2. a hand-written saved result renders through the labextension with no kernel at all, with its
   badges in verdicts.json's colours (>= 4.5:1 in the light theme); its model is copied as JSON
   (read back from the clipboard), its payload downloaded (the file's bytes compared), its long
   stderr expanded;
   Cells made by the renderer show, without a click, a proof's "proved" and its stdout, cores in
   their rows and a payload warning, a long name cut and the reason readable at 1400 px; a live
   output saved mid-run says "incomplete";
3. a new notebook on that kernel runs a four-candidate ``%%z3sandbox`` cell: the progress bar
   (done/total, elapsed), the timing columns and a running row's time so far are seen mid-run,
   then the same output becomes the final table -- one output, no widget; the table is sorted by
   verdict and time, filtered by verdict and its identical models folded; a second cell's
   running candidate is stopped from its row while the cell runs, the others go on;
4. the status bar shows the isolation summary the kernel reports in its kernel_info reply;
5. that notebook, saved, holds one output for the run; reopened with its kernel and again with no
   kernel at all, it shows exactly that one output, rendered.

Every wait is on a selector or a condition, never a sleep.  Screenshots go to
``test-output/browser/`` only (``make screenshot`` copies the README's picture on purpose).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from z3sandbox_kernel import Verdict

from .conftest import REPO, LabServer
from .pages import (
    KERNEL_DISPLAY_NAME,
    badge_colours,
    contrast,
    css_rgb,
    current_panel,
    expect,
    open_without_kernel,
    require_kernelspec,
    row_indices,
    save_as,
    screenshot,
    shut_down_kernels,
    type_into_cell,
    use_theme,
    wait_for_idle_kernel,
)

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

pytestmark = pytest.mark.browser

MIME_TYPE = "application/vnd.z3sandbox.run+json"
WIDGET_MIME_TYPE = "application/vnd.jupyter.widget-view+json"
VERDICTS = [verdict.value for verdict in Verdict]
DECIDED = re.compile(rf"^\s*({'|'.join(VERDICTS)})\s*$")  # a verdict, not "queued"/"running"
COLOURS = json.loads((REPO / "z3sandbox_kernel" / "protocol" / "verdicts.json").read_text())["verdicts"]
NOTEBOOK = "z3sandbox-live.ipynb"
PAYLOAD_HEX = "5a3373616e64626f780a00ff414243444546474849"
STDERR = "\n".join(f"stderr line {n}" for n in range(1, 31))
# Two fast candidates with the same model, two slow ones (4 s each) on two jobs: the run is
# unfinished for 4 s at least, long enough to see its progress.
LIVE_CELL = """%%z3sandbox --jobs 2 --wall 40
# %% candidate range
x = Int('x')
s.add(x > 3, x < 5)
# %% candidate exact
x = Int('x')
s.add(x == 4)
# %% candidate slow-unsat
import time
time.sleep(10)
x = Int('x')
s.add(x > 3, x < 2)
# %% candidate slow-error
import time
time.sleep(10)
1 / 0"""
LIVE_LABELS = ["range", "exact", "slow-unsat", "slow-error"]
# One job: the looper runs while the second waits; each is stopped from its row in turn.
STOP_CELL = """%%z3sandbox --jobs 1 --wall 60 --cpu 60 --timeout 60
# %% candidate quick
x = Int('x')
s.add(x == 1)
# %% candidate looper
while True:
    pass
# %% candidate looper-2
while True:
    pass"""
# True once the progress line has changed while the output was not refreshed (the same node):
# the renderer ticks it between the kernel's refreshes.
TICKED = """renderer => {
  const run = renderer.querySelector('.jp-Z3Run');
  const text = run && run.querySelector('.jp-Z3Run-progressText')?.textContent;
  const seen = window.__z3ticks;
  window.__z3ticks = [run, text];
  return Boolean(seen && text && seen[0] === run && seen[1] !== text);
}"""
# From now on, remember whether the status bar ever said the kernel was Idle.
WATCH_IDLE = """() => {
  window.__z3idle = false;
  const bar = document.querySelector('#jp-main-statusbar');
  const look = () => { if (bar.textContent.includes('| Idle')) window.__z3idle = true; };
  new MutationObserver(look).observe(bar, {subtree: true, childList: true, characterData: true});
  look();
}"""
LIVE_VERDICTS = ["sat", "sat", "unsat", "runtime_error"]


# ------------------------------------------------------------------------------------------ step 1


def test_launcher_offers_the_kernel_with_its_logo(lab: LabServer, page: Page, output_dir: Path) -> None:
    require_kernelspec(lab)
    page.goto(lab.lab_url())
    card = page.locator(f'.jp-LauncherCard[data-category="Notebook"][title="{KERNEL_DISPLAY_NAME}"]')
    card.wait_for()
    expect()(card.locator(".jp-LauncherCard-label")).to_have_text(KERNEL_DISPLAY_NAME)
    logo = card.locator(".jp-LauncherCard-icon img")
    expect()(logo).to_have_attribute("src", re.compile(r"/kernelspecs/z3sandbox/logo-"))
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=logo.element_handle())
    screenshot(page, output_dir, "1-launcher")


# ------------------------------------------------------------------------------------------ step 2


def saved_run(version: int) -> dict[str, Any]:
    """A result as `z3sandbox_kernel.presentation.render.run_json` writes it, by hand, three candidates."""
    base = {
        "reason": "", "model": None, "payload_hex": None, "payload_error": None,
        "unsat_core": None, "stdout": "", "stderr": "", "stdout_truncated": False,
        "stderr_truncated": False, "kill": None, "exit_code": 0, "signal": None, "verified": None,
    }  # fmt: skip
    candidates = [
        {**base, "index": 0, "verdict": "sat", "model": {"x": 4}, "verified": True,
         "label": "gpt", "source_preview": "x = Int('x')", "payload_hex": PAYLOAD_HEX},
        {**base, "index": 1, "verdict": "unsat", "unsat_core": [[3, "s.add(x > 3)"]],
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


def rendered_output(result: object) -> dict[str, Any]:
    """A display_data output as the kernel writes it (render.run_mimebundle)."""
    from z3sandbox_kernel.presentation.render import run_mimebundle

    data, metadata = run_mimebundle(result)
    return {"output_type": "display_data", "data": data, "metadata": metadata}


LONG_LABEL = "a-candidate-with-a-very-long-name-" * 3
LONG_REASON = "RuntimeError: the script raised after printing its model; " * 4


def rows_that_show_what_matters() -> list[dict[str, Any]]:
    """Outputs made by the renderer itself: a proof alone (its stdout inline), then a run whose
    rows show a core, an SMT-LIB core answer, a payload warning, and a long name and reason."""
    from z3sandbox_kernel import CandidateResult, RunResult
    from z3sandbox_kernel.contracts.results import ModelResult

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


def write_saved_notebook(path: Path) -> None:
    outputs = [[saved_output(1)], [saved_output(99)], rows_that_show_what_matters(),
               [interrupted_live_output()]]  # fmt: skip
    cells = [
        {"cell_type": "code", "execution_count": 1, "id": f"c{n}", "metadata": {},
         "source": f"# saved results, cell {n}", "outputs": cell_outputs}
        for n, cell_outputs in enumerate(outputs)
    ]  # fmt: skip
    notebook = {
        "cells": cells,
        "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(notebook, indent=1))


def check_badge_colours(result: Locator, theme: str) -> None:
    """verdicts.json's colours, and >= 4.5:1 between a badge's text and its background."""
    for label, (text, background) in badge_colours(result.locator(".jp-Z3Run-row .jp-Z3Run-verdict")).items():
        assert background == css_rgb(COLOURS[label][theme]["background"]), (label, background)
        assert text == css_rgb(COLOURS[label][theme]["text"]), (label, text)
        assert contrast(text, background) >= 4.5, (label, text, background)


def open_detail(result: Locator, index: int) -> Locator:
    result.locator(f'.jp-Z3Run-row[data-index="{index}"] .jp-Z3Run-toggle').click()
    detail = result.locator(f'.jp-Z3Run-row[data-index="{index}"] ~ .jp-Z3Run-detailRow').first
    expect()(detail).to_be_visible()
    return detail


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
        check_rows_show_what_matters(panel)
        check_interrupted_live_output_says_incomplete(panel)
        screenshot(page, output_dir, "2-saved-result-no-kernel")
        use_theme(page, "JupyterLab Dark", light=False)
        check_badge_colours(result, "dark")
        screenshot(page, output_dir, "2-saved-result-dark-theme")
        use_theme(page, "JupyterLab Light", light=True)
    finally:
        page.unroute_all()


# ------------------------------------------------------------------------------------------ step 3


def check_keyboard_stays_in_the_table(page: Page, panel: Locator, result: Locator) -> None:
    """Arrow keys in the filter change the filter, not the notebook's active cell."""
    active = panel.locator(".jp-Cell.jp-mod-active .jp-InputArea-editor")
    before = active.inner_text()
    result.locator(".jp-Z3Run-filter").focus()
    page.keyboard.press("ArrowDown")
    expect()(result.locator(".jp-Z3Run-filter")).to_have_value("sat")
    expect()(result.locator(".jp-Z3Run-row")).to_have_count(2)
    assert active.inner_text() == before
    result.locator(".jp-Z3Run-filter").select_option("")


def check_sort_filter_group(result: Locator) -> None:
    """On the real run's table: sorting, filtering and folding are all the user's, in the page."""
    result.locator('.jp-Z3Run-sort[data-sort="wall"]').click()  # slowest first
    assert set(row_indices(result)[:2]) == {2, 3}, row_indices(result)
    result.locator('.jp-Z3Run-sort[data-sort="verdict"]').click()
    expect()(result.locator(".jp-Z3Run-row .jp-Z3Run-verdict")).to_have_text(LIVE_VERDICTS)
    result.locator(".jp-Z3Run-filter").select_option("sat")
    expect()(result.locator(".jp-Z3Run-row .jp-Z3Run-candidateLabel")).to_have_text(["range", "exact"])
    result.locator(".jp-Z3Run-groupToggle input").check()  # both found x = 4
    expect()(result.locator(".jp-Z3Run-row")).to_have_count(1)
    expect()(result.locator(".jp-Z3Run-row .jp-Z3Run-candidateLabel")).to_have_text("range, exact (2)")
    result.locator(".jp-Z3Run-groupToggle input").uncheck()
    result.locator(".jp-Z3Run-filter").select_option("")
    result.locator('.jp-Z3Run-sort[data-sort="index"]').click()
    expect()(result.locator(".jp-Z3Run-row .jp-Z3Run-candidateLabel")).to_have_text(LIVE_LABELS)


def check_stop_one_candidate(page: Page, panel: Locator) -> None:
    """A second cell: its running looper is stopped from its row while the cell runs; the
    candidate queued behind it then runs -- the kernel Busy all along, never Idle, and the
    progress line ticking between refreshes -- and is stopped too; the run ends as any run ends."""
    editor = panel.locator(".jp-Cell .cm-content").nth(1)
    editor.click()
    page.keyboard.insert_text(STOP_CELL)
    expect()(editor).to_contain_text("candidate looper-2")
    page.keyboard.press("Shift+Enter")
    cell = panel.locator(".jp-CodeCell").nth(1)
    result = cell.locator(".jp-Z3RunRenderer > .jp-Z3Run")
    expect()(result.locator('.jp-Z3Run-row[data-index="2"] .jp-Z3Run-stop')).to_have_text("Skip")
    stop = result.locator('.jp-Z3Run-row[data-index="1"] .jp-Z3Run-stop')
    expect()(stop).to_have_text("Stop")
    progress = result.locator(".jp-Z3Run-progressText")
    expect()(progress).to_have_text(re.compile(r"^1/3 done · 1 running · .* elapsed · .*/s · about .* left$"))
    page.wait_for_function(TICKED, arg=cell.locator(".jp-Z3RunRenderer").element_handle(), polling=100)
    busy = page.locator("#jp-main-statusbar").get_by_text(f"{KERNEL_DISPLAY_NAME} | Busy")
    expect()(busy).to_be_visible()
    page.evaluate(WATCH_IDLE)
    stop.click()
    expect()(result.locator('.jp-Z3Run-row[data-index="1"] .jp-Z3Run-verdict')).to_have_text("cancelled")
    second = result.locator('.jp-Z3Run-row[data-index="2"] .jp-Z3Run-stop')
    expect()(second).to_have_text("Stop")  # it runs now: the cell goes on
    expect()(busy).to_be_visible()
    assert page.evaluate("window.__z3idle") is False, "the status bar said Idle while the cell ran"
    second.click()
    verdicts = result.locator(".jp-Z3Run-row .jp-Z3Run-verdict")
    expect()(verdicts).to_have_text(["sat", "cancelled", "cancelled"])
    expect()(result.locator(".jp-Z3Run-stop")).to_have_count(0)  # a final result has no control
    # Each says what stopped it, with its kill (issue 41.6).
    expect()(result.locator(".jp-Z3Run-row .jp-Z3Run-kill")).to_have_text(["", "cancel", "cancel"])
    expect()(result.locator(".jp-Z3Run-reasonShort:visible")).to_have_text(
        [re.compile(r"^confirmed by z3"), "stopped (Stop button)", "stopped (Stop button)"])


def test_live_run_shows_progress_then_one_final_table(lab: LabServer, page: Page, output_dir: Path) -> None:
    require_kernelspec(lab)
    page.goto(lab.lab_url())
    page.locator(f'.jp-LauncherCard[data-category="Notebook"][title="{KERNEL_DISPLAY_NAME}"]').click()
    panel = current_panel(page)
    expect()(panel.locator(".jp-Toolbar .jp-KernelName")).to_have_text(KERNEL_DISPLAY_NAME)
    wait_for_idle_kernel(page)
    type_into_cell(page, panel, LIVE_CELL)
    page.keyboard.press("Shift+Enter")

    cell = panel.locator(".jp-CodeCell").first
    result = cell.locator(".jp-Z3RunRenderer > .jp-Z3Run")
    progress = result.locator(".jp-Z3Run-progress")
    expect()(progress.locator(".jp-Z3Run-progressText")).to_have_text(re.compile(r"^[0-3]/4 done.* elapsed"))
    expect()(progress.locator('[role="progressbar"]')).to_have_attribute("aria-valuemax", "4")
    expect()(result.locator(".jp-Z3Run-summary .jp-Z3Run-verdict")).to_have_text("pending")
    expect()(result.locator("thead th")).to_contain_text(["wall", "cpu", "memory"])  # from the start
    expect()(result.locator(".jp-Z3Run-elapsed").first).to_have_text(re.compile(r"^\d+(\.\d+)? s…$"))
    screenshot(page, output_dir, "3-progress-mid-run")

    expect()(progress).to_have_count(0)
    expect()(result.locator(".jp-Z3Run-row .jp-Z3Run-verdict")).to_have_text([DECIDED] * 4)
    expect()(result.locator(".jp-Z3Run-row .jp-Z3Run-verdict")).to_have_text(LIVE_VERDICTS)
    expect()(cell.locator(".jp-OutputArea-child")).to_have_count(1)  # the live view became the result
    expect()(cell.locator(".jupyter-widgets")).to_have_count(0)
    expect()(cell.locator(".jp-OutputArea-output.jp-RenderedHTMLCommon")).to_have_count(0)
    check_sort_filter_group(result)
    check_keyboard_stays_in_the_table(page, panel, result)
    wait_for_idle_kernel(page)
    check_stop_one_candidate(page, panel)
    wait_for_idle_kernel(page)
    save_as(page, NOTEBOOK)
    screenshot(page, output_dir, "3-final-result")


# ------------------------------------------------------------------------------------------ step 4


def kernel_info_isolation(lab: LabServer) -> str:
    """What the running kernel itself reports, asked over its own connection file."""
    from jupyter_client import BlockingKernelClient

    (kernel,) = lab.api("api/kernels")
    client = BlockingKernelClient(connection_file=str(lab.runtime / f"kernel-{kernel['id']}.json"))
    client.load_connection_file()
    client.start_channels()
    try:
        reply = client.kernel_info(reply=True, timeout=30)
    finally:
        client.stop_channels()
    return str(reply["content"].get("z3sandbox", {}).get("isolation") or "none")


def test_status_bar_shows_the_isolation_summary(lab: LabServer, page: Page, output_dir: Path) -> None:
    require_kernelspec(lab)
    item = page.locator("#jp-main-statusbar .jp-Z3SandboxStatus")
    expect()(item).to_have_text(f"isolation: {kernel_info_isolation(lab)}")
    expect()(item).not_to_have_text("isolation: none")
    screenshot(page, output_dir, "4-status-bar")


# ------------------------------------------------------------------------------------------ step 5


def saved_live_notebook(lab: LabServer) -> dict[str, Any]:
    if not (lab.root / NOTEBOOK).is_file():
        pytest.fail(f"step 3 saved no {NOTEBOOK}")
    notebook: dict[str, Any] = json.loads((lab.root / NOTEBOOK).read_text())
    return notebook


def check_one_rendered_output(panel: Locator) -> Locator:
    cell = panel.locator(".jp-CodeCell").first
    expect()(cell.locator(".jp-OutputArea-child")).to_have_count(1)
    result = cell.locator(".jp-Z3RunRenderer > .jp-Z3Run")
    expect()(result.locator(".jp-Z3Run-row .jp-Z3Run-verdict")).to_have_text(LIVE_VERDICTS)
    expect()(result.locator(".jp-Z3Run-candidateLabel")).to_have_text(LIVE_LABELS)
    expect()(panel.locator(".jupyter-widgets, .jp-OutputArea-output.jp-RenderedHTMLCommon")).to_have_count(0)
    return result


def test_saved_notebook_holds_one_output_per_run(lab: LabServer) -> None:
    require_kernelspec(lab)
    runs = [cell["outputs"] for cell in saved_live_notebook(lab)["cells"] if cell["outputs"]]
    assert len(runs) == 2, runs  # the live run and the one with a stopped candidate
    for outputs in runs:
        assert len(outputs) == 1, outputs
        assert MIME_TYPE in outputs[0]["data"], outputs[0]["data"].keys()
        assert outputs[0]["data"][MIME_TYPE]["finished"] is True
        assert "control" not in outputs[0]["data"][MIME_TYPE]
    assert WIDGET_MIME_TYPE not in (lab.root / NOTEBOOK).read_text()


def test_reopened_notebook_with_its_kernel_shows_one_output(
    lab: LabServer, page: Page, output_dir: Path
) -> None:
    require_kernelspec(lab)
    saved_live_notebook(lab)
    page.goto(lab.lab_url(f"lab/tree/{NOTEBOOK}"))
    panel = current_panel(page)
    expect()(panel.locator(".jp-Toolbar .jp-KernelName")).to_have_text(KERNEL_DISPLAY_NAME)
    wait_for_idle_kernel(page)
    check_one_rendered_output(panel)
    screenshot(page, output_dir, "5-reopened-with-kernel")


def test_reopened_notebook_with_no_kernel_shows_one_output(
    lab: LabServer, page: Page, output_dir: Path
) -> None:
    require_kernelspec(lab)
    saved_live_notebook(lab)
    shut_down_kernels(page, lab)
    try:
        panel = open_without_kernel(page, lab, NOTEBOOK)
        result = check_one_rendered_output(panel)
        open_detail(result, 0)
        assert lab.api("api/kernels") == []
        screenshot(page, output_dir, "5-reopened-no-kernel")  # the README's (make screenshot)
    finally:
        page.unroute_all()
