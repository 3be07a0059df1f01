"""Where a message is decoded: once, at the descriptor it arrives on, by msgspec into its protocol
type, which the reader keeps from then on (protocol/__init__.py lists the descriptors).

msgspec cannot decode into a union of TypedDicts (a tagged union must be of Structs, and the
messages are TypedDicts on every side), so a ``Gate`` picks the one type to decode into from the
frame's head: the ``"type":"..."`` every sender writes in its first bytes.  That is a hint, not a
check: the frame is decoded once, into that type, which checks ``type`` (a ``Literal``) and every
field, and its ``v`` is checked after.  A frame the hint does not fit (another key order, a
malformed or unknown message, another version) is read as before, in two passes: its envelope
(``v`` and ``type``, every other field skipped in C), then the whole frame into the one type its
``type`` names, so every refusal says what it said.  Skipping a 1 MB script in the envelope pass
costs as much as decoding it: one pass halves a large frame's decoding.  A small frame (below
``ONE_PASS_FROM``) is read in the two passes: they cost less than the hint.
A candidate's frames have their own, stricter gate (zygote/frames.py: budget, depth, words).
"""

from __future__ import annotations

from typing import Any, Generic, Literal, TypedDict, TypeVar, get_args, get_type_hints

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
# Where a frame's type is looked for first (``Gate.decode``): msgspec, which every sender encodes
# with, writes '{"v":1,"type":"restarted"' in fewer bytes.
_HINT_BYTES = 64
# Below this size the two passes take less than finding the hint (half a microsecond: two msgspec
# calls in C); above it the envelope pass costs as much as the decoding.
ONE_PASS_FROM = 4096


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
        self._by_hint = {name.encode(): decoder for name, decoder in self._decoders.items()}

    def decode(self, body: bytes) -> Message:
        if len(body) > self.limit:
            raise ProtocolError(f"message of {len(body)} bytes exceeds {self.limit}")
        if len(body) < ONE_PASS_FROM:
            return self._decode_twice(body)
        start = body.find(b'"type":"', 0, _HINT_BYTES) + 8  # 7: not found
        decoder = self._by_hint.get(body[start:body.find(b'"', start, start + 40)]) if start > 7 else None
        if decoder is not None:  # one pass; any doubt, and the two passes below say what is wrong
            try:
                decoded: Any = decoder.decode(body)
            except msgspec.MsgspecError:
                pass
            else:
                message: Message = decoded  # of its type: the decoder and the version say so
                if decoded.get("v") == PROTOCOL_VERSION:
                    return message
        return self._decode_twice(body)

    def _decode_twice(self, body: bytes) -> Message:
        """The envelope, then the type it names: the words of every refusal."""
        try:
            envelope = _ENVELOPE.decode(body)
        except msgspec.MsgspecError as exc:
            raise ProtocolError(f"message is not a versioned JSON object: {str(exc)[:200]}") from None
        if envelope["v"] != PROTOCOL_VERSION:
            raise ProtocolError(f"protocol version {envelope['v']!r}, expected {PROTOCOL_VERSION}")
        known = self._decoders.get(envelope["type"])
        if known is None:
            raise UnknownMessage(f"a message of type {envelope['type'][:40]!r}")
        try:
            message: Message = known.decode(body)
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
