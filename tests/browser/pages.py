"""What the browser steps do in JupyterLab's page: write a notebook of outputs, open it with or
without a kernel, type into a cell, save, switch themes, open a row, wait for a table to fit, read
a badge's contrast.  Every wait is on a selector or a condition, never a sleep.  The test modules
share these (no test module imports another)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from .conftest import LabServer, unavailable

if TYPE_CHECKING:
    from playwright.sync_api import Expect, Locator, Page, Route

    from z3sandbox_kernel import RunResult

MIME_TYPE = "application/vnd.z3sandbox.run+json"
KERNEL_NAME = "z3sandbox"
KERNEL_DISPLAY_NAME = "Z3 Sandbox (Python 3)"
NO_KERNELS = """async () => {
  const response = await fetch('/api/kernels', {credentials: 'same-origin'});
  return response.ok && (await response.json()).length === 0;
}"""


# True once a result's table is no wider than its view (fitted on the frame after it is drawn).
FITS = """view => {
  const table = view.querySelector('table');
  return view.scrollWidth <= view.clientWidth && table.scrollWidth <= table.clientWidth;
}"""


def expect() -> Expect:
    """Playwright's ``expect``, imported when a step runs (a machine without Playwright skips)."""
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect


def screenshot(page: Page, output_dir: Path, name: str) -> Path:
    path = output_dir / f"{name}.png"
    page.screenshot(path=str(path))
    print(f"screenshot: {path}")
    return path


def require_kernelspec(lab: LabServer) -> None:
    specs = cast("dict[str, dict[str, object]]", lab.api("api/kernelspecs"))["kernelspecs"]
    if KERNEL_NAME not in specs:
        unavailable(f"the {KERNEL_NAME!r} kernelspec is not installed (pip install .)")


def current_panel(page: Page) -> Locator:
    return page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")


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
    panel = current_panel(page)
    panel.locator(".jp-Notebook").wait_for()
    page.locator(".jp-Dialog", has_text="Error Starting Kernel").locator(".jp-mod-accept").click()
    # Then JupyterLab offers its kernel picker: it must list ours; the answer is "No Kernel".
    picker = page.locator(".jp-Dialog", has_text="Select Kernel")
    expect()(picker.locator("select option", has_text=KERNEL_DISPLAY_NAME)).to_have_count(1)
    picker.get_by_role("button", name="No Kernel").click()
    expect()(page.locator(".jp-Dialog")).to_have_count(0)
    return panel


def kernels(lab: LabServer) -> list[dict[str, str]]:
    """The server's running kernels, as its REST API lists them."""
    return cast("list[dict[str, str]]", lab.api("api/kernels"))


def shut_down_kernels(page: Page, lab: LabServer) -> None:
    """Through the REST API rather than the Kernel menu: no stray dialog can get in the way."""
    for kernel in kernels(lab):
        lab.api(f"api/kernels/{kernel['id']}", method="DELETE")
    page.wait_for_function(NO_KERNELS)


def type_into_cell(page: Page, panel: Locator, text: str) -> None:
    """Insert the text as one edit: typed keys would meet CodeMirror's auto-closing brackets."""
    editor = panel.locator(".jp-Cell .cm-content").first
    editor.click()
    page.keyboard.insert_text(text)
    expect()(editor).to_contain_text(text.splitlines()[-1])


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


def use_theme(page: Page, name: str, *, light: bool) -> None:
    """Settings > Theme > name; the view takes its colours from the theme's CSS variables."""
    page.locator("#jp-MainMenu").get_by_text("Settings", exact=True).click()
    page.locator(".lm-Menu-itemLabel", has_text="Theme").first.click()
    page.locator(".lm-Menu-itemLabel", has_text=name).first.click()
    theme = f'body[data-jp-theme-name="{name}"][data-jp-theme-light="{str(light).lower()}"]'
    page.locator(theme).wait_for(state="attached")  # Playwright counts <body> as never "visible"
    page.locator("#jupyterlab-splash").wait_for(state="detached")  # the theme change's splash


def _luminance(css: str) -> float:
    """WCAG relative luminance of a computed ``rgb(r, g, b)`` colour."""
    channels = [int(value) / 255 for value in re.findall(r"\d+", css)[:3]]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(foreground: str, background: str) -> float:
    high, low = sorted((_luminance(foreground), _luminance(background)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def css_rgb(hex_colour: str) -> str:
    """``#1a7f37`` as the browser computes it: ``rgb(26, 127, 55)``."""
    red, green, blue = bytes.fromhex(hex_colour.lstrip("#"))
    return f"rgb({red}, {green}, {blue})"


def badge_colours(badges: Locator) -> dict[str, tuple[str, str]]:
    """Each badge's label -> (text colour, background colour), as the browser computed them."""
    styles = badges.evaluate_all(
        "els => els.map(e => [e.textContent, getComputedStyle(e).color, getComputedStyle(e).backgroundColor])"
    )
    return {label: (fg, bg) for label, fg, bg in styles}


def row_indices(result: Locator) -> list[int]:
    """The candidates' indices in the order the table shows them."""
    rows = result.locator("tbody .jp-Z3Run-row")
    return [int(i) for i in rows.evaluate_all("rows => rows.map(r => r.dataset.index)")]


def rendered_output(result: RunResult) -> dict[str, Any]:
    """A display_data output as the kernel writes it (render.run_mimebundle)."""
    from z3sandbox_kernel.presentation.render import run_mimebundle

    data, metadata = run_mimebundle(result)
    return {"output_type": "display_data", "data": data, "metadata": metadata}


def write_notebook(path: Path, outputs: list[list[dict[str, Any]]], ids: list[str] | None = None) -> None:
    """A notebook of one code cell per entry of ``outputs`` (cell ``n`` named ``ids[n]`` or
    ``c{n}``), on a plain Python kernelspec: opened, it shows what was saved."""
    names = ids or [f"c{n}" for n in range(len(outputs))]
    cells = [
        {"cell_type": "code", "execution_count": n + 1, "id": name, "metadata": {},
         "source": f"# {path.stem}, cell {name}", "outputs": cell_outputs}
        for n, (name, cell_outputs) in enumerate(zip(names, outputs, strict=True))
    ]  # fmt: skip
    notebook = {
        "cells": cells,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(notebook, indent=1))


def open_detail(result: Locator, index: int) -> Locator:
    """Open candidate ``index``'s detail row by its toggle; the detail row, once visible."""
    result.locator(f'.jp-Z3Run-row[data-index="{index}"] .jp-Z3Run-toggle').click()
    detail = result.locator(f'.jp-Z3Run-row[data-index="{index}"] ~ .jp-Z3Run-detailRow').first
    expect()(detail).to_be_visible()
    return detail


def with_file_browser(page: Page) -> None:
    """The file browser open: the output area loses its room to it, as on a laptop."""
    browser = page.locator("#filebrowser")
    if not browser.is_visible():
        page.locator('.jp-SideBar.jp-mod-left [data-id="filebrowser"]').click()
    expect()(browser).to_be_visible()


def wait_fitted(page: Page, result: Locator) -> Locator:
    """Wait until the result's table no longer scrolls sideways; its view."""
    view = result.locator(".jp-Z3Run-tableView")
    page.wait_for_function(FITS, arg=view.element_handle())  # fitted on the next frame
    width = view.evaluate("v => [v.scrollWidth, v.clientWidth]")
    assert width[0] <= width[1], width
    return view
