"""What the browser steps do in JupyterLab's page: open a notebook with or without a kernel, type
into a cell, save, switch themes, read a badge's contrast.  Every wait is on a selector or a
condition, never a sleep."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from .conftest import LabServer, unavailable

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page, Route

KERNEL_NAME = "z3sandbox"
KERNEL_DISPLAY_NAME = "Z3 Sandbox (Python 3)"
NO_KERNELS = """async () => {
  const response = await fetch('/api/kernels', {credentials: 'same-origin'});
  return response.ok && (await response.json()).length === 0;
}"""


def expect() -> object:
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect


def screenshot(page: Page, output_dir: Path, name: str) -> Path:
    path = output_dir / f"{name}.png"
    page.screenshot(path=str(path))
    print(f"screenshot: {path}")
    return path


def require_kernelspec(lab: LabServer) -> None:
    specs = lab.api("api/kernelspecs")["kernelspecs"]
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


def shut_down_kernels(page: Page, lab: LabServer) -> None:
    """Through the REST API rather than the Kernel menu: no stray dialog can get in the way."""
    for kernel in lab.api("api/kernels"):
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
