"""The ``application/vnd.z3sandbox.run+json`` document: what the kernel shows a run as, and the one
source of its schema.

``presentation/render.py`` builds exactly these types; ``RunResult.from_json`` reads them back; the
labextension's types are generated from them (``run_schema()`` is written to
``labextension/src/run-schema.generated.json`` by ``python tools/sync_docs.py``, and its build turns
that into TypeScript).  A field added here reaches the labextension by running that one command.

Additive changes keep ``SCHEMA_VERSION`` 1: a reader ignores fields it does not know.  So the
required fields (each ``_...Required`` base) are those every version-1 document has had; a field
added since goes in the ``total=False`` class (documents saved before it lack it), even when this
version always writes it.  The objects are closed (``additionalProperties: false``): a document
this version writes has no field its schema does not declare (tests/test_run_document.py
validates real ones, and the saved notebooks').

Volatile figures (wall_s, cpu_s, peak_rss_mb, elapsed_s) go in the output *metadata* under the same
MIME type (``RunMetadata``), so that a saved notebook stays byte-identical from run to run.

Everything a candidate wrote (reason, model, stdout) is untrusted: the text renderings replace
control characters, and the HTML escapes it all.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Final, Literal, TypedDict

import msgspec
from msgspec import UNSET, UnsetType

from .candidate import CandidateFacts
from .messages import IsolationReport
from .roles import Kill
from .verdicts import Verdict

MIME_TYPE: Final = "application/vnd.z3sandbox.run+json"
SCHEMA_NAME: Final = "z3sandbox.run"
# What a result's ``_repr_mimebundle_`` gives IPython: the data by MIME type, and its metadata.
MimeBundle = tuple[Mapping[str, object], Mapping[str, object]]
SCHEMA_VERSION: Final = 1

VerdictName = Annotated[str, msgspec.Meta(extra_json_schema={"enum": [v.value for v in Verdict]})]
TextPair = Annotated[list[str], msgspec.Meta(min_length=2, max_length=2)]  # [name, shown value]


class _DocumentColumnRequired(TypedDict):
    key: str
    title: str


class DocumentColumn(_DocumentColumnRequired, total=False):
    """One column of the table, in order (``phrases.TABLE_COLUMNS``)."""

    unit: str  # a measured figure's unit ("s", "MB")


class DocumentProgress(TypedDict):
    """Candidates with a verdict, of all candidates."""

    done: int
    total: int


class _DocumentTieRequired(TypedDict):
    sat: int
    unsat: int
    winner: Literal["sat", "unsat", "unknown"]
    rule: str


class DocumentTie(_DocumentTieRequired, total=False):
    """As many sat as unsat: how the vote was decided (``RunResult.tie``)."""

    words: dict[str, str]  # a run of prove() calls: each answer in its words ("sat": "counterexample")


class DocumentPayloadFile(TypedDict):
    """A distinct payload of the run, as ``RunResult.save_payloads`` writes it: its file's name,
    its candidate, and where its bytes are in that candidate's entry: ``payload_hex``,
    ``more_models/N`` or ``checks/N`` (each entry's ``payload_hex``)."""

    name: str
    index: int
    at: str


class DocumentCandidate(CandidateFacts, kw_only=True):
    """One candidate: its facts (``CandidateFacts``), and what its row shows.  ``verdict`` is null
    only in a document shown while the run still goes (``state`` says where it is); such a live
    document has empty stdout and stderr (the final one has them).  A document holds it as JSON
    (``entry``): the facts of ``SAID_WHEN_SET`` only when they are not at their default."""

    # The verdict as the row shows it: "proved", "counterexample", "sat · no payload", the verdict
    # or the live state.
    shown: str = ""
    core_answer: str | None = None  # an SMT-LIB (get-unsat-core) answer in stdout: "(a1 a3)"
    show_output: bool = False  # its row shows stdout inline (alone, or failed)
    # Some columns' text (kill, model, reason) as the text table shows it: draw it, don't format it.
    # The reason's cell keeps its message whole (it wraps) and may cut its quoted source line.
    # ``core``: the unsat core under the row, as every view says it ("line 3: x > 2; ..." or an
    # SMT-LIB answer), when it has one.
    cells: dict[str, str] = {}
    # The whole reason as its row says it: "confirmed by z3; ..." or "unconfirmed: why", then the
    # candidate's reason (a traceback too), less a clause the caption says once (``said_once``);
    # one click away from the row's cell.
    reason_shown: str = ""
    # A sat or unsat answer nobody confirmed: why (its badge looks different from a confirmed one).
    unconfirmed: str | UnsetType = UNSET
    objective: str | UnsetType = UNSET  # with objectives: as the row shows them, "maximize x + y = 13"
    further_models: list[str] | UnsetType = UNSET  # with more_models or checks: "model 2: x=2" each
    # Who stands behind the answer, in its detail: ["confirmed", "by z3 (model verified)"] or
    # ["verified", "model failed verification"] (row_details.confirmation).
    confirmation: TextPair | UnsetType = UNSET
    # A cell's candidate with a core: each entry's place as every view says it ("line 12 [candidate
    # line 3]").
    core_places: list[str] | UnsetType = UNSET


# The fields every version-1 document has had (the schema's ``required``); the others came since.
REQUIRED_FIRST = ("index", "verdict", "reason", "model", "payload_hex", "payload_error", "unsat_core",
                  "stdout", "stderr", "stdout_truncated", "stderr_truncated", "kill", "exit_code",
                  "signal", "verified")
# Facts a row holds only when they are not at their default (documents saved before them lack
# them, and so do the rows of runs that have none): the others are always there.
SAID_WHEN_SET = ("state", "objectives", "more_models", "confirmed_by", "disputed", "cell_line",
                 "cell_candidates", "checks", "checks_made")
_DEFAULTS = {field.name: field.default_factory() if field.default is msgspec.NODEFAULT else field.default
             for field in msgspec.structs.fields(DocumentCandidate) if field.name in SAID_WHEN_SET}
DocumentEntry = dict[str, Any]  # a DocumentCandidate as its document holds it: JSON (``entry``)


def entry(candidate: DocumentCandidate) -> DocumentEntry:
    """``candidate`` as its document holds it: JSON, the facts of ``SAID_WHEN_SET`` left out at
    their default (the row's own fields when unset)."""
    made: DocumentEntry = msgspec.to_builtins(candidate)
    for name, default in _DEFAULTS.items():
        if made[name] == default:
            del made[name]
    return made


class _RunDocumentRequired(TypedDict):
    schema: Literal["z3sandbox.run"]
    version: Literal[1]
    verdict: VerdictName  # RunResult.verdict (the vote)
    counts: dict[str, int]  # verdict -> number of candidates
    language: str  # "python" or "smt2"
    limits: dict[str, float]  # Limits.to_dict()
    isolation: IsolationReport | None
    notes: list[str]  # e.g. a restarted zygote
    interrupted: bool
    candidates: list[DocumentEntry]  # each a DocumentCandidate (run_schema says so)


class RunDocument(_RunDocumentRequired, total=False):
    """A run (or, with ``view: "candidate"``, one candidate displayed alone) as the kernel shows it."""

    vote: str  # the verdict as it is said: "proved" / "counterexample" / "disputed" for prove() runs
    finished: bool  # false while the run goes (a live document)
    progress: DocumentProgress
    tie: DocumentTie | None
    view: Literal["run", "candidate"]
    columns: list[DocumentColumn]
    isolation_summary: str  # "kernel: userns ...; missing: netns"
    isolation_shortfall: str  # the summary when a layer of the best isolation is missing
    limits_shown: list[TextPair]  # [["timeout", "5 s"], ["memory", "512 MB"], ...]
    delta: bool  # a live refresh: "candidates" holds only the rows that changed
    control: str | None  # a live run: the display id a Stop button's request names
    # A run of prove() calls: each answer in its words ({"sat": "counterexample", "unsat":
    # "proved"}), for its counts and its filter.
    words: dict[str, str]
    # Every distinct payload of a finished run, as save_payloads writes them: "Download all
    # payloads" zips these (further models and the models read at checks too).
    payload_files: list[DocumentPayloadFile]
    # A clause every answer of the run shares, said once in the caption, not on every row:
    # "all 8 answers: the script never called check(): the sandbox checked its assertions".
    said_once: str
    # The candidates' verdicts (or states, while the run goes) as the caption counts them, most
    # common first, in prove()'s words for a run of prove() calls: "2 sat, 1 timeout, 5 running".
    counts_shown: str
    tie_shown: str  # with a tie: "1 sat / 1 unsat → sat: RULE" (phrases.tie_summary)
    # Each layer of the isolation report in one line, in its order: "landlock: active (ABI 7)".
    isolation_layers: list[str]


class _DocumentTimingRequired(TypedDict):
    index: int


class DocumentTiming(_DocumentTimingRequired, total=False):
    """A candidate's volatile figures; a running one has only ``running_s`` (its time so far)."""

    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    running_s: float


class RunMetadata(TypedDict, total=False):
    """The output metadata under ``MIME_TYPE``: the figures that change from run to run."""

    elapsed_s: float
    timings: list[DocumentTiming]


def run_schema() -> dict[str, object]:
    """The JSON Schema (2020-12) of ``RunDocument``, with ``RunMetadata`` among its definitions."""
    # Kill: named for the labextension (a row's ``kill`` is read as text, protocol/candidate.py).
    _, definitions = msgspec.json.schema_components([RunDocument, RunMetadata, DocumentCandidate, Kill],
                                                    ref_template="#/$defs/{name}")
    definitions["RunDocument"]["properties"]["candidates"]["items"] = {"$ref": "#/$defs/DocumentCandidate"}
    definitions["DocumentCandidate"]["required"] = list(REQUIRED_FIRST)
    for definition in definitions.values():
        if definition.get("type") == "object" and "additionalProperties" not in definition:
            definition["additionalProperties"] = False  # closed: every field is declared
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$comment": _GENERATED,
            **definitions.pop("RunDocument"), "$defs": dict(sorted(definitions.items()))}


_GENERATED = ("generated from z3sandbox_kernel/protocol/document.py by python tools/sync_docs.py: "
              "edit the Python types, not this file")
