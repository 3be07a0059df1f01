"""A model is encoded once, in the child: a result holds its values as they came
(``encoded_model``), writes them as they are (record, ``to_json``, the run document, the MCP
output), and decodes them only when ``.model`` is read, once; a model given decoded, or changed
in place after it was read, is written as it is then.  Each kind of value: an Int, a Real, a
Bool, a String, z3's text, a forged fraction."""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Callable
from fractions import Fraction

import pytest

from z3sandbox_kernel import CandidateResult, RunResult, Verdict
from z3sandbox_kernel.agents.mcp_output import candidate_output
from z3sandbox_kernel.contracts.found import CheckResult, ModelResult
from z3sandbox_kernel.contracts.record import CandidateRecord
from z3sandbox_kernel.presentation.render import candidate_json
from z3sandbox_kernel.protocol import encode_value

WIRE = {"i": 7, "r": {"fraction": [1, 3]}, "b": True, "s": "hi", "a": "Store(K(Int, 0), 1, 2)",
        "forged": {"fraction": [1, 0]}}
DECODED = {"i": 7, "r": Fraction(1, 3), "b": True, "s": "hi", "a": "Store(K(Int, 0), 1, 2)",
           "forged": {"fraction": [1, 0]}}


def received() -> CandidateResult:
    check = {"verdict": "sat", "line": 3, "model": dict(WIRE), "payload_hex": None, "payload_error": None,
             "verified": True}
    record = CandidateRecord(index=0, verdict=Verdict.SAT, model=dict(WIRE), checks=[check], checks_made=2,
                             more_models=[{"model": dict(WIRE), "payload_hex": "41", "payload_error": None,
                                           "verified": True}])
    return CandidateResult.from_record(record)


def test_a_received_model_is_held_as_it_came_and_decoded_once_when_read() -> None:
    candidate = received()
    wire = candidate.encoded_model
    assert wire == WIRE and vars(candidate)["_model_decoded"] is None  # not decoded yet
    assert candidate.model == DECODED and candidate.model is candidate.model  # decoded once
    assert candidate.more_models[0].model == DECODED and candidate.checks[0].model == DECODED


def test_every_writer_writes_the_model_as_it_came() -> None:
    candidate = received()
    wire = candidate.encoded_model
    assert candidate.to_record().model is wire
    assert candidate.to_dict()["model"] == WIRE
    assert candidate_json(candidate)["model"] == wire  # msgspec's copy of it, no value encoded again
    assert candidate_output(candidate)["model"] == WIRE  # each string shown safely: these are plain
    assert RunResult.from_json(RunResult(candidates=[candidate]).to_json())[0].model == DECODED


def test_a_copy_keeps_the_form_it_came_in() -> None:
    candidate = received()
    copy = dataclasses.replace(candidate, state="done")
    assert copy.encoded_model is candidate.encoded_model and copy == candidate
    assert pickle.loads(pickle.dumps(copy)).model == DECODED


GIVEN = {name: value for name, value in DECODED.items() if name != "forged"}  # a value z3 can give


@pytest.mark.parametrize("model", [GIVEN, {}, {"x": Fraction(-5, 2)}, None])
def test_a_model_given_decoded_is_kept_and_written_encoded(model: dict[str, object] | None) -> None:
    candidate = CandidateResult(index=0, verdict=Verdict.SAT, model=model)
    assert candidate.model is model
    assert candidate.encoded_model == (None if model is None else
                                       {k: {"fraction": [v.numerator, v.denominator]}
                                        if isinstance(v, Fraction) else v for k, v in model.items()})
    assert CandidateResult.from_record(candidate.to_record()).model == model


def test_a_further_model_and_a_checks_model_are_held_the_same_way() -> None:
    found = ModelResult.from_dict({"model": dict(WIRE), "payload_hex": None, "payload_error": None,
                                   "verified": None})
    assert found.to_dict()["model"] is found.encoded_model and found.model == DECODED
    check = CheckResult.from_dict({"verdict": "sat", "line": 1, "model": dict(WIRE), "payload_hex": None,
                                   "payload_error": None, "verified": True})
    assert check.to_dict()["model"] == WIRE and check.model == DECODED
    with pytest.raises(TypeError):
        ModelResult()  # type: ignore[call-arg]  # a further model has one


def test_a_real_run_hands_its_model_on_undecoded_until_read() -> None:
    """From the zygote's frame to the run's result and its records, nobody decodes the model but
    the reader of ``.model`` (the document's model cell is one: it shows each value as Python
    prints it)."""
    from z3sandbox_kernel import run

    result = run("from z3 import *\nx, r = Int('x'), Real('r')\ns = Solver()\n"
                 "s.add(x == 7, 3 * r == 1)\nprint(s.check())\n", isolation="process")
    candidate = result[0]
    result.to_json(), candidate.to_record()
    assert vars(candidate)["_model_decoded"] is None
    assert candidate.model == {"x": 7, "r": Fraction(1, 3)}


@pytest.mark.parametrize("change", [
    pytest.param(lambda model: model.__setitem__("i", 8), id="set"),
    pytest.param(lambda model: model.update(i=8), id="update"),
    pytest.param(lambda model: model.__ior__({"i": 8}), id="ior"),
    pytest.param(lambda model: model.setdefault("j", 8), id="setdefault"),
    pytest.param(lambda model: model.pop("i"), id="pop"),
    pytest.param(lambda model: model.__delitem__("i"), id="del"),
    pytest.param(lambda model: model.popitem(), id="popitem"),
    pytest.param(lambda model: model.clear(), id="clear"),
])
@pytest.mark.parametrize("given", [False, True], ids=["received", "given"])
def test_a_model_changed_in_place_is_written_as_it_is_now(change: Callable[[dict[str, object]], object],
                                                           given: bool) -> None:
    """``result.model["x"] = 5`` then ``to_json()``: the saved model is the changed one, whether
    the model came from a child (held in its wire form) or was given decoded."""
    wire = {name: value for name, value in WIRE.items() if name != "forged"}  # a value z3 can give
    candidate = (CandidateResult(index=0, verdict=Verdict.SAT, model=dict(GIVEN)) if given
                 else CandidateResult.from_record(CandidateRecord(index=0, verdict=Verdict.SAT, model=wire)))
    model = candidate.model
    assert model is not None
    change(model)
    expected = {name: encode_value(value) for name, value in model.items()}
    assert candidate.encoded_model == expected and candidate.to_record().model == expected
    assert RunResult.from_json(RunResult(candidates=[candidate]).to_json())[0].model == model
