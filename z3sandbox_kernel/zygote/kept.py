"""What the host keeps of a report's parts beyond the model: the unsat core, a sat Optimize
check's objectives and the further models (``models=N``), each capped (a candidate decides their
size; protocol/wire.py's ``SHOWN_*``), and a further model as the verifier checked it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..protocol import (
    SHOWN_CORE_MAX_ENTRIES,
    SHOWN_CORE_TEXT_CHARS,
    SHOWN_OBJECTIVES,
    CheckedModel,
    FoundModel,
    ModelDict,
    Objective,
)
from .payload import build_payload, cap_model


def kept_more_models(found: list[FoundModel], checked_models: list[CheckedModel], seed: bytes | None,
                     payload_max_bytes: int) -> list[ModelDict]:
    """models=N: each further model as the host holds it.  Verified, it is the model the verifier
    checked (as for the first: what is shown is what was verified); not verified, the candidate's
    word, with ``verified`` None."""
    kept: list[ModelDict] = []
    for index, reported in enumerate(found):
        checked = checked_models[index] if index < len(checked_models) else CheckedModel()
        verified = checked.get("verified")
        source = ((checked.get("model", {}), checked.get("byte_constants", []), checked.get("byte_runs", []))
                  if "model" in checked else
                  (reported["model"], reported["byte_constants"], reported["byte_runs"]))
        payload, error = build_payload(source[1], source[2], seed, payload_max_bytes)
        model, _ = cap_model(source[0])
        kept.append({"model": model, "payload_hex": payload.hex() if payload is not None else None,
                     "payload_error": error,
                     "verified": verified if isinstance(verified, bool) else None})
    return kept


def kept_objectives(found: list[Objective]) -> list[Objective]:
    """A sat Optimize check's objectives as the host may hold them: a candidate sets their size."""
    return [{"term": goal["term"][:SHOWN_CORE_TEXT_CHARS], "direction": goal["direction"][:20],
             "value": goal["value"][:SHOWN_CORE_TEXT_CHARS] if isinstance(goal["value"], str)
             else goal["value"], "checked": False} for goal in found[:SHOWN_OBJECTIVES]]


def kept_core(core: Sequence[Sequence[Any]] | None) -> list[list[Any]] | None:
    """The unsat core as the host may hold it (SHOWN_CORE_*): a candidate sets its size."""
    if core is None:
        return None
    kept = [[line, text[:SHOWN_CORE_TEXT_CHARS]] for line, text in core[:SHOWN_CORE_MAX_ENTRIES]]
    if len(core) > SHOWN_CORE_MAX_ENTRIES:
        kept.append([0, f"… {len(core) - SHOWN_CORE_MAX_ENTRIES} more entries not kept"])
    return kept
