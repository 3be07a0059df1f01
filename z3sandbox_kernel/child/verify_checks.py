"""The verifier's part for a script's checks (child/checks.py): each model the script read at a
check, verified against that check's assertions, as a candidate's first model is (verify.py).

A check's assertions come as ranges into the request's texts (``CheckToVerify``): rebuilt here, in
the verifier, from what the zygote holds.  An SMT-LIB candidate's are read from its script
(``script_smt2``) at the check's (check-sat), as its last check's are (verify.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ..protocol import CheckedModel, Ranges, VerifyReport, VerifyRequest
from .verify import script_assertions

# verify.verify_model: a Python check's mirror text, or an SMT-LIB check's formulas
Verify = Callable[[Any, str, float], VerifyReport]


def verify_checks(request: VerifyRequest, verify_model: Verify, started: float,
                  budget_s: float) -> list[CheckedModel]:
    """The verifier's word on each check of ``request``, in order; those past ``budget_s`` (from
    ``started``, shared with the further models) are left undecided."""
    asserts = request.get("check_asserts") or []
    declarations = request.get("check_declarations") or []
    script = request.get("script_smt2")
    words: list[CheckedModel] = []
    for check in request.get("checks") or []:
        left = budget_s - (time.monotonic() - started)
        if left < 0.05:
            words.append({"index": check["index"], "verified": None,
                          "reason": "not verified: the verifier's time ran out"})
            continue
        text: str | list[Any]
        if script is None:
            text = "".join(_pick(declarations, check["declared"]) + _pick(asserts, check["assertions"]))
        else:  # an SMT-LIB candidate's: from its script, at the check's (check-sat)
            try:
                text = script_assertions(script, check["index"])
            except Exception as exc:  # an unreadable script: undecided, not a crash
                words.append({"index": check["index"], "verified": None,
                              "reason": f"the script's assertions could not be read: {exc}"[:2000]})
                continue
        checked = verify_model(text, check["model_smt2"], min(request["timeout_s"], left))
        words.append(as_checked(checked, check["index"]))
    return words


def as_checked(report: VerifyReport, index: int | None = None) -> CheckedModel:
    """A verifier's word on one model, as ``VerifyReport.more`` and ``.checks`` hold it."""
    word: CheckedModel = {"verified": report["verified"]}
    if "reason" in report:
        word["reason"] = report["reason"]
    if "model" in report:
        word["model"] = report["model"]
    if "byte_constants" in report:
        word["byte_constants"] = report["byte_constants"]
    if "byte_runs" in report:
        word["byte_runs"] = report["byte_runs"]
    if index is not None:
        word["index"] = index
    return word


def _pick(texts: list[str], ranges: Ranges) -> list[str]:
    return [text for start, end in ranges for text in texts[start:end]]
