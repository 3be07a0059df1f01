"""The verifier checks an SMT-LIB candidate against its script as the zygote holds it, whatever the
candidate's report says it asserted (zygote/jobs.py, child/verify.py)."""

from __future__ import annotations

import json
import os
from typing import Any

from z3sandbox_kernel.child import confirm
from z3sandbox_kernel.limits import Limits
from z3sandbox_kernel.zygote.classify import Observation
from z3sandbox_kernel.zygote.jobs import Candidate, may_need_verification
from z3sandbox_kernel.zygote.jobs import verify_request as zygote_request

SCRIPT = ("(set-option :dump-models true)\n(declare-const x Int)\n(push)\n(assert (> x 100))\n"
          "(pop)\n(assert (> x 3))\n(assert (< x 10))\n(echo \"(assert true)\")\n(check-sat)\n")


def verify_request(request: object) -> object:
    """The verifier's report, from a fork, as the zygote runs one: z3's main context is made
    there, not in this process (the harness tests expect none made before their forks)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.write(write, json.dumps(confirm.verify_request(request)).encode())
        finally:
            os._exit(0)
    os.close(write)
    chunks = []
    while chunk := os.read(read, 1 << 16):
        chunks.append(chunk)
    os.close(read)
    os.waitpid(pid, 0)
    return json.loads(b"".join(chunks))


def candidate(script: str, language: str = "smt2") -> Candidate:
    request: Any = {"v": 1, "type": "run", "id": 1, "index": 0, "script": script,
                    "language": language, "limits": {}, "random_seed": None, "cores": False,
                    "verify": True, "seed_hex": None, "require": []}
    return Candidate(request, Observation(index=0, limits=Limits(), level="process", seed=None))


def forged(value: str) -> dict[str, Any]:
    """A report whose assertions say anything, and whose model satisfies only those."""
    return {"outcome": "sat", "model": {"x": int(value)}, "model_smt2": f"x\x00{value}\x00",
            "assertions_smt2": f"(declare-fun x () Int)(assert (= x {value}))"}


def test_a_forged_report_cannot_change_what_an_smt2_candidate_is_checked_against() -> None:
    request = zygote_request(candidate(SCRIPT), forged("666"))
    assert request["script_smt2"] == SCRIPT and request["assertions_smt2"] == ""
    report = verify_request(request)
    assert report["verified"] is False and "(< x 10)" in report["reason"]
    honest = verify_request(zygote_request(candidate(SCRIPT), forged("5")))
    assert honest["verified"] is True and honest["model"] == {"x": 5}


def test_an_smt2_report_without_assertions_is_still_verified() -> None:
    report = {**forged("5"), "assertions_smt2": ""}
    assert may_need_verification(candidate(SCRIPT), report)
    assert not may_need_verification(candidate("x = 1", language="python"), report)
    assert verify_request(zygote_request(candidate(SCRIPT), report))["verified"] is True


def test_a_python_candidates_assertions_still_come_from_its_report() -> None:
    request = zygote_request(candidate("print(1)", language="python"), forged("666"))
    assert "script_smt2" not in request
    assert verify_request(request)["verified"] is True


def test_the_verifier_runs_none_of_the_scripts_printing_or_writing_commands(tmp_path) -> None:
    planted = tmp_path / "written"
    script = (f'(set-option :regular-output-channel "{planted}")\n(echo "written")\n'
              "(declare-const x Int)\n(assert (> x 3))\n(check-sat)\n")
    report = verify_request(zygote_request(candidate(script), forged("4")))
    assert report["verified"] is True and not planted.exists()


def test_an_unreadable_script_leaves_the_model_undecided() -> None:
    report = verify_request(zygote_request(candidate("(assert (> x"), forged("4")))
    assert report["verified"] is None and "could not be read" in report["reason"]


def test_a_script_that_includes_a_file_is_not_verified_from_its_text() -> None:
    script = '(declare-const x Int)\n(include "more.smt2")\n(assert (> x 3))\n(check-sat)\n'
    report = verify_request(zygote_request(candidate(script), forged("4")))
    assert report["verified"] is None and "(include ...)" in report["reason"]
