"""The message format between the three process roles.  Everything that crosses a process boundary is here.

Roles::

    host (kernel, CLI)  --stdin/stdout pipes-->  zygote  --fork-->  child (one per candidate)
                        <---- framed messages ----         <---- frames on fd RESULT_FD ----

* host -> zygote: ``RunRequest``, ``CancelRequest``, ``ShutdownRequest``.
* zygote -> host: ``Hello`` once, then ``Started`` and ``Done`` per candidate.  ``Done.result`` is a
  finished ``CandidateDict``: the zygote classifies, measures and validates, so the host never parses
  anything a candidate wrote.
* child -> zygote, on ``RESULT_FD``: first a setup frame (the layers applied, written by the bootstrap
  *before* user code runs), then the harness's ``ChildReport`` after user code ends (a verifier sends
  a ``VerifyReport``): two frames, no more.  The zygote treats everything on it as untrusted: a
  per-candidate byte budget checked as bytes arrive (``report_budget``), nesting depth checked
  before parsing, then a strict schema (``zygote/frames.py``) before any field is used; a frame that
  fails makes that candidate ``internal_error`` and touches nothing else.  The report is only ever a
  candidate's word about its own solver outcome.  Times, memory, signals and kills come from the
  operating system.

Every message is one frame: a 4-byte big-endian length, then that many bytes of UTF-8 JSON with a
``v`` field equal to ``PROTOCOL_VERSION``.  This module is imported on every side and imports nothing
from Jupyter.
"""

from __future__ import annotations

import json
import signal
import struct
from collections.abc import Mapping
from fractions import Fraction
from typing import Any, Literal, TypedDict

PROTOCOL_VERSION = 1

# The child writes its report on this descriptor; stdin is /dev/null, 1 and 2 are capture pipes.
RESULT_FD = 3

# What a legitimate report needs, besides its byte_N payload (2 hex characters a byte, sent once):
# the model and its SMT-LIB pairs (the harness stops reading a model past MAX_MODEL_REPORT_BYTES),
# the assertions (the harness leaves out more than MAX_ASSERTIONS_REPORT_BYTES), and the rest
# (reasons, core, framing).  Over its budget a report is not read: the candidate is internal_error.
MAX_MODEL_REPORT_BYTES = 8 << 20
MAX_ASSERTIONS_REPORT_BYTES = 4 << 20
REPORT_SLACK_BYTES = 1 << 20
# models=N: the further models together (child/more_models.py), payloads included.
MORE_MODELS_REPORT_BYTES = 4 << 20
# The budget never exceeds this, whatever payload_max_bytes says.
MAX_CHILD_REPORT_BYTES = 64 << 20
# JSON nesting a legitimate frame needs is 4 ({"model": {"x": {"fraction": [1, 2]}}}); checked
# before parsing, so a 100,000-deep frame never reaches the recursive parser.
MAX_FRAME_DEPTH = 8
# A candidate's result descriptor carries the setup frame, then one result frame: no more.
MAX_CHILD_FRAMES = 2
# What the host keeps of one candidate's model and unsat core, whatever the candidate reported
# (issue 20: twelve 400,000-constant models took a kernel to 1 GB and its table to 30 s).  The
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
# init's one frame on its status pipe when the candidate ended: the candidate's wait status, user
# and system CPU seconds, peak RSS in KB (init's own wait4, so a killed candidate's are its own),
# then what init measured of its scratch tmpfs once every process of the namespace was dead: the
# largest file, the free bytes and the free inodes (-1: not measured).  The verdict's file-size
# and disk rules believe these, not the signal or the exception the candidate could make itself.
INIT_STATUS = struct.Struct(">iddqqqq")
# Exit code of a child whose bootstrap failed before user code ran (no frame could be written).
BOOTSTRAP_FAILED_EXIT = 121
# A process forked ahead of its request (a spare verifier, a standby candidate: zygote/verifiers.py,
# zygote/standby.py) blocks reading this descriptor, its "go" pipe; EOF says no request will come.
# Its stdin stays /dev/null, as every candidate's.
GO_FD = 4
# A spare verifier's go byte: its request (``SPARE_REQUEST_FILE`` in its scratch folder) is there.
SPARE_GO = b"g"
SPARE_REQUEST_FILE = "verify-request.json"
# The zygote tells a standby's init that its child was handed a request: init takes a candidate's
# name, so that only a standby still waiting carries the standby's name.
STANDBY_TAKEN = signal.SIGUSR2
# Every candidate reads its ``RunRequest`` as one frame on GO_FD, in reads of at most this many
# bytes; the zygote writes it as the pipe drains (zygote/trees.py, ``hand_off``), whatever its size.
STANDBY_REQUEST_MAX_BYTES = 1 << 16

JsonValue = None | bool | int | float | str | list[Any] | dict[str, Any]


class ProtocolError(Exception):
    """A frame that is too large, truncated, not JSON, or of another protocol version."""


def report_budget(payload_max_bytes: int) -> int:
    """The bytes a candidate may write on its result descriptor (both frames, headers included)."""
    needed = (MAX_MODEL_REPORT_BYTES + MAX_ASSERTIONS_REPORT_BYTES + REPORT_SLACK_BYTES
              + MORE_MODELS_REPORT_BYTES + 2 * int(payload_max_bytes))
    return min(needed, MAX_CHILD_REPORT_BYTES)


# --------------------------------------------------------------------------------------------- framing

def encode_frame(message: Mapping[str, object]) -> bytes:  # a dict, or any message TypedDict
    body = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    if len(body) > MAX_FRAME_BYTES:
        raise ProtocolError(f"frame of {len(body)} bytes exceeds {MAX_FRAME_BYTES}")
    return _HEADER.pack(len(body)) + body


def frame_length(header: bytes) -> int:
    (length,) = _HEADER.unpack(header)
    return int(length)


def decode_body(body: bytes, limit: int = MAX_FRAME_BYTES) -> dict[str, Any]:
    if len(body) > limit:
        raise ProtocolError(f"message of {len(body)} bytes exceeds {limit}")
    try:
        message = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ProtocolError(f"message is not UTF-8 JSON: {exc}") from None
    if not isinstance(message, dict):
        raise ProtocolError("message is not a JSON object")
    if message.get("v") != PROTOCOL_VERSION:
        raise ProtocolError(f"protocol version {message.get('v')!r}, expected {PROTOCOL_VERSION}")
    return message


def split_frames(buffer: bytearray, limit: int = MAX_FRAME_BYTES) -> list[dict[str, Any]]:
    """Remove and decode every complete frame at the start of ``buffer``."""
    messages = []
    while len(buffer) >= _HEADER.size:
        length = frame_length(bytes(buffer[: _HEADER.size]))
        if length > limit:
            raise ProtocolError(f"frame of {length} bytes exceeds {limit}")
        if len(buffer) < _HEADER.size + length:
            break
        body = bytes(buffer[_HEADER.size : _HEADER.size + length])
        del buffer[: _HEADER.size + length]
        messages.append(decode_body(body, limit))
    return messages


# ------------------------------------------------------------------------------- model value encoding
# Model values are Python values (int, bool, Fraction, str).  JSON has no Fraction: it travels tagged.

def encode_value(value: Any) -> JsonValue:
    if isinstance(value, Fraction):
        return {"fraction": [value.numerator, value.denominator]}
    if isinstance(value, (bool, int, str)) or value is None:
        return value
    return str(value)


def decode_value(value: JsonValue) -> Any:
    """The Python value; never raises: a malformed fraction (forged, say ``[1, 0]``) stays as it came."""
    if isinstance(value, dict) and set(value) == {"fraction"}:
        pair = value["fraction"]
        if (isinstance(pair, list) and len(pair) == 2
                and all(isinstance(n, int) and not isinstance(n, bool) for n in pair) and pair[1] != 0):
            return Fraction(pair[0], pair[1])
    return value


# ------------------------------------------------------------------------------------ child -> zygote

# Up to this many 8-bit bit-vector byte_N constants also appear in ``model`` and ``model_smt2`` in
# z3's own order; more travel only as hex runs.
INLINE_BYTE_CONSTANTS = 4096

ChildOutcome = Literal[
    "sat", "unsat", "unknown", "no_check", "syntax_error", "exception", "memory_error", "blocked",
    "internal_error",  # the harness itself failed; reason says how
]


class ByteConstant(TypedDict):
    """A model constant named ``byte_<N>``, as the harness saw it; the zygote applies the rules."""

    name: str
    index: int
    sort: str  # "bv", "int", "bool", "real", or another sort's name
    width: int | None  # bit-vector width, else None
    value: JsonValue


class Objective(TypedDict):
    """One objective of the last ``Optimize`` check (child/objectives.py) and the value z3 found."""

    term: str  # the objective as z3 prints it; a soft group's id for assert_soft
    direction: str  # "maximize", "minimize", "soft", or "" when not known
    value: JsonValue  # encode_value: an int, a fraction, or z3's text ("oo", "(+ 3 epsilon)")


class FoundModel(TypedDict):
    """A further model of a sat candidate (``models=N``, child/more_models.py): the fields a
    ``ChildReport`` holds of its model, for this one."""

    model: dict[str, JsonValue]
    byte_constants: list[ByteConstant]
    byte_runs: list[list[Any]]
    model_smt2: list[list[str]]


class ChildException(TypedDict):
    type: str
    message: str
    line: int | None  # line in the candidate's script, where it can be told


class ChildReport(TypedDict, total=False):
    v: int
    outcome: ChildOutcome
    reason: str  # z3's reason_unknown, the syntax error text, the denial ...
    solver_timeout: bool  # unknown because the solver's timeout expired
    line: int | None  # syntax errors: line and column
    column: int | None
    exception: ChildException
    model: dict[str, JsonValue]  # name -> encode_value(python value)
    byte_constants: list[ByteConstant]  # byte_N that break the payload rules, as they are
    # Well-formed byte_N (8-bit, 0..255) as [[start index, hex], ...].  Past INLINE_BYTE_CONSTANTS
    # the 8-bit bit-vector ones travel only here (not in model or model_smt2): the zygote puts them
    # back (zygote/payload.py), so a 1 MiB payload's report is 2 MB, not 45.
    byte_runs: list[list[Any]]
    unsat_core: list[list[Any]]  # [[line, source text], ...]
    objectives: list[Objective]  # sat from an Optimize check: its objectives, in z3's order
    more_models: list[FoundModel]  # models=N: up to N-1 further models, each unlike the others
    # For verification in a process that ran no user code: the solver's assertions as SMT-LIB 2,
    # and the model's constants as [smt2 name, smt2 value] pairs.
    assertions_smt2: str
    model_smt2: list[list[str]]
    isolation: dict[str, Any]  # the layers the bootstrap applied (see IsolationReport)


class SetupFrame(TypedDict):
    """The bootstrap's first frame, written before user code runs: the layers as they applied."""

    v: int
    type: Literal["setup"]
    layers: list[LayerReport]
    error: str | None  # a required layer failed: the candidate does not run


class CheckedModel(TypedDict, total=False):
    """A verifier's word on one further model (``VerifyReport.more``): as ``VerifyReport``."""

    verified: bool | None
    reason: str
    model: dict[str, JsonValue]
    byte_constants: list[ByteConstant]
    byte_runs: list[list[Any]]


class VerifyReport(TypedDict, total=False):
    v: int
    verified: bool | None  # None: could not be decided (e.g. unsupported sorts, unknown)
    reason: str
    # When decided: the model that was checked, as a ChildReport holds one.  It is the result's
    # model and payload (zygote/classify.py): what is shown is what was verified (issue 20).
    model: dict[str, JsonValue]
    byte_constants: list[ByteConstant]
    byte_runs: list[list[Any]]
    more: list[CheckedModel]  # the further models (VerifyRequest.more_models_smt2), in order


# The reason of a sat result whose model could not be verified (verification was asked for): it is
# shown as such, and counts for nothing in the vote or a tie (results.py).
UNVERIFIED_REASON = "the model is not verified"


# ------------------------------------------------------------------------------------ host <-> zygote

class VerifyRequest(TypedDict, total=False):
    """zygote -> verifier (a fresh child, child/verify.py): the model to re-check, or, for a spare
    forked before any model existed, ``spare`` (its request comes later, with ``limits``)."""

    assertions_smt2: str
    model_smt2: list[Any]
    timeout_s: float
    require: list[str]
    spare: bool
    limits: dict[str, float]
    more_models_smt2: list[Any]  # models=N: each further model's pairs, checked one by one


# The layers an isolation report names, in application order (child/bootstrap.py says why this
# order): the names ``require`` accepts.
PROCESS_LAYERS = ("environment", "rlimits")
KERNEL_LAYERS = ("environment", "rlimits", "capabilities", "landlock", "seccomp")
NAMESPACE_LAYERS = ("userns", "netns", "pidns", "mountns", "ipcns", "utsns")
KNOWN_LAYERS = frozenset(KERNEL_LAYERS + NAMESPACE_LAYERS)


class LayerReport(TypedDict, total=False):
    name: str  # "userns", "netns", "pidns", "rlimits", "landlock", "seccomp", "environment"
    active: bool
    detail: str  # e.g. "ABI 7, 12 rules", "43 rules", "uid 1000 -> 0"
    error: str  # why it is not active


class IsolationReport(TypedDict):
    level: Literal["kernel", "process"]
    layers: list[LayerReport]


class RunRequestOptional(TypedDict, total=False):
    models: int  # up to this many distinct models of a sat candidate (absent: 1)


class RunRequest(RunRequestOptional):
    v: int
    type: Literal["run"]
    id: int
    index: int
    script: str
    language: Language
    limits: dict[str, float]
    random_seed: int | None
    cores: bool
    verify: bool
    seed_hex: str | None  # the input byte_N models overlay
    require: list[str]  # layers that must be active, or the candidate is not run


class CancelRequest(TypedDict):
    v: int
    type: Literal["cancel"]
    id: int
    reason: str  # "race", "cancel", "interrupt"


class ShutdownRequest(TypedDict):
    v: int
    type: Literal["shutdown"]


class Hello(TypedDict):
    v: int
    type: Literal["hello"]
    pid: int
    z3_version: str
    isolation: IsolationReport
    scratch: str  # the zygote's folder of scratch folders; the host removes it if the zygote dies


class Started(TypedDict):
    v: int
    type: Literal["started"]
    id: int


class CandidateError(TypedDict):
    """A failed candidate's error, for agents and people alike (``CandidateResult.error``): the
    escaped exception's class name (``SyntaxError``, ``NameError`` ...), or the verdict when no
    exception escaped (``timeout``, ``crashed`` ...); the line of the script it happened on, where
    it can be told (a solver timeout: the line of the check(); a crash: the Python line faulthandler
    printed); and the message."""

    type: str
    line: int | None
    message: str


class ModelDict(TypedDict):
    """A further model of a candidate (``models=N``) as the host holds it."""

    model: dict[str, JsonValue]
    payload_hex: str | None
    payload_error: str | None
    verified: bool | None


class CandidateOptional(TypedDict, total=False):
    """The optional fields of ``CandidateDict``, added in schema version 1 (absent in older
    documents, and when there is nothing to say)."""

    objectives: list[Objective]  # a sat Optimize check's objectives and their values
    more_models: list[ModelDict]  # models=N: the further models, each verified like the first


class CandidateDict(CandidateOptional):
    """A finished candidate: ``CandidateResult`` as JSON.  Also the per-candidate part of the
    ``application/vnd.z3sandbox.run+json`` schema."""

    index: int
    verdict: str
    reason: str
    model: dict[str, JsonValue] | None
    payload_hex: str | None
    payload_error: str | None
    unsat_core: list[list[Any]] | None
    stdout: str
    stderr: str
    stdout_truncated: bool
    stderr_truncated: bool
    output_truncated: bool  # the middle of stdout or stderr was dropped (head and tail are kept)
    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    kill: str | None  # "solver", "wall", "cpu", "memory", "output", "file_size", "race", "cancel", "seccomp"
    exit_code: int | None
    signal: int | None
    verified: bool | None
    isolation: IsolationReport | None
    host: str | None  # the worker that ran it, for distributed runs; None for this machine
    error: CandidateError | None  # None when it did not fail (sat, unsat, unknown, no_check, cancelled)


class ZygoteResult(CandidateDict, total=False):
    """``Done.result``: a ``CandidateDict``, and the byte_N that travelled as hex only
    (``INLINE_BYTE_CONSTANTS``), which the host puts back into ``model`` (payload.expand_model)."""

    byte_runs: list[list[Any]]
    model_omitted: int  # model entries left out (SHOWN_MODEL_MAX_ENTRIES, SHOWN_MODEL_MAX_BYTES)


class Done(TypedDict):
    v: int
    type: Literal["done"]
    id: int
    result: ZygoteResult


# The same messages as unions, for the host's typing (host/zygote_client.py parses the frames into
# them; a cluster Remote speaks them too).  What the host sends the zygote:
HostRequest = RunRequest | CancelRequest | ShutdownRequest
# What the zygote sends the host after its Hello, per candidate:
ZygoteEvent = Started | Done
Language = Literal["python", "smt2"]  # RunRequest.language
