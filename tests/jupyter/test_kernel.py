"""The z3sandbox kernel, driven through jupyter_client as a frontend would: execute, read iopub (its
interrupt and Stop button: test_kernel_interrupt.py)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.manager import KernelManager

from tests.jupyter.cells import FAST, SAT
from tests.jupyter.kernels import TIMEOUT, document, execute, expression, of_type, start, states
from z3sandbox_kernel import __version__
from z3sandbox_kernel.presentation.render import MIME_TYPE

pytestmark = pytest.mark.kernel


def test_kernel_info_names_the_kernel_and_its_isolation(
    z3kernel: tuple[KernelManager, BlockingKernelClient],
) -> None:
    _, kc = z3kernel
    kc.kernel_info()
    reply = kc.get_shell_msg(timeout=TIMEOUT)["content"]
    assert reply["implementation"] == "z3sandbox"
    assert reply["implementation_version"] == __version__
    assert reply["language_info"]["name"] == "python"
    assert "Z3 Sandbox kernel" in reply["banner"]
    info = reply["z3sandbox"]
    assert info["version"] == __version__
    assert info["level"] in ("kernel", "process")
    assert info["isolation"].startswith(f"{info['level']}: ")
    assert all({"name", "active"} <= set(layer) for layer in info["layers"])


def test_live_display_updates_arrive_before_the_cell_ends(
    z3kernel: tuple[KernelManager, BlockingKernelClient],
) -> None:
    _, kc = z3kernel
    # The second candidate spins until its 5 s wall limit: the first one's verdict must be on
    # screen long before the run ends.
    execute(kc, f"quick_and_slow = [{SAT!r}, 'while True:\\n    pass\\n']")
    reply, messages = execute(kc, "%z3sandbox --candidates quick_and_slow --jobs 2 --wall 5")
    assert reply["content"]["status"] == "ok"
    shown = [m for m in messages if document(m)]
    assert shown[0]["msg_type"] == "display_data" and document(shown[0])["finished"] is False
    live = [m for m in shown[1:-1] if states(m) == ["sat", "running"]]
    assert live, "no live update showed a verdict before the final result"
    assert document(live[0])["progress"] == {"done": 1, "total": 2}
    assert document(shown[-1])["finished"] is True
    assert states(shown[-1]) == ["sat", "timeout"]
    assert not of_type(messages, "comm_open")  # no widget: nothing dead in a saved notebook


def test_live_display_refreshes_are_throttled(
    z3kernel: tuple[KernelManager, BlockingKernelClient],
) -> None:
    _, kc = z3kernel
    _, messages = execute(kc, f"%%z3sandbox -k 60 {FAST}\n{SAT}")
    refreshes = of_type(messages, "update_display_data")
    final = refreshes[-1]
    elapsed = final["content"]["metadata"][MIME_TYPE]["elapsed_s"]
    # 60 candidates make ~180 transitions; a refresh goes out at most 10 times a second, plus
    # the first and the last; one second of slack for start-up.
    assert len(refreshes) <= 2 + 10 * (elapsed + 1)
    assert document(final)["counts"] == {"sat": 60}


def test_a_run_of_200_candidates_sends_under_4_mb_of_messages(
    z3kernel: tuple[KernelManager, BlockingKernelClient],
) -> None:
    """Live refreshes carry the rows that changed (and a full document every 2 s), not the
    whole table in three forms each time; the whole table goes out once, at the end."""
    _, kc = z3kernel
    _, messages = execute(kc, f"%%z3sandbox -k 200 --no-verify {FAST}\n{SAT}")
    sent = sum(len(json.dumps(m["content"])) + len(json.dumps(m["metadata"])) for m in messages)
    refreshes = of_type(messages, "update_display_data")
    print(f"K=200: {len(refreshes)} refreshes, {sent / 1e6:.2f} MB")
    assert document(refreshes[-1])["counts"] == {"sat": 200}
    assert "delta" not in document(refreshes[-1])  # the final one is whole
    assert any(document(m).get("delta") for m in refreshes)
    assert sent < 4_000_000


def test_a_rerun_updates_the_cells_rows_live_and_ends_as_one_line(
    z3kernel: tuple[KernelManager, BlockingKernelClient],
) -> None:
    """``NAME.rerun([1, 2])`` in a kernel: its live table starts as the cell's three rows (those
    run again queued and marked), each report lands in its row of the cell, and the display ends
    as one line (rerun()'s result is the merged table)."""
    _, kc = z3kernel
    cell = "".join(f"# %% candidate {name}\n{SAT}" for name in "abc")
    execute(kc, f"%%z3sandbox --out rr {FAST}\n{cell}")
    reply, messages = execute(kc, "again = rr.rerun([1, 2])", user_expressions={
        "rows": "[(c.index, c.label, c.verdict.value) for c in again]"})
    assert reply["content"]["status"] == "ok", reply["content"]
    live = [document(m) for m in messages if document(m)]
    assert [(c["index"], c["label"], c.get("state")) for c in live[0]["candidates"]] == [
        (0, "a", None), (1, "b (rerun)", "queued"), (2, "c (rerun)", "queued")]
    shown = [states(m) for m in messages if document(m)]
    assert all(len(row) == 3 and row[0] == "sat" for row in shown)
    assert any(row[1:] != ["queued", "queued"] for row in shown[1:])  # a report, in the cell's rows
    last = of_type(messages, "update_display_data")[-1]["content"]["data"]
    assert set(last) == {"text/plain"} and last["text/plain"].startswith("z3sandbox: ran #1 #2 again")
    assert ast.literal_eval(expression(reply, "rows")) == [
        (0, "a", "sat"), (1, "b (rerun)", "sat"), (2, "c (rerun)", "sat")]


def test_one_display_per_run_with_three_mime_types_and_figures_only_in_metadata(
    z3kernel: tuple[KernelManager, BlockingKernelClient],
) -> None:
    _, kc = z3kernel
    _, messages = execute(kc, f"%%z3sandbox {FAST}\n{SAT}")
    created = [m for m in of_type(messages, "display_data") if document(m)]
    assert len(created) == 1  # one output; every later message updates it in place
    display_id = created[0]["content"]["transient"]["display_id"]
    updates = of_type(messages, "update_display_data")
    assert {m["content"]["transient"]["display_id"] for m in updates} == {display_id}
    data, metadata = updates[-1]["content"]["data"], updates[-1]["content"]["metadata"]
    assert set(data) == {"text/plain", "text/html", MIME_TYPE}
    assert data[MIME_TYPE]["version"] == 1
    assert data[MIME_TYPE]["verdict"] == "sat"
    assert "wall_s" not in data[MIME_TYPE]["candidates"][0]
    assert set(metadata[MIME_TYPE]["timings"][0]) == {"index", "wall_s", "cpu_s", "peak_rss_mb"}
    assert not of_type(messages, "execute_result")  # displayed once, not echoed as Out[]


def test_user_expressions_see_the_result_and_payload(
    z3kernel: tuple[KernelManager, BlockingKernelClient],
) -> None:
    _, kc = z3kernel
    execute(kc, "seed = bytearray(b'ABCD')")
    reply, _ = execute(
        kc,
        f"%%z3sandbox --seed seed --out res --quiet {FAST}\n"
        'b = BitVec("byte_2", 8)\ns.add(b == 0x5A)\n',
        user_expressions={"verdict": "res.verdict.value", "payload": "res.payload"},
    )
    assert expression(reply, "verdict") == "'sat'"
    assert expression(reply, "payload") == "b'ABZD'"


def test_a_busy_loop_killed_at_the_wall_limit_reports_its_own_cpu_and_memory(
    z3kernel: tuple[KernelManager, BlockingKernelClient],
) -> None:
    """Killed by the wall limit, a candidate shows the script's CPU and memory, not the figures of
    the sandbox process that ran it (about 0 s and 41 MB before).  The loop prints its own CPU
    time as it goes, so the check holds however loaded the machine is."""
    _, kc = z3kernel
    reply, _ = execute(
        kc,
        "%%z3sandbox --out spun --quiet --wall 3 --cpu 30 --timeout 30 --memory 512 --output 1024\n"
        "import time\nblock = bytearray(300 << 20)\nprint('touched', flush=True)\n"
        "while True:\n    for _ in range(100000):\n        pass\n"
        "    print(time.process_time(), flush=True)\n",
        user_expressions={"figures": "[spun[0].verdict.value, spun[0].kill, spun[0].cpu_s, "
                                     "spun[0].peak_rss_mb, spun[0].stdout]"},
    )
    verdict, kill, cpu_s, peak_rss_mb, stdout = ast.literal_eval(expression(reply, "figures"))
    assert (verdict, kill) == ("timeout", "wall")
    lines = stdout.split()
    assert lines[:1] == ["touched"] and len(lines) > 1, stdout[-200:]
    assert cpu_s >= float(lines[-1])  # at least what the loop had used at its last line
    assert peak_rss_mb >= 250  # the 300 MB block it touched


def test_bad_option_is_a_usage_error_in_the_reply(
    z3kernel: tuple[KernelManager, BlockingKernelClient],
) -> None:
    _, kc = z3kernel
    reply, messages = execute(kc, f"%%z3sandbox --memroy 100\n{SAT}")
    content = reply["content"]
    assert content["status"] == "error"
    assert content["ename"] == "UsageError"
    assert "unrecognized arguments: --memroy 100" in content["evalue"]
    assert "--memory MB" in content["evalue"]
    assert not of_type(messages, "comm_open")  # nothing started, not even the table


def test_a_saved_notebook_holds_one_output_per_run_and_no_widget(kernel_path: Path) -> None:
    """Executed by nbclient as Jupyter saves it: display updates land in the one output."""
    import nbformat
    from nbclient import NotebookClient
    from nbconvert import HTMLExporter

    kernelspec = {"name": "z3sandbox", "display_name": "Z3 Sandbox", "language": "python"}
    notebook = nbformat.v4.new_notebook(metadata={"kernelspec": kernelspec})
    notebook.cells = [nbformat.v4.new_code_cell(f"%%z3sandbox -k 3 {FAST}\n{SAT}")]
    NotebookClient(notebook, timeout=TIMEOUT, kernel_name="z3sandbox",
                   resources={"metadata": {"path": str(kernel_path)}}).execute()
    notebook = nbformat.reads(nbformat.writes(notebook), as_version=4)  # saved and reopened
    outputs = notebook.cells[0].outputs
    assert len(outputs) == 1, outputs
    assert outputs[0]["output_type"] == "display_data"
    assert set(outputs[0]["data"]) == {"text/plain", "text/html", MIME_TYPE}
    assert outputs[0]["data"][MIME_TYPE]["finished"] is True
    assert outputs[0]["data"][MIME_TYPE]["counts"] == {"sat": 3}
    page, _ = HTMLExporter().from_notebook_node(notebook)
    assert "live table" not in page and "widget" not in json.dumps(outputs[0]["data"])


def test_magic_works_in_a_plain_python3_kernel(kernel_path: Path) -> None:
    km, kc = start("python3", kernel_path)
    try:
        loaded, _ = execute(kc, "%load_ext z3sandbox_kernel")
        assert loaded["content"]["status"] == "ok"
        reply, messages = execute(
            kc, f"%%z3sandbox {FAST}\n{SAT}", user_expressions={"model": "_z3.model"}
        )
        assert reply["content"]["status"] == "ok"
        assert expression(reply, "model") == "{'x': 2}"
        assert any(document(m).get("finished") for m in messages)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
