"""Where a message is decoded: once, at the descriptor it arrives on, by msgspec into its protocol
type, which the reader keeps from then on (protocol/__init__.py lists the descriptors).

msgspec cannot decode into a union of TypedDicts, so a ``Gate`` reads a frame twice: first its
envelope (``v`` and ``type``, every other field skipped in C), then the whole frame into the one
type its ``type`` names.  Both passes together take 0.8 ms for a 1 MB request, against 2.5 ms for
the ``json.loads`` they replace (a result with a 10,000-entry model: 0.9 ms against 1.1).
A candidate's frames have their own, stricter gate (zygote/frames.py: budget, depth, words).
"""

from __future__ import annotations

from typing import Generic, Literal, TypedDict, TypeVar, get_args, get_type_hints

import msgspec

from .messages import (
    CancelRequest,
    Done,
    Hello,
    HostRequest,
    Restarted,
    RunRequest,
    ShutdownRequest,
    Started,
    ZygoteEvent,
    ZygoteResult,
)
from .verification import VerifyRequest
from .wire import MAX_FRAME_BYTES, PROTOCOL_VERSION, ProtocolError


class Envelope(TypedDict):
    """What every host <-> zygote frame says first: its protocol version and its type."""

    v: int
    type: str


class UnknownMessage(ProtocolError):
    """A well-formed frame of a type this gate does not take."""


Message = TypeVar("Message")
_ENVELOPE = msgspec.json.Decoder(Envelope)


def message_type(kind: type[object]) -> str:
    """The ``type`` a message TypedDict declares as ``Literal["..."]``."""
    declared = get_type_hints(kind)["type"]
    assert getattr(declared, "__origin__", None) is Literal, f"{kind.__name__}.type is not a Literal"
    return str(get_args(declared)[0])


class Gate(Generic[Message]):
    """Decodes frames into ``Message``, the union of ``kinds`` (each a TypedDict with ``v`` and a
    ``Literal`` ``type``); anything else is a ``ProtocolError`` that says what was wrong."""

    def __init__(self, *kinds: type[Message], limit: int = MAX_FRAME_BYTES) -> None:
        # ``type[Message]``: a gate declared for one union and built of other kinds is a mypy
        # error (tests/protocol/typing_gates.py).
        self.limit = limit
        self._decoders = {message_type(kind): msgspec.json.Decoder(kind) for kind in kinds}

    def decode(self, body: bytes) -> Message:
        if len(body) > self.limit:
            raise ProtocolError(f"message of {len(body)} bytes exceeds {self.limit}")
        try:
            envelope = _ENVELOPE.decode(body)
        except msgspec.MsgspecError as exc:
            raise ProtocolError(f"message is not a versioned JSON object: {str(exc)[:200]}") from None
        if envelope["v"] != PROTOCOL_VERSION:
            raise ProtocolError(f"protocol version {envelope['v']!r}, expected {PROTOCOL_VERSION}")
        decoder = self._decoders.get(envelope["type"])
        if decoder is None:
            raise UnknownMessage(f"a message of type {envelope['type'][:40]!r}")
        try:
            message: Message = decoder.decode(body)
        except msgspec.MsgspecError as exc:
            raise ProtocolError(f"a {envelope['type']!r} message is malformed: {str(exc)[:200]}") from None
        return message


# ------------------------------------------------------------------------------------ the gates

HOST_REQUESTS: Gate[HostRequest] = Gate(RunRequest, CancelRequest, ShutdownRequest)  # zygote's stdin
HELLO: Gate[Hello] = Gate(Hello)  # the zygote's first frame on its stdout
ZYGOTE_EVENTS: Gate[ZygoteEvent] = Gate(Started, Done, Restarted)  # every later one
CANDIDATE_REQUEST: Gate[RunRequest] = Gate(RunRequest)  # a candidate's GO_FD
# A spare verifier's request file (SPARE_REQUEST_FILE): written by the zygote, read once.
SPARE_REQUEST = msgspec.json.Decoder(VerifyRequest)


def zygote_result(value: object) -> ZygoteResult:
    """A ``Done.result`` that did not come as a frame (a Dask worker's, unpickled; one the host
    built), checked into its type as a frame's would be."""
    try:
        return msgspec.convert(value, ZygoteResult)
    except msgspec.ValidationError as exc:
        raise ProtocolError(f"a candidate's result is malformed: {str(exc)[:200]}") from None
