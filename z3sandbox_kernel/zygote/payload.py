"""byte_N models as bytes: overlaid on a seed input (solve a header, keep the rest of the packet)."""

from __future__ import annotations

from collections.abc import Sequence

from ..protocol import SHOWN_MODEL_MAX_BYTES, SHOWN_MODEL_MAX_ENTRIES, ByteConstant, JsonValue
from ..protocol.byte_runs import Runs, run_bytes


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
    constants: Sequence[ByteConstant], runs: Runs, seed: bytes | None, max_bytes: int
) -> tuple[bytes | None, str | None]:
    """(payload, error).  Every rule, and the length, is checked before the payload is allocated."""
    if not constants and not runs:
        return None, None
    errors = [error for c in constants if (error := _rule_error(c, max_bytes)) is not None]
    try:
        checked = list(run_bytes(runs))  # from untrusted code: checked for shape
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
