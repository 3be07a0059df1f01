"""Byte runs are read in one place (protocol/byte_runs.py ``run_bytes``): the host's model, the
verifier's SMT-LIB pairs and the payload see the same bytes, cut at the same index."""

from __future__ import annotations

from typing import Any

import pytest

from z3sandbox_kernel.protocol import split_pairs
from z3sandbox_kernel.protocol.byte_runs import cut_runs, expand_model, expand_smt2_pairs, run_bytes
from z3sandbox_kernel.zygote.payload import build_payload

# (runs, max_bytes): within the maximum, across it, past it, upper-case hex, runs apart, an empty run
MEMBERS: list[tuple[list[list[Any]], int]] = [
    ([[0, "4142"]], 16),
    ([[0, "00ff7f80"], [10, "01"]], 12),
    ([[2, "aabbccdd"]], 4),
    ([[0, "41"], [1 << 40, "ff"]], 8),
    ([[3, "ABcd"], [0, "0102"]], 16),
    ([[5, ""], [0, "10"]], 16),
]


def _from_model(runs: list[list[Any]], max_bytes: int) -> dict[int, int]:
    model, omitted = expand_model({}, runs, max_bytes, max_entries=1 << 20)
    assert omitted == 0
    return {int(name[len("byte_"):]): int(str(value)) for name, value in model.items()}


def _from_pairs(runs: list[list[Any]], max_bytes: int) -> dict[int, int]:
    pairs = split_pairs(expand_smt2_pairs("", {}, runs, max_bytes, 1 << 20))
    return {int(name[len("byte_"):]): int(value[2:], 16) for name, value in pairs}


def _from_payload(runs: list[list[Any]], max_bytes: int) -> dict[int, int]:
    payload, error = build_payload([], cut_runs(runs, max_bytes), None, max_bytes)
    assert error is None
    covered = {start + offset for start, data in run_bytes(runs, max_bytes) for offset in range(len(data))}
    return {index: value for index, value in enumerate(payload or b"") if index in covered}


@pytest.mark.parametrize(("runs", "max_bytes"), MEMBERS)
def test_every_reader_sees_the_same_bytes_below_the_maximum(runs: list[list[Any]], max_bytes: int) -> None:
    expected = {start + offset: value for start, hex_text in runs if start < max_bytes
                for offset, value in enumerate(bytes.fromhex(hex_text)) if start + offset < max_bytes}
    assert _from_model(runs, max_bytes) == expected
    assert _from_pairs(runs, max_bytes) == expected
    assert _from_payload(runs, max_bytes) == expected


def test_a_run_cut_at_the_maximum_is_counted_as_left_out_once() -> None:
    model, omitted = expand_model({}, [[0, "00" * 10], [6, "ff" * 10]], 12, max_entries=4)
    assert len(model) == 4 and omitted == 10 + 6 - 4  # byte 0..9 and 6..11, cut at 12


@pytest.mark.parametrize("run", [[-1, "41"], [True, "41"], ["0", "41"], [0, 65], [0, "4"], [0, "zz"],
                                 [0, "41", "42"], [0]])
def test_a_malformed_run_is_refused_by_each_reader(run: list[Any]) -> None:
    with pytest.raises(ValueError):
        list(run_bytes([run]))
    with pytest.raises(ValueError):
        expand_model({}, [run], 16, max_entries=1)
    payload, error = build_payload([], [run], None, 16)
    assert payload is None and error == "the candidate reported malformed byte_N values"
