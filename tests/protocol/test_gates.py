"""The gates: each message decoded once, into its protocol type, or refused with words."""

from __future__ import annotations

import json

import pytest

from z3sandbox_kernel.protocol import (
    CANDIDATE_REQUEST,
    HELLO,
    HOST_REQUESTS,
    SPARE_REQUEST,
    ZYGOTE_EVENTS,
    Gate,
    ProtocolError,
    RunRequest,
    UnknownMessage,
    encode_frame,
    encode_message,
    frame_of,
    split_bodies,
    zygote_result,
)
from z3sandbox_kernel.protocol.limits import LIMIT_FIELDS, Limits
from z3sandbox_kernel.protocol.roles import Kill

RUN = {"v": 1, "type": "run", "id": 7, "index": 0, "script": "print(1)", "language": "python",
       "limits": {"timeout_s": 5, "memory_mb": 512}, "random_seed": None, "cores": False,
       "verify": True, "seed_hex": None, "require": []}


def body(message: object) -> bytes:
    return json.dumps(message).encode()


def test_host_requests_are_decoded_into_their_types() -> None:
    run = HOST_REQUESTS.decode(body(RUN))
    # the limits arrive as ``Limits``, the fields not sent at their defaults, an int field an int
    assert run == {**RUN, "limits": Limits(timeout_s=5, memory_mb=512)}
    assert type(run["limits"].memory_mb) is int  # a reason reads "512 MB"
    cancel = HOST_REQUESTS.decode(body({"v": 1, "type": "cancel", "id": 7, "reason": "race"}))
    assert cancel["type"] == "cancel" and cancel["reason"] is Kill.RACE
    assert HOST_REQUESTS.decode(body({"v": 1, "type": "shutdown"})) == {"v": 1, "type": "shutdown"}


def test_a_frame_split_from_a_buffer_decodes_at_its_gate() -> None:
    buffer = bytearray(encode_frame(RUN) + encode_frame({"v": 1, "type": "shutdown"}) + b"\0\0")
    kinds = [HOST_REQUESTS.decode(frame)["type"] for frame in split_bodies(buffer)]
    assert kinds == ["run", "shutdown"] and buffer == bytearray(b"\0\0")  # a partial header stays


def test_a_message_of_another_type_is_an_unknown_message() -> None:
    with pytest.raises(UnknownMessage):
        ZYGOTE_EVENTS.decode(body({"v": 1, "type": "hello"}))
    with pytest.raises(UnknownMessage):
        CANDIDATE_REQUEST.decode(body({"v": 1, "type": "cancel", "id": 1, "reason": "race"}))


@pytest.mark.parametrize(("message", "words"), [
    ({**RUN, "v": 2}, "protocol version 2"),
    ({"type": "run"}, "not a versioned JSON object"),
    ([1, 2], "not a versioned JSON object"),
    ({**RUN, "id": "7"}, "`$.id`"),
    ({k: v for k, v in RUN.items() if k != "script"}, "script"),
    ({"v": 1, "type": "cancel", "id": 7, "reason": "bogus"}, "reason"),
])
def test_a_malformed_message_is_a_protocol_error_that_says_why(message: object, words: str) -> None:
    with pytest.raises(ProtocolError, match=words.replace("$", r"\$")):
        HOST_REQUESTS.decode(body(message))


def test_bytes_that_are_not_json_are_a_protocol_error() -> None:
    for raw in (b"\xff\xfe", b'{"v": 1, "type": "run"', b""):
        with pytest.raises(ProtocolError):
            HOST_REQUESTS.decode(raw)


def test_a_message_over_its_gates_limit_is_refused_before_it_is_read() -> None:
    small: Gate[RunRequest] = Gate(RunRequest, limit=100)
    with pytest.raises(ProtocolError, match="exceeds 100"):
        small.decode(body(RUN))


@pytest.mark.parametrize("limits", [Limits(), Limits(timeout_s=5, wall_s=2.5, memory_mb=512.0),
                                    Limits(cpu_s=1, output_kb=1.0, payload_max_bytes=3 << 20)])
def test_limits_cross_as_themselves(limits: Limits) -> None:
    """Host -> zygote -> child: the one ``Limits``, encoded and decoded with no dict between, its
    int fields ints (a reason reads "512 MB", never "512.0 MB")."""
    frame = encode_message({**RUN, "limits": limits})
    (body_sent,) = split_bodies(bytearray(frame))
    assert frame_of(body_sent) == frame  # what the zygote forwards is what the host sent
    run = CANDIDATE_REQUEST.decode(body_sent)
    assert run["limits"] == limits and isinstance(run["limits"], Limits)
    for spec in LIMIT_FIELDS:
        if spec.type == "int":
            assert type(getattr(run["limits"], spec.name)) is int, spec.name


@pytest.mark.parametrize(("limits", "words"), [
    ({"memory_mb": 20}, "memory_mb=20 is not allowed: it must be at least 64 MB"),
    ({"memory_mb": 512.5}, "memory_mb"),
    ({"timeout_s": "5"}, "timeout_s"),
    ({"wall_s": -1}, "wall_s=-1.0 is not allowed: it must be at least 0.01 s"),
])
def test_bad_limits_are_refused_with_words(limits: dict[str, object], words: str) -> None:
    with pytest.raises(ProtocolError, match=words):
        HOST_REQUESTS.decode(body({**RUN, "limits": limits}))


def test_hello_and_a_spare_request_decode_into_their_types() -> None:
    hello = HELLO.decode(body({"v": 1, "type": "hello", "pid": 3, "z3_version": "4.13",
                               "isolation": {"level": "process", "layers": []}, "scratch": "/tmp/x"}))
    assert hello["pid"] == 3 and hello["isolation"]["level"] == "process"
    assert SPARE_REQUEST.decode(b'{"spare": true, "limits": {"verify_s": 2}}') == {
        "spare": True, "limits": Limits(verify_s=2.0)}


def test_a_cluster_result_is_checked_into_its_type() -> None:
    from z3sandbox_kernel.contracts.results import CandidateResult
    from z3sandbox_kernel.protocol.verdicts import Verdict

    sent = CandidateResult(index=3, verdict=Verdict.CANCELLED, reason="race", kill=Kill.RACE).to_dict()
    result = zygote_result(sent)
    assert result["index"] == 3 and result["kill"] is Kill.RACE
    with pytest.raises(ProtocolError, match="malformed"):
        zygote_result({**sent, "wall_s": "fast"})
    with pytest.raises(ProtocolError):
        zygote_result(["not", "a", "result"])
