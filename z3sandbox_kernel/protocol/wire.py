"""The wire: descriptors, budgets and signals at each process boundary, the frame format, and how
a model value travels (protocol/__init__.py describes the roles and their messages)."""


from __future__ import annotations

import json
import signal
import struct
from collections.abc import Mapping
from fractions import Fraction
from typing import Annotated

import msgspec

PROTOCOL_VERSION = 1

# The child writes its report on this descriptor; stdin is /dev/null, 1 and 2 are capture pipes.
RESULT_FD = 3

# What a legitimate report needs, besides its byte_N payload (2 hex characters a byte, sent once):
# the model and its SMT-LIB pairs (the harness stops reading a model past MAX_MODEL_REPORT_BYTES),
# the assertions (the harness leaves out more than MAX_ASSERTIONS_REPORT_BYTES), and the rest
# (reasons, core, framing).  Over its budget a report is not read: the candidate is internal_error.
MAX_MODEL_REPORT_BYTES = 8 << 20
# What can be confirmed is at least what can be reported: a model of MAX_MODEL_REPORT_BYTES (some
# 300,000 constants) has assertions of about three times its bytes (each constant's declaration
# and an assertion that names it), all of which the verifier must be given.
MAX_ASSERTIONS_REPORT_BYTES = 3 * MAX_MODEL_REPORT_BYTES
# Why an answer whose assertions did not come is not checked (a Python candidate's are kept up to
# the cap above; past it they are not sent).
NO_ASSERTIONS_REASON = ("no assertions to check it against (over "
                        f"{MAX_ASSERTIONS_REPORT_BYTES >> 20} MB as SMT-LIB, or not reported)")
REPORT_SLACK_BYTES = 1 << 20
# models=N: the further models together (child/more_models.py), payloads included.
MORE_MODELS_REPORT_BYTES = 4 << 20
# Every check of a script (child/checks.py): at most MAX_CHECKS are kept, each a frame as it
# happens and one more for the model the script read; their assertions and models together take
# at most CHECKS_REPORT_BYTES (past it, a check travels without them).
MAX_CHECKS = 100
CHECKS_REPORT_BYTES = 4 << 20
# The budget never exceeds this, whatever payload_max_bytes says.
MAX_CHILD_REPORT_BYTES = 64 << 20
# JSON nesting a legitimate frame needs is 4 ({"model": {"x": {"fraction": [1, 2]}}}); checked
# before parsing, so a 100,000-deep frame never reaches the recursive parser.
MAX_FRAME_DEPTH = 8
# What one frame may make the zygote build when it is decoded, counted before (zygote/frames.py):
# its values, whatever its size.  A JSON value costs the zygote up to about 120 bytes of Python
# objects: a 20 MB frame of tiny model entries cost 350 MB.  The harness's largest report lists
# SHOWN_MODEL_MAX_ENTRIES model entries, its SMT-LIB pairs as one string (protocol.Smt2Pairs), and
# further models within MORE_MODELS_REPORT_BYTES (some 400,000 entries).
MAX_FRAME_VALUES = 500_000
# A candidate's result descriptor carries the setup frame, its checks' frames, then one result
# frame: no more.
MAX_CHILD_FRAMES = 2 + 2 * MAX_CHECKS
# Besides them (and not counted there), at most this many stack frames (``StackReport``): the
# script's stack, written by the child when a limit is about to end it (child/stack.py), each at most
# STACK_FRAME_MAX_BYTES.
MAX_STACK_FRAMES = 2
STACK_FRAME_MAX_BYTES = 4096
# What the host keeps of one candidate's model and unsat core, whatever the candidate reported
# (without a cap, twelve 400,000-constant models take a kernel to 1 GB and its table to 30 s).  The
# zygote cuts them before the result leaves it, the host's expansion of hex-only byte_N stops at
# the same count, and ``model_omitted`` says how many entries were left out; the payload stays
# whole (``Limits.payload_max_bytes``).
SHOWN_MODEL_MAX_ENTRIES = 10_000
SHOWN_MODEL_MAX_BYTES = 1 << 20  # names and values as text
SHOWN_CORE_MAX_ENTRIES = 1_000
SHOWN_CORE_TEXT_CHARS = 1_000
SHOWN_OBJECTIVES = 100  # a sat Optimize check's objectives (each term cut as a core's text)
# A host <-> zygote frame larger than this is a protocol error.
MAX_FRAME_BYTES = 128 << 20

_HEADER = struct.Struct(">I")

# zygote <-> a candidate's init (PID 1 of its namespace, zygote/spawn.py), and the child's exit.
# The zygote asks init to kill its candidate with this signal; init then reports as usual.
KILL_REQUEST = signal.SIGUSR1
# The zygote asks a candidate for its stack before it kills it for its wall clock or its output
# (init passes it on to the child); the child writes a ``StackReport`` on RESULT_FD.  RLIMIT_CPU's
# SIGXCPU does the same: the zygote kills the candidate once its stack has come.
STACK_REQUEST = signal.SIGRTMIN + 2
# init's one frame on its status pipe when the candidate ended: the candidate's wait status, user
# and system CPU seconds, peak RSS in KB (init's own wait4, so a killed candidate's are its own),
# then what init measured of its scratch tmpfs once every process of the namespace was dead: the
# largest file, the free bytes and the free inodes (-1: not measured).  The verdict's file-size
# and disk rules believe these, not the signal or the exception the candidate could make itself.
# Then the calls the seccomp filter refused, as init answered them (child/layers/seccomp_notify.py):
# their count and the first one's number; the count is one of REFUSALS_* when not observed.
INIT_STATUS = struct.Struct(">iddqqqqqi")
REFUSALS_NOT_SUPERVISED = -1  # no supervisor: no init, or no seccomp filter in the child
REFUSALS_NO_NOTIFICATION = -2  # this kernel has no seccomp user notification (before Linux 5.0)
# Exit code of a child whose bootstrap failed before user code ran (no frame could be written).
BOOTSTRAP_FAILED_EXIT = 121
# A process forked ahead of its request (a spare verifier, a standby candidate: zygote/verifiers.py,
# zygote/standby.py) blocks reading this descriptor, its "go" pipe; EOF says no request will come.
# Its stdin stays /dev/null, as every candidate's.
GO_FD = 4
# The child's end of the socket pair its init made to receive the seccomp filter's listener
# (child/layers/seccomp_notify.py): closed before user code.
SUPERVISOR_FD = 5
# A spare verifier's go byte: its request (``SPARE_REQUEST_FILE`` in its scratch folder) is there.
SPARE_GO = b"g"
SPARE_REQUEST_FILE = "verify-request.json"
# The zygote tells a standby's init that its child was handed a request: init takes a candidate's
# name, so that only a standby still waiting carries the standby's name.
STANDBY_TAKEN = signal.SIGUSR2
# Every candidate reads its ``RunRequest`` as one frame on GO_FD, in reads of at most this many
# bytes; the zygote writes it as the pipe drains (zygote/trees.py, ``hand_off``), whatever its size.
STANDBY_REQUEST_MAX_BYTES = 1 << 16

# A model value as ``encode_value`` makes it: None, bool, int, str, or {"fraction": [numerator,
# denominator]} (msgspec checks the shape; frames.py the one key and a denominator other than 0).
_Pair = Annotated[list[int], msgspec.Meta(min_length=2, max_length=2)]
JsonValue = None | bool | int | str | dict[str, _Pair]


class ProtocolError(Exception):
    """A frame that is too large, truncated, not JSON, or of another protocol version."""


def report_budget(payload_max_bytes: int) -> int:
    """The bytes a candidate may write on its result descriptor (both frames, headers included)."""
    needed = (MAX_MODEL_REPORT_BYTES + MAX_ASSERTIONS_REPORT_BYTES + REPORT_SLACK_BYTES
              + MORE_MODELS_REPORT_BYTES + CHECKS_REPORT_BYTES + 2 * int(payload_max_bytes))
    return min(needed, MAX_CHILD_REPORT_BYTES)


# --------------------------------------------------------------------------------------------- framing

def encode_frame(message: Mapping[str, object]) -> bytes:  # a dict, or any message TypedDict
    body = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    if len(body) > MAX_FRAME_BYTES:
        raise ProtocolError(f"frame of {len(body)} bytes exceeds {MAX_FRAME_BYTES}")
    return _HEADER.pack(len(body)) + body


_MESSAGES = msgspec.json.Encoder()


def encode_message(message: Mapping[str, object]) -> bytes:
    """A host -> zygote message as a frame, by msgspec: its ``Limits`` travel as the dataclass's
    fields, no dict made of them (a candidate's frames, which carry no limits, stay ``encode_frame``'s)."""
    body = _MESSAGES.encode(message)
    if len(body) > MAX_FRAME_BYTES:
        raise ProtocolError(f"frame of {len(body)} bytes exceeds {MAX_FRAME_BYTES}")
    return _HEADER.pack(len(body)) + body


def frame_length(header: bytes) -> int:
    return int(_HEADER.unpack(header)[0])


def frame_of(body: bytes) -> bytes:
    """A body ``split_bodies`` gave, framed again as it came: to forward it without re-encoding."""
    return _HEADER.pack(len(body)) + body


def split_bodies(buffer: bytearray, limit: int = MAX_FRAME_BYTES) -> list[bytes]:
    """Remove every complete frame at the start of ``buffer``: their bodies, for a gate to decode
    (protocol/gates.py)."""
    bodies = []
    while len(buffer) >= _HEADER.size:
        length = frame_length(bytes(buffer[: _HEADER.size]))
        if length > limit:
            raise ProtocolError(f"frame of {length} bytes exceeds {limit}")
        if len(buffer) < _HEADER.size + length:
            break
        bodies.append(bytes(buffer[_HEADER.size : _HEADER.size + length]))
        del buffer[: _HEADER.size + length]
    return bodies


# ------------------------------------------------------------------------------- model value encoding
# Model values are Python values (int, bool, Fraction, str).  JSON has no Fraction: it travels tagged.

def encode_value(value: object) -> JsonValue:
    if isinstance(value, Fraction):
        return {"fraction": [value.numerator, value.denominator]}
    if isinstance(value, (bool, int, str)) or value is None:
        return value
    return str(value)


def decode_value(value: JsonValue) -> JsonValue | Fraction:
    """The Python value; never raises: a malformed fraction (forged, say ``[1, 0]``) stays as it came."""
    if isinstance(value, dict) and set(value) == {"fraction"}:
        pair = value["fraction"]
        if (isinstance(pair, list) and len(pair) == 2
                and all(isinstance(n, int) and not isinstance(n, bool) for n in pair) and pair[1] != 0):
            return Fraction(pair[0], pair[1])
    return value
