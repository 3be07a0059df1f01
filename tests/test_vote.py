"""The vote over a run's candidates (vote.py): what counts, and which rule decides a tie."""

from __future__ import annotations

from z3sandbox_kernel import CandidateResult, RunResult, Verdict

PROVED, COUNTER = "proved\n", "counterexample\n[p = False]\n"


def candidate(index: int, verdict: Verdict, **fields: object) -> CandidateResult:
    return CandidateResult(index=index, verdict=verdict, **fields)  # type: ignore[arg-type]


def test_a_disputed_answer_never_counts() -> None:
    run = RunResult([candidate(0, Verdict.UNSAT, disputed="z3 finds them satisfiable"),
                     candidate(1, Verdict.UNSAT, disputed="z3 finds them satisfiable"),
                     candidate(2, Verdict.SAT, verified=True, confirmed_by=("z3",))])
    assert run.verdict is Verdict.SAT and run.tie is None
    alone = RunResult([candidate(0, Verdict.UNSAT, disputed="cvc5 finds them satisfiable")])
    assert alone.verdict is Verdict.UNKNOWN


def test_on_a_tie_a_confirmed_answer_beats_an_unconfirmed_one() -> None:
    run = RunResult([candidate(0, Verdict.SAT, verified=None),
                     candidate(1, Verdict.UNSAT, confirmed_by=("z3",))])
    assert run.verdict is Verdict.UNSAT
    assert run.tie == {"sat": 1, "unsat": 1, "winner": "unsat",
                       "rule": "a confirmed answer beats an unconfirmed one, so unsat wins"}
    neither = RunResult([candidate(0, Verdict.SAT), candidate(1, Verdict.UNSAT)])
    assert neither.verdict is Verdict.UNKNOWN
    assert neither.tie is not None
    assert neither.tie["rule"] == "neither answer is confirmed, so the tie is unknown"


def test_a_verified_model_saved_before_confirmed_by_is_still_confirmed() -> None:
    import msgspec

    from z3sandbox_kernel.contracts.record import CandidateRecord

    record = msgspec.convert({"index": 0, "verdict": "sat", "verified": True, "reason": ""}, CandidateRecord)
    saved = CandidateResult.from_record(record)
    assert saved.confirmed_by == ()
    run = RunResult([saved, candidate(1, Verdict.UNSAT)])
    assert run.verdict is Verdict.SAT and run.tie is not None and run.tie["winner"] == "sat"


def test_confirmation_survives_a_saved_document() -> None:
    run = RunResult([candidate(0, Verdict.UNSAT, confirmed_by=("z3", "cvc5")),
                     candidate(1, Verdict.UNSAT, disputed="z3 finds the reported core satisfiable")])
    again = RunResult.from_json(run.to_json())
    assert again[0].confirmed_by == ("z3", "cvc5") and again[1].disputed == run[1].disputed


def test_prove_calls_vote_in_their_words() -> None:
    run = RunResult([candidate(0, Verdict.UNSAT, stdout=PROVED, confirmed_by=("z3",)),
                     candidate(1, Verdict.SAT, stdout=COUNTER, verified=None)])
    assert run.vote == "proved"
    assert run.tie is not None and run.tie["words"] == {"sat": "counterexample", "unsat": "proved"}
    assert run.tie["rule"] == "a confirmed answer beats an unconfirmed one, so proved wins"
    disputed = RunResult([candidate(0, Verdict.UNSAT, stdout=PROVED, disputed="z3 finds a model")])
    assert disputed.vote == "disputed"
    mixed = RunResult([candidate(0, Verdict.UNSAT, stdout=PROVED), candidate(1, Verdict.UNSAT)])
    assert mixed.vote == "unsat" and mixed.tie is None
