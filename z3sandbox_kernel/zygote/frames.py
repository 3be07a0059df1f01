"""The trust boundary: a child's result descriptor, read under a budget and checked against a strict
schema before the zygote uses any of it.

Everything on the descriptor after the setup frame was written by a process that ran user code, so
it is hostile until checked.  Three gates, in order:

1. As bytes arrive (``ResultReader.feed``): the per-candidate byte budget, each frame's announced
   length against what is left of it, and at most ``MAX_CHILD_FRAMES`` frames.  A violation ends the
   candidate at once, so no candidate can make the zygote buffer or decode more than its budget.
2. Before parsing (``check_depth``): the nesting depth, found in passes over bytes done in C
   (strings out, then innermost ``[]``/``{}`` pairs removed per pass), so the recursive JSON parser
   never sees a 100,000-deep frame.
3. After parsing: the schema below, field by field (types, valid strings -- a lone surrogate would
   break re-encoding --, model value shapes, core and byte-run shapes).  Unknown fields are dropped.

A frame that fails any gate makes that candidate ``internal_error`` with a reason that says what
was wrong (``FrameError``); nothing else is affected.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, cast

from ..protocol import (
    MAX_CHILD_FRAMES,
    MAX_FRAME_DEPTH,
    PROTOCOL_VERSION,
    ChildReport,
    JsonValue,
    LayerReport,
    SetupFrame,
    VerifyReport,
    frame_length,
)

_HEADER_BYTES = 4
_EMPTY_PAIR = re.compile(rb"\[\]|\{\}")
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_SURROGATE = re.compile("[\ud800-\udfff]")
_HEX = re.compile("(?:[0-9a-fA-F]{2})*")
_OUTCOMES = frozenset({"sat", "unsat", "unknown", "no_check", "syntax_error", "exception",
                       "memory_error", "blocked", "internal_error"})


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
        self.error: str | None = None

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
            if len(self.frames) >= MAX_CHILD_FRAMES:
                self.error = (f"protocol violation: more than {MAX_CHILD_FRAMES} frames on the result "
                              "descriptor (a setup frame, then one result)")
                return self.error
            if length > self.budget - (self.total - len(self.pending)) - _HEADER_BYTES:
                self.error = f"a result frame of {length} bytes is over the budget of {self.budget} bytes"
                return self.error
            if len(self.pending) < _HEADER_BYTES + length:
                break
            self.frames.append(bytes(self.pending[_HEADER_BYTES:_HEADER_BYTES + length]))
            del self.pending[:_HEADER_BYTES + length]
        return None


# ---------------------------------------------------------------------------------------- parsing

def check_depth(body: bytes, limit: int = MAX_FRAME_DEPTH) -> None:
    """Raise unless ``body``'s brackets nest at most ``limit`` deep and balance (done in C passes)."""
    # Strings out: escaped backslashes, then escaped quotes, then every other quoted stretch.
    flat = body.replace(b"\\\\", b"").replace(b'\\"', b"")
    brackets = b"".join(flat.split(b'"')[0::2]).translate(None, _NOT_BRACKETS)
    for _ in range(limit):
        if not brackets:
            return
        brackets = _EMPTY_PAIR.sub(b"", brackets)
    if brackets:
        raise FrameError(f"nested deeper than {limit} levels (or unbalanced brackets)")


def load(body: bytes, what: str, between: Callable[[], None] = lambda: None) -> dict[str, Any]:
    """A frame's JSON object, after the depth gate, with the protocol version checked."""
    try:
        check_depth(body)
        between()
        value = json.loads(body.decode("utf-8"))
        between()
    except FrameError as exc:
        raise FrameError(f"{what}: {exc}") from None
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise FrameError(f"{what} is not UTF-8 JSON: {str(exc)[:200]}") from None
    if not isinstance(value, dict):
        raise FrameError(f"{what} is a JSON {type(value).__name__}, not an object")
    if value.get("v") != PROTOCOL_VERSION:
        raise FrameError(f"{what} has protocol version {str(value.get('v'))[:20]!r}, "
                         f"not {PROTOCOL_VERSION}")
    return value


def parse(reader: ResultReader, phase: str) -> tuple[SetupFrame | None, dict[str, Any] | None, str | None]:
    """(setup frame, checked result, error) of a child that has ended.  ``phase``: "run" (a
    ``ChildReport``), "verify" (a ``VerifyReport``) or "probe" (the setup frame only).  The setup
    frame, written before user code ran, is read even when what followed broke the rules."""
    setup: SetupFrame | None = None
    frames, leftover = reader.frames, len(reader.pending)
    try:
        if frames:
            setup = setup_frame(load(frames[0], "the setup frame"))
        if reader.error is not None:
            raise FrameError(reader.error)
        if leftover:
            raise FrameError(f"the result descriptor ends inside a frame ({leftover} bytes left over)")
        if len(frames) < 2:
            return setup, None, None
        body = load(frames[1], "the result frame", reader.between)
        if body.get("type") != "result":
            raise FrameError(f"the second frame is of type {str(body.get('type'))[:40]!r}, not 'result'")
        if phase == "verify":
            return setup, dict(verify_report(body)), None
        return setup, dict(child_report(body)), None
    except FrameError as exc:
        return setup, None, f"the child's result message is malformed: {exc}"


# ---------------------------------------------------------------------------------------- schema

Check = Callable[[Any, str], Any]


def text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise FrameError(f"{where} is a {type(value).__name__}, not a string")
    if _SURROGATE.search(value):
        raise FrameError(f"{where} holds a lone surrogate (not valid Unicode)")
    return value


def integer(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise FrameError(f"{where} is a {type(value).__name__}, not an integer")
    return value


def natural(value: Any, where: str) -> int:
    if integer(value, where) < 0:
        raise FrameError(f"{where} is negative")
    return int(value)


def boolean(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise FrameError(f"{where} is a {type(value).__name__}, not a boolean")
    return value


def optional(check: Check) -> Check:
    return lambda value, where: None if value is None else check(value, where)


def array(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise FrameError(f"{where} is a {type(value).__name__}, not a list")
    return value


def obj(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise FrameError(f"{where} is a {type(value).__name__}, not an object")
    return value


def tuple_of(*checks: Check) -> Check:
    """A JSON list of exactly these shapes, e.g. a core entry [line, text]."""
    def check(value: Any, where: str) -> list[Any]:
        items = array(value, where)
        if len(items) != len(checks):
            raise FrameError(f"{where} has {len(items)} items, not {len(checks)}")
        return [c(item, f"{where}[{i}]") for i, (c, item) in enumerate(zip(checks, items, strict=True))]
    return check


def list_of(check: Check) -> Check:
    return lambda value, where: [check(item, f"{where}[{i}]") for i, item in enumerate(array(value, where))]


def fields(schema: dict[str, Check], required: frozenset[str] = frozenset()) -> Check:
    """An object with these fields (each checked); unknown fields are dropped."""
    def check(value: Any, where: str) -> dict[str, Any]:
        given = obj(value, where)
        missing = required - set(given)
        if missing:
            raise FrameError(f"{where} lacks {', '.join(sorted(missing))}")
        return {name: schema[name](item, f"{where}.{name}") for name, item in given.items() if name in schema}
    return check


def model_value(value: Any, where: str) -> JsonValue:
    """What ``encode_value`` makes: None, bool, int, str, or {"fraction": [n, d]} with d != 0."""
    if value is None or isinstance(value, (bool, int)):
        return cast(JsonValue, value)
    if isinstance(value, str):
        return text(value, where)
    if isinstance(value, dict) and set(value) == {"fraction"}:
        numerator, denominator = tuple_of(integer, integer)(value["fraction"], f"{where}.fraction")
        if denominator == 0:
            raise FrameError(f"{where} is a fraction with denominator 0")
        return {"fraction": [numerator, denominator]}
    raise FrameError(f"{where} is not a model value (a {type(value).__name__})")


_PLAIN = (type(None), bool, int)


def model(value: Any, where: str) -> dict[str, JsonValue]:
    """Checked in bulk (a model may hold a million entries, and the zygote's loop waits): the
    types in one pass, the strings for surrogates in one search, each other value on its own."""
    given = obj(value, where)
    names = list(given)
    texts = [item for item in given.values() if type(item) is str]
    if _SURROGATE.search("".join(names)) or _SURROGATE.search("".join(texts)):
        raise FrameError(f"{where} holds a lone surrogate (not valid Unicode)")
    for name, item in given.items():
        if type(item) not in _PLAIN and type(item) is not str:
            model_value(item, f"{where}[{name[:40]!r}]")
    return given


def hex_text(value: Any, where: str) -> str:
    if not _HEX.fullmatch(text(value, where)):
        raise FrameError(f"{where} is not hex digits in pairs")
    return str(value)


def outcome(value: Any, where: str) -> str:
    if value not in _OUTCOMES:
        raise FrameError(f"{where} is not an outcome: {str(value)[:40]!r}")
    return str(value)


_BYTE_CONSTANT = fields({"name": text, "index": natural, "sort": text, "width": optional(natural),
                         "value": model_value},
                        frozenset({"name", "index", "sort", "width", "value"}))
_EXCEPTION = fields({"type": text, "message": text, "line": optional(integer)},
                    frozenset({"type", "message"}))
_LAYER = fields({"name": text, "active": boolean, "detail": text, "error": text},
                frozenset({"name", "active"}))
_OBJECTIVE = fields({"term": text, "direction": text, "value": model_value},
                    frozenset({"term", "direction", "value"}))
_FOUND_MODEL = fields({"model": model, "byte_constants": list_of(_BYTE_CONSTANT),
                      "byte_runs": list_of(tuple_of(natural, hex_text)),
                      "model_smt2": list_of(tuple_of(text, text))},
                     frozenset({"model", "byte_constants", "byte_runs", "model_smt2"}))
_CHECKED_MODEL = fields({"verified": optional(boolean), "reason": text, "model": model,
                        "byte_constants": list_of(_BYTE_CONSTANT),
                        "byte_runs": list_of(tuple_of(natural, hex_text))},
                       frozenset({"verified"}))
_CHILD_REPORT = fields({
    "v": integer, "type": text, "outcome": outcome, "reason": text, "solver_timeout": boolean,
    "line": optional(integer), "column": optional(integer), "exception": _EXCEPTION,
    "model": model, "byte_constants": list_of(_BYTE_CONSTANT),
    "byte_runs": list_of(tuple_of(natural, hex_text)),
    "unsat_core": list_of(tuple_of(integer, text)), "assertions_smt2": text,
    "model_smt2": list_of(tuple_of(text, text)), "objectives": list_of(_OBJECTIVE),
    "more_models": list_of(_FOUND_MODEL),
}, frozenset({"outcome"}))
_VERIFY_REPORT = fields({"v": integer, "type": text, "verified": optional(boolean), "reason": text,
                         "model": model, "byte_constants": list_of(_BYTE_CONSTANT),
                         "byte_runs": list_of(tuple_of(natural, hex_text)),
                         "more": list_of(_CHECKED_MODEL)},
                        frozenset({"verified"}))
_SETUP = fields({"v": integer, "type": text, "layers": list_of(_LAYER), "error": optional(text)},
                frozenset({"layers"}))


def child_report(body: dict[str, Any]) -> ChildReport:
    return cast(ChildReport, _CHILD_REPORT(body, "report"))


def verify_report(body: dict[str, Any]) -> VerifyReport:
    return cast(VerifyReport, _VERIFY_REPORT(body, "verification report"))


def setup_frame(body: dict[str, Any]) -> SetupFrame:
    if body.get("type") != "setup":
        raise FrameError("the first frame is not the setup frame")
    checked = _SETUP(body, "setup frame")
    layers = cast(list[LayerReport], checked["layers"])
    return {"v": PROTOCOL_VERSION, "type": "setup", "layers": layers, "error": checked.get("error")}
