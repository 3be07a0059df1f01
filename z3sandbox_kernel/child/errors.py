"""What a failed script reports: syntax errors and escaped exceptions as report fields (the
``exception`` field, ``{type, message, line}``, from which the zygote makes the candidate's
structured ``error``), and on the candidate's stderr the traceback (or ``sys.exit`` message) Python
itself would print, its frames naming ``candidate.py``.

``watch_crashes`` runs before user code (faulthandler: a crash or the CPU limit prints the Python
line it died on); every other function here runs after user code and must not raise: the report
must always be built.
"""

from __future__ import annotations

import contextlib
import faulthandler
import io
import itertools
import linecache
import os
import re
import sys
import traceback
import types

import z3

from ..protocol import ChildException, ChildReport
from . import hints, models

MAX_MESSAGE = 2000  # exception message in the report
MAX_REASON = 2000  # reason text, traceback included (the zygote caps reasons at 2000 too)
REASON_MESSAGE_CAP = 1200  # of the exception message within the reason, so the line still fits
TRACEBACK_LINES = 5
# z3sandbox_kernel/ itself: frames from here are the sandbox's, not the script's.
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_HINT = re.compile(r"\. (Did you mean: .*\?)$")
_SCRIPT_FOLDER: list[str] = []  # where the script's file would be: its working folder as it started


def watch_crashes() -> None:
    """Before user code: a fatal signal (SIGSEGV, SIGABRT, ...) prints the Python stack on stderr
    first (faulthandler; the zygote reads the script's line from it).  Not the CPU limit's SIGXCPU:
    faulthandler would chain to its default action by sending it again, which seccomp refuses (a
    limit's signal sent to itself, layers/seccomp.py), so the candidate would spin on to the hard
    limit's SIGKILL."""
    _SCRIPT_FOLDER[:] = [os.getcwd()]
    try:
        faulthandler.enable(file=sys.stderr, all_threads=True)
    except (OSError, RuntimeError, ValueError):  # no usable stderr: the verdict still comes
        return


def syntax_report(exc: BaseException) -> ChildReport:
    if isinstance(exc, SyntaxError):
        line, column = exc.lineno, exc.offset
        source = models.clean_text((exc.text or "").strip(), 200)
        where = f" (line {line}, column {column}: `{source}`)" if line else ""
        message = message_of(exc.msg)
        reason = f"{type(exc).__name__}: {message}{where}"
        return {"outcome": "syntax_error", "reason": reason, "line": line, "column": column,
                "exception": {"type": type(exc).__name__, "message": message, "line": line}}
    reason = "nested too deeply to compile" if isinstance(exc, RecursionError) else describe(exc)
    return {"outcome": "syntax_error", "reason": reason, "line": None, "column": None,
            "exception": {"type": type(exc).__name__, "message": reason, "line": None}}


def exception_report(exc: BaseException, filename: str, hint: str = "") -> ChildReport:
    """An exception that escaped the script, classified: memory_error or exception (a refusal
    is never told from an exception: zygote/refusals.py); ``hint`` is Python's suggestion, which
    ends the message as Python's display ends it, unless a z3-aware hint replaces it where
    Python's words mislead (child/hints.py: ``as_int``, where Python suggests ``is_int``)."""
    hint = hints.hint(exc) or hint
    message = message_of(exc)
    if hint:
        message += f"{'' if message.endswith('.') else '.'} {hint}"
    kind = type(exc).__name__
    if isinstance(exc, SystemExit):
        message = f"the script called sys.exit({message_of(repr(exc.code))})"
    frames = _script_frames(exc, filename)
    line = frames[-1][0] if frames else None
    details: ChildException = {"type": kind, "message": message, "line": line}
    # The reason is capped as a whole; the message is cut first so the script line always shows.
    shown = message if len(message) <= REASON_MESSAGE_CAP else (
        f"{message[:REASON_MESSAGE_CAP]}… [{len(message) - REASON_MESSAGE_CAP} more characters]")
    reason = f"{kind}: {shown}" if message else kind
    if frames:
        reason += f" (line {line}: `{frames[-1][2]}`)"
    if isinstance(exc, MemoryError) or (
        isinstance(exc, z3.Z3Exception) and any(word in message for word in models.MEMORY_WORDS)
    ):
        return {"outcome": "memory_error", "reason": reason, "exception": details}
    if len(frames) > 1:
        reason += "\nScript traceback, innermost last:" + _traceback_text(frames)
    return {"outcome": "exception", "exception": details,
            "reason": models.clean_text(reason, MAX_REASON)}


def print_like_python(exc: BaseException, filename: str) -> str:
    """What ``python script.py`` writes to stderr when ``exc`` ends it: the traceback from the
    script's first frame on (the harness's frames are left out), or the sys.exit() message.
    Returns Python's hint ("Did you mean: 'model'?"), or "".

    The traceback is the interpreter's own display (``sys.__excepthook__``), as a plain run's: on
    Python 3.11 only it adds the suggestions of a misspelt name (the traceback module does not),
    and it reads the source lines from the script's file, which is there while it prints."""
    try:
        if isinstance(exc, SystemExit):
            if exc.code is not None and not isinstance(exc.code, int):
                print(exc.code, file=sys.stderr)
            return ""
        tb = exc.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != filename:
            tb = tb.tb_next
        exc.__traceback__ = tb
        _drop_harness_frames(exc)
        text = _displayed(exc, filename)
        sys.stderr.write(text)
        return _hint(exc, text)
    except BaseException:  # a broken stderr or an unprintable exception: the report still goes
        return ""


def _displayed(exc: BaseException, filename: str) -> str:
    """The interpreter's display of ``exc``, with the script's file present for its source lines
    (written for the moment if the script's folder lacks it); the traceback module's if that fails."""
    written = None
    shown = io.StringIO()
    stderr = sys.stderr
    try:
        cached = linecache.cache.get(filename)
        lines: list[str] = list(cached[2]) if cached is not None and len(cached) > 2 else []
        path = os.path.join(_SCRIPT_FOLDER[0], filename) if _SCRIPT_FOLDER else filename
        if lines and not os.path.exists(path):
            with open(path, "x", encoding="utf-8") as handle:
                handle.write("".join(lines))
            written = path
        sys.stderr = shown
        sys.__excepthook__(type(exc), exc, exc.__traceback__)
    except BaseException:
        shown = io.StringIO("".join(traceback.TracebackException.from_exception(exc).format()))
    finally:
        sys.stderr = stderr
        if written is not None:
            with contextlib.suppress(OSError):
                os.unlink(written)
    return shown.getvalue()


def _hint(exc: BaseException, text: str) -> str:
    """Python's suggestion at the end of the display's last line, when the message lacks it."""
    last = text.rstrip("\n").rpartition("\n")[2]
    found = _HINT.search(last)
    if found is None or found.group(1) in message_of(exc):
        return ""
    return found.group(1)


def _drop_harness_frames(exc: BaseException) -> None:
    """Leave out the sandbox's own frames (the audit hook that refused an operation sits at the
    innermost end of a blocked script's traceback): ``python script.py`` has no such frames."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        current = todo.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        kept = []
        tb = current.__traceback__
        while tb is not None:
            if not tb.tb_frame.f_code.co_filename.startswith(_PACKAGE_DIR):
                kept.append(tb)
            tb = tb.tb_next
        rebuilt: types.TracebackType | None = None
        for frame in reversed(kept):
            rebuilt = types.TracebackType(rebuilt, frame.tb_frame, frame.tb_lasti, frame.tb_lineno)
        current.__traceback__ = rebuilt
        todo += [current.__cause__, current.__context__]


def message_of(exc: object) -> str:
    """``str(exc)`` that cannot raise or be huge; z3 messages are sometimes bytes."""
    try:
        value = exc.value if isinstance(exc, z3.Z3Exception) else exc
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    except BaseException:
        text = f"<unprintable {type(exc).__name__}>"
    return models.clean_text(text, MAX_MESSAGE)


def describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {message_of(exc)}"


def _traceback_text(frames: list[tuple[int, str, str]]) -> str:
    """The last few script frames, a run of one repeated frame (recursion) shown once."""
    runs = [(frame, len(list(group))) for frame, group in itertools.groupby(frames)]
    return "".join(
        f"\n  line {line} in {function}: `{text}`" + (f" ({count} times)" if count > 1 else "")
        for (line, function, text), count in runs[-TRACEBACK_LINES:]
    )


def _script_frames(exc: BaseException, filename: str) -> list[tuple[int, str, str]]:
    """(line, function, source) of the script's frames in the traceback, outermost first."""
    frames = []
    tb: types.TracebackType | None = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == filename:
            text = linecache.getline(filename, tb.tb_lineno).strip()
            frames.append((tb.tb_lineno, code.co_name, models.clean_text(text, 200)))
        tb = tb.tb_next
    return frames
