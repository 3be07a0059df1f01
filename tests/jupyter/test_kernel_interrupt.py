"""Stopping a z3sandbox kernel's run as a frontend does, through jupyter_client: an interrupt (the
kernel's process group gets SIGINT), and one candidate's Stop button over the control channel."""

from __future__ import annotations

import time

import pytest
from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.manager import KernelManager

from tests.jupyter.cells import FAST, SAT
from tests.jupyter.kernels import TIMEOUT, Message, Once, document, execute, expression, states

pytestmark = pytest.mark.kernel


# jupyter_client interrupts a kernel with killpg(SIGINT) on the kernel's whole process group
# (LocalProvisioner.send_signal): the zygote runs in its own session so that only the kernel sees it.
def test_interrupt_keeps_finished_rows_binds_them_and_ends_the_cell_as_interrupted(
    z3kernel: tuple[KernelManager, BlockingKernelClient],
) -> None:
    km, kc = z3kernel
    # Candidate 0 done, candidate 1 running: then interrupt.
    interrupt = Once(lambda message: states(message) == ["sat", "running"], lambda _: km.interrupt_kernel())
    execute(kc, f"loopers = [{SAT!r}, 'while True:\\n    pass\\n']")
    reply, messages = execute(
        kc, "%z3sandbox --candidates loopers --jobs 2 --wall 30 --cpu 30 --timeout 30", on_message=interrupt)
    assert interrupt.at is not None, "the live display never showed one row done and one running"
    assert time.monotonic() - interrupt.at < 10  # not the 30 s wall limit
    assert reply["content"]["status"] == "error"
    assert reply["content"]["ename"] == "KeyboardInterrupt"  # as an interrupted cell ends
    # One line wrapped at words, no traceback into the package, no count of none.
    assert " ".join(reply["content"]["traceback"]) == (
        "z3sandbox: interrupted: kept 1 finished candidate in _z3 (1 sat); 1 stopped: "
        "_z3.rerun() runs them")
    shown = [m for m in messages if document(m)]
    assert document(shown[-1])["interrupted"] is True
    assert states(shown[-1]) == ["sat", "cancelled"]
    after, _ = execute(kc, "x = 6 * 7", user_expressions={
        "x": "x", "interrupted": "_z3.interrupted", "verdicts": "[c.verdict.value for c in _z3]",
        "notes": "_z3.notes"})
    assert expression(after, "x") == "42"
    assert expression(after, "interrupted") == "True"  # the partial result is bound
    assert expression(after, "verdicts") == "['sat', 'cancelled']"
    assert expression(after, "notes") == "[]"  # e.g. no "the zygote died and was restarted"
    # The sandbox itself came through: the next run needs no restarted zygote.
    again, _ = execute(
        kc, f"%%z3sandbox --quiet --out again {FAST}\n{SAT}",
        user_expressions={"run": "(again.verdict.value, again.notes)"},
    )
    assert expression(again, "run") == "('sat', [])"


def test_stop_one_candidate_over_the_control_channel_while_the_cell_runs(
    z3kernel: tuple[KernelManager, BlockingKernelClient],
) -> None:
    """The labextension's Stop button: one candidate stops, the run goes on and ends normally."""
    _, kc = z3kernel
    sent: list[str] = []

    def stop_the_looper(message: Message) -> None:
        stop = {"control": document(message)["control"], "index": 1}
        request = kc.session.msg("z3sandbox_stop_request", stop)
        kc.control_channel.send(request)
        sent.append(request["header"]["msg_id"])

    running = Once(lambda message: bool(document(message).get("control"))
                   and states(message) == ["sat", "running", "queued"], stop_the_looper)
    execute(kc, f"three = [{SAT!r}, 'while True:\\n    pass\\n', {SAT!r}]")
    others: list[Message] = []
    reply, messages = execute(
        kc, "%z3sandbox --candidates three --jobs 1 --wall 30 --cpu 30 --timeout 30",
        on_message=running, others=others,
    )
    assert sent, "the live display never showed the looper running"
    answer = kc.get_control_msg(timeout=TIMEOUT)
    assert answer["parent_header"]["msg_id"] == sent[0]
    assert answer["content"] == {"status": "ok", "stopped": True}
    assert reply["content"]["status"] == "ok"  # not an interrupt: the run went on
    final = [m for m in messages if document(m)][-1]
    assert states(final) == ["sat", "cancelled", "sat"]
    assert "control" not in document(final)  # a saved result has no control
    stopped = document(final)["candidates"][1]  # says what stopped it, with its kill (issue 41.6)
    assert stopped["cells"]["reason"] == "stopped (Stop button)" and stopped["cells"]["kill"] == "cancel"
    assert "stopped (Stop button)" in final["content"]["data"]["text/plain"]
    # No busy/idle for the stop: a frontend would show the kernel Idle while the cell still runs.
    assert [m for m in others if m["parent_header"].get("msg_id") == sent[0]
            and m["msg_type"] == "status"] == []


def test_interrupt_stops_the_queued_cells(
    z3kernel: tuple[KernelManager, BlockingKernelClient],
) -> None:
    """As under "Run All": the cell after an interrupted run is aborted, never run."""
    km, kc = z3kernel
    execute(kc, "spinner = ['while True:\\n    pass\\n']\nqueued_cell_ran = False")
    first = kc.execute("%z3sandbox --candidates spinner --out spun --wall 30 --cpu 30 --timeout 30")
    second = kc.execute("queued_cell_ran = True")  # queued behind the run, as Run All does
    interrupted = False
    while not interrupted:
        message = kc.get_iopub_msg(timeout=TIMEOUT)
        if message["parent_header"].get("msg_id") == first and "running" in states(message):
            km.interrupt_kernel()
            interrupted = True
    replies = {}
    while len(replies) < 2:
        reply = kc.get_shell_msg(timeout=TIMEOUT)
        replies[reply["parent_header"].get("msg_id")] = reply["content"]
    assert replies[first]["status"] == "error" and replies[first]["ename"] == "KeyboardInterrupt"
    assert replies[second]["status"] == "aborted"
    after, _ = execute(kc, "pass", user_expressions={
        "ran": "queued_cell_ran", "interrupted": "spun.interrupted"})
    assert expression(after, "ran") == "False"
    assert expression(after, "interrupted") == "True"
