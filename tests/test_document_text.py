"""The run document carries the texts its views draw (issue 42, item 7): the caption's counts and
tie, the isolation layers, a row's core and who confirmed it, each in the words the text and HTML
views use, so that the labextension renders them and formats nothing (an older document gets them
from labextension/src/upgrade.ts, tested against these documents by labextension/test/older.spec.ts).
"""

from __future__ import annotations

import html

import pytest

from z3sandbox_kernel import CandidateResult, RunResult, Verdict
from z3sandbox_kernel.presentation.html import run_html
from z3sandbox_kernel.presentation.live import LiveTable
from z3sandbox_kernel.presentation.phrases import counts_summary, isolation_layers
from z3sandbox_kernel.presentation.render import MIME_TYPE, candidate_json, run_json
from z3sandbox_kernel.presentation.textview import candidate_alone_text, run_text

PROVED, COUNTER = "proved\n", "counterexample\n[p = False]\n"


def run_of(*candidates: CandidateResult, isolation: object = None) -> RunResult:
    return RunResult(candidates=list(candidates), isolation=isolation)  # type: ignore[arg-type]


@pytest.mark.parametrize("result", [
    run_of(CandidateResult(index=0, verdict=Verdict.SAT), CandidateResult(index=1, verdict=Verdict.TIMEOUT),
           CandidateResult(index=2, verdict=Verdict.SAT)),
    run_of(CandidateResult(index=0, verdict=Verdict.UNSAT, stdout=PROVED),
           CandidateResult(index=1, verdict=Verdict.SAT, stdout=COUNTER, model={"p": False}),
           CandidateResult(index=2, verdict=Verdict.UNSAT, stdout=PROVED)),
    run_of(CandidateResult(index=0, verdict=None, state="running"),
           CandidateResult(index=1, verdict=Verdict.UNKNOWN),
           CandidateResult(index=2, verdict=None, state="queued")),
], ids=["verdicts", "prove-words", "live"])
def test_the_counts_are_those_of_the_text_and_html_captions(result: RunResult) -> None:
    shown = run_json(result)["counts_shown"]
    assert shown == counts_summary(result)
    assert f"({shown})" in run_text(result).splitlines()[0]
    assert html.escape(shown) in run_html(result)


def test_a_live_refresh_counts_every_row_not_only_those_it_sends() -> None:
    result = run_of(*(CandidateResult(index=i, verdict=None, state="queued") for i in range(6)))
    table = LiveTable(result)
    table.store(CandidateResult(index=2, verdict=None, state="running"))
    table.store(CandidateResult(index=4, verdict=Verdict.SAT))
    data, _ = table.mimebundle([4], {2: 0.5})
    assert data[MIME_TYPE]["counts_shown"] == "4 queued, 1 running, 1 sat"
    assert len(data[MIME_TYPE]["candidates"]) == 1


@pytest.mark.parametrize(("candidates", "tie"), [
    ((CandidateResult(index=0, verdict=Verdict.SAT, model={"x": 1}, verified=True),
      CandidateResult(index=1, verdict=Verdict.UNSAT)), "1 sat / 1 unsat → sat: "),
    ((CandidateResult(index=0, verdict=Verdict.UNSAT, stdout=PROVED, confirmed_by=["z3"]),
      CandidateResult(index=1, verdict=Verdict.SAT, stdout=COUNTER, model={"p": False})),
     "1 counterexample / 1 proved → proved: "),
])
def test_a_tie_is_said_as_the_text_caption_says_it(candidates: tuple[CandidateResult, ...], tie: str) -> None:
    result = run_of(*candidates)
    shown = run_json(result)["tie_shown"]
    assert shown.startswith(tie)
    assert f" -- tie {shown}" in run_text(result).splitlines()[0]


def test_no_tie_no_tie_text() -> None:
    result = run_of(CandidateResult(index=0, verdict=Verdict.SAT),
                    CandidateResult(index=1, verdict=Verdict.SAT))
    assert "tie_shown" not in run_json(result)


@pytest.mark.parametrize(("layers", "lines"), [
    ([{"name": "landlock", "active": True, "detail": "ABI 7, 12 rules"}],
     ["landlock: active (ABI 7, 12 rules)"]),
    ([{"name": "userns", "active": True, "detail": ""}], ["userns: active"]),
    ([{"name": "netns", "active": False, "error": "EPERM", "detail": "unshare"}], ["netns: missing (EPERM)"]),
    ([{"name": "pidns", "active": False, "detail": "not asked"}], ["pidns: missing (not asked)"]),
    ([{"name": "seccomp", "active": False, "error": "bad\x1b[31m"}], ["seccomp: missing (bad\\x1b[31m)"]),
])
def test_each_isolation_layer_has_its_line(layers: list[dict[str, object]], lines: list[str]) -> None:
    report = {"level": "kernel", "layers": layers}
    assert isolation_layers(report) == lines  # type: ignore[arg-type]
    assert run_json(run_of(CandidateResult(index=0, verdict=Verdict.SAT), isolation=report)
                    )["isolation_layers"] == lines


def test_no_isolation_report_no_layer_lines() -> None:
    assert run_json(run_of(CandidateResult(index=0, verdict=Verdict.SAT)))["isolation_layers"] == []


@pytest.mark.parametrize(("candidate", "core"), [
    (CandidateResult(index=0, verdict=Verdict.UNSAT, unsat_core=[(3, "x > 2"), (4, "x < 1")]),
     "line 3: x > 2; line 4: x < 1"),
    (CandidateResult(index=0, verdict=Verdict.UNSAT, unsat_core=[(3, "x > 2")], cell_line=10,
                     cell_candidates=2),
     "line 12 [candidate line 3]: x > 2"),
    (CandidateResult(index=0, verdict=Verdict.UNSAT, stdout="unsat\n(a1 a3)\n"), "(a1 a3)"),
    (CandidateResult(index=0, verdict=Verdict.SAT), None),
])
def test_a_rows_core_is_the_text_views_core(candidate: CandidateResult, core: str | None) -> None:
    cells = candidate_json(candidate)["cells"]
    assert cells.get("core") == core
    if core is not None:
        assert f"core:    {core}" in candidate_alone_text(candidate)
        assert core in run_text(run_of(candidate, CandidateResult(index=1, verdict=Verdict.SAT)))


@pytest.mark.parametrize(("facts", "said"), [
    ({"verdict": Verdict.SAT, "confirmed_by": ["z3"], "verified": True},
     ["confirmed", "by z3 (model verified)"]),
    ({"verdict": Verdict.UNSAT, "confirmed_by": ["z3", "cvc5"]}, ["confirmed", "by z3, cvc5"]),
    ({"verdict": Verdict.SAT, "verified": True}, ["verified", "model verified"]),
    ({"verdict": Verdict.SAT, "verified": False}, ["verified", "model failed verification"]),
    ({"verdict": Verdict.UNSAT, "confirmed_by": ["z3"], "disputed": "cvc5 finds a model"}, None),
    ({"verdict": Verdict.SAT, "confirmed_by": ["z3"], "verified": False, "disputed": "no"},
     ["verified", "model failed verification"]),
    ({"verdict": Verdict.TIMEOUT}, None),
])
def test_who_stands_behind_an_answer(facts: dict[str, object], said: list[str] | None) -> None:
    row = candidate_json(CandidateResult(index=0, **facts))  # type: ignore[arg-type]
    assert row.get("confirmation") == said
