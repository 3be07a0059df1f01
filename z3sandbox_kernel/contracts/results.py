"""What a run returns: one ``CandidateResult`` per candidate and the ``RunResult`` that votes over them."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypedDict, TypeVar, cast

import msgspec

from ..protocol import (
    CandidateError,
    IsolationReport,
    Objective,
    decode_value,
    encode_value,
)
from ..protocol.candidate import CandidateFacts, Model
from ..protocol.document import MIME_TYPE, SCHEMA_NAME, DocumentCandidate, MimeBundle
from ..protocol.roles import Kill
from ..protocol.verdicts import Verdict
from .display import shows
from .found import CheckResult, ModelResult
from .limits import Limits
from .record import RESULT_SCHEMA, CandidateRecord, SavedRun, checked_as
from .run_payloads import RunPayloads
from .vote import RunVote
from .wire_model import WireModel

if TYPE_CHECKING:
    import pandas

Facts = TypeVar("Facts", bound=CandidateFacts)
_MODEL = WireModel()


# How a result prints: through the presentation (presentation/render.py), which contracts/display.py
# names for it (the package's root fills it before any result exists, so a result always prints
# the same, whatever was imported before).  render is imported when a result is first shown: the
# zygote and the child, which never show a result, never load it, and no contract imports a face.


class _PlannedRequired(TypedDict):
    index: int
    sha256: str
    random_seed: int | None
    label: str | None


class PlannedCandidate(_PlannedRequired, total=False):
    """What a run was asked of one candidate, as its record's header holds it: its expected
    verdict when the run named any, its script when scripts are recorded."""

    expected: str | None
    script: str


@dataclass
class CandidateResult:
    """The outcome of one candidate.  Measurements come from the operating system, not the child."""

    index: int
    verdict: Verdict | None = None  # None until the candidate is done
    state: Literal["queued", "running", "done"] = "done"
    reason: str = ""
    # Its values as they came (``encoded_model``), decoded when first read: {name: int, bool,
    # Fraction or str}.
    model: WireModel = _MODEL
    payload: bytes | None = None
    payload_error: str | None = None
    unsat_core: list[tuple[int, str]] | None = None
    objectives: list[Objective] = field(default_factory=list)  # a sat Optimize check's goals
    more_models: list[ModelResult] = field(default_factory=list)  # models=N: each verified too
    checks: list[CheckResult] = field(default_factory=list)  # each check the script made (found.py)
    checks_made: int = 0  # how many: more than len(checks) when capped (protocol.MAX_CHECKS)
    stdout: str = ""
    stderr: str = ""
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    output_truncated: bool = False  # the middle of stdout or stderr was dropped (head and tail kept)
    wall_s: float = 0.0
    cpu_s: float = 0.0
    peak_rss_mb: float = 0.0
    kill: Kill | None = None  # why it was killed, if it was (roles.Kill: shows as its string)
    exit_code: int | None = None
    signal: int | None = None
    verified: bool | None = None
    # Solvers that confirmed the decisive answer in a process that ran no user code ("z3", "cvc5"),
    # and why a checker contradicts it (a disputed answer never counts in the vote).
    confirmed_by: tuple[str, ...] = ()
    disputed: str | None = None
    model_omitted: int = 0  # model entries the host did not keep (protocol.SHOWN_MODEL_MAX_ENTRIES)
    isolation: IsolationReport | None = None
    host: str | None = None  # where it ran, for distributed runs; None for this machine
    limits: Limits | None = None  # the limits it ran under (set when its run is done)
    label: str | None = None  # its name: "# %% candidate NAME", the dict key, the file name
    source_preview: str | None = None  # the first meaningful line of its source
    # {type, line, message} when it failed (protocol.CandidateError), else None; one the host
    # made itself (a watchdog, a dead worker) gets its verdict as type and its reason as message.
    error: CandidateError | None = None
    # A %%z3sandbox cell's candidate: the cell's line of its line 1, how many candidates the cell
    # held (its lines are shown as the cell counts them: presentation/row_details.line_place).
    cell_line: int | None = None
    cell_candidates: int = 0

    def __post_init__(self) -> None:
        if self.error is None and self.verdict is not None and Verdict(self.verdict).failed:
            self.error = {"type": Verdict(self.verdict).value, "line": None, "message": self.reason}

    @property
    def encoded_model(self) -> Model | None:
        """The model as it came and is saved: name -> ``encode_value(value)``."""
        return _MODEL.wire(self)

    @classmethod
    def from_record(cls, record: CandidateFacts) -> CandidateResult:
        """A candidate back from its JSON form (``to_record``, or a display document's row); its
        model held as it came; a record's figures, where it ran and its limits when it has them."""
        candidate = cls(
            index=record.index, verdict=record.verdict, state=record.state, reason=record.reason,
            payload=bytes.fromhex(record.payload_hex) if record.payload_hex is not None else None,
            payload_error=record.payload_error, unsat_core=record.unsat_core,
            # a value decoded (a Real's Fraction), as a candidate's objectives have always held it
            objectives=[cast("Objective", {**goal, "value": decode_value(goal["value"])})
                        for goal in record.objectives],
            more_models=[ModelResult.from_dict(found) for found in record.more_models],
            checks=[CheckResult.from_dict(check) for check in record.checks],
            checks_made=record.checks_made, stdout=record.stdout, stderr=record.stderr,
            stdout_truncated=record.stdout_truncated, stderr_truncated=record.stderr_truncated,
            output_truncated=record.output_truncated, kill=Kill.read(record.kill),
            exit_code=record.exit_code, signal=record.signal, verified=record.verified,
            confirmed_by=tuple(record.confirmed_by), disputed=record.disputed,
            model_omitted=record.model_omitted, label=record.label, source_preview=record.source_preview,
            error=record.error, cell_line=record.cell_line, cell_candidates=record.cell_candidates)
        _MODEL.receive(candidate, record.model)
        if isinstance(record, CandidateRecord):
            candidate.wall_s, candidate.cpu_s, candidate.peak_rss_mb = record.wall_s, record.cpu_s, \
                record.peak_rss_mb
            candidate.isolation, candidate.host = record.isolation, record.host
            candidate.limits = Limits.from_dict(record.limits) if record.limits else None
        return candidate

    def to_dict(self) -> dict[str, object]:
        """JSON-ready: ``to_record()`` as plain dicts and lists (the payload as ``payload_hex``)."""
        return cast("dict[str, object]", msgspec.to_builtins(self.to_record()))

    def to_record(self) -> CandidateRecord:
        """Its JSON form: its facts, figures, where it ran and its limits."""
        record = self.facts_as(CandidateRecord)
        record.wall_s, record.cpu_s, record.peak_rss_mb = self.wall_s, self.cpu_s, self.peak_rss_mb
        record.isolation, record.host = self.isolation, self.host
        record.limits = self.limits.to_dict() if self.limits is not None else None
        return record

    def facts_as(self, kind: type[Facts]) -> Facts:
        """Its facts (``CandidateFacts``) as a ``kind`` (a record, a document's row), the kind's
        own fields at their defaults; its model as it came, not encoded again."""
        return kind(
            index=self.index, verdict=self.verdict, state=self.state, reason=self.reason,
            model=self.encoded_model, payload_hex=self.payload.hex() if self.payload is not None else None,
            payload_error=self.payload_error, unsat_core=list(self.unsat_core) if self.unsat_core else None,
            objectives=[{**goal, "value": encode_value(goal["value"])} for goal in self.objectives],
            more_models=[found.to_dict() for found in self.more_models],
            checks=[check.to_dict() for check in self.checks], checks_made=self.checks_made,
            stdout=self.stdout, stderr=self.stderr, stdout_truncated=self.stdout_truncated,
            stderr_truncated=self.stderr_truncated, output_truncated=self.output_truncated,
            kill=self.kill, exit_code=self.exit_code, signal=self.signal, verified=self.verified,
            confirmed_by=list(self.confirmed_by), disputed=self.disputed, model_omitted=self.model_omitted,
            label=self.label, source_preview=self.source_preview, error=self.error,
            cell_line=self.cell_line, cell_candidates=self.cell_candidates)

    @property
    def payloads(self) -> list[bytes]:
        """Its payloads, one per model, each once (``named_payloads`` names them), as a list."""
        return [payload for _, payload in self.named_payloads()]

    def named_payloads(self) -> list[tuple[str, bytes]]:
        """A candidate's payloads, one per model, each named: ``""`` for a sat candidate's first
        model, ``"model-2"``, ``"model-3"``... for further ones (``models=N``), ``"check-N"`` for
        the models its script read at its checks (1-based), whatever its verdict, each payload once
        (a model that failed verification gives none)."""
        named = [("", self.payload)] + [(f"model-{n}", found.payload) for n, found in
                                        enumerate(self.more_models, start=2) if found.verified is not False]
        named = named if self.verdict is Verdict.SAT else []
        named += [(f"check-{n}", check.payload) for n, check in enumerate(self.checks, start=1)
                  if check.verified is not False]
        kept: dict[bytes, str] = {}
        for name, payload in named:
            if payload is not None:
                kept.setdefault(payload, name)
        return [(name, payload) for payload, name in kept.items()]

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> MimeBundle:
        alone = RunResult(candidates=[self], limits=self.limits or Limits())
        return shows().candidate_mimebundle(self, alone)

    def __repr__(self) -> str:
        return shows().candidate_alone_text(self)


@dataclass
class RunResult(RunVote[CandidateResult], RunPayloads[CandidateResult]):
    """All candidates of one run, in index order, and the vote over them (vote.py: the majority
    of the decisive answers that count; a disputed answer never counts; on a tie a confirmed answer
    beats an unconfirmed one, and ``tie`` says which rule decided: ``RunVote``), their payloads
    (``RunPayloads``), and the run saved and read back."""

    candidates: list[CandidateResult]
    limits: Limits = field(default_factory=Limits)
    language: str = "python"
    isolation: IsolationReport | None = None
    notes: list[str] = field(default_factory=list)  # e.g. "the zygote died (SIGKILL) and was restarted"
    interrupted: bool = False
    elapsed_s: float = 0.0
    run_id: str = ""  # names its record file, when recorded (Sandbox(record_dir=...))
    rounds: list[RunResult] = field(default_factory=list)  # repair(): every round's result, in order
    planned: list[PlannedCandidate] = field(default_factory=list, repr=False, compare=False)  # per candidate
    # Set by %%z3sandbox: runs some of its candidates again (see ``rerun``); not saved.
    _rerun: Callable[[RunResult, list[int]], RunResult] | None = field(default=None, repr=False,
                                                                        compare=False)

    def __len__(self) -> int:
        return len(self.candidates)

    def __getitem__(self, index: int) -> CandidateResult:
        return self.candidates[index]

    def __iter__(self) -> Iterator[CandidateResult]:
        return iter(self.candidates)

    @property
    def model(self) -> dict[str, object] | None:
        """The model of ``best``."""
        return self.best.model if self.best else None

    @property
    def payload(self) -> bytes | None:
        return self.best.payload if self.best else None

    @property
    def models(self) -> list[dict[str, object]]:
        return [c.model for c in self.candidates if c.verdict is Verdict.SAT and c.model is not None]

    # -- saving and comparing runs

    def to_json(self, **dumps: Any) -> str:  # noqa: ANN401  # json.dumps's keywords, handed on
        """The whole run, figures included, as JSON text (``SavedRun``); ``from_json`` reads it back."""
        saved = SavedRun(schema=RESULT_SCHEMA, language=self.language, limits=self.limits.to_dict(),
                         isolation=self.isolation, notes=list(self.notes), interrupted=self.interrupted,
                         elapsed_s=self.elapsed_s, run_id=self.run_id,
                         candidates=[c.to_record() for c in self.candidates])
        return json.dumps(msgspec.to_builtins(saved), **dumps)

    @classmethod
    def from_json(cls, text: str | bytes | Mapping[str, object]) -> RunResult:
        """A run back from ``to_json()``'s text, or from what a saved notebook holds: the
        ``application/vnd.z3sandbox.run+json`` document of its output (or the whole output, or
        its ``data`` bundle; the figures come from the output's metadata when it is there)."""
        data = json.loads(text) if isinstance(text, (str, bytes)) else dict(text)
        data, metadata = _display_document(data)
        if data.get("schema") == SCHEMA_NAME:
            try:
                return _from_display_document(data, metadata)
            except (KeyError, TypeError) as exc:
                raise ValueError(f"not a saved z3sandbox run: its display document lacks {exc}") from None
        if data.get("schema") != RESULT_SCHEMA:
            raise ValueError(f"not a saved z3sandbox run (schema {data.get('schema')!r})")
        saved = checked_as(data, SavedRun, "a saved z3sandbox run")
        return cls(candidates=[CandidateResult.from_record(c) for c in saved.candidates],
                   limits=Limits.from_dict(saved.limits), language=saved.language, notes=saved.notes,
                   isolation=saved.isolation, interrupted=saved.interrupted, elapsed_s=saved.elapsed_s,
                   run_id=saved.run_id or "")

    def table_rows(self) -> list[dict[str, object]]:
        """One dict per candidate, keyed by the table's columns (``phrases.TABLE_COLUMNS``)."""
        return shows().table_rows(self)

    @property
    def unfinished(self) -> list[int]:
        """The candidates an interrupt stopped or kept from starting (not those a race, a Stop
        button or ``Sandbox.cancel()`` ended: someone meant those)."""
        return [c.index for c in self.candidates if c.verdict is None or (
            c.verdict is Verdict.CANCELLED
            and (c.kill == Kill.INTERRUPT or c.reason == "interrupt before it started"))]

    def rerun(self, which: list[int] | None = None) -> RunResult:
        """Run ``which`` candidates again (default: ``unfinished``) as this run ran them, and
        return this run with their rows replaced.  Only for a run made by ``%%z3sandbox`` (it
        knows the scripts); elsewhere, run the scripts again."""
        if self._rerun is None:
            raise ValueError("this result cannot rerun its candidates: run the scripts again")
        return self._rerun(self, self.unfinished if which is None else list(which))

    def to_dataframe(self) -> pandas.DataFrame:
        """``table_rows()`` as a pandas DataFrame indexed by candidate (pandas is optional)."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("RunResult.to_dataframe() needs pandas, which is not installed: pip install "
                              "pandas (table_rows() and to_json() need nothing)") from None
        return pd.DataFrame(self.table_rows()).set_index("index")

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> MimeBundle:
        return shows().run_mimebundle(self)

    def __repr__(self) -> str:
        return shows().run_text(self)


def _display_document(data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(document, metadata) of a saved notebook's output ``{"data": {mime: doc}, "metadata":
    {mime: figures}}``, of its ``data`` bundle alone, or of a document as it is."""
    bundle = data.get("data", data)
    if isinstance(bundle, dict) and MIME_TYPE in bundle:
        metadata = data.get("metadata", {}) if "data" in data else {}
        return dict(bundle[MIME_TYPE]), dict(metadata.get(MIME_TYPE) or {})
    return data, {}


def _from_display_document(data: dict[str, Any], metadata: dict[str, Any]) -> RunResult:
    """The display document (render.run_json): each row's facts (``DocumentCandidate``), less the
    volatile figures, which the output's metadata holds (``timings``, ``elapsed_s``)."""
    limits = Limits.from_dict(data["limits"])
    timings = {row["index"]: row for row in metadata.get("timings", [])}
    rows = checked_as(data["candidates"], list[DocumentCandidate], "a saved z3sandbox run's candidates")
    candidates = []
    for row in rows:
        candidate = CandidateResult.from_record(row)
        figures = timings.get(row.index, {})
        candidate.wall_s, candidate.cpu_s = figures.get("wall_s", 0.0), figures.get("cpu_s", 0.0)
        candidate.peak_rss_mb, candidate.limits = figures.get("peak_rss_mb", 0.0), limits
        candidates.append(candidate)
    return RunResult(candidates=candidates, limits=limits, language=data.get("language", "python"),
                     isolation=data.get("isolation"), notes=list(data.get("notes", [])),
                     interrupted=bool(data.get("interrupted")),
                     elapsed_s=float(metadata.get("elapsed_s", 0.0)), run_id=data.get("run_id") or "")
