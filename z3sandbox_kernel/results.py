"""What a run returns: one ``CandidateResult`` per candidate and the ``RunResult`` that votes over them."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from .limits import Limits
from .protocol import CandidateDict, IsolationReport, decode_value, encode_value
from .verdicts import Verdict


@dataclass
class CandidateResult:
    """The outcome of one candidate.  Measurements come from the operating system, not the child."""

    index: int
    verdict: Verdict | None = None  # None until the candidate is done
    state: Literal["queued", "running", "done"] = "done"
    reason: str = ""
    model: dict[str, Any] | None = None
    payload: bytes | None = None
    payload_error: str | None = None
    unsat_core: list[tuple[int, str]] | None = None
    stdout: str = ""
    stderr: str = ""
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    wall_s: float = 0.0
    cpu_s: float = 0.0
    peak_rss_mb: float = 0.0
    kill: str | None = None
    exit_code: int | None = None
    signal: int | None = None
    verified: bool | None = None
    isolation: IsolationReport | None = None
    host: str | None = None  # where it ran, for distributed runs; None for this machine
    limits: Limits | None = None  # the limits it ran under (set when its run is done)

    @classmethod
    def from_dict(cls, data: CandidateDict | dict[str, Any]) -> CandidateResult:
        known = {f.name for f in dataclasses.fields(cls)} - {"limits"}
        values: dict[str, Any] = {k: v for k, v in data.items() if k in known}
        values["verdict"] = Verdict(data["verdict"]) if data.get("verdict") is not None else None
        model = data.get("model")
        if model is not None:
            values["model"] = {k: decode_value(v) for k, v in model.items()}
        payload_hex = data.get("payload_hex")
        values["payload"] = bytes.fromhex(payload_hex) if payload_hex is not None else None
        core = data.get("unsat_core")
        if core is not None:
            values["unsat_core"] = [(int(line), str(text)) for line, text in core]
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, with the field names of ``CandidateDict``."""
        data = dataclasses.asdict(self)
        data["verdict"] = self.verdict.value if self.verdict is not None else None
        data["model"] = (
            {k: encode_value(v) for k, v in self.model.items()} if self.model is not None else None
        )
        data.pop("payload")
        data["payload_hex"] = self.payload.hex() if self.payload is not None else None
        data["unsat_core"] = [list(pair) for pair in self.unsat_core] if self.unsat_core else None
        data["limits"] = self.limits.to_dict() if self.limits is not None else None
        return data

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> Any:
        from .render import candidate_mimebundle

        return candidate_mimebundle(self)


@dataclass
class RunResult:
    """All candidates of one run, in index order, and the vote over them.

    ``verdict`` is the majority over the decisive verdicts (sat, unsat).  On a tie, sat wins when at
    least one sat model was verified (a model that checks is a certificate); otherwise the tie is
    ``unknown``.  With no decisive verdict at all, it is the most common verdict, earliest first.
    """

    candidates: list[CandidateResult]
    limits: Limits = field(default_factory=Limits)
    language: str = "python"
    isolation: IsolationReport | None = None
    notes: list[str] = field(default_factory=list)  # e.g. "the zygote died (SIGKILL) and was restarted"
    interrupted: bool = False
    elapsed_s: float = 0.0

    def __len__(self) -> int:
        return len(self.candidates)

    def __getitem__(self, index: int) -> CandidateResult:
        return self.candidates[index]

    def __iter__(self) -> Iterator[CandidateResult]:
        return iter(self.candidates)

    @property
    def counts(self) -> dict[str, int]:
        return dict(Counter(c.verdict.value for c in self.candidates if c.verdict is not None))

    @property
    def verdict(self) -> Verdict:
        if not self.candidates:
            return Verdict.UNKNOWN
        sat = [c for c in self.candidates if c.verdict is Verdict.SAT]
        unsat = [c for c in self.candidates if c.verdict is Verdict.UNSAT]
        if sat or unsat:
            if len(sat) != len(unsat):
                return Verdict.SAT if len(sat) > len(unsat) else Verdict.UNSAT
            return Verdict.SAT if any(c.verified for c in sat) else Verdict.UNKNOWN
        order = Counter(c.verdict for c in self.candidates if c.verdict is not None)
        if not order:
            return Verdict.UNKNOWN
        best = max(order.values())
        return next(v for v in order if order[v] == best)

    @property
    def best(self) -> CandidateResult | None:
        """The SAT candidate whose model and payload stand for the run: the first verified one."""
        sat = [c for c in self.candidates if c.verdict is Verdict.SAT]
        verified = [c for c in sat if c.verified]
        chosen = verified or sat
        return chosen[0] if chosen else None

    @property
    def model(self) -> dict[str, Any] | None:
        best = self.best
        return best.model if best else None

    @property
    def payload(self) -> bytes | None:
        best = self.best
        return best.payload if best else None

    @property
    def models(self) -> list[dict[str, Any]]:
        return [c.model for c in self.candidates if c.verdict is Verdict.SAT and c.model is not None]

    @property
    def payloads(self) -> list[bytes]:
        return [
            c.payload for c in self.candidates if c.verdict is Verdict.SAT and c.payload is not None
        ]

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> Any:
        from .render import run_mimebundle

        return run_mimebundle(self)

    def __repr__(self) -> str:
        from .render import run_text

        return run_text(self)
