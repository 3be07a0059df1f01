"""Every check a candidate's script made (child/checks.py), from its check frames to the result.

The frames were decoded at the gate (frames.py); here they become one list in the script's order:
each check's verdict and line, its assertions rebuilt from the ranges into the texts the frames
sent, and the model the script read of it.  The verifier checks each such model against its own
check's assertions (``verify_part``), and the result holds them (``CheckDict``), the verifier's
model when it decided, as for a candidate's first model.

The verdict stays the script's last check (a prove-style script's last ``unsat`` is its answer);
the reason says what the earlier checks found (``summary``), so a row never reads as if nothing
was found when the script found models.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, TypedDict

from ..protocol import (
    MAX_CHECKS,
    CheckDict,
    CheckedModel,
    CheckFrame,
    CheckModelFrame,
    CheckToVerify,
    Ranges,
    VerifyRequest,
)
from .payload import build_payload, cap_model


class CheckEntry(TypedDict):
    """One check as its frames said it: a ``CheckFrame``'s own fields, and the model the script
    read of it (``found``, when it was sat)."""

    index: int
    verdict: Literal["sat", "unsat", "unknown"]
    line: int | None
    assertions: Ranges | None
    declared: Ranges
    found: CheckModelFrame | None


@dataclass
class Checks:
    """A candidate's checks as its frames said them, in order of their index."""

    entries: list[CheckEntry] = field(default_factory=list)
    asserts: list[str] = field(default_factory=list)
    declarations: list[str] = field(default_factory=list)

    def text(self, entry: CheckEntry) -> str | None:
        """The assertions of a check as one SMT-LIB text (declarations first), or None."""
        if entry["assertions"] is None:
            return None
        return "".join(_pick(self.declarations, entry["declared"]) + _pick(self.asserts, entry["assertions"]))

    def with_models(self) -> list[CheckEntry]:
        return [entry for entry in self.entries if entry["found"] is not None]


def _pick(texts: list[str], ranges: Ranges) -> list[str]:
    return [text for start, end in ranges for text in texts[start:end]]


def assemble(frames: list[CheckFrame | CheckModelFrame]) -> Checks:
    """The checks of ``frames`` (decoded ``CheckFrame`` and ``CheckModelFrame``).  A frame that
    repeats an index, a model for a check that is not sat, or ranges past the texts sent are
    dropped: the candidate wrote them, and nothing else depends on them."""
    checks = Checks()
    by_index: dict[int, CheckEntry] = {}
    models: dict[int, CheckModelFrame] = {}
    for frame in frames:
        if frame["type"] == "check_model":
            models.setdefault(frame["index"], frame)
            continue
        checks.asserts.extend(frame["asserts"])
        checks.declarations.extend(frame["declarations"])
        if frame["index"] < MAX_CHECKS and frame["index"] not in by_index:
            by_index[frame["index"]] = CheckEntry(
                index=frame["index"], verdict=frame["verdict"], line=frame["line"],
                assertions=frame["assertions"], declared=frame["declared"], found=None)
    for index, entry in sorted(by_index.items()):
        if not _within(entry["assertions"] or [], len(checks.asserts)) or not _within(
                entry["declared"], len(checks.declarations)):
            entry["assertions"] = None
        found = models.get(index)
        entry["found"] = found if found is not None and entry["verdict"] == "sat" else None
        checks.entries.append(entry)
    return checks


def _within(ranges: Ranges, size: int) -> bool:
    return all(0 <= start <= end <= size for start, end in ranges)


def verify_part(checks: Checks, pairs: Callable[[CheckModelFrame, str], list[list[str]]],
                script: str | None = None) -> VerifyRequest:
    """The ``VerifyRequest`` fields that ask for each check's model to be verified (none if no
    check has both a model and its assertions).  ``pairs(found, assertions)``: a model's SMT-LIB
    pairs, its hex-only bytes put back.  An SMT-LIB candidate's ``script``: each check's assertions
    are read from it at the check's position (its index-th (check-sat)), whatever the frame said."""
    asked: list[CheckToVerify] = []
    for entry in checks.with_models():
        text = script if script is not None else checks.text(entry)
        found = entry["found"]
        if text is not None and found is not None:
            mine = script is None  # ranges into the texts the frames sent
            asked.append({"index": entry["index"], "assertions": (entry["assertions"] or []) if mine else [],
                          "declared": entry["declared"] if mine else [], "model_smt2": pairs(found, text)})
    if not asked:
        return {}
    if script is not None:
        return {"checks": asked, "script_smt2": script}
    return {"checks": asked, "check_asserts": checks.asserts, "check_declarations": checks.declarations}


def results(checks: Checks, verified: list[CheckedModel], seed: bytes | None,
            payload_max_bytes: int) -> list[CheckDict]:
    """Each check as the host holds it.  ``verified``: the verifier's word on each check it was
    asked about (``VerifyReport.checks``, by index); a model it decided on is the one shown."""
    by_index = {int(word.get("index", -1)): word for word in verified}
    kept: list[CheckDict] = []
    for entry in checks.entries:
        found, word = entry["found"], by_index.get(entry["index"], CheckedModel())
        check: CheckDict = {"verdict": entry["verdict"], "line": entry["line"], "model": None,
                            "payload_hex": None, "payload_error": None, "verified": None}
        if found is not None:
            source = (word.get("model", {}), word.get("byte_constants", []), word.get("byte_runs", [])
                      ) if "model" in word else (found["model"], found["byte_constants"], found["byte_runs"])
            payload, error = build_payload(source[1], source[2], seed, payload_max_bytes)
            verdict = word.get("verified")
            check["model"] = cap_model(source[0])[0]
            check["payload_hex"] = payload.hex() if payload is not None else None
            check["payload_error"] = error
            check["verified"] = verdict if isinstance(verdict, bool) else None
        kept.append(check)
    return kept


def summary(kept: list[CheckDict], made: int | None) -> str:
    """What the checks found, for a verdict that is not sat: "after 3 sat checks (3 models)",
    and how many checks were not kept past the cap; "" when nothing was found or left out."""
    sat = sum(1 for check in kept if check["verdict"] == "sat")
    found = sum(1 for check in kept if check["model"] is not None and check["verified"] is not False)
    words = []
    if sat:
        words.append(f"after {sat} sat check{'s' * (sat != 1)} ({found} model{'s' * (found != 1)})")
    if made is not None and made > len(kept):
        words.append(f"{len(kept)} of its {made} checks kept")
    elif made is None and len(kept) >= MAX_CHECKS:
        words.append(f"the first {MAX_CHECKS} checks kept")
    return "; ".join(words)
