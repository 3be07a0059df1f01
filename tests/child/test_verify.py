"""Model verification in a process that ran no user code, with real z3."""

from __future__ import annotations

import pytest

from tests.verifying import budget
from z3sandbox_kernel.child.confirm import verify_request
from z3sandbox_kernel.child.verify import verify_model
from z3sandbox_kernel.protocol import join_pairs

from .running import DATA, run_child

ASSERTIONS = (
    "(declare-fun x () Int)\n(declare-fun |odd name| () (_ BitVec 8))\n"
    "(declare-fun w () String)\n(declare-fun r () Real)\n"
    "(assert (> x 1))\n(assert (= |odd name| #x05))\n(assert (= w \"a\"\"b\"))\n"
    "(assert (= r (/ 1.0 3.0)))\n"
)
MODEL = [("x", "2"), ("|odd name|", "#x05"), ("w", '"a""b"'), ("r", "(/ 1.0 3.0)")]


pytestmark = pytest.mark.usefixtures("prepared")


def test_correct_model_verifies_and_the_report_holds_the_model_checked() -> None:
    assert verify_model(ASSERTIONS, join_pairs(MODEL), 5.0) == {
        "v": 1, "verified": True, "byte_constants": [], "byte_runs": [],
        "model": {"odd name": 5, "r": {"fraction": [1, 3]}, "w": 'a"b', "x": 2}}


def test_each_further_model_is_verified_on_its_own() -> None:
    request = {"assertions_smt2": "(declare-fun x () Int)(assert (> x 1))",
               "model_smt2": join_pairs([("x", "2")]),
               "timeout_s": 5.0, "require": [], "more_models_smt2": [join_pairs([("x", "3")]),
                                                              join_pairs([("x", "0")])]}
    report = verify_request(request)  # type: ignore[arg-type]
    assert report["verified"] is True and report["model"] == {"x": 2}
    first, second = report["more"]
    assert first["verified"] is True and first["model"] == {"x": 3}
    assert second["verified"] is False and "v" not in second
    late = verify_request({**request, "limits": budget(0.0)})
    assert late["verified"] is None and "ran out of the verification budget" in late["reason"]
    assert [found["verified"] for found in late["more"]] == [None, None]


def test_a_name_given_twice_is_malformed() -> None:
    """Issue 20: duplicate pairs made the verifier check one value and the result show another."""
    report = verify_model(ASSERTIONS, join_pairs([("x", "2"), ("x", "666"), *MODEL[1:]]), 5.0)
    assert report["verified"] is None and "given more than one value" in report["reason"]
    assert "model" not in report


def test_values_left_free_are_the_solvers_and_shown() -> None:
    """An empty model_smt2 verifies only existence: the model shown is then the verifier's own, not
    whatever the candidate claimed beside it."""
    report = verify_model("(declare-fun x () Int)(assert (> x 0))(assert (< x 10))", "", 5.0)
    assert report["verified"] is True
    assert 0 < report["model"]["x"] < 10


def test_tampered_model_fails_and_names_the_violated_assertion() -> None:
    report = verify_model(ASSERTIONS, join_pairs([("x", "(- 2)"), *MODEL[1:]]), 5.0)
    assert report["verified"] is False
    assert report["reason"] == "the model violates the assertions, e.g. (> x 1)"


def test_value_that_is_not_a_literal_is_not_trusted() -> None:
    report = verify_model(ASSERTIONS, join_pairs([("x", "x")]), 5.0)
    assert report["verified"] is None and "malformed" in report["reason"]


def test_unparsable_assertions_are_undecided() -> None:
    report = verify_model("(assert (> x", join_pairs(MODEL), 5.0)
    assert report["verified"] is None
    assert report["reason"].startswith("the assertions could not be parsed")


def test_unparsable_model_value_is_undecided() -> None:
    report = verify_model(ASSERTIONS, join_pairs([("x", "(+ 1")]), 5.0)
    assert report["verified"] is None


@pytest.mark.parametrize("script, language, cores", [
    ("x, y = Ints('x y')\nb = BitVec('byte_0', 8)\nr = Real('r')\nw = String('w')\n"
     "s.add(x > 2, y == x * 3, b == 200, r * 3 == 1, Length(w) == 4)\ns.check()\n", "python", False),
    ("x, y = Ints('x y')\ns.add(x > 2)\ns.add(y == x + 1)\ns.check()\n", "python", True),
    ("f = FP('f', Float32())\ns.add(fpGT(f, FPVal(1.5, Float32())))\ns.check()\n", "python", False),
    ((DATA / "QF_LIRA__lira1.smt2").read_text(), "smt2", False),
    ((DATA / "QF_ABV__a268test0002.smt2").read_text(), "smt2", False),
    ((DATA / "QF_UF__test0.smt2").read_text(), "smt2", False),
])
def test_candidate_reports_verify(script: str, language: str, cores: bool) -> None:
    report = run_child(script, language=language, cores=cores).report
    assert report["outcome"] == "sat"
    verdict = verify_model(report["assertions_smt2"], report["model_smt2"], 5.0)
    assert verdict["verified"] is True, verdict


DIVIDED = "(declare-fun x () Int)(declare-fun y () Int)(assert (= (div x y) 3))(assert (> x 10))"


@pytest.mark.parametrize(("model", "verified"), [
    ([("x", "11"), ("y", "0")], True),  # (div 11 0) is free: some model of it makes it 3
    ([("x", "11"), ("y", "2")], False),  # (div 11 2) is 5, in every model
    ([("x", "12"), ("y", "4")], True),
])
def test_a_division_is_judged_by_z3s_semantics_free_only_by_zero(model, verified) -> None:
    report = verify_model(DIVIDED, join_pairs(model), 5.0)
    assert report["verified"] is verified, report.get("reason")
