"""Where a script was when a limit ended it: its stack, written on the result descriptor when
the zygote warns that it is about to kill (``STACK_REQUEST``, for the wall clock and the output
cap) and when the CPU limit's SIGXCPU arrives (the zygote kills on receipt).

A Python-level handler, not faulthandler: it writes one framed ``StackReport`` (a single write of
at most STACK_FRAME_MAX_BYTES, so it is never interleaved with the bootstrap's frames, which are
written with these signals blocked), and runs between two bytecodes of the script, so the frame
it is handed is the script's own.  The price: a script inside one long C call (a single z3
check) answers only when that call returns, or not at all; the zygote then says the stack could
not be taken.  The handler must never raise into the script and changes nothing z3 can see.  It flushes
stdout and stderr first: what the script printed before a kill reaches the feedback (a plain run
killed from outside would lose its buffered output).
"""

from __future__ import annotations

import os
import signal
import sys
import types
from collections.abc import Callable

from ..protocol import PROTOCOL_VERSION, RESULT_FD, STACK_FRAME_MAX_BYTES, STACK_REQUEST, encode_frame

SIGNALS = (STACK_REQUEST, signal.SIGXCPU)
_MAX_LINES = 64  # protocol.StackReport's bound
_KEEP_LINES = 20  # the innermost ones, when the stack is deeper (recursion)


def watch(filename: str, checks_made: Callable[[], int] = lambda: 0) -> None:
    """Before user code: answer ``SIGNALS`` with the script's stack (``filename``'s frames) and
    how many checks it made so far (a limit ends it before its report says so)."""
    def answer(signum: int, frame: types.FrameType | None) -> None:
        _flush()  # what the script printed so far reaches its pipes before the kill
        try:
            lines: list[tuple[int, str]] = []
            while frame is not None:
                if frame.f_code.co_filename == filename:
                    lines.append((frame.f_lineno or 0, frame.f_code.co_name[:100]))
                frame = frame.f_back
            data = encode_frame({"v": PROTOCOL_VERSION, "type": "stack", "signal": int(signum),
                                 "lines": lines[:_KEEP_LINES][::-1], "checks_made": checks_made()})
            if len(data) <= STACK_FRAME_MAX_BYTES:
                os.write(RESULT_FD, data)
            if signum == signal.SIGXCPU:  # its default action, as before the handler: where seccomp
                signal.signal(signum, signal.SIG_DFL)  # refuses a limit's signal sent to oneself,
                signal.raise_signal(signum)  # the zygote kills on the stack instead
        except BaseException:  # the script goes on as if nothing happened
            return

    for signum in SIGNALS:
        try:
            signal.signal(signum, answer)
        except (OSError, ValueError):
            continue


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # a replaced or closed stream, a flush cut into: nothing to add
            continue


def quiet() -> None:
    """Before the bootstrap writes its own frames: no stack frame may cut into them."""
    try:
        signal.pthread_sigmask(signal.SIG_BLOCK, set(SIGNALS))
    except (OSError, ValueError):
        return
