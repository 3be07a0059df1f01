"""Each check of an SMT-LIB candidate is verified against its own (check-sat)'s assertions, read
from the script the zygote holds, whatever its check frames say (zygote/checks.py, jobs.py,
child/verify_checks.py)."""

from __future__ import annotations

from typing import Any

from tests.smt2_reference import SAT_SAT_UNSAT as SCRIPT
from tests.verifying import candidate, verify_request
from z3sandbox_kernel.zygote.checks import assemble
from z3sandbox_kernel.zygote.jobs import verify_request as zygote_request


def frames(*models: tuple[int, int]) -> list[dict[str, Any]]:
    """Check frames for the script's three checks, the sat ones with the ``(index, x)`` models;
    the first frame claims assertions of its own, which an SMT-LIB candidate's are not read from."""
    sent: list[dict[str, Any]] = [
        {"type": "check", "index": index, "verdict": verdict, "line": 3 * index + 3,
         "asserts": ["(assert (= x 7))"] if index == 0 else [], "declarations": [],
         "assertions": [(0, 1)] if index == 0 else None, "declared": []}
        for index, verdict in enumerate(("sat", "sat", "unsat"))]
    for index, value in models:
        sent.append({"type": "check_model", "index": index, "model": {"x": value},
                     "byte_constants": [], "byte_runs": [], "model_smt2": f"x\x00{value}\x00"})
    return sent


def verified(*models: tuple[int, int]) -> list[Any]:
    smt2 = candidate(SCRIPT)
    smt2.observation.checks = assemble(frames(*models))
    request = zygote_request(smt2, {"outcome": "unsat"})
    assert request["script_smt2"] == SCRIPT and "check_asserts" not in request
    return [(word["index"], word["verified"]) for word in verify_request(request)["checks"]]


def test_each_checks_model_is_verified_against_that_check() -> None:
    """x = 1 satisfies the first check only, x = 2 the second: each is verified at its own."""
    assert verified((0, 1), (1, 2)) == [(0, True), (1, True)]


def test_a_forged_check_model_is_refused() -> None:
    """x = 7 satisfies the assertions the first frame claims, not the script's; x = 1 satisfies
    the first check, not the second, where the frame puts it."""
    assert verified((0, 7), (1, 1)) == [(0, False), (1, False)]


def test_a_check_the_script_does_not_have_is_not_verified() -> None:
    smt2 = candidate(SCRIPT)
    sent = frames()
    sent.append({**sent[0], "index": 7, "asserts": [], "assertions": None})
    sent.append({"type": "check_model", "index": 7, "model": {"x": 1}, "byte_constants": [],
                 "byte_runs": [], "model_smt2": "x\x001\x00"})
    smt2.observation.checks = assemble(sent)
    words = verify_request(zygote_request(smt2, {"outcome": "unsat"}))["checks"]
    assert words == [{"index": 7, "verified": None,
                      "reason": "the script's assertions could not be read: the script has no check 8"}]
