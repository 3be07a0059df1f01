"""Byte runs (``ByteRun``: [start index, hex]), the hex-only byte_N a child sent
(``INLINE_BYTE_CONSTANTS``), read in one place: ``run_bytes`` turns runs into bytes, and every
reader goes through it: the host's model (``expand_model``, off the zygote's loop), the verifier's
SMT-LIB pairs in the zygote (``expand_smt2_pairs``), the payload (zygote/payload.py).  A protocol
matter, so that the host imports nothing of the zygote for it."""

from __future__ import annotations

import re
from collections.abc import Container, Iterator, Sequence
from itertools import islice
from typing import Any

from .messages import Smt2Pairs, join_pairs
from .wire import SHOWN_MODEL_MAX_ENTRIES, JsonValue

Runs = Sequence[Sequence[Any]]  # [[start, hex], ...]: checked by the frame's gate, or here


def _cut(runs: Runs, max_bytes: int | None) -> Iterator[tuple[int, str]]:
    """Each run's start and hex, checked for shape (a run can come from untrusted code: a
    ``ValueError``), its bytes at ``max_bytes`` and past it cut off (None: nothing cut).  Past
    ``max_bytes`` a byte is a payload error, and a model of what a forged run claims could grow
    past any frame (the payload error names the first such byte)."""
    for start, hex_text in runs:
        if type(start) is not int or start < 0 or not isinstance(hex_text, str):  # bool is no index
            raise ValueError("malformed byte run")
        if max_bytes is None:
            yield start, hex_text
        elif start < max_bytes:
            yield start, hex_text[: 2 * (max_bytes - start)]


def run_bytes(runs: Runs, max_bytes: int | None = None) -> Iterator[tuple[int, bytes]]:
    """The one expander: each run's start and its bytes, below ``max_bytes`` (see ``_cut``)."""
    for start, hex_text in _cut(runs, max_bytes):
        yield start, bytes.fromhex(hex_text)


def hex_only(model: Container[str], runs: Runs, max_bytes: int) -> Iterator[tuple[str, int]]:
    """(name, value) of the byte_N in ``runs`` below ``max_bytes`` that ``model`` does not list:
    the 8-bit bit-vectors the harness sent as hex only (protocol.INLINE_BYTE_CONSTANTS)."""
    for start, data in run_bytes(runs, max_bytes):
        for offset, value in enumerate(data):
            name = f"byte_{start + offset}"
            if name not in model:
                yield name, value


def cut_runs(runs: Runs, max_bytes: int) -> list[list[Any]]:
    """The runs' bytes below ``max_bytes`` only, as runs: what a model may list (see ``_cut``)."""
    return [[start, hex_text] for start, hex_text in _cut(runs, max_bytes)]


def expand_model(model: dict[str, JsonValue], runs: Runs, max_bytes: int,
                 max_entries: int = SHOWN_MODEL_MAX_ENTRIES) -> tuple[dict[str, JsonValue], int]:
    """The model as z3 gave it, with the byte_N that travelled as hex only put back up to
    ``max_entries`` entries in all; and how many of them were left out (the payload has them)."""
    if not runs:
        return model, 0
    expanded = dict(model)
    expanded.update(islice(hex_only(model, runs, max_bytes), max(0, max_entries - len(model))))
    if len(expanded) < max_entries:
        return expanded, 0
    total = sum(len(hex_text) // 2 for _, hex_text in _cut(runs, max_bytes))
    inline = sum(1 for name in model if name.startswith("byte_"))
    return expanded, max(0, total - inline - (len(expanded) - len(model)))


# A byte_N in a model was declared in the assertions: "(declare-fun byte_N () (_ BitVec 8))".
DECLARATION_CHARS = 30


def expand_smt2_pairs(pairs: Smt2Pairs, model: dict[str, JsonValue], runs: Runs,
                      max_bytes: int, assertions_chars: int) -> Smt2Pairs:
    """The model's SMT-LIB pairs for verification, with the hex-only byte_N put back (#xHH): no
    more than ``assertions_chars`` of assertions can declare, so a forged run cannot make the
    zygote write millions.  The pairs stay one string (protocol.Smt2Pairs): a byte_N that has a
    pair of its own is found in it by its name and its value, not by splitting it."""
    if not runs:
        return pairs
    named = {f"byte_{index}" for index in _PAIRED_BYTE.findall(pairs)} | model.keys()
    missing = islice(hex_only(named, runs, max_bytes), assertions_chars // DECLARATION_CHARS)
    return pairs + join_pairs((name, f"#x{value:02x}") for name, value in missing)


# A byte_N's pair: its name where a name starts (the string's start, or after a value's NUL) and an
# 8-bit literal.  A value is never a symbol, and a string value is quoted: only names match.
_PAIRED_BYTE = re.compile(r"(?:^|\x00)byte_(0|[1-9][0-9]*)\x00#x[0-9a-fA-F]{2}\x00")
