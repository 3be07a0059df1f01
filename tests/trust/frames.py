"""The worst frame of each kind a candidate can write on its result descriptor, as Python candidates
(test_frames_bounded.py, bench/frames.py): each within the candidate's byte budget, and each shaped
to make the zygote spend what its size does not show (a text named 200,000 times, a payload
expanded per check, a model of tiny entries, a frame of as many values as a frame may hold).

A candidate's frames travel as ``[length][JSON]`` on descriptor 3 (protocol/wire.py), after the
setup frame the bootstrap wrote before user code ran.
"""

from __future__ import annotations

from z3sandbox_kernel.protocol import MAX_FRAME_VALUES

_SEND = """import json, os, struct
def send_bytes(body):
    data = memoryview(struct.pack(">I", len(body)) + body)
    while data:
        data = data[os.write(3, data):]
def send(message):
    send_bytes(json.dumps(message, separators=(",", ":")).encode())
"""
_PAIRS = '"x\\x001\\x00"'  # protocol.join_pairs([("x", "1")]), as Python source
_RESULT = 'send({"v": 1, "type": "result", "outcome": "sat", "model": {"x": 1}})\nos._exit(0)\n'


def _check(index: str, asserts: str, declarations: str, assertions: str, declared: str) -> str:
    return (f'send({{"v": 1, "type": "check", "index": {index}, "verdict": "sat", "line": 1, '
            f'"asserts": {asserts}, "declarations": {declarations}, "assertions": {assertions}, '
            f'"declared": {declared}}})\n')


def _model(index: str, runs: str) -> str:
    return (f'send({{"v": 1, "type": "check_model", "index": {index}, "model": {{"x": 1}}, '
            f'"byte_constants": [], "byte_runs": {runs}, "model_smt2": {_PAIRS}}})\n')


WORST_FRAMES = {
    # One 3 KB assertion text, named 200,000 times by one check's ranges (1.2 MB): a zygote that
    # builds the check's text builds 600 MB.
    "check ranges": _SEND
    + 'text = "(assert (> x 0))" + " " * 3000 + "\\n"\n'
    + _check("0", "[text]", '["(declare-fun x () Int)"]', "[[0, 1]] * 200000", "[[0, 1]]")
    + _model("0", "[]") + _RESULT,
    # A hundred checks naming 1 MB of declarations, each with a model whose bytes travel as hex
    # only: a zygote that expands each check's pairs on its own makes millions of them.
    "check models": _SEND
    + 'declaration = "(declare-fun x () Int)" + " " * (1 << 20)\n'
    + _check("0", "[]", "[declaration]", "[]", "[[0, 1]]")
    + _model("0", '[[0, "00" * 160000]]')
    + "for index in range(1, 100):\n"
    + "    " + _check("index", "[]", "[]", "[]", "[[0, 1]]")
    + "    " + _model("index", '[[0, "00" * 160000]]') + _RESULT,
    # 1.8 million tiny model entries (20 MB, within the budget): decoded, 350 MB.
    "report model": _SEND
    + 'entries = b",".join(b\'"v%d":0\' % i for i in range(1_800_000))\n'
    + 'send_bytes(b\'{"v":1,"type":"result","outcome":"sat","model":{\' + entries + b"}}")\n'
    + "os._exit(0)\n",
    # byte_N as hex only, as many as the payload may hold, none of them declared: a pattern of
    # repeated hex pairs once kept 120 MB of backtracking state for it.
    "report byte runs": _SEND
    + 'send({"v": 1, "type": "result", "outcome": "sat", "model": {"x": 1}, '
    + '"byte_runs": [[0, "ab" * (1 << 20)]], '
    + '"assertions_smt2": "(declare-fun x () Int)(assert (> x 0))", "model_smt2": ' + _PAIRS + "})\n"
    + "os._exit(0)\n",
    # As many values as a frame may hold (protocol.MAX_FRAME_VALUES), as the one-character
    # byte constants of a model: the most a forger can have decoded.
    "report values": _SEND
    + 'constants = [{"name": "b", "index": 0, "sort": "s", "width": None, "value": 0}]'
    + f" * ({MAX_FRAME_VALUES // 7 - 10})\n"  # seven strings each, the frame's measure
    + 'send({"v": 1, "type": "result", "outcome": "sat", "model": {"x": 1}, '
    + '"byte_constants": constants})\n'
    + "os._exit(0)\n",
}

# What each worst frame's sibling runs: an honest script that sleeps under its wall limit, then
# checks; the zygote must keep its deadline and its result while it reads the worst frame.
SIBLING = "import time\ntime.sleep(1.5)\nx = Int('x')\ns.add(x > 0)\nprint(s.check())\n"
SIBLING_WALL_S = 3.0


def zygote_peak_mb(pid: int) -> float:
    """The process's peak resident memory so far (VmHWM), in MB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmHWM for {pid}")
