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
    CHECKS_REPORT_BYTES,
    MAX_CHECKS,
    PAIR_END,
    CheckDict,
    CheckedModel,
    CheckFrame,
    CheckModelFrame,
    CheckToVerify,
    Ranges,
    VerifyRequest,
)
from ..protocol.byte_runs import DECLARATION_CHARS
from .payload import build_payload, cap_model

# What the payloads of a candidate's checks may hold in all (each at most payload_max_bytes): a
# hundred checks of a 1 MiB payload would make the zygote hold 100 MiB, and the host 200 MB of hex.
CHECK_PAYLOADS_BYTES = 8 << 20


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
    # Characters of the texts before each index (prefix sums): a check's size without its text.
    _assert_chars: list[int] = field(default_factory=lambda: [0])
    _declared_chars: list[int] = field(default_factory=lambda: [0])

    def size(self, entry: CheckEntry) -> int | None:
        """The characters of a check's assertions (declarations included), or None when they are
        not known.  Never built here: a candidate's ranges could name a text many times over
        (``assemble`` refuses that), and the verifier rebuilds each check's text itself."""
        if entry["assertions"] is None:
            return None
        return (_chars(self._declared_chars, entry["declared"])
                + _chars(self._assert_chars, entry["assertions"]))

    def with_models(self) -> list[CheckEntry]:
        return [entry for entry in self.entries if entry["found"] is not None]


def _chars(prefix: list[int], ranges: Ranges) -> int:
    return sum(prefix[end] - prefix[start] for start, end in ranges)


def assemble(frames: list[CheckFrame | CheckModelFrame]) -> Checks:
    """The checks of ``frames`` (decoded ``CheckFrame`` and ``CheckModelFrame``).  A frame that
    repeats an index, a model for a check that is not sat, or ranges past the texts sent are
    dropped: the candidate wrote them, and nothing else depends on them."""
    checks = Checks()
    by_index: dict[int, CheckEntry] = {}
    models: dict[int, CheckModelFrame] = {}
    capped = False  # past CHECKS_REPORT_BYTES of texts, as the harness stops sending them
    for frame in frames:
        if frame["type"] == "check_model":
            models.setdefault(frame["index"], frame)
            continue
        new = frame["asserts"] + frame["declarations"]
        capped = capped or (checks._assert_chars[-1] + checks._declared_chars[-1]
                            + sum(map(len, new)) > CHECKS_REPORT_BYTES)
        if capped:
            frame = {**frame, "asserts": [], "declarations": [], "assertions": None}
        for text in frame["asserts"]:
            checks.asserts.append(text)
            checks._assert_chars.append(checks._assert_chars[-1] + len(text))
        for text in frame["declarations"]:
            checks.declarations.append(text)
            checks._declared_chars.append(checks._declared_chars[-1] + len(text))
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
    """Runs in order, apart, within the texts sent: each text named once at most, as the harness
    names them (child/checks.py ``ranges``), so a check is never larger than the texts sent."""
    last = 0
    for start, end in ranges:
        if not last <= start < end <= size:
            return False
        last = end
    return True


def verify_part(checks: Checks, pairs: Callable[[CheckModelFrame, int], str],
                script: str | None = None) -> VerifyRequest:
    """The ``VerifyRequest`` fields that ask for each check's model to be verified (none if no
    check has both a model and its assertions).  ``pairs(found, chars)``: a model's SMT-LIB pairs,
    its hex-only bytes put back, as many as ``chars`` of assertions can declare; the checks share
    CHECKS_REPORT_BYTES of them, so a hundred checks cost the zygote what one large one does.  An
    SMT-LIB candidate's ``script``: each check's assertions are read from it at the check's
    position (its index-th check), whatever the frame said."""
    asked: list[CheckToVerify] = []
    left = CHECKS_REPORT_BYTES
    for entry in checks.with_models():
        size = len(script) if script is not None else checks.size(entry)
        found = entry["found"]
        if size is not None and found is not None:
            mine = script is None  # ranges into the texts the frames sent
            model = pairs(found, min(size, left))
            added = (model.count(PAIR_END) - found["model_smt2"].count(PAIR_END)) // 2
            left = max(0, left - added * DECLARATION_CHARS)
            asked.append({"index": entry["index"], "assertions": (entry["assertions"] or []) if mine else [],
                          "declared": entry["declared"] if mine else [], "model_smt2": model})
    if not asked:
        return {}
    if script is not None:
        return {"checks": asked, "script_smt2": script}
    return {"checks": asked, "check_asserts": checks.asserts, "check_declarations": checks.declarations}


def results(checks: Checks, verified: list[CheckedModel], seed: bytes | None,
            payload_max_bytes: int) -> list[CheckDict]:
    """Each check as the host holds it.  ``verified``: the verifier's word on each check it was
    asked about (``VerifyReport.checks``, by index); a model it decided on is the one shown.  The
    checks' payloads share CHECK_PAYLOADS_BYTES (a payload each, at most ``payload_max_bytes``)."""
    by_index = {int(word.get("index", -1)): word for word in verified}
    kept: list[CheckDict] = []
    left = max(CHECK_PAYLOADS_BYTES, payload_max_bytes)
    for entry in checks.entries:
        found, word = entry["found"], by_index.get(entry["index"], CheckedModel())
        check: CheckDict = {"verdict": entry["verdict"], "line": entry["line"], "model": None,
                            "payload_hex": None, "payload_error": None, "verified": None}
        if found is not None:
            source = (word.get("model", {}), word.get("byte_constants", []), word.get("byte_runs", [])
                      ) if "model" in word else (found["model"], found["byte_constants"], found["byte_runs"])
            payload, error = build_payload(source[1], source[2], seed, min(payload_max_bytes, left))
            if error is not None and left < payload_max_bytes:
                error = f"not kept: the checks' payloads passed {CHECK_PAYLOADS_BYTES >> 20} MB in all"
            left -= len(payload or b"")
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
