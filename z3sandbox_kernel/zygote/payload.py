"""byte_N models as bytes: overlaid on a seed input (solve a header, keep the rest of the packet)."""

from __future__ import annotations

from collections.abc import Sequence

from ..protocol import ByteConstant


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


def build_payload(
    constants: Sequence[ByteConstant], seed: bytes | None, max_bytes: int
) -> tuple[bytes | None, str | None]:
    """(payload, error).  Every rule is checked before anything is allocated."""
    if not constants:
        return None, None
    errors = [error for c in constants if (error := _rule_error(c, max_bytes)) is not None]
    if errors:
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        return None, errors[0] + more
    length = max(len(seed or b""), 1 + max(c["index"] for c in constants))
    payload = bytearray(length)
    payload[: len(seed or b"")] = seed or b""
    for constant in constants:
        payload[constant["index"]] = int(constant["value"])  # type: ignore[arg-type]
    return bytes(payload), None
