"""Models a candidate found besides its first: further models (``models=N``) and those its script
read at each of its checks.  Each is held as a candidate's first model is: its model, payload and
verification."""

from __future__ import annotations

from dataclasses import dataclass

from ..protocol import CheckDict, ModelDict
from ..protocol.candidate import Model
from .wire_model import FoundModel

_MODEL = FoundModel()


@dataclass
class ModelResult:
    """A further model of a sat candidate (``models=N``): its model, payload and verification,
    as a candidate's first model is held (``CandidateResult.model``, ``payload``, ``verified``:
    its values as they came, decoded when read)."""

    model: FoundModel = _MODEL
    payload: bytes | None = None
    payload_error: str | None = None
    verified: bool | None = None

    @property
    def encoded_model(self) -> Model:
        """The model as it travels and is saved: name -> ``encode_value(value)``."""
        return _MODEL.wire(self) or {}

    @classmethod
    def from_dict(cls, data: ModelDict | CheckDict) -> ModelResult:
        payload_hex = data.get("payload_hex")
        found = cls({}, bytes.fromhex(payload_hex) if payload_hex is not None else None,
                    data.get("payload_error"), data.get("verified"))
        _MODEL.receive(found, data.get("model") or {})
        return found

    def to_dict(self) -> ModelDict:
        return {"model": self.encoded_model,
                "payload_hex": self.payload.hex() if self.payload is not None else None,
                "payload_error": self.payload_error, "verified": self.verified}


@dataclass
class CheckResult:
    """One check of a candidate's script, in order: its verdict (``"sat"``, ``"unsat"``,
    ``"unknown"``), the script line of the check() call, and for a sat check whose model the
    script read, that model (``found``), verified like a candidate's first."""

    verdict: str
    line: int | None = None
    found: ModelResult | None = None

    @property
    def model(self) -> dict[str, object] | None:
        return self.found.model if self.found is not None else None

    @property
    def payload(self) -> bytes | None:
        return self.found.payload if self.found is not None else None

    @property
    def verified(self) -> bool | None:
        return self.found.verified if self.found is not None else None

    @classmethod
    def from_dict(cls, data: CheckDict) -> CheckResult:
        found = ModelResult.from_dict(data) if data.get("model") is not None else None
        return cls(str(data["verdict"]), data.get("line"), found)

    def to_dict(self) -> CheckDict:
        found = self.found.to_dict() if self.found is not None else None
        return {"verdict": self.verdict, "line": self.line,
                "model": found["model"] if found else None,
                "payload_hex": found["payload_hex"] if found else None,
                "payload_error": found["payload_error"] if found else None,
                "verified": found["verified"] if found else None}
