"""JupyterLab in headless Chromium: the kernel in the launcher, a live run, status, reopening.

The steps share one server and one page and run in file order (saved results opened with no
kernel are test_saved.py's; the screenshots keep their step numbers):

1. the launcher offers "Z3 Sandbox (Python 3)" with the kernelspec's logo;
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

from .conftest import LabServer
from .pages import (
    KERNEL_DISPLAY_NAME,
    MIME_TYPE,
    current_panel,
    expect,
    kernels,
    open_detail,
    open_without_kernel,
    require_kernelspec,
    row_indices,
    save_as,
    screenshot,
    shut_down_kernels,
    type_into_cell,
    wait_for_idle_kernel,
)

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

pytestmark = pytest.mark.browser

WIDGET_MIME_TYPE = "application/vnd.jupyter.widget-view+json"
VERDICTS = [verdict.value for verdict in Verdict]
DECIDED = re.compile(rf"^\s*({'|'.join(VERDICTS)})\s*$")  # a verdict, not "queued"/"running"
NOTEBOOK = "z3sandbox-live.ipynb"
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
    from jupyter_client.blocking.client import BlockingKernelClient

    (kernel,) = kernels(lab)
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
