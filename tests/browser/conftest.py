"""A private JupyterLab server and Debian's Chromium (through Playwright) for the browser tests.

The server listens on 127.0.0.1 on a free port with a random token, serves a temporary root
directory, and is configured not to reach the internet: no news feed, no update check, no PyPI
extension manager, the announcements plugin disabled.  Its user settings, workspaces and runtime
files live in the temporary directory too, so nothing of the developer's own JupyterLab leaks in.

Chromium is the distribution's (``apt-get install -y chromium``): Playwright's own browser
download cannot work without internet.  Without Chromium or Playwright the tests fail in CI
(``CI=true``) and are skipped elsewhere.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.conftest import in_ci

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

CHROMIUM = os.environ.get("Z3SANDBOX_CHROMIUM", "/usr/bin/chromium")
# Headless, and nothing that phones home: without these flags Chromium keeps trying to reach
# Google's hosts, which a machine without internet refuses, many connections at a time.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
REPO = Path(__file__).resolve().parents[2]
OUTPUT = REPO / "test-output" / "browser"
SERVER_START_S = 90.0

# Which front-end plugins would fetch from the internet or ask about it in a toast that covers
# the status bar.
DISABLED_PLUGINS = {"@jupyterlab/apputils-extension:announcements": True}
SERVER_CONFIG = {
    "LabApp": {
        "news_url": None,
        "check_for_updates_class": "jupyterlab.NeverCheckForUpdate",
        "extension_manager": "readonly",
    },
    "ServerApp": {"open_browser": False},
}


def unavailable(reason: str) -> None:
    """A missing browser fails the test in CI and skips it elsewhere."""
    if in_ci():
        pytest.fail(f"{reason} (CI=true: the browser test must run)")
    pytest.skip(reason)


@dataclass
class LabServer:
    url: str
    token: str
    root: Path
    runtime: Path  # the kernels' connection files
    log: Path

    def api(self, path: str, method: str = "GET") -> object:
        request = urllib.request.Request(
            f"{self.url}{path}", method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read()
        return json.loads(body) if body else None

    def lab_url(self, path: str = "lab") -> str:
        """A page of JupyterLab with a fresh workspace: no tabs left open by an earlier step."""
        return f"{self.url}{path}?reset&token={self.token}"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_until_up(server: LabServer, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + SERVER_START_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"jupyter lab exited with {process.returncode}; see {server.log}")
        try:
            server.api("api/status")
            return
        except (urllib.error.URLError, ConnectionError):
            # Not listening yet: wait for the process to exit or the next poll, whichever first.
            try:
                process.wait(timeout=0.2)
            except subprocess.TimeoutExpired:
                pass
    raise RuntimeError(f"jupyter lab did not answer within {SERVER_START_S} s; see {server.log}")


def _configure(home: Path) -> dict[str, str]:
    config = home / "config"
    (config / "labconfig").mkdir(parents=True)
    (config / "jupyter_server_config.json").write_text(json.dumps(SERVER_CONFIG))
    (config / "labconfig" / "page_config.json").write_text(
        json.dumps({"disabledExtensions": DISABLED_PLUGINS})
    )
    return {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(config),
        "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
    }


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    home = tmp_path_factory.mktemp("lab")
    root = home / "root"
    root.mkdir()
    port, token = _free_port(), secrets.token_hex(16)
    server = LabServer(f"http://127.0.0.1:{port}/", token, root, home / "runtime", home / "server.log")
    command = [
        sys.executable, "-m", "jupyterlab",
        "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}", "--ServerApp.open_browser=False",
        f"--ServerApp.root_dir={root}",
        f"--LabApp.user_settings_dir={home / 'settings'}",
        f"--LabApp.workspaces_dir={home / 'workspaces'}",
    ]  # fmt: skip
    if os.geteuid() == 0:  # CI runs as root
        command.append("--allow-root")
    with server.log.open("wb") as log:
        process = subprocess.Popen(
            command, cwd=root, env=_configure(home), stdout=log, stderr=subprocess.STDOUT
        )
    try:
        _wait_until_up(server, process)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("playwright (for Python) is not installed: pip install playwright")
    if not (Path(CHROMIUM).is_file() or shutil.which(CHROMIUM)):
        unavailable(f"no Chromium at {CHROMIUM}: apt-get install -y chromium")
    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture(scope="module")
def page(browser: Browser) -> Iterator[Page]:
    # The copy button writes to the clipboard, which the test reads back; downloads are kept.
    context = browser.new_context(
        viewport={"width": 1400, "height": 900},
        permissions=["clipboard-read", "clipboard-write"],
        accept_downloads=True,
    )
    context.set_default_timeout(60_000)
    from playwright.sync_api import expect

    expect.set_options(timeout=60_000)
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture(scope="session")
def output_dir() -> Path:
    OUTPUT.mkdir(parents=True, exist_ok=True)
    print(f"browser screenshots: {OUTPUT}")
    return OUTPUT


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]
                              ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    item.stash.setdefault(_REPORTS, {})[report.when] = report
    return report


_REPORTS = pytest.StashKey[dict[str, pytest.TestReport]]()


@pytest.fixture(autouse=True)
def screenshot_on_failure(request: pytest.FixtureRequest, output_dir: Path) -> Iterator[None]:
    """A failed step leaves a picture of the page next to the steps' screenshots."""
    yield
    report = request.node.stash.get(_REPORTS, {}).get("call")
    if report is None or not report.failed or "page" not in request.fixturenames:
        return
    page = request.getfixturevalue("page")
    path = output_dir / f"failed-{request.node.name}.png"
    page.screenshot(path=str(path))
    print(f"failure screenshot: {path}")
