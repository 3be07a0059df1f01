"""byte_N models as bytes: overlaid on a seed input (solve a header, keep the rest of the packet)."""

from __future__ import annotations

import re
from collections.abc import Container, Iterator, Sequence
from itertools import islice
from typing import Any

from ..protocol import (
    SHOWN_MODEL_MAX_BYTES,
    SHOWN_MODEL_MAX_ENTRIES,
    ByteConstant,
    JsonValue,
    Smt2Pairs,
    join_pairs,
)


def _rule_error(constant: ByteConstant, max_bytes: int) -> str | None:
    name, value = constant["name"], constant["value"]
    if constant["index"] >= max_bytes:
        return f"{name}: index {constant['index']} is past the maximum payload length of {max_bytes} bytes"
    if constant["sort"] == "bv":
        if constant["width"] != 8:
            return f"{name}: a bit-vector of width {constant['width']}, not 8"
    elif constant["sort"] != "int":
        return f"{name}: of sort {constant['sort']}; byte_N must be an 8-bit bit-vector or an integer"
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 255:
        return f"{name}: value {value!r} is not a byte (0..255)"
    return None


def _runs(runs: Sequence[Sequence[Any]]) -> list[tuple[int, bytes]]:
    """The child's [[start, hex], ...] runs, checked for shape (they come from untrusted code)."""
    checked = []
    for run in runs:
        start, text = run
        if isinstance(start, bool) or not isinstance(start, int) or start < 0 or not isinstance(text, str):
            raise ValueError("malformed byte run")
        checked.append((start, bytes.fromhex(text)))
    return checked


def build_payload(
    constants: Sequence[ByteConstant], runs: Sequence[Sequence[Any]], seed: bytes | None, max_bytes: int
) -> tuple[bytes | None, str | None]:
    """(payload, error).  Every rule, and the length, is checked before the payload is allocated."""
    if not constants and not runs:
        return None, None
    errors = [error for c in constants if (error := _rule_error(c, max_bytes)) is not None]
    try:
        checked = _runs(runs)
    except (ValueError, TypeError):
        return None, "the candidate reported malformed byte_N values"
    end = max((start + len(data) for start, data in checked), default=0)
    if end > max_bytes:
        errors.append(f"byte_{end - 1}: index {end - 1} is past the maximum payload length of "
                      f"{max_bytes} bytes")
    if errors:
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        return None, errors[0] + more
    payload = bytearray(max(len(seed or b""), end))
    payload[: len(seed or b"")] = seed or b""
    for start, data in checked:
        payload[start : start + len(data)] = data
    return bytes(payload), None


def _hex_only(model: Container[str], runs: Sequence[Sequence[Any]],
              max_bytes: int) -> Iterator[tuple[str, int]]:
    """(name, value) of the byte_N in ``runs`` that ``model`` does not list: the 8-bit bit-vectors
    the harness sent as hex only (protocol.INLINE_BYTE_CONSTANTS).  Only indexes below
    ``max_bytes``: past it a byte is a payload error, and a model of what a forged run claims
    could grow past any frame (the payload error names the first such byte)."""
    for start, hex_text in runs:
        if start >= max_bytes:
            continue
        for offset, value in enumerate(bytes.fromhex(hex_text[: 2 * (max_bytes - start)])):
            name = f"byte_{start + offset}"
            if name not in model:
                yield name, value


def cut_runs(runs: Sequence[Sequence[Any]], max_bytes: int) -> list[list[Any]]:
    """The runs' bytes below ``max_bytes`` only: what a model may list (see ``_hex_only``)."""
    return [[start, hex_text[: 2 * (max_bytes - start)]] for start, hex_text in runs if start < max_bytes]


def expand_model(model: dict[str, JsonValue], runs: Sequence[Sequence[Any]], max_bytes: int,
                 max_entries: int = SHOWN_MODEL_MAX_ENTRIES) -> tuple[dict[str, JsonValue], int]:
    """The model as z3 gave it, with the byte_N that travelled as hex only put back up to
    ``max_entries`` entries in all; and how many of them were left out (the payload has them)."""
    if not runs:
        return model, 0
    expanded = dict(model)
    expanded.update(islice(_hex_only(model, runs, max_bytes), max(0, max_entries - len(model))))
    if len(expanded) < max_entries:
        return expanded, 0
    total = sum(min(len(hex_text) // 2, max_bytes - start) for start, hex_text in cut_runs(runs, max_bytes))
    inline = sum(1 for name in model if name.startswith("byte_"))
    return expanded, max(0, total - inline - (len(expanded) - len(model)))


def cap_model(model: dict[str, JsonValue], max_entries: int = SHOWN_MODEL_MAX_ENTRIES,
              max_bytes: int = SHOWN_MODEL_MAX_BYTES) -> tuple[dict[str, JsonValue], int]:
    """The first entries of ``model`` within ``max_entries`` and about ``max_bytes`` of text, and
    how many were left out: what the host may hold of a model a candidate reported."""
    kept: dict[str, JsonValue] = {}
    size = 0
    for name, value in model.items():
        size += len(name) + (len(value) if isinstance(value, str) else 24)
        if len(kept) >= max_entries or size > max_bytes:
            break
        kept[name] = value
    return kept, len(model) - len(kept)


# A byte_N in a model was declared in the assertions: "(declare-fun byte_N () (_ BitVec 8))".
DECLARATION_CHARS = 30


def expand_smt2_pairs(pairs: Smt2Pairs, model: dict[str, JsonValue], runs: Sequence[Sequence[Any]],
                      max_bytes: int, assertions_chars: int) -> Smt2Pairs:
    """The model's SMT-LIB pairs for verification, with the hex-only byte_N put back (#xHH): no
    more than ``assertions_chars`` of assertions can declare, so a forged run cannot make the
    zygote write millions.  The pairs stay one string (protocol.Smt2Pairs): a byte_N that has a
    pair of its own is found in it by its name and its value, not by splitting it."""
    if not runs:
        return pairs
    named = {f"byte_{index}" for index in _PAIRED_BYTE.findall(pairs)} | model.keys()
    hex_only = islice(_hex_only(named, runs, max_bytes), assertions_chars // DECLARATION_CHARS)
    return pairs + join_pairs((name, f"#x{value:02x}") for name, value in hex_only)


# A byte_N's pair: its name where a name starts (the string's start, or after a value's NUL) and an
# 8-bit literal.  A value is never a symbol, and a string value is quoted: only names match.
_PAIRED_BYTE = re.compile(r"(?:^|\x00)byte_(0|[1-9][0-9]*)\x00#x[0-9a-fA-F]{2}\x00")
