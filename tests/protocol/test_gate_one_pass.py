"""A large frame is decoded once (protocol/gates.py ``Gate.decode``): the type its head names is a
hint, never a check, so that every frame the hint does not fit gets what the two passes give."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from z3sandbox_kernel.protocol import (
    CANDIDATE_REQUEST,
    HOST_REQUESTS,
    ZYGOTE_EVENTS,
    Gate,
    ProtocolError,
)
from z3sandbox_kernel.protocol.gates import ONE_PASS_FROM

SCRIPT = "x = 1\n" * (ONE_PASS_FROM // 4)  # every frame below is past ONE_PASS_FROM
RUN: dict[str, Any] = {"v": 1, "type": "run", "id": 7, "index": 0, "script": SCRIPT, "language": "python",
                       "limits": {"timeout_s": 5}, "random_seed": None, "cores": False, "verify": True,
                       "seed_hex": None, "require": []}
CANCEL = {"v": 1, "type": "cancel", "id": 3, "reason": "cancel", "padding": SCRIPT}
RESTARTED = {"v": 1, "type": "restarted", "role": "fork server", "how": SCRIPT}


def _outcome(gate: Gate[Any], body: bytes) -> object:
    try:
        return gate.decode(body)
    except ProtocolError as exc:
        return (type(exc), str(exc))


def _two_passes(gate: Gate[Any], body: bytes) -> object:
    try:
        return gate._decode_twice(body)
    except ProtocolError as exc:
        return (type(exc), str(exc))


def _text(message: dict[str, Any]) -> bytes:
    return msgspec.json.encode(message)


# Frames where the hint fits, and frames where it misleads or finds nothing: each gets what the two
# passes give (the message, or the same refusal in the same words).
FRAMES = {
    "a run": (HOST_REQUESTS, _text(RUN)),
    "a cancel": (HOST_REQUESTS, _text(CANCEL)),
    "a restart": (ZYGOTE_EVENTS, _text(RESTARTED)),
    "a run to the child's gate": (CANDIDATE_REQUEST, _text(RUN)),
    "the type last": (HOST_REQUESTS, _text({**{k: v for k, v in RUN.items() if k != "type"}, "type": "run"})),
    "spaces after the colon": (HOST_REQUESTS, _text(RUN).replace(b'"type":"run"', b'"type": "run"', 1)),
    "another version": (HOST_REQUESTS, _text({**RUN, "v": 2})),
    "a version that is a bool": (HOST_REQUESTS, _text({**RUN, "v": True})),
    "no version": (HOST_REQUESTS, _text({k: v for k, v in RUN.items() if k != "v"})),
    "an unknown type": (HOST_REQUESTS, _text({**RUN, "type": "rerun"})),
    "a type the gate does not take": (CANDIDATE_REQUEST, _text(CANCEL)),
    "a run missing a field": (HOST_REQUESTS, _text({k: v for k, v in RUN.items() if k != "index"})),
    "a run with a field mistyped": (HOST_REQUESTS, _text({**RUN, "id": "7"})),
    "a second type key": (HOST_REQUESTS, _text(RUN)[:-1] + b',"type":"cancel"}'),
    "a nested type first": (HOST_REQUESTS, b'{"x":{"type":"run"},' + _text(CANCEL)[1:]),
    "cut short": (HOST_REQUESTS, _text(RUN)[:-10]),
    "not JSON": (HOST_REQUESTS, b'{"v":1,"type":"run",' + b"x" * ONE_PASS_FROM),
}


@pytest.mark.parametrize("name", FRAMES)
def test_a_frame_gets_what_the_two_passes_give(name: str) -> None:
    gate, body = FRAMES[name]
    assert len(body) >= ONE_PASS_FROM
    assert _outcome(gate, body) == _two_passes(gate, body)


@pytest.mark.parametrize("name", ["a run", "a cancel", "a restart", "a run to the child's gate"])
def test_a_large_frame_whose_head_names_its_type_is_decoded_once(name: str,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    gate, body = FRAMES[name]
    expected = gate.decode(body)

    def no_second_pass(_: bytes) -> object:
        raise AssertionError("the envelope was decoded")

    monkeypatch.setattr(gate, "_decode_twice", no_second_pass)
    assert gate.decode(body) == expected


def test_a_small_frame_takes_the_two_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bytes] = []
    small = _text({"v": 1, "type": "cancel", "id": 3, "reason": "cancel"})
    twice = HOST_REQUESTS._decode_twice
    monkeypatch.setattr(HOST_REQUESTS, "_decode_twice", lambda body: seen.append(body) or twice(body))
    assert HOST_REQUESTS.decode(small)["type"] == "cancel"
    assert seen == [small]
    assert len(small) < ONE_PASS_FROM
