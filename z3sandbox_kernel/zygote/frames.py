"""The trust boundary: a child's result descriptor, read under a budget and decoded into the
protocol's own types before the zygote uses any of it.

Everything on the descriptor after the setup frame was written by a process that ran user code, so
it is hostile until checked.  Three gates, in order:

1. As bytes arrive (``ResultReader.feed``): the per-candidate byte budget, each frame's announced
   length against what is left of it, at most ``MAX_CHILD_FRAMES`` frames, and none after the
   result.  A stack frame
   (``StackReport``, at most ``STACK_FRAME_MAX_BYTES``, ``MAX_STACK_FRAMES`` of them) is decoded
   at once through gates 2 and 3: the zygote acts on it while the candidate runs (trees.py).
   A violation ends the candidate at once, so no candidate can make the zygote buffer or decode
   more than its budget.
2. Before decoding (``check_depth``): the nesting depth, found in passes over bytes done in C
   (strings out, then innermost ``[]``/``{}`` pairs removed per pass), so no parser ever sees a
   100,000-deep frame.  msgspec has no depth limit of its own.
3. Decoding (``decode``): msgspec decodes the frame into ``SetupFrame``, ``CheckFrame``,
   ``CheckModelFrame``, ``StackReport``, ``ChildReport`` or ``VerifyReport`` (protocol/messages.py)
   with their bounds: types, required fields, valid UTF-8 (a lone
   surrogate would break re-encoding), ranges, hex, pair shapes.  Unknown fields are dropped.  What
   msgspec cannot say is checked after it: the protocol version, the frame's type, a fraction's
   denominator.

A frame that fails any gate makes that candidate ``internal_error`` with a reason that says what
was wrong (``FrameError``, its words translated from msgspec's); nothing else is affected.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, TypedDict, TypeVar

import msgspec

from ..protocol import (
    MAX_CHILD_FRAMES,
    MAX_FRAME_DEPTH,
    MAX_FRAME_VALUES,
    MAX_STACK_FRAMES,
    PROTOCOL_VERSION,
    STACK_FRAME_MAX_BYTES,
    CheckFrame,
    CheckModelFrame,
    ChildReport,
    SetupFrame,
    StackReport,
    VerifyReport,
    frame_length,
)

_HEADER_BYTES = 4
_EMPTY_PAIR = re.compile(rb"\[\]|\{\}")
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_ESCAPED_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")
_NOT_A_NUMBER = re.compile(rb"[:,\[]\s*-?(?:Infinity|NaN)\b")  # Python's json.dumps writes them
# A stack frame says so at its start: {"v":1,"type":"stack",... (child/stack.py).
_STACK_TYPE = re.compile(rb'"type"\s*:\s*"stack"')
_STACK_TYPE_WITHIN = 48
# How the harness writes a check's frames (child/checks.py, encode_frame): a frame between the setup
# frame and the result is one of them, and any other frame is the result.
CHECK_PREFIX = b'{"v":%d,"type":"check' % PROTOCOL_VERSION


class FrameError(ValueError):
    """A frame that breaks the budget or the schema; the message says what was wrong."""


class ResultReader:
    """One child's result descriptor as it arrives: budget, frame lengths and count are checked per
    chunk; complete frames are kept as bytes and parsed once the child has ended."""

    def __init__(self, budget: int, between: Callable[[], None] = lambda: None) -> None:
        self.budget = budget
        # Called between the steps of a parse (depth gate, JSON, schema): the zygote enforces the
        # other candidates' deadlines there, so a large report stalls them one step at a time.
        self.between = between
        self.total = 0
        self.pending = bytearray()
        self.frames: list[bytes] = []
        self.stacks: list[StackReport] = []  # the script's stack, when a limit was about to end it
        self.error: str | None = None
        self.whole = False  # the result frame has arrived: nothing may follow it

    def feed(self, chunk: bytes) -> str | None:
        """Take ``chunk``; the violation, if this chunk made one (the candidate is then ended)."""
        if self.error is not None:
            return None
        self.total += len(chunk)
        if self.total > self.budget:
            self.error = f"the result message passed its budget of {self.budget} bytes"
            return self.error
        self.pending.extend(chunk)
        while len(self.pending) >= _HEADER_BYTES:
            length = frame_length(bytes(self.pending[:_HEADER_BYTES]))
            if self.whole:
                self.error = "protocol violation: a frame after the result on the result descriptor"
                return self.error
            if len(self.frames) >= MAX_CHILD_FRAMES:
                self.error = (f"protocol violation: more than {MAX_CHILD_FRAMES} frames on the result "
                              "descriptor (a setup frame, the checks' frames, then one result)")
                return self.error
            if length > self.budget - (self.total - len(self.pending)) - _HEADER_BYTES:
                self.error = f"a result frame of {length} bytes is over the budget of {self.budget} bytes"
                return self.error
            if len(self.pending) < _HEADER_BYTES + length:
                break
            body = bytes(self.pending[_HEADER_BYTES:_HEADER_BYTES + length])
            del self.pending[:_HEADER_BYTES + length]
            if self.frames and _STACK_TYPE.search(body, 0, _STACK_TYPE_WITHIN):
                self.error = self._take_stack(body)
                if self.error:
                    return self.error
                continue
            self.frames.append(body)
            self.whole = len(self.frames) > 1 and not self.frames[-1].startswith(CHECK_PREFIX)
        return None

    def _take_stack(self, body: bytes) -> str | None:
        """A stack frame, decoded at once (it is small and bounded: the zygote acts on it while the
        candidate still runs); the violation, if it breaks the rules."""
        if len(self.stacks) >= MAX_STACK_FRAMES:
            return f"protocol violation: more than {MAX_STACK_FRAMES} stack frames on the result descriptor"
        if len(body) > STACK_FRAME_MAX_BYTES:
            return f"a stack frame of {len(body)} bytes is over {STACK_FRAME_MAX_BYTES} bytes"
        try:
            self.stacks.append(decode(body, StackReport, "a stack frame", "stack"))
        except FrameError as exc:
            return f"the child's stack frame is malformed: {exc}"
        return None


# ---------------------------------------------------------------------------------------- parsing

def check_depth(body: bytes, limit: int = MAX_FRAME_DEPTH) -> None:
    """Raise unless ``body``'s brackets nest at most ``limit`` deep and balance, and it can hold at
    most MAX_FRAME_VALUES values (done in C passes, nothing built a value): what decoding it
    would build is bounded before it is decoded."""
    # An upper bound, counted before anything is built: every value but the last is followed by a
    # comma, every string has two quotes (a comma or quote inside a string only counts more).
    values = max(body.count(b","), body.count(b'"') // 2)
    if values > MAX_FRAME_VALUES:
        raise FrameError(f"holds up to {values:,} values, over the {MAX_FRAME_VALUES:,} a frame "
                         "may make the zygote build")
    # Strings out: escaped backslashes, then escaped quotes, then every other quoted stretch.
    flat = body.replace(b"\\\\", b"").replace(b'\\"', b"")
    brackets = b"".join(flat.split(b'"')[0::2]).translate(None, _NOT_BRACKETS)
    for _ in range(limit):
        if not brackets:
            return
        brackets = _EMPTY_PAIR.sub(b"", brackets)
    if brackets:
        raise FrameError(f"nested deeper than {limit} levels (or unbalanced brackets)")


class _Head(TypedDict, total=False):
    """What a frame says it is; read only to explain a frame that did not decode."""

    v: Any
    type: Any


Frame = TypeVar("Frame", SetupFrame, ChildReport, VerifyReport, StackReport, CheckFrame, CheckModelFrame)
_DECODERS: dict[Any, msgspec.json.Decoder[Any]] = {
    kind: msgspec.json.Decoder(kind)
    for kind in (SetupFrame, ChildReport, VerifyReport, StackReport, CheckFrame, CheckModelFrame, _Head)}
_NAMES = {SetupFrame: "setup frame", ChildReport: "report", VerifyReport: "verification report",
          StackReport: "stack frame", CheckFrame: "check frame", CheckModelFrame: "check's model frame"}


def decode(body: bytes, kind: type[Frame], what: str, kind_name: str,
           between: Callable[[], None] = lambda: None) -> Frame:
    """``body`` decoded into ``kind`` (its ``type`` field must be ``kind_name``), after the depth
    gate, with the protocol version checked; ``what`` names the frame in errors."""
    try:
        check_depth(body)
    except FrameError as exc:
        raise FrameError(f"{what}: {exc}") from None
    between()
    try:
        message: Any = _DECODERS[kind].decode(body)
    except msgspec.ValidationError as exc:
        _check_head(body, what, kind_name)  # a frame of another version or type says so first
        raise FrameError(_words(str(exc), _NAMES[kind], body)) from None
    except msgspec.DecodeError as exc:
        if _ESCAPED_SURROGATE.search(body):  # msgspec says "truncated" of a lone \\ud800
            raise FrameError(f"{what} holds a lone surrogate (not valid Unicode) or is cut short") from None
        if _NOT_A_NUMBER.search(body):
            raise FrameError(f"{what} holds NaN or Infinity: not a model value, and not JSON") from None
        raise FrameError(f"{what} is not UTF-8 JSON: {str(exc)[:200]}") from None
    between()
    _check_head(message, what, kind_name)
    for where, runs in _byte_runs(message):
        if any(len(run[1]) % 2 for run in runs):
            raise FrameError(f"{_NAMES[kind]}{where} is not hex digits in pairs")
    for where, values in _model_values(message):
        for name, value in values:
            if type(value) is dict and (len(value) != 1 or value.get("fraction", (0, 0))[1] == 0):
                raise FrameError(f"{_NAMES[kind]}{where}[{name[:40]!r}] is not a model value: a fraction"
                                 " is {\"fraction\": [numerator, denominator]}, denominator 0 excluded")
    checked: Frame = message  # of its type now: msgspec and the checks above say so
    return checked


def _model_values(message: Mapping[str, Any]) -> Iterator[tuple[str, Iterable[tuple[str, Any]]]]:
    """Every model value a frame holds (its model, further models, objectives), with where."""
    yield ".model", message.get("model", {}).items()
    for field in ("more_models", "more"):
        for i, further in enumerate(message.get(field, ())):
            yield f".{field}[{i}].model", further.get("model", {}).items()
    yield ".objectives", ((o["term"], o["value"]) for o in message.get("objectives", ()))
    checked = enumerate(message.get("checked_objectives", ()))
    yield ".checked_objectives", ((str(i), o["value"]) for i, o in checked)


def _byte_runs(message: Mapping[str, Any]) -> Iterator[tuple[str, Iterable[Any]]]:
    """Every list of byte runs a frame holds, with where (protocol.HexPairs)."""
    yield ".byte_runs", message.get("byte_runs", ())
    for field in ("more_models", "more", "checks"):
        for i, further in enumerate(message.get(field, ())):
            yield f".{field}[{i}].byte_runs", further.get("byte_runs", ())


def _check_head(message: bytes | Mapping[str, Any], what: str, kind_name: str) -> None:
    if isinstance(message, bytes):
        try:
            message = _DECODERS[_Head].decode(message)
        except msgspec.MsgspecError:
            return  # not even an object: msgspec's own words say so
    assert isinstance(message, Mapping)
    if message.get("v") != PROTOCOL_VERSION:
        raise FrameError(f"{what} has protocol version {str(message.get('v'))[:20]!r}, "
                         f"not {PROTOCOL_VERSION}")
    if message.get("type") != kind_name:
        raise FrameError(f"{what} is of type {str(message.get('type'))[:40]!r}, not {kind_name!r}")


Report = TypeVar("Report", ChildReport, VerifyReport)


def parse(reader: ResultReader, kind: type[Report]) -> tuple[SetupFrame | None, Report | None, str | None]:
    """(setup frame, checked result, error) of a child that has ended.  ``kind``: ``ChildReport``
    (a run, or the probe: its setup frame only) or ``VerifyReport`` (a verifier).  The setup frame,
    written before user code ran, is read even when what followed broke the rules."""
    setup: SetupFrame | None = None
    frames, leftover = reader.frames, len(reader.pending)
    try:
        if frames:
            setup = decode(frames[0], SetupFrame, "the setup frame", "setup")
        if reader.error is not None:
            raise FrameError(reader.error)
        if leftover:
            raise FrameError(f"the result descriptor ends inside a frame ({leftover} bytes left over)")
        if not reader.whole:
            return setup, None, None
        return setup, decode(frames[-1], kind, "the result frame", "result", reader.between), None
    except FrameError as exc:
        return setup, None, f"the child's result message is malformed: {exc}"


# ------------------------------------------------------------------- msgspec's errors, in our words

_EXPECTED = re.compile(r"Expected `(?P<want>[^`]+)`(?:, got `(?P<got>[^`]+)`)?(?P<rest>.*)", re.S)
_MISSING = re.compile(r"Object missing required field `(?P<field>[^`]+)`")
_ENUM = re.compile(r"Invalid enum value (?P<value>.*)", re.S)
_JSON_TYPES = {"array": "list", "object": "dict", "null": "None"}
_WANTED = {"array": "a list", "object": "an object", "str": "a string", "int": "an integer",
           "bool": "a boolean", "bool | null": "a boolean or null"}


def _words(error: str, what: str, body: bytes) -> str:
    """msgspec's ``error`` about a ``what``, in the words the zygote reports."""
    detail, _, path = error.partition(" - at `$")
    path = path.rstrip("`")
    where = what + path
    expected, missing, enum = _EXPECTED.fullmatch(detail), _MISSING.fullmatch(detail), _ENUM.fullmatch(detail)
    if path.endswith("model[...]"):  # a model value's own shape
        words = f"is not a model value ({detail[:120]})"
    elif missing:
        words = f"lacks {missing['field']}"
    elif enum:
        leaf = re.sub(r"\[.*", "", path.rsplit(".", 1)[-1]) or "value"
        words = f"is not a{'n' if leaf[0] in 'aeiou' else ''} {leaf}: {enum['value'][:40]}"
    elif expected and expected["got"]:
        got = _JSON_TYPES.get(expected["got"], expected["got"])
        words = f"is a {got}, not {_WANTED.get(expected['want'], expected['want'])}"
    elif expected and expected["rest"].startswith(" of length"):
        words = f"has {_length_at(body, path)} items, not{expected['rest'][len(' of length'):]}"
    elif expected and expected["rest"].startswith(" >= 0"):
        words = "is negative"
    elif expected and expected["rest"].startswith(" matching regex"):  # protocol.HexPairs, the only one
        words = "is not hex digits in pairs"
    else:
        words = f"is wrong: {detail[:200]}"
    return f"{where[:200]} {words}"


def _length_at(body: bytes, path: str) -> str:
    """The length of the list at ``path`` (``.a[0].b``), read again on this error path only."""
    value: Any = msgspec.json.decode(body)
    for name, index in re.findall(r"\.([^.\[]+)|\[(\d+)\]", path):
        value = value[name] if name else value[int(index)]
    return str(len(value)) if isinstance(value, list) else "the wrong number of"


def parse_checks(reader: ResultReader) -> tuple[list[CheckFrame | CheckModelFrame], str | None]:
    """The check frames between the setup frame and the result, decoded (``CheckFrame`` and
    ``CheckModelFrame``), in the order they came; a frame that fails makes the error."""
    found: list[CheckFrame | CheckModelFrame] = []
    end = len(reader.frames) - (1 if reader.whole else 0)
    try:
        for body in reader.frames[1:end]:
            if body.startswith(CHECK_PREFIX + b'_model"'):
                found.append(decode(body, CheckModelFrame, "a check's model frame", "check_model",
                                    reader.between))
            else:
                found.append(decode(body, CheckFrame, "a check frame", "check", reader.between))
    except FrameError as exc:
        return found, f"the child's result message is malformed: {exc}"
    return found, None
