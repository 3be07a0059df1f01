"""What a row's reason says, in the text, HTML and the run document alike (issues 41.1, 41.2, 41.5
and 37.6): the whole message (only a quoted source line is cut), a clause every answer shares said
once, an answer nobody confirmed read as "unconfirmed: why", and a value nobody checked as the
candidate's claim.  Real runs where the sandbox makes the case; hand-made results for the rest."""

from __future__ import annotations

import html
import re

import pytest

from z3sandbox_kernel import CandidateResult, Limits, RunResult, Sandbox, Verdict
from z3sandbox_kernel.presentation import textview
from z3sandbox_kernel.presentation.html import run_html
from z3sandbox_kernel.presentation.reasons import fit_reason, wrap_reason
from z3sandbox_kernel.presentation.render import MIME_TYPE, run_json, run_mimebundle
from z3sandbox_kernel.presentation.textview import candidate_alone_text, run_text

QUICK = Limits(timeout_s=5, wall_s=20, cpu_s=10)
LONG_NAME = "a_rather_long_variable_name_that_nobody_ever_defined_in_this_script"
# A candidate that forges its objective's value: it replaces the harness's reader of objectives.
FORGED_OBJECTIVE = """x = Int('x')
o = Optimize()
o.add(x <= 10)
o.maximize(x)
print(o.check())
import sys
for name, module in list(sys.modules.items()):
    if name.endswith('child.objectives'):
        module.read = lambda record: [{'term': 'x', 'direction': 'maximize', 'value': 1000000000}]
"""


@pytest.fixture(autouse=True)
def _a_notebook_s_fixed_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """As in a kernel: terminal IPython, loaded by another test in this process, would set the
    text table's width to the terminal's."""
    monkeypatch.setattr(textview, "_terminal_width", None)


def _all_views(result: RunResult, index: int | None = None) -> list[str]:
    """The text table, the HTML table (tags dropped, entities read) and each candidate alone (or
    only candidate ``index``)."""
    page = html.unescape(re.sub(r"<[^>]+>", " ", run_html(result)))
    alone = [c for c in result if index is None or c.index == index]
    return [run_text(result), " ".join(page.split()), *(candidate_alone_text(c) for c in alone)]


# ------------------------------------------------------------------------------- the whole reason

@pytest.mark.parametrize("reason, shown", [
    # the message whole, the quoted source line cut to fit
    ("ValueError: bad (line 4: `print(zz + the_rest_of_a_long_line_of_the_script)`)",
     "ValueError: bad (line 4: `print(zz + the_rest_of_a_long_l…`)"),
    # the source line dropped when too little of it would be left, its place kept
    (f"NameError: name '{LONG_NAME}' is not defined (line 4: `print({LONG_NAME})`)",
     f"NameError: name '{LONG_NAME}' is not defined (line 4)"),
    # a path in the message is never cut
    ("PermissionError: [Errno 13] Permission denied: '/home/user/secret/keys.pem' (line 1: `open(p)`)",
     "PermissionError: [Errno 13] Permission denied: '/home/user/secret/keys.pem' (line 1)"),
    # a limit's value is never cut
    ("MemoryError (line 1: `a = bytearray(900 * 1024 * 1024)`), with a peak of 579 MB of the 512 MB "
     "memory limit", "MemoryError (line 1), with a peak of 579 MB of the 512 MB memory limit"),
    ("out of memory (memory limit 512 MB)", "out of memory (memory limit 512 MB)"),
    # a syntax error's place has a column
    ("SyntaxError: bad (line 2, column 12: `x, y = Ints('x y' + helper(1, 2, 3, 4, 5)`)",
     "SyntaxError: bad (line 2, column 12: `x, y = Ints('x y' +…`)"),
    # a traceback under the first line is one click away, not in the row
    ("ValueError: no (line 3: `f()`)\nScript traceback, innermost last:\n  line 3 in <module>: `f()`",
     "ValueError: no (line 3: `f()`)"),
])
def test_a_reason_is_cut_in_its_source_line_never_in_its_message(reason: str, shown: str) -> None:
    assert fit_reason(reason, 60) == shown
    result = RunResult(candidates=[CandidateResult(index=0, verdict=Verdict.RUNTIME_ERROR, reason=reason),
                                   CandidateResult(index=1, verdict=Verdict.TIMEOUT, reason="wall")])
    document = run_json(result)["candidates"][0]
    assert document["cells"]["reason"] == shown
    assert document["reason_shown"] == reason  # the whole of it, one click away in the labextension
    text = " ".join(run_text(result).split())
    assert " ".join(shown.split()) in text or shown.replace(" ", "") in text.replace(" ", "")
    assert html.escape(shown, quote=True) in run_html(result)


def test_the_text_table_wraps_a_long_reason_under_its_column() -> None:
    reason = f"NameError: name '{LONG_NAME}' is not defined (line 4: `print({LONG_NAME})`)"
    result = RunResult(candidates=[CandidateResult(index=0, verdict=Verdict.RUNTIME_ERROR, reason=reason),
                                   CandidateResult(index=1, verdict=Verdict.TIMEOUT, reason="wall")])
    lines = run_text(result).splitlines()
    row = next(n for n, line in enumerate(lines) if "NameError" in line)
    column = lines[row].index("NameError")
    assert lines[row + 1][:column].strip() == "" and lines[row + 1][column:].strip()
    assert "".join(line[column:] for line in lines[row:row + 2]).replace(" ", "") == \
        fit_reason(reason, 60).replace(" ", "")
    assert len(wrap_reason(reason, 200)) == 1  # a terminal with room: one line


def test_a_real_name_error_and_memory_limit_keep_their_message_and_limit(kernel_sandbox: Sandbox) -> None:
    result = kernel_sandbox.run([f"x = Int('x')\nprint({LONG_NAME} + 1)\n",
                                 "a = bytearray(900 * 1024 * 1024)\n"], limits=QUICK)
    for view in _all_views(result, 0):
        assert f"NameError:name'{LONG_NAME}'isnotdefined(line2" in "".join(view.split()), view
    for view in _all_views(result, 1):
        flat = "".join(view.split())
        assert re.search(r"MemoryError.*(512MBmemorylimit|memorylimit512MB)", flat), view


# ------------------------------------------------------------------------------ said once

def test_a_clause_every_answer_shares_is_said_once_in_the_caption(kernel_sandbox: Sandbox) -> None:
    script = "x, y = Ints('x y')\ns.add(x + y == 10, x > y, y > 0)\n"
    result = kernel_sandbox.run(script, k=3, limits=QUICK)
    note = "the script never called check(): the sandbox checked its assertions"
    assert all(note in c.reason for c in result)  # the data keeps it
    text = run_text(result)
    assert text.count(note) == 1 and f"all 3 answers: {note}" in text
    rows = [line for line in text.splitlines() if re.match(r"^\s+\d+\s", line)]
    assert [row.split("  ")[-1].strip() for row in rows] == ["confirmed by z3"] * 3
    page = run_html(result)
    assert page.count(note) == 1 and "all 3 answers" in page.split("</caption>")[0]
    document = run_json(result)
    assert document["said_once"] == f"all 3 answers: {note}"
    assert [c["cells"]["reason"] for c in document["candidates"]] == ["confirmed by z3"] * 3
    assert [c["reason_shown"] for c in document["candidates"]] == ["confirmed by z3"] * 3  # no "more"


def test_nothing_is_said_once_when_a_row_would_be_left_with_nothing() -> None:
    same = "NameError: name 'x' is not defined (line 1)"
    failed = RunResult(candidates=[CandidateResult(index=i, verdict=Verdict.RUNTIME_ERROR, reason=same)
                                   for i in range(3)])
    assert "said_once" not in run_json(failed) and run_text(failed).count(same) == 3
    one_says_it = RunResult(candidates=[
        CandidateResult(index=0, verdict=Verdict.SAT, confirmed_by=("z3",), reason="note"),
        CandidateResult(index=1, verdict=Verdict.SAT, confirmed_by=("z3",))])
    assert "said_once" not in run_json(one_says_it)


# --------------------------------------------------------------------------- unconfirmed answers

def test_an_answer_nobody_confirmed_reads_unconfirmed_with_why_in_every_view(kernel_sandbox: Sandbox) -> None:
    result = kernel_sandbox.run(["x = Int('x')\ns.add(x > 1, x < 0)\nprint(s.check())\n",
                                 "x = Int('x')\ns.add(x > 1)\nprint(s.check())\n"],
                                limits=QUICK, verify=False)
    assert [c.confirmed_by for c in result] == [(), ()]
    for view in _all_views(result):
        assert "unconfirmed: no checker confirmed it" in view, view
    assert run_text(result).count("unconfirmed: no checker confirmed it") == 2
    data, _ = run_mimebundle(result)
    for shown in data[MIME_TYPE]["candidates"]:
        assert shown["unconfirmed"] == "no checker confirmed it"
        assert shown["cells"]["reason"].startswith("unconfirmed: ")
    assert "dashed" in data["text/html"]  # the badge is outlined, not filled


def test_a_verifier_s_reason_is_the_why_and_a_confirmed_badge_stays_filled() -> None:
    result = RunResult(candidates=[
        CandidateResult(index=0, verdict=Verdict.UNSAT,
                        reason="not confirmed: its check ran out of the verification budget"),
        CandidateResult(index=1, verdict=Verdict.UNSAT, confirmed_by=("z3",))])
    text = run_text(result)
    assert "unconfirmed: its check ran out of the verification budget" in text
    assert "not confirmed" not in text
    rows = run_html(result).split("</caption>")[1]
    badges = re.findall(r"<span style=\"([^\"]*)\"[^>]*>unsat</span>", rows)
    assert len(badges) == 2 and "dashed" in badges[0] and "dashed" not in badges[1]
    assert "unconfirmed" not in run_json(result)["candidates"][1]


# ------------------------------------------------------------------ values the verifier never checked

def test_a_forged_objective_is_shown_as_the_candidate_s_claim(kernel_sandbox: Sandbox) -> None:
    result = kernel_sandbox.run(FORGED_OBJECTIVE, limits=QUICK)
    candidate = result[0]
    assert candidate.model == {"x": 10} and candidate.confirmed_by == ("z3",)
    assert candidate.objectives[0]["checked"] is False
    claim = "maximize x = 1000000000 (the candidate's claim, not checked)"
    for view in _all_views(result):
        assert claim in view, view
    assert run_json(result)["candidates"][0]["objective"] == claim


@pytest.mark.parametrize("goal, shown", [
    ({"value": 9, "optimal": True, "checked": True}, "maximize x = 9 (optimal)"),
    ({"value": 9, "optimal": False, "checked": True}, "maximize x = 9 (not optimal)"),
    ({"value": 9, "optimal": None, "checked": True}, "maximize x = 9"),
    ({"value": 9, "optimal": None, "checked": False}, "maximize x = 9 (the candidate's claim, not checked)"),
    # documents older than "checked": a decided "optimal" means the value was checked
    ({"value": 9, "optimal": True}, "maximize x = 9 (optimal)"),
    ({"value": 9}, "maximize x = 9 (the candidate's claim, not checked)"),
])
def test_an_objective_says_whether_its_value_was_checked(goal: dict[str, object], shown: str) -> None:
    candidate = CandidateResult(index=0, verdict=Verdict.SAT, model={"x": 9}, confirmed_by=("z3",),
                                objectives=[{"term": "x", "direction": "maximize", **goal}])  # type: ignore[list-item]
    result = RunResult(candidates=[candidate])
    assert f"objective: {shown}" in run_text(result)
    assert shown in html.unescape(run_html(result))
    assert run_json(result)["candidates"][0]["objective"] == shown
