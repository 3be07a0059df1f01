"""The messages between the roles, as TypedDicts that msgspec decodes into with their bounds
(protocol/__init__.py describes the roles; zygote/frames.py decodes what a candidate wrote)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any, Literal, TypedDict

import msgspec

from .limits import Limits
from .roles import Kill
from .wire import JsonValue

# ------------------------------------------------------------------------------------ child -> zygote

# Up to this many 8-bit bit-vector byte_N constants also appear in ``model`` and ``model_smt2`` in
# z3's own order; more travel only as hex runs.
INLINE_BYTE_CONSTANTS = 4096

ChildOutcome = Literal["sat", "unsat", "unknown", "no_check", "syntax_error", "exception", "memory_error",
                       "blocked", "internal_error"]  # internal_error: the harness itself failed


# msgspec decodes a child's frames into the types below (zygote/frames.py): they and their bounds
# are the schema.  Required fields sit in a total base class; unknown fields are dropped.
Natural = Annotated[int, msgspec.Meta(ge=0)]
# Hex digits; that they pair up is checked after decoding (zygote/frames.py): a pattern of repeated
# pairs makes Python's regular expressions keep a backtracking state a pair, 120 MB for 2 MB.
HexPairs = Annotated[str, msgspec.Meta(pattern=r"\A[0-9a-fA-F]*\Z")]
ByteRun = tuple[Natural, HexPairs]  # [start index, hex]
CoreEntry = tuple[int, str]  # [line, source text]
# A model's constants for the verifier, as one string: each one's SMT-LIB name and value, each
# followed by a NUL (z3 prints none in a name or a value).  One string, not a list of pairs: the
# zygote decodes it as one object whatever the model's size (a list cost it 170 bytes a pair), and
# hands it on as it is (``join_pairs``, ``split_pairs``).
Smt2Pairs = str
PAIR_END = "\x00"


def join_pairs(pairs: Iterable[tuple[str, str]]) -> Smt2Pairs:
    """Pairs as the wire carries them."""
    return "".join(f"{name}{PAIR_END}{value}{PAIR_END}" for name, value in pairs)


def split_pairs(text: Smt2Pairs) -> list[tuple[str, str]]:
    """The pairs of ``join_pairs``; raises ValueError when ``text`` is not such a string."""
    parts = text.split(PAIR_END)
    if parts[-1] or len(parts) % 2 == 0:
        raise ValueError("the model's pairs are malformed")
    return list(zip(parts[0:-1:2], parts[1:-1:2], strict=True))


class ByteConstant(TypedDict):
    """A model constant named ``byte_<N>``, as the harness saw it; the zygote applies the rules."""

    name: str
    index: Natural
    sort: str  # "bv", "int", "bool", "real", or another sort's name
    width: Natural | None  # bit-vector width, else None
    value: JsonValue


class _ObjectiveRequired(TypedDict):
    term: str  # the objective as z3 prints it; a soft group's id for assert_soft
    direction: str  # "maximize", "minimize", "soft", or "" when not known
    value: JsonValue  # encode_value: an int, a fraction, or z3's text ("oo", "(+ 3 epsilon)")


class Objective(_ObjectiveRequired, total=False):
    """One objective of the last ``Optimize`` check (child/objectives.py) and the value z3 found."""

    term_smt2: str  # child -> zygote: the term as SMT-LIB, for the verifier (never shown)
    # The verifier's word: True when no better value exists (checked within verify_s), False when
    # it found one, None (or absent) when not decided.
    optimal: bool | None
    # The verifier's value (True), or the candidate's claim (False: the verifier could not read
    # the term, or the answer was not confirmed).  Absent in documents older than the field:
    # there a value with ``optimal`` decided was checked.
    checked: bool


class FoundModel(TypedDict):
    """A further model of a sat candidate (``models=N``, child/more_models.py): the fields a
    ``ChildReport`` holds of its model, for this one."""

    model: dict[str, JsonValue]
    byte_constants: list[ByteConstant]
    byte_runs: list[ByteRun]
    model_smt2: Smt2Pairs


Ranges = list[tuple[Natural, Natural]]  # [start, end) index ranges into a list sent before


class _Versioned(TypedDict, total=False):
    v: int  # set by the writer (bootstrap._write_frame)


class CheckFrame(_Versioned):
    """One check of the script as it ended (child/checks.py), written at once: a candidate stopped
    later keeps it.  Its assertions are ranges into the texts this and earlier check frames sent
    (``asserts``, ``declarations``), in order; None when the harness does not know them."""

    type: Literal["check"]
    index: Natural  # 0, 1, 2 ... in the order the script checked
    verdict: Literal["sat", "unsat", "unknown"]
    line: int | None  # the script line of the check() call
    asserts: list[str]  # assertion texts not sent before
    declarations: list[str]  # declaration texts not sent before
    assertions: Ranges | None
    declared: Ranges


class CheckModelFrame(_Versioned):
    """The model the script read of a sat check (``CheckFrame.index``), as a ``FoundModel``."""

    type: Literal["check_model"]
    index: Natural
    model: dict[str, JsonValue]
    byte_constants: list[ByteConstant]
    byte_runs: list[ByteRun]
    model_smt2: Smt2Pairs


class ChildException(TypedDict):
    type: str
    message: str
    line: int | None  # line in the candidate's script, where it can be told


class _ChildReportRequired(TypedDict):
    outcome: ChildOutcome


class ChildReport(_ChildReportRequired, total=False):
    v: int
    type: Literal["result"]  # set by the bootstrap as it writes the frame
    reason: str  # z3's reason_unknown, the syntax error text, the denial ...
    solver_timeout: bool  # unknown because the solver's timeout expired
    line: int | None  # syntax errors: line and column
    column: int | None
    exception: ChildException
    model: dict[str, JsonValue]  # name -> encode_value(python value), the first SHOWN_MODEL_MAX_ENTRIES
    model_omitted: Natural  # the model's constants past them (model_smt2 holds every one)
    byte_constants: list[ByteConstant]  # byte_N that break the payload rules, as they are
    # Well-formed byte_N (8-bit, 0..255) as [[start index, hex], ...].  Past INLINE_BYTE_CONSTANTS
    # the 8-bit bit-vector ones travel only here (not in model or model_smt2): the zygote puts them
    # back (protocol/byte_runs.py), so a 1 MiB payload's report is 2 MB, not 45.
    byte_runs: list[ByteRun]
    unsat_core: list[CoreEntry]
    objectives: list[Objective]  # sat from an Optimize check: its objectives, in z3's order
    more_models: list[FoundModel]  # models=N: up to N-1 further models, each unlike the others
    checks_made: Natural  # the checks the script made (CheckFrame: up to MAX_CHECKS of them)
    # For verification in a process that ran no user code: the solver's assertions as SMT-LIB 2,
    # and the model's constants as [smt2 name, smt2 value] pairs.
    assertions_smt2: str
    model_smt2: Smt2Pairs
    # cores=True, unsat: the core's formulas as SMT-LIB asserts, each one of ``assertions_smt2``'s
    # (a tracked one as its formula alone), so that the verifier can check the core by itself.
    core_smt2: list[str]
    # An SMT-LIB unsat's (get-unsat-core), as z3 printed it for the script: the named assertions'
    # names (without |quotes|), which the verifier finds in the script and checks alone.
    core_names: Annotated[list[Annotated[str, msgspec.Meta(max_length=1000)]], msgspec.Meta(max_length=1000)]
    # A decisive answer whose assertions the checker is not given: why (a user propagator took
    # part, assertions loaded from text ...).  The candidate's word; it can only leave an answer
    # unconfirmed.
    unconfirmable: str


class _StackReportRequired(TypedDict):
    v: int
    type: Literal["stack"]
    signal: int  # the signal it answered: STACK_REQUEST, or SIGXCPU (the CPU limit's)
    lines: Annotated[list[tuple[Natural, Annotated[str, msgspec.Meta(max_length=200)]]],
                     msgspec.Meta(max_length=64)]


class StackReport(_StackReportRequired, total=False):
    """The script's stack when a limit was about to end it (child/stack.py): ``lines`` are
    [line, function] of the script's own frames, outermost first; the candidate's word."""

    checks_made: Natural  # how many checks the script had made (its report never came)


class SetupFrame(TypedDict):
    """The bootstrap's first frame, written before user code runs: the layers as they applied."""

    v: int
    type: Literal["setup"]
    layers: list[LayerReport]
    error: str | None  # a required layer failed: the candidate does not run


# The reason of a sat result whose model could not be verified (verification was asked for): it is
# shown as such, and counts for nothing in the vote or a tie (results.py).
UNVERIFIED_REASON = "the model is not verified"


# ------------------------------------------------------------------------------------ host <-> zygote

# The layers an isolation report names, in application order (zygote/recipe.py says why this
# order): the names ``require`` accepts.  The one list: the recipe's steps and the child's layer
# modules report these names (tests/zygote/test_recipe.py).
KERNEL_LAYERS = ("environment", "rlimits", "capabilities", "landlock", "seccomp")
NAMESPACE_LAYERS = ("userns", "netns", "pidns", "mountns", "ipcns", "utsns")
KNOWN_LAYERS = frozenset(KERNEL_LAYERS + NAMESPACE_LAYERS)


class _LayerReportRequired(TypedDict):
    name: str  # "userns", "netns", "pidns", "rlimits", "landlock", "seccomp", "environment"
    active: bool


class LayerReport(_LayerReportRequired, total=False):
    detail: str  # e.g. "ABI 7, 12 rules", "43 rules", "uid 1000 -> 0"
    error: str  # why it is not active


class IsolationReport(TypedDict):
    level: Literal["kernel", "process"]
    layers: list[LayerReport]


class RunRequestOptional(TypedDict, total=False):
    models: int  # up to this many distinct models of a sat candidate (absent: 1)
    cross_check: str | None  # "cvc5": the verifier checks the answer in a second solver too
    plain: bool  # run as `python file.py`: no prelude, no `s`, no check for the script (absent: False)
    run: int  # the host's number of the run: its answers are checked by its own verifiers only
    last: bool  # the run's last request: none of the run follows it (absent: False)


class RunRequest(RunRequestOptional):
    v: int
    type: Literal["run"]
    id: int
    index: int
    script: str
    language: Language
    limits: Limits
    random_seed: int | None
    cores: bool
    verify: bool
    seed_hex: str | None  # the input byte_N models overlay
    require: list[str]  # layers that must be active, or the candidate is not run


class CancelRequest(TypedDict):
    v: int
    type: Literal["cancel"]
    id: int
    reason: Kill  # race, cancel, interrupt


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


class CheckDict(TypedDict):
    """One check of a candidate's script as the host holds it (``CandidateResult.checks``): its
    verdict, the line of the check() call, and for a sat check whose model the script read, that
    model, verified like a candidate's first."""

    verdict: str
    line: int | None
    model: dict[str, JsonValue] | None
    payload_hex: str | None
    payload_error: str | None
    verified: bool | None


class CandidateOptional(TypedDict, total=False):
    """The optional fields of ``CandidateDict``, added in schema version 1 (absent in older
    documents, and when there is nothing to say)."""

    objectives: list[Objective]  # a sat Optimize check's objectives and their values
    more_models: list[ModelDict]  # models=N: the further models, each verified like the first
    # The solvers that confirmed the decisive answer in a process that ran no user code ("z3",
    # "cvc5"), and why a checker contradicts it (it then counts for nothing in the vote).
    confirmed_by: list[str]
    disputed: str | None
    checks: list[CheckDict]  # every check the script made, in order (up to MAX_CHECKS)
    checks_made: int  # how many it made: more than len(checks) when capped


class CandidateFields(CandidateOptional):
    """A candidate as JSON but its verdict: ``CandidateDict``'s, and the host's
    (``record.CandidateRecord``), whose verdict is null while the candidate waits or runs."""

    index: int
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
    kill: Kill | None  # why it was killed (roles.Kill)
    exit_code: int | None
    signal: int | None
    verified: bool | None
    isolation: IsolationReport | None
    host: str | None  # the worker that ran it, for distributed runs; None for this machine
    error: CandidateError | None  # None when it did not fail (sat, unsat, unknown, no_check, cancelled)


class CandidateDict(CandidateFields):
    """A finished candidate: ``CandidateResult`` as JSON.  Also the per-candidate part of the
    ``application/vnd.z3sandbox.run+json`` schema."""

    verdict: str


class ZygoteResult(CandidateDict, total=False):
    """``Done.result``: a ``CandidateDict``, and the byte_N that travelled as hex only
    (``INLINE_BYTE_CONSTANTS``), which the host puts back into ``model`` (byte_runs.expand_model)."""

    byte_runs: list[list[Any]]
    model_omitted: int  # model entries left out (SHOWN_MODEL_MAX_ENTRIES, SHOWN_MODEL_MAX_BYTES)


class Done(TypedDict):
    v: int
    type: Literal["done"]
    id: int
    result: ZygoteResult


class Restarted(TypedDict):
    """A process of the zygote's died and another took its place (zygote/fork_orders.py): the
    host says so in the notes of the runs it overlapped, and counts it in ``Sandbox.restarts``.
    Its candidates are told in their own results."""

    v: int
    type: Literal["restarted"]
    role: str  # roles.Role's value: "fork server", "next fork server"
    how: str  # how it died: "was killed by SIGKILL", "exited with code 1"


# The same messages as unions, for the host's typing (a cluster Remote speaks them too).
HostRequest = RunRequest | CancelRequest | ShutdownRequest  # what the host sends the zygote
# What the zygote sends the host after its Hello: per candidate, and when a process was replaced.
ZygoteEvent = Started | Done | Restarted
Language = Literal["python", "smt2"]  # RunRequest.language
