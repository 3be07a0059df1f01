"""The trust boundary: every frame a child writes is budgeted, depth-checked and schema-checked."""

from __future__ import annotations

import json
import struct
import time

import pytest

from z3sandbox_kernel.protocol import (
    MAX_ASSERTIONS_REPORT_BYTES,
    MAX_CHILD_FRAMES,
    MAX_CHILD_REPORT_BYTES,
    MAX_MODEL_REPORT_BYTES,
    SHOWN_MODEL_MAX_ENTRIES,
    ChildReport,
    VerifyReport,
    decode_value,
    encode_frame,
    join_pairs,
    report_budget,
    split_pairs,
)
from z3sandbox_kernel.protocol.byte_runs import expand_model, expand_smt2_pairs
from z3sandbox_kernel.zygote import frames
from z3sandbox_kernel.zygote.payload import cap_model
from z3sandbox_kernel.zygote.verifier_pool import ServiceReader

SETUP = {"v": 1, "type": "setup", "layers": [{"name": "rlimits", "active": True}], "error": None}


def frame(message: object) -> bytes:
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return struct.pack(">I", len(body)) + body


def read(*messages: object, budget: int = 1 << 20, phase: str = "run"):
    reader = frames.ResultReader(budget)
    data = b"".join(frame(m) for m in (SETUP, *messages))
    violation = None
    for start in range(0, len(data), 7):  # bytes arrive in small pieces
        violation = violation or reader.feed(data[start:start + 7])
    if violation:
        return None, None, violation
    return frames.parse(reader, VerifyReport if phase == "verify" else ChildReport)


def report(**fields: object) -> dict[str, object]:
    return {"v": 1, "type": "result", "outcome": "sat", **fields}


def test_a_well_formed_report_passes_and_unknown_fields_are_dropped():
    setup, checked, error = read(report(model={"x": 1, "r": {"fraction": [1, 3]}, "s": "hi", "b": True},
                                        byte_runs=[[0, "4142"]], forged="x"))
    assert error is None
    assert setup == SETUP
    assert checked == {"v": 1, "type": "result", "outcome": "sat", "byte_runs": [(0, "4142")],  # a ByteRun
                       "model": {"x": 1, "r": {"fraction": [1, 3]}, "s": "hi", "b": True}}


@pytest.mark.parametrize(("body", "words"), [
    (b"[" * 100_000 + b"]" * 100_000, "nested deeper"),
    (b'{"v": 1, "type": "result", "outcome": "sat", "reason": "\\ud800"}', "lone surrogate"),
    (report(byte_constants="oops"), "byte_constants is a str"),
    (report(byte_constants=[{"name": "byte_1"}]), "lacks index"),
    (report(outcome="exception", exception=[1, 2]), "exception is a list"),
    (report(model={"x": {"fraction": [1, 0]}}), "denominator 0"),
    (report(model={"x": {"fraction": ["1", 2]}}), "not an integer"),
    (report(model={"x": 1e999}), "not a model value"),
    (report(outcome="unsat", unsat_core=[["one", "x > 1"]]), "unsat_core[0][0] is a str"),
    (report(outcome="unsat", unsat_core=[[1]]), "has 1 items"),
    (report(byte_runs=[[0, "4 1"]]), "not hex"),
    (report(byte_runs=[[-1, "41"]]), "negative"),
    (report(model_smt2=[["x", "1"]]), "model_smt2 is a list, not a string"),
    (report(outcome="won"), "not an outcome"),
    (report(objectives=[{"term": "x", "direction": "maximize"}]), "lacks value"),
    (report(objectives=[{"term": 1, "direction": "maximize", "value": 3}]), "is a int"),
    (report(more_models=[{"model": {}, "byte_constants": [], "byte_runs": []}]), "lacks model_smt2"),
    (report(more_models=[{"model": {"x": 1e999}, "byte_constants": [], "byte_runs": [],
                          "model_smt2": ""}]), "not a model value"),
    (report(more_models=[{"model": {"x": {"fraction": [1, 0]}}, "byte_constants": [], "byte_runs": [],
                          "model_smt2": ""}]), "more_models[0].model['x'] is not a model value"),
    (report(objectives=[{"term": "x", "direction": "maximize", "value": {"fraction": [3, 0]}}]),
     "report.objectives['x'] is not a model value"),
    ({"v": 1, "type": "result"}, "lacks outcome"),
    ({"v": 2, "type": "result", "outcome": "sat"}, "protocol version"),
    ({"v": 1, "type": "setup", "layers": []}, "not 'result'"),
    (b"\xff\xfe", "not UTF-8 JSON"),
    (b"[1, 2]", "not an object"),
])
def test_a_forged_report_is_an_error_that_says_what_was_wrong(body, words):
    _, checked, error = read(body)
    assert checked is None
    assert error is not None and words in error, error


def test_objectives_pass_with_their_values():
    goals = [{"term": "x + y", "direction": "maximize", "value": 13},
             {"term": "x", "direction": "minimize", "value": {"fraction": [1, 2]}}]
    _, checked, error = read(report(objectives=goals))
    assert error is None and checked is not None and checked["objectives"] == goals


def test_depth_is_checked_before_parsing_and_quickly():
    body = b'{"a": ' * 100_000 + b"1" + b"}" * 100_000
    started = time.process_time()
    with pytest.raises(frames.FrameError, match="nested deeper"):
        frames.check_depth(body)
    assert time.process_time() - started < 1.0
    frames.check_depth(b'{"model": {"x": {"fraction": [1, 2]}}, "s": "[[[[[[[[[[[[\\""}')


def test_a_frame_after_the_result_is_a_violation_as_soon_as_it_begins():
    reader = frames.ResultReader(1 << 20)
    assert reader.feed(frame(SETUP) + frame(report())) is None
    assert "a frame after the result" in (reader.feed(frame({"v": 1})[:4]) or "")
    setup, checked, error = frames.parse(reader, ChildReport)
    assert setup == SETUP and checked is None  # the bootstrap's frame still counts
    assert error and "malformed: protocol violation" in error


def test_more_check_frames_than_the_cap_allows_is_a_violation():
    reader = frames.ResultReader(1 << 20)
    check = encode_frame({"v": 1, "type": "check", "index": 0, "verdict": "sat", "line": 1, "asserts": [],
                          "declarations": [], "assertions": None, "declared": []})
    assert reader.feed(frame(SETUP) + check * (MAX_CHILD_FRAMES - 1)) is None
    assert f"more than {MAX_CHILD_FRAMES} frames" in (reader.feed(check) or "")


def test_check_frames_before_the_result_are_decoded_under_their_schema():
    reader = frames.ResultReader(1 << 20)
    check = {"v": 1, "type": "check", "index": 0, "verdict": "sat", "line": 3, "asserts": ["(assert x)"],
             "declarations": ["(declare-fun x () Bool)"], "assertions": [[0, 1]], "declared": [[0, 1]]}
    found = {"v": 1, "type": "check_model", "index": 0, "model": {"x": True}, "byte_constants": [],
             "byte_runs": [], "model_smt2": "x\x00true\x00"}
    reader.feed(frame(SETUP) + encode_frame(check) + encode_frame(found))  # as the harness writes them
    assert not reader.whole
    decoded, error = frames.parse_checks(reader)
    assert error is None and [f["type"] for f in decoded] == ["check", "check_model"]
    reader.feed(frame(report()))
    assert reader.whole and frames.parse(reader, ChildReport)[1] is not None
    bad = frames.ResultReader(1 << 20)
    bad.feed(frame(SETUP) + encode_frame({**check, "verdict": "proved"}))
    assert "verdict" in (frames.parse_checks(bad)[1] or "")


def test_the_budget_is_checked_as_bytes_arrive():
    reader = frames.ResultReader(1000)
    assert reader.feed(frame(SETUP)) is None
    assert "over the budget" in (reader.feed(struct.pack(">I", 5000)) or "")
    reader = frames.ResultReader(1000)
    reader.feed(frame(SETUP))
    assert "passed its budget of 1000 bytes" in (reader.feed(b"x" * 1000) or "")


def test_a_frame_cut_short_is_an_error():
    reader = frames.ResultReader(1 << 20)
    reader.feed(frame(SETUP) + frame(report())[:-3])
    _, checked, error = frames.parse(reader, ChildReport)
    assert checked is None and error and "ends inside a frame" in error


def test_verification_and_probe_frames():
    assert read({"v": 1, "type": "result", "verified": True}, phase="verify")[1] == {
        "v": 1, "type": "result", "verified": True}
    assert "verified is a str" in read({"v": 1, "type": "result", "verified": "yes"}, phase="verify")[2]
    assert read(phase="probe") == (SETUP, None, None)


def test_the_budget_fits_a_legitimate_report_and_no_more():
    # sized by the candidate's payload limit, not the 64 MB cap for every candidate
    assert report_budget(1 << 20) < report_budget(4 << 20) < MAX_CHILD_REPORT_BYTES
    assert report_budget(1 << 20) >= MAX_ASSERTIONS_REPORT_BYTES + MAX_MODEL_REPORT_BYTES
    assert report_budget(1 << 20) > MAX_MODEL_REPORT_BYTES + 2 * (1 << 20)
    assert report_budget(1 << 40) == MAX_CHILD_REPORT_BYTES


def test_forged_values_never_raise_on_the_host():
    assert decode_value({"fraction": [1, 0]}) == {"fraction": [1, 0]}
    assert decode_value({"fraction": "x"}) == {"fraction": "x"}
    assert decode_value({"fraction": [1, 4]}) == 0.25


def test_hex_only_bytes_are_verified_with_their_values():
    pairs = expand_smt2_pairs(join_pairs([("x", "1")]), {"x": 1, "byte_0": 65}, [[0, "41c8"]], 16, 60)
    assert split_pairs(pairs) == [("x", "1"), ("byte_1", "#xc8")]
    # no more than the assertions could declare
    assert split_pairs(expand_smt2_pairs("", {}, [[0, "00" * 1000]], 1 << 20, 90)) == [
        ("byte_0", "#x00"), ("byte_1", "#x00"), ("byte_2", "#x00")]
    # a byte_N listed among the pairs (not in the model, which shows the first constants only)
    # keeps its own pair
    listed = join_pairs([("byte_0", "#x41")])
    assert split_pairs(expand_smt2_pairs(listed, {}, [[0, "4142"]], 16, 60)) == [
        ("byte_0", "#x41"), ("byte_1", "#x42")]


def test_hex_only_bytes_past_the_payload_maximum_stay_out_of_the_model():
    model, omitted = expand_model({}, [[0, "00" * 100], [1 << 40, "ff"]], 10)
    assert (model, omitted) == ({f"byte_{i}": 0 for i in range(10)}, 0)


def test_the_host_keeps_a_bounded_model_and_says_how_much_it_left_out():
    """Issue 20: a candidate decides its model's size; the host holds at most the cap."""
    model, omitted = expand_model({"x": 1}, [[0, "00" * 100]], 1 << 20, max_entries=11)
    assert len(model) == 11 and omitted == 90
    kept, left = cap_model({f"v{i}": i for i in range(400_000)})
    assert (len(kept), left) == (SHOWN_MODEL_MAX_ENTRIES, 400_000 - SHOWN_MODEL_MAX_ENTRIES)
    kept, left = cap_model({f"v{i}": "x" * 20_000 for i in range(100)}, max_bytes=100_000)
    assert (len(kept), left) == (4, 96)


def stack(lines: object = ((3, "<module>"),), signum: int = 34) -> dict[str, object]:
    return {"v": 1, "type": "stack", "signal": signum, "lines": lines}


def test_a_stack_frame_is_decoded_as_it_comes_and_is_not_the_report():
    reader = frames.ResultReader(1 << 20)
    assert reader.feed(frame(SETUP) + frame(stack([[1, "<module>"], [7, "spin"]]))) is None
    assert reader.stacks == [{"v": 1, "type": "stack", "signal": 34, "lines": [(1, "<module>"), (7, "spin")]}]
    assert reader.feed(frame(report())) is None
    setup, checked, error = frames.parse(reader, ChildReport)
    assert error is None and setup == SETUP and checked["outcome"] == "sat"


@pytest.mark.parametrize(("messages", "words"), [
    ((stack(), stack(), stack()), "more than 2 stack frames"),
    ((stack(lines="line 3"),), "stack frame.lines is a str"),
    ((stack(lines=[[-3, "f"]]),), "is negative"),
    ((stack(lines=[[3, "f" * 201]]),), "stack frame"),
    ((stack(lines=[[3, "f"]] * 65),), "stack frame"),
    ((b'{"v": 1, "type": "stack", "signal": 34, "lines": [], "pad": "' + b"x" * 5000 + b'"}',),
     "over 4096 bytes"),
])
def test_a_forged_stack_frame_is_a_violation_that_says_what_was_wrong(messages, words):
    _, _, error = read(*messages)
    assert error is not None and words in error


def test_a_verifiers_frames_are_handed_on_whole_and_in_order() -> None:
    results: list[bytes] = []
    reader = ServiceReader(100, results.append)
    stream = frame(SETUP) + frame(b'{"first":1}') + frame(b'{"second":2}')
    for at in range(0, len(stream), 7):  # as the pipe gives it: in pieces
        assert reader.feed(stream[at:at + 7]) is None
    assert reader.setup == json.dumps(SETUP).encode()
    assert results == [b'{"first":1}', b'{"second":2}']
    assert "exceeds 100" in (reader.feed(struct.pack(">I", 101)) or "")
    assert reader.feed(frame(b"{}")) is None and len(results) == 2  # nothing is taken after
