"""JupyterLab in headless Chromium: the kernel in the launcher, a live run, saved results, status.

The steps share one server and one page and run in file order:

1. the launcher offers "Z3 Sandbox (Python 3)" with the kernelspec's logo;
2. a hand-written saved result renders through the labextension with no kernel at all;
3. a new notebook on that kernel runs a ``%%z3sandbox -k 4`` cell: the live ipywidgets table fills
   with 4 verdicts, then the final output is rendered by the labextension (not its HTML fallback);
4. the status bar shows the isolation summary the kernel reports in its kernel_info reply;
5. that notebook, saved and reopened after all kernels are shut down, still renders the table.

Every wait is on a selector or a condition, never a sleep.  Screenshots go to
``test-output/browser/``; the reopened notebook's is copied to ``docs/screenshot.png``.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page, Route

from z3sandbox_kernel import Verdict

from .conftest import REPO, LabServer, unavailable

pytestmark = pytest.mark.browser

KERNEL_NAME = "z3sandbox"
KERNEL_DISPLAY_NAME = "Z3 Sandbox (Python 3)"
MIME_TYPE = "application/vnd.z3sandbox.run+json"
MAGIC_CELL = "%%z3sandbox -k 4\nx = Int('x')\ns.add(x > 3, x < 10)"
VERDICTS = [verdict.value for verdict in Verdict]
DECIDED = re.compile(rf"^\s*({'|'.join(VERDICTS)})\s*$")  # a verdict, not "queued"/"running"
NOTEBOOK = "z3sandbox-live.ipynb"
README_SCREENSHOT = REPO / "docs" / "screenshot.png"

NO_KERNELS = """async () => {
  const response = await fetch('/api/kernels', {credentials: 'same-origin'});
  return response.ok && (await response.json()).length === 0;
}"""


def screenshot(page: Page, output_dir: Path, name: str) -> Path:
    path = output_dir / f"{name}.png"
    page.screenshot(path=str(path))
    print(f"screenshot: {path}")
    return path


def require_kernelspec(lab: LabServer) -> None:
    specs = lab.api("api/kernelspecs")["kernelspecs"]
    if KERNEL_NAME not in specs:
        unavailable(f"the {KERNEL_NAME!r} kernelspec is not installed (pip install .)")


def expect() -> Any:
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect


def block_kernels(page: Page) -> None:
    """Refuse new sessions in this page, so that an opened notebook gets no kernel."""

    def refuse(route: Route) -> None:
        if route.request.method == "POST":
            route.fulfill(status=503, body="no kernels in this test step")
        else:
            route.continue_()

    page.route(re.compile(r"/api/sessions(\?.*)?$"), refuse)


def open_without_kernel(page: Page, lab: LabServer, name: str) -> Locator:
    """Open a notebook while new sessions are refused; dismiss JupyterLab's error about that."""
    block_kernels(page)
    page.goto(lab.lab_url(f"lab/tree/{name}"))
    panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    panel.locator(".jp-Notebook").wait_for()
    page.locator(".jp-Dialog", has_text="Error Starting Kernel").locator(".jp-mod-accept").click()
    # Then JupyterLab offers its kernel picker: it must list ours; the answer is "No Kernel".
    picker = page.locator(".jp-Dialog", has_text="Select Kernel")
    expect()(picker.locator("select option", has_text=KERNEL_DISPLAY_NAME)).to_have_count(1)
    picker.get_by_role("button", name="No Kernel").click()
    expect()(page.locator(".jp-Dialog")).to_have_count(0)
    return panel


# ------------------------------------------------------------------------------------------ step 1


def test_launcher_offers_the_kernel_with_its_logo(lab: LabServer, page: Page, output_dir: Path) -> None:
    require_kernelspec(lab)
    page.goto(lab.lab_url())
    card = page.locator(f'.jp-LauncherCard[data-category="Notebook"][title="{KERNEL_DISPLAY_NAME}"]')
    card.wait_for()
    expect()(card.locator(".jp-LauncherCard-label")).to_have_text(KERNEL_DISPLAY_NAME)
    logo = card.locator(".jp-LauncherCard-icon img")
    expect()(logo).to_have_attribute("src", re.compile(rf"/kernelspecs/{KERNEL_NAME}/logo-"))
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=logo.element_handle())
    screenshot(page, output_dir, "1-launcher")


# ------------------------------------------------------------------------------------------ step 2


def saved_run(version: int) -> dict[str, Any]:
    """A result as `z3sandbox_kernel.render.run_json` writes it, by hand, three candidates."""
    base = {
        "reason": "", "model": None, "payload_hex": None, "payload_error": None,
        "unsat_core": None, "stdout": "", "stderr": "", "stdout_truncated": False,
        "stderr_truncated": False, "kill": None, "exit_code": 0, "signal": None, "verified": None,
    }  # fmt: skip
    candidates = [
        {**base, "index": 0, "verdict": "sat", "model": {"x": 4}, "verified": True,
         "payload_hex": "5a3373616e64626f780a00ff414243444546474849"},
        {**base, "index": 1, "verdict": "unsat", "unsat_core": [[3, "s.add(x > 3)"]]},
        {**base, "index": 2, "verdict": "timeout", "kill": "wall", "exit_code": None,
         "reason": "wall limit 10 s", "stderr": "killed at the wall-clock deadline"},
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


def write_saved_notebook(path: Path) -> None:
    cells = [
        {"cell_type": "code", "execution_count": 1, "id": f"c{version}", "metadata": {},
         "source": f"# a saved result, schema version {version}", "outputs": [saved_output(version)]}
        for version in (1, 99)
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


def use_theme(page: Page, name: str, *, light: bool) -> None:
    """Settings > Theme > name; the view takes its colours from the theme's CSS variables."""
    page.locator("#jp-MainMenu").get_by_text("Settings", exact=True).click()
    page.locator(".lm-Menu-itemLabel", has_text="Theme").first.click()
    page.locator(".lm-Menu-itemLabel", has_text=name).first.click()
    theme = f'body[data-jp-theme-name="{name}"][data-jp-theme-light="{str(light).lower()}"]'
    page.locator(theme).wait_for(state="attached")  # Playwright counts <body> as never "visible"
    page.locator("#jupyterlab-splash").wait_for(state="detached")  # the theme change's splash


def test_saved_result_renders_without_a_kernel(lab: LabServer, page: Page, output_dir: Path) -> None:
    write_saved_notebook(lab.root / "saved.ipynb")
    try:
        panel = open_without_kernel(page, lab, "saved.ipynb")
        result = panel.locator(".jp-Z3RunRenderer > .jp-Z3Run").first
        expect()(result.locator(".jp-Z3Run-row")).to_have_count(3)
        expect()(result.locator(".jp-Z3Run-row .jp-Z3Run-verdict")).to_have_text(["sat", "unsat", "timeout"])
        expect()(panel.locator(".z3-html-fallback")).to_have_count(0)
        expect()(result.locator("thead th")).to_contain_text(["wall", "cpu", "peak RSS"])
        result.locator('.jp-Z3Run-row[data-index="0"] .jp-Z3Run-toggle').click()
        expect()(result.locator(".jp-Z3Run-hexdump")).to_contain_text(
            "00000000  5a 33 73 61 6e 64 62 6f  78 0a 00 ff 41 42 43 44  |Z3sandbox...ABCD|"
        )
        expect()(panel.locator(".jp-Z3Run-unsupported .jp-Z3Run-message")).to_have_text(
            "z3sandbox: unsupported result schema version 99; update z3sandbox-kernel"
        )
        assert lab.api("api/kernels") == []
        screenshot(page, output_dir, "2-saved-result-no-kernel")
        use_theme(page, "JupyterLab Dark", light=False)
        screenshot(page, output_dir, "2-saved-result-dark-theme")
        use_theme(page, "JupyterLab Light", light=True)
    finally:
        page.unroute_all()


# ------------------------------------------------------------------------------------------ step 3


def type_into_cell(page: Page, panel: Locator, text: str) -> None:
    """Insert the text as one edit: typed keys would meet CodeMirror's auto-closing brackets."""
    panel.locator(".jp-Cell .cm-content").first.click()
    page.keyboard.insert_text(text)
    expect()(panel.locator(".jp-Cell .cm-content").first).to_contain_text("s.add(x > 3, x < 10)")


def save_as(page: Page, name: str) -> None:
    """Save a new notebook: its first save asks for a name (JupyterLab 4's default)."""
    page.keyboard.press("Escape")  # command mode, so that Ctrl+S reaches the notebook
    page.keyboard.press("Control+s")
    dialog = page.locator(".jp-Dialog", has_text="Rename file")
    dialog.locator("input.jp-Dialog-input, input[type=text]").first.fill(name)
    dialog.get_by_role("button", name="Rename and Save").click()
    tab = page.locator("#jp-main-dock-panel .lm-TabBar-tab.lm-mod-current")
    expect()(tab.locator(".lm-TabBar-tabLabel")).to_have_text(name)
    expect()(tab).not_to_have_class(re.compile(r"\bjp-mod-dirty\b"))


def wait_for_idle_kernel(page: Page) -> None:
    status = page.locator("#jp-main-statusbar").get_by_text(
        re.compile(rf"^{re.escape(KERNEL_DISPLAY_NAME)} \| Idle$")
    )
    status.wait_for()


def test_magic_cell_fills_the_live_table_then_renders_the_result(
    lab: LabServer, page: Page, output_dir: Path
) -> None:
    require_kernelspec(lab)
    page.goto(lab.lab_url())
    page.locator(f'.jp-LauncherCard[data-category="Notebook"][title="{KERNEL_DISPLAY_NAME}"]').click()
    panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    expect()(panel.locator(".jp-Toolbar .jp-KernelName")).to_have_text(KERNEL_DISPLAY_NAME)
    wait_for_idle_kernel(page)
    type_into_cell(page, panel, MAGIC_CELL)
    page.keyboard.press("Shift+Enter")

    cell = panel.locator(".jp-CodeCell").first
    # The widget's HTML is replaced on every refresh: locators, not element handles, follow it.
    live = cell.locator(".jp-OutputArea-output .widget-html-content table").last
    expect()(live.locator("tbody tr td:nth-child(2)")).to_have_text([DECIDED] * 4)
    screenshot(page, output_dir, "3-live-table")

    result = cell.locator(".jp-Z3RunRenderer > .jp-Z3Run")
    expect()(result.locator(".jp-Z3Run-row td:nth-child(2)")).to_have_text([DECIDED] * 4)
    # The extension's view, not the text/html fallback that the same output carries.
    expect()(cell.locator(".jp-OutputArea-output.jp-RenderedHTMLCommon")).to_have_count(0)
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


def test_reopened_notebook_renders_the_table_with_no_kernel(
    lab: LabServer, page: Page, output_dir: Path
) -> None:
    require_kernelspec(lab)
    if not (lab.root / NOTEBOOK).is_file():
        pytest.fail(f"step 3 saved no {NOTEBOOK}")
    saved = json.loads((lab.root / NOTEBOOK).read_text())
    outputs = saved["cells"][0]["outputs"]
    assert any(MIME_TYPE in output.get("data", {}) for output in outputs), outputs

    # Through the REST API rather than the Kernel menu: a stray dialog of the old page (seen once:
    # the file browser's "Directory not found" after the rename) cannot get in the way.
    for kernel in lab.api("api/kernels"):
        lab.api(f"api/kernels/{kernel['id']}", method="DELETE")
    page.wait_for_function(NO_KERNELS)

    try:
        panel = open_without_kernel(page, lab, NOTEBOOK)
        result = panel.locator(".jp-CodeCell .jp-Z3RunRenderer > .jp-Z3Run").first
        expect()(result.locator(".jp-Z3Run-row td:nth-child(2)")).to_have_text([DECIDED] * 4)
        result.locator('.jp-Z3Run-row[data-index="0"] .jp-Z3Run-toggle').click()
        expect()(result.locator(".jp-Z3Run-detailRow").first).to_be_visible()
        assert lab.api("api/kernels") == []
        path = screenshot(page, output_dir, "5-reopened-no-kernel")
    finally:
        page.unroute_all()
    README_SCREENSHOT.parent.mkdir(exist_ok=True)
    shutil.copyfile(path, README_SCREENSHOT)
    print(f"README screenshot: {README_SCREENSHOT}")
