"""What a person reads most, in the real JupyterLab, at 1400 px with the file browser open and at
1920 px (issue 41), from real candidates run in the sandbox, saved and opened without a kernel:

* a long NameError, a PermissionError with its path and a memory-limit row with its limit: each
  message whole (only a quoted source line may be cut), the whole reason one click away;
* ``--models 3`` on a seed: "Download all payloads" zips every payload ``save_payloads`` writes;
* an unconfirmed unsat: "unconfirmed: why", its badge outlined, not filled;
* prove() calls: counted and filtered in their words;
* a row stopped by its Stop button: "stopped (Stop button)", kill ``cancel``;
* K=200 of one script: one grouped row, "seeds 0–199 (200)", with the median of its times;
* a clause every answer shares, said once above the table.

The table never scrolls sideways at either width.  Screenshots go to ``test-output/browser/``.
"""

from __future__ import annotations

import io
import re
import threading
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from z3sandbox_kernel import CandidateResult, Limits, RunResult, Sandbox

from .conftest import LabServer
from .pages import (
    expect,
    open_detail,
    open_without_kernel,
    rendered_output,
    screenshot,
    wait_fitted,
    with_file_browser,
    write_notebook,
)

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

pytestmark = pytest.mark.browser

NOTEBOOK = "reading.ipynb"
LIMITS = Limits(timeout_s=5, wall_s=30, cpu_s=20)
UNDEFINED = "an_undefined_name_that_makes_this_error_message_long_enough_to_wrap"
FAILURES = {
    "long NameError": f"x = Int('x')\ns.add(x > 1)\nprint({UNDEFINED} + x.as_long())\n",
    "permission": "open('/proc/1/environ').read()\n",
    "memory": "x = [Int(str(i)) for i in range(10 ** 8)]\n",
}
SEEDED = ("b = [BitVec(f'byte_{i}', 8) for i in range(2)]\n"
          "s.add(b[0] == 0x41, b[1] < 3)\n")
UNSAT = "p = Bool('p')\ns.add(p, Not(p))\nprint(s.check())\n"
LAW = "p, q = Bools('p q')\nprove(Not(And(p, q)) == Or(Not(p), Not(q)))\n"
WRONG_LAW = "p, q = Bools('p q')\nprove(Not(And(p, q)) == And(Not(p), Not(q)))\n"
ONE_MODEL = "x = Int('x')\ns.add(x * 3 == 21)\n"
LOOPER = "while True:\n    pass\n"
SAID_ONCE = "the script never called check(): the sandbox checked its assertions"


def stopped_run(sandbox: Sandbox) -> RunResult:
    """A looper stopped while it runs, as the magic's Stop button stops it and says so."""
    from z3sandbox_kernel.jupyter.scripts import Script, annotated, annotator

    scripts = [Script(ONE_MODEL, "finishes"), Script(LOOPER, "looper")]
    stopped: set[int] = set()

    def stop_the_looper(candidate: CandidateResult) -> None:
        if candidate.index == 1 and candidate.state == "running" and not stopped:
            stopped.add(1)
            threading.Thread(target=sandbox.stop_candidate, args=(1,)).start()

    result = sandbox.run([script.source for script in scripts], limits=LIMITS, jobs=2,
                         on_update=stop_the_looper)
    return annotated(result, annotator(scripts, None, stopped=stopped))


def real_runs(sandbox: Sandbox) -> dict[str, RunResult]:
    return {
        "failures": sandbox.run(list(FAILURES.values()), labels=list(FAILURES), limits=LIMITS),
        "models": sandbox.run([SEEDED, SEEDED], models=3, seed=b"\x00\x00\x00\x00", limits=LIMITS,
                              labels=["first", "second"]),
        "unconfirmed": sandbox.run([UNSAT, ONE_MODEL], verify=False, limits=LIMITS,
                                   labels=["unsat", "sat"]),
        "proofs": sandbox.run([LAW, WRONG_LAW], labels=["de Morgan", "wrong law"], limits=LIMITS),
        "stopped": stopped_run(sandbox),
        "grouped": seeded_run(sandbox),
    }


def seeded_run(sandbox: Sandbox) -> RunResult:
    """``%%z3sandbox -k 200`` of one script: its rows named by their seeds, as the magic names them."""
    from z3sandbox_kernel.jupyter.scripts import Script, annotated, annotator

    return annotated(sandbox.run(ONE_MODEL, k=200, limits=LIMITS), annotator([Script(ONE_MODEL)], 200))


@pytest.fixture(scope="module")
def runs(kernel_sandbox: Sandbox) -> dict[str, RunResult]:
    return real_runs(kernel_sandbox)


def result_named(panel: Locator, runs: dict[str, RunResult], name: str) -> Locator:
    cell = panel.locator(".jp-Cell").nth(list(runs).index(name))
    cell.scroll_into_view_if_needed()
    return cell.locator(".jp-Z3RunRenderer > .jp-Z3Run")


# A reason in its column (the wide layout) takes one line: one that would wrap moves the table to
# the layout where each reason has a full-width line of its own under its row.
WRAPPED_IN_COLUMN = """view => Array.from(view.querySelectorAll(
  'td.jp-Z3Run-reason > .jp-Z3Run-reasonText > .jp-Z3Run-reasonShort'))
  .filter(text => text.offsetParent !== null && text.getClientRects().length > 1).length"""


def check_failures(page: Page, result: Locator) -> None:
    wait_fitted(page, result)
    assert result.locator(".jp-Z3Run-tableView").evaluate(WRAPPED_IN_COLUMN) == 0
    reasons = result.locator(".jp-Z3Run-reasonShort:visible")
    expect()(reasons).to_have_count(3)
    name_error, permission, memory = (reasons.nth(i).inner_text() for i in range(3))
    assert f"NameError: name '{UNDEFINED}' is not defined" in name_error, name_error
    assert "PermissionError: [Errno 13] Permission denied: '/proc/1/environ'" in permission, permission
    assert "memory limit 512 MB" in memory or "512 MB memory limit" in memory, memory
    for text in (name_error, permission, memory):  # a cut is in a quoted source line only
        assert "…" not in text.split("`")[0], text
    # The whole reason, one click away.
    line = result.locator(".jp-Z3Run-reasonText:visible", has_text="NameError")
    line.locator(".jp-Z3Run-reasonMore").click()
    expect()(line.locator(".jp-Z3Run-reasonShort")).to_contain_text(f"print({UNDEFINED} + x.as_long())")
    line.locator(".jp-Z3Run-reasonMore").click()
    wait_fitted(page, result)


def check_download_counts_every_payload(page: Page, result: Locator, run: RunResult,
                                        output_dir: Path, width: int) -> None:
    files = run.payload_files()
    assert len(files) >= 3 and len(run.payloads) == 6  # 3 models each, some shared
    button = result.locator(".jp-Z3Run-downloadAll")
    expect()(button).to_have_text(f"Download all payloads ({len(files)})")
    with page.expect_download() as download_info:
        button.click()
    saved = output_dir / f"payloads-{width}.zip"
    download_info.value.save_as(saved)
    with zipfile.ZipFile(io.BytesIO(saved.read_bytes())) as archive:
        assert sorted(archive.namelist()) == sorted(name for name, *_ in files)
        assert sorted(archive.read(name) for name in archive.namelist()) == sorted(p for *_, p in files)


def check_unconfirmed(result: Locator) -> None:
    badge = result.locator('.jp-Z3Run-row[data-index="0"] .jp-Z3Run-verdict')
    expect()(badge).to_have_text("unsat")
    expect()(badge).to_have_class(re.compile(r"\bjp-Z3Run-unconfirmed\b"))
    style = badge.evaluate("b => [getComputedStyle(b).borderStyle, getComputedStyle(b).backgroundColor]")
    assert style == ["dashed", "rgba(0, 0, 0, 0)"], style  # outlined, not filled
    expect()(result.locator(".jp-Z3Run-reasonShort:visible").first).to_have_text(
        "unconfirmed: no checker confirmed it")
    facts = open_detail(result, 0).locator(".jp-Z3Run-facts")
    expect()(facts).to_contain_text("unconfirmed: no checker confirmed it")
    expect()(facts.locator("td", has_text=re.compile("^—$"))).to_have_count(0)


def check_proofs(result: Locator) -> None:
    expect()(result.locator(".jp-Z3Run-counts")).to_contain_text("1 proved, 1 counterexample")
    options = result.locator(".jp-Z3Run-filter option")
    expect()(options).to_have_text(["all verdicts (2)", "counterexample (1)", "proved (1)"])


def check_stopped(result: Locator) -> None:
    row = result.locator('.jp-Z3Run-row[data-index="1"]')
    expect()(row.locator(".jp-Z3Run-verdict")).to_have_text("cancelled")
    expect()(row.locator(".jp-Z3Run-kill")).to_have_text("cancel")
    expect()(result.locator(".jp-Z3Run-reasonShort:visible").nth(1)).to_have_text("stopped (Stop button)")
    expect()(result.locator(".jp-Z3Run-group", has_text="same as")).to_have_count(0)  # no model


def check_grouped(result: Locator) -> None:
    expect()(result.locator(".jp-Z3Run-row")).to_have_count(1)
    expect()(result.locator(".jp-Z3Run-row .jp-Z3Run-candidateLabel")).to_have_text("seeds 0–199 (200)")
    wall = result.locator(".jp-Z3Run-row .jp-Z3Run-wall")
    expect()(wall).to_have_attribute("title", re.compile(r"^median of 200; range .+–.+ s$"))
    expect()(result.locator(".jp-Z3Run-saidOnce")).to_have_text(f"all 200 answers: {SAID_ONCE}")
    expect()(result.locator(".jp-Z3Run-reasonShort:visible")).to_have_text(["confirmed by z3"])
    expect()(result.locator(".jp-Z3Run-reasonMore")).to_have_count(0)  # nothing more to say


@pytest.mark.parametrize("width", [1400, 1920])
def test_what_a_person_reads_most(lab: LabServer, page: Page, output_dir: Path,
                                  runs: dict[str, RunResult], width: int) -> None:
    write_notebook(lab.root / NOTEBOOK, [[rendered_output(r)] for r in runs.values()], list(runs))
    page.set_viewport_size({"width": width, "height": 1000})
    try:
        panel = open_without_kernel(page, lab, NOTEBOOK)
        if width == 1400:
            with_file_browser(page)
        check_failures(page, result_named(panel, runs, "failures"))
        screenshot(page, output_dir, f"7-reasons-{width}")
        models = result_named(panel, runs, "models")
        wait_fitted(page, models)
        check_download_counts_every_payload(page, models, runs["models"], output_dir, width)
        check_unconfirmed(result_named(panel, runs, "unconfirmed"))
        screenshot(page, output_dir, f"7-claims-{width}")
        check_proofs(result_named(panel, runs, "proofs"))
        check_stopped(result_named(panel, runs, "stopped"))
        grouped = result_named(panel, runs, "grouped")
        check_grouped(grouped)
        wait_fitted(page, grouped)
        screenshot(page, output_dir, f"7-words-{width}")
    finally:
        page.unroute_all()
        page.set_viewport_size({"width": 1400, "height": 900})
