"""RunResult: the vote and its tie rule, the best SAT candidate, models and payloads, len/indexing."""

from __future__ import annotations

import sys

import pytest

from z3sandbox_kernel import CandidateResult, Limits, RunResult, Verdict
from z3sandbox_kernel.presentation.render import MIME_TYPE

V = Verdict


def result(*verdicts: Verdict, verified=None, models=None) -> RunResult:
    candidates = []
    for i, verdict in enumerate(verdicts):
        sat = verdict is V.SAT
        candidates.append(CandidateResult(
            index=i, verdict=verdict,
            verified=(verified[i] if verified else True) if sat else None,
            model=(models[i] if models else {"i": i}) if sat else None,
            payload=bytes([i]) if sat else None))
    return RunResult(candidates=candidates)


@pytest.mark.parametrize(("verdicts", "verified", "expected"), [
    ((V.SAT, V.SAT, V.UNSAT), None, V.SAT),
    ((V.UNSAT, V.UNSAT, V.SAT), None, V.UNSAT),
    ((V.TIMEOUT, V.TIMEOUT, V.TIMEOUT, V.UNSAT), None, V.UNSAT),  # only decisive verdicts vote
    ((V.SAT, V.UNSAT), [True, None], V.SAT),  # tie: a verified model is a certificate
    ((V.UNSAT, V.SAT), [None, True], V.SAT),
    ((V.SAT, V.UNSAT), [None, None], V.UNKNOWN),  # tie without a verified model
    ((V.SAT, V.UNSAT), [False, None], V.UNKNOWN),
    ((V.TIMEOUT, V.CRASHED, V.CRASHED), None, V.CRASHED),  # nothing decisive: most common
    ((V.TIMEOUT, V.CRASHED), None, V.TIMEOUT),  # ... earliest first on a tie
    ((), None, V.UNKNOWN),
], ids=["sat-majority", "unsat-majority", "decisive-only", "tie-verified", "tie-verified-second",
        "tie-unverified", "tie-failed", "most-common", "earliest", "empty"])
def test_vote(verdicts, verified, expected):
    assert result(*verdicts, verified=verified).verdict is expected


def test_vote_ignores_unfinished_candidates():
    run = RunResult(candidates=[CandidateResult(index=0, verdict=None, state="running")])
    assert run.verdict is V.UNKNOWN
    assert run.counts == {}


def test_best_is_the_first_verified_sat_candidate():
    run = result(V.UNSAT, V.SAT, V.SAT, verified=[None, None, True])
    assert run.best is run[2]
    assert run.model == {"i": 2}
    assert run.payload == b"\x02"


def test_best_falls_back_to_the_first_sat_candidate():
    run = result(V.SAT, V.SAT, verified=[None, None])
    assert run.best is run[0]


def test_no_sat_candidate_means_no_best_model_or_payload():
    run = result(V.UNSAT, V.TIMEOUT)
    assert run.best is None and run.model is None and run.payload is None
    assert run.models == [] and run.payloads == []


def test_models_and_payloads_list_every_sat_candidate_in_order():
    run = result(V.SAT, V.UNSAT, V.SAT)
    assert run.models == [{"i": 0}, {"i": 2}]
    assert run.payloads == [b"\x00", b"\x02"]


def test_len_indexing_iteration_and_counts():
    run = result(V.SAT, V.UNSAT, V.SAT)
    assert len(run) == 3
    assert run[1].verdict is V.UNSAT
    assert run[-1].index == 2
    assert [c.index for c in run] == [0, 1, 2]
    assert run.counts == {"sat": 2, "unsat": 1}


def test_candidate_round_trips_through_its_record():
    from fractions import Fraction

    candidate = CandidateResult(index=3, verdict=V.SAT, model={"r": Fraction(1, 3), "b": True},
                                payload=b"\x00\xff", unsat_core=None, verified=True)
    again = read_back(candidate.to_dict())
    assert again == candidate


def test_every_field_of_a_candidate_survives_its_record():
    """to_record names each field by hand (it is typed): one it forgot would be lost here."""
    import dataclasses

    from z3sandbox_kernel.contracts.found import CheckResult, ModelResult
    from z3sandbox_kernel.protocol.roles import Kill

    found = ModelResult({"x": 2}, payload=b"\x02", verified=True)
    candidate = CandidateResult(
        index=1, verdict=V.TIMEOUT, reason="solver timeout", model={"x": 1}, payload=b"\x01",
        payload_error="no byte_0", unsat_core=[(3, "s.add(x > 1)")],
        objectives=[{"direction": "maximize", "term": "x", "value": 4}], more_models=[found],
        checks=[CheckResult("sat", 4, found)], checks_made=2, stdout="o", stderr="e",
        stdout_truncated=True, stderr_truncated=True, output_truncated=True, wall_s=1.5, cpu_s=1.25,
        peak_rss_mb=70.5, kill=Kill.SOLVER, exit_code=1, signal=9, verified=False,
        confirmed_by=("z3",), disputed="cvc5 says unsat", model_omitted=5,
        isolation={"level": "kernel", "layers": [{"name": "userns", "active": True}]}, host="tcp://w:1",
        limits=Limits(wall_s=2), label="a",
        source_preview="x = Int('x')", error={"type": "timeout", "line": 4, "message": "solver timeout"},
        cell_line=5, cell_candidates=2)
    assert all(getattr(candidate, f.name) != f.default for f in dataclasses.fields(candidate)
               if f.default is not dataclasses.MISSING and f.name != "state")  # done: below
    data = candidate.to_dict()
    assert set(data) == {f.name for f in dataclasses.fields(candidate)} - {"payload"} | {"payload_hex"}
    assert read_back(data) == candidate
    queued = CandidateResult(index=2, verdict=None, state="queued")
    assert read_back(queued.to_dict()) == queued


def read_back(data: object) -> CandidateResult:
    """A candidate decoded from its JSON form through the record's schema."""
    import msgspec

    from z3sandbox_kernel.contracts.record import CandidateRecord

    return CandidateResult.from_record(msgspec.convert(data, CandidateRecord))


def test_a_real_run_votes(sandbox):
    run = sandbox.run(["x = Int('x'); s.add(x == 1); s.check()",
                       "x = Int('x'); s.add(x > 1, x < 0); s.check()",
                       "x = Int('x'); s.add(x == 2); s.check()"])
    assert run.verdict is V.SAT
    assert run.model == {"x": 1}
    assert run.models == [{"x": 1}, {"x": 2}]
    assert len(run) == 3 and run[1].verdict is V.UNSAT


def test_a_candidate_displayed_alone_shows_the_limits_of_its_run(kernel_sandbox):
    result = kernel_sandbox.run("x = Int('x')\ns.add(x > 1)", limits=Limits(timeout_s=2.5, wall_s=7))
    data, _ = result[0]._repr_mimebundle_()
    assert data[MIME_TYPE]["limits"]["timeout_s"] == 2.5
    assert data[MIME_TYPE]["limits"]["wall_s"] == 7
    assert "limits" not in data[MIME_TYPE]["candidates"][0]  # once per run, not per candidate


def test_a_run_survives_to_json_and_from_json():
    run = result(V.SAT, V.UNSAT, V.TIMEOUT)
    run.candidates[0].label, run.candidates[0].wall_s = "first", 1.25
    run.candidates[1].unsat_core = [(2, "s.add(x > 1)")]
    run.limits, run.interrupted, run.notes = Limits(timeout_s=3), True, ["a note"]
    again = RunResult.from_json(run.to_json())
    assert again == run
    assert again.verdict is V.SAT and again[0].payload == b"\x00"


def test_from_json_refuses_other_documents():
    with pytest.raises(ValueError, match="not a saved z3sandbox run"):
        RunResult.from_json('{"schema": "z3sandbox.other"}')
    with pytest.raises(ValueError, match="not a saved z3sandbox run"):
        RunResult.from_json('{"schema": "z3sandbox.run"}')  # a display document, but empty


def test_table_rows_have_the_table_columns_and_the_figures():
    run = result(V.SAT, V.TIMEOUT)
    run.candidates[1].peak_rss_mb, run.candidates[1].reason = 300.0, "wall limit (10 s)"
    rows = run.table_rows()
    assert rows[0]["verdict"] == "sat" and rows[0]["model"] == b"\x00"
    assert rows[1]["peak_rss_mb"] == 300.0 and rows[1]["reason"] == "wall limit (10 s)"


def test_to_dataframe_without_pandas_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # pandas is optional (the [records] extra)
    with pytest.raises(ImportError, match="needs pandas, which is not installed: pip install pandas"):
        result(V.SAT).to_dataframe()
    from z3sandbox_kernel import load_runs

    with pytest.raises(ImportError, match="load_runs\\(\\) needs pandas"):
        load_runs("no-such-folder")


def test_tie_names_its_rule():
    assert result(V.SAT, V.UNSAT, verified=[False, None]).tie == {
        "sat": 1, "unsat": 1, "winner": "unknown",
        "rule": "neither answer is confirmed, so the tie is unknown"}
    assert result(V.SAT, V.SAT, V.UNSAT).tie is None


def test_a_sat_whose_model_could_not_be_verified_never_wins_the_vote():
    """Issue 20: a model that cannot be verified is shown as such and counts for nothing."""
    unverified = CandidateResult(index=0, verdict=V.SAT, model={"x": 666}, verified=None,
                                 reason="the model is not verified: the model is malformed")
    honest = CandidateResult(index=1, verdict=V.UNSAT)
    run = RunResult([unverified, honest])
    assert run.verdict is V.UNSAT and run.tie is None and run.best is None and run.model is None
    alone = RunResult([unverified])
    assert alone.verdict is V.UNKNOWN and alone.model is None
    not_asked = CandidateResult(index=0, verdict=V.SAT, model={"x": 1}, verified=None)  # verify=False
    assert RunResult([not_asked, honest]).tie is not None
