"""What a row of the text, HTML and JSON renderings shows without a click: stdout where it helps, the
way an answer was reached (prove, cores, the optimum, further models), who confirmed it, and the
live refresh of rows."""

from __future__ import annotations

import html
import re
import textwrap
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.rendering import HOSTILE
from z3sandbox_kernel import CandidateResult, Limits, RunResult, Verdict
from z3sandbox_kernel.presentation.html import run_html
from z3sandbox_kernel.presentation.reasons import fit_reason
from z3sandbox_kernel.presentation.render import MIME_TYPE, run_json, run_mimebundle
from z3sandbox_kernel.presentation.textview import run_text
from z3sandbox_kernel.protocol.messages import KNOWN_LAYERS


def test_a_single_candidate_shows_its_stdout_in_every_form() -> None:
    alone = RunResult(candidates=[CandidateResult(
        index=0, verdict=Verdict.SAT, model={"x": 1}, stdout="sat\n[x = 1]\n")])
    data, _ = run_mimebundle(alone)
    assert "stdout: sat" in data["text/plain"] and "[x = 1]" in data["text/plain"]
    assert "[x = 1]" in data["text/html"]
    assert data[MIME_TYPE]["candidates"][0]["show_output"] is True
    assert data["text/plain"].splitlines()[0] == "RunResult: sat"  # no vote over one candidate
    assert "vote" not in data["text/html"]


def test_only_failed_rows_show_their_stdout_in_a_run_of_several() -> None:
    result = RunResult(candidates=[
        CandidateResult(index=0, verdict=Verdict.SAT, stdout="quiet sat\n"),
        CandidateResult(index=1, verdict=Verdict.RUNTIME_ERROR, reason="boom",
                        stdout="\n".join(f"step {n}" for n in range(20))),
    ])
    text = run_text(result)
    assert "quiet sat" not in text and "step 0" in text and "… (8 more lines)" in text
    page = run_html(result)
    assert "quiet sat" not in page and "step 11" in page and "step 12" not in page


def test_prove_is_shown_as_proved_or_counterexample() -> None:
    result = RunResult(candidates=[
        CandidateResult(index=0, verdict=Verdict.UNSAT, stdout="proved\n", confirmed_by=("z3",)),
        CandidateResult(index=1, verdict=Verdict.SAT, stdout="counterexample\n[p = False]\n",
                        confirmed_by=("z3",)),
    ])
    rows = run_text(result).splitlines()
    assert rows[3].split()[1] == "proved" and rows[4].split()[1] == "counterexample"
    page = run_html(result)
    assert ">proved</span>" in page and 'title="unsat: ' in page
    assert [c["shown"] for c in run_json(result)["candidates"]] == ["proved", "counterexample"]


def test_a_payload_error_is_a_warning_not_a_plain_sat() -> None:
    result = RunResult(candidates=[CandidateResult(
        index=0, verdict=Verdict.SAT, model={"byte_0": 300}, payload_error="byte_0 > 255")])
    assert "sat · no payload" in run_text(result)
    assert ">sat · no payload</span>" in run_html(result)


def test_cores_and_smt2_core_answers_are_in_the_row() -> None:
    result = RunResult(candidates=[
        CandidateResult(index=0, verdict=Verdict.UNSAT, unsat_core=[(3, "s.add(x > 2)")]),
        CandidateResult(index=1, verdict=Verdict.UNSAT, stdout="unsat\n(a1 a3)\n"),
    ], language="smt2")
    text = run_text(result)
    assert "core: line 3: s.add(x > 2)" in text and "core: (a1 a3)" in text
    assert "core: <code>(a1 a3)</code>" in run_html(result)
    assert run_json(result)["candidates"][1]["core_answer"] == "(a1 a3)"


def test_model_names_are_in_natural_order() -> None:
    model = {f"byte_{n}": n for n in (10, 2, 1, 0)}
    result = RunResult(candidates=[CandidateResult(index=0, verdict=Verdict.SAT, model=model)])
    assert "byte_0=0, byte_1=1, byte_2=2, byte_10=10" in repr(result[0])


def test_text_columns_fit_their_widest_cell() -> None:
    result = RunResult(candidates=[
        CandidateResult(index=0, verdict=Verdict.MEMORY_LIMIT, kill="memory_mb", reason="r"),
        CandidateResult(index=1, verdict=Verdict.SAT, kill=None),
    ])
    header, _, first = run_text(result).splitlines()[1:4]
    assert header.index("model") == first.index("memory_mb") + len("memory_mb") + 2


def test_a_cancelled_row_says_why_once() -> None:
    result = RunResult(candidates=[
        CandidateResult(index=0, verdict=Verdict.CANCELLED, kill="interrupt", reason="interrupted"),
        CandidateResult(index=1, verdict=Verdict.SAT),
    ])
    row = run_text(result).splitlines()[3]
    assert row.count("interrupt") == 1 and row.endswith("interrupted"), row
    assert run_json(result)["candidates"][0]["cells"]["kill"] == ""


def test_a_tie_reads_once_with_one_arrow_and_isolation_only_when_short() -> None:
    tie = RunResult(candidates=[
        CandidateResult(index=0, verdict=Verdict.SAT, verified=True, model={"x": 1}),
        CandidateResult(index=1, verdict=Verdict.UNSAT),
    ], isolation={"level": "kernel", "layers": [  # type: ignore[typeddict-item]
        {"name": name, "active": True} for name in sorted(KNOWN_LAYERS)]})
    caption = re.sub(r"<[^>]+>", " ", run_html(tie).split("</caption>")[0])
    assert "tie tie" not in " ".join(caption.split()) and "->" not in caption and "→ sat" in caption
    assert "isolation" not in caption  # every layer of the best isolation is there
    assert "->" not in run_text(tie) and "tie 1 sat / 1 unsat → sat" in run_text(tie)
    assert run_json(tie)["isolation_shortfall"] == ""
    process = {"level": "process", "layers": [{"name": "rlimits", "active": True}]}
    short = RunResult(candidates=tie.candidates, isolation=process)  # type: ignore[arg-type]
    assert "isolation process: rlimits; missing: userns" in run_html(short)
    assert run_json(short)["isolation_shortfall"].startswith("process: rlimits; missing: userns")


def test_a_live_refresh_sends_only_changed_rows_and_running_times() -> None:
    from z3sandbox_kernel.presentation.live import live_mimebundle

    rows = [CandidateResult(index=i, verdict=None, state="queued") for i in range(200)]
    rows[5] = CandidateResult(index=5, verdict=Verdict.SAT, model={"x": 1}, wall_s=0.2)
    rows[6] = CandidateResult(index=6, verdict=None, state="running")
    result = RunResult(candidates=rows)
    data, metadata = live_mimebundle(result, [5, 6], {6: 1.25})
    document = data[MIME_TYPE]
    assert document["delta"] is True and [c["index"] for c in document["candidates"]] == [5, 6]
    assert document["progress"] == {"done": 1, "total": 200}
    assert metadata[MIME_TYPE]["timings"] == [
        {"index": 5, "wall_s": 0.2, "cpu_s": 0.0, "peak_rss_mb": 0.0},
        {"index": 6, "running_s": 1.2}]
    assert data["text/html"].count("<tr><td") <= 21 and "incomplete" in data["text/html"]
    full, _ = live_mimebundle(result, None, {})
    assert "delta" not in full[MIME_TYPE] and len(full[MIME_TYPE]["candidates"]) == 200


def test_payloads_are_saved_once_each_and_atomically(tmp_path) -> None:
    from z3sandbox_kernel.contracts.payload_files import afl_sync

    result = RunResult(candidates=[
        CandidateResult(index=0, verdict=Verdict.SAT, payload=b"AB", label="first"),
        CandidateResult(index=1, verdict=Verdict.SAT, payload=b"AB"),
        CandidateResult(index=2, verdict=Verdict.SAT, payload=b"CD"),
        CandidateResult(index=3, verdict=Verdict.UNSAT),
    ])
    written = result.save_payloads(tmp_path / "out")
    assert sorted(p.read_bytes() for p in written) == [b"AB", b"CD"]
    assert written[0].name.startswith("payload-first-sha256:")
    assert result.save_payloads(tmp_path / "out") == []  # already there
    queue = tmp_path / "sync" / "z3sandbox" / "queue"
    first = afl_sync([b"AB", b"AB", b"CD"], tmp_path / "sync")
    assert [p.name.split(",")[0] for p in first] == ["id:000000", "id:000001"]
    assert [p.name.split(",")[0] for p in afl_sync([b"CD", b"EF"], tmp_path / "sync")] == ["id:000002"]
    assert sorted(p.name for p in queue.iterdir() if p.name.startswith(".")) == []  # no temporaries


def test_the_optimum_is_in_the_row_in_every_form() -> None:
    goals = [{"term": "x + y", "direction": "maximize", "value": 13, "checked": True},
             {"term": HOSTILE, "direction": "minimize", "value": Fraction(1, 2), "checked": True}]
    result = RunResult(candidates=[
        CandidateResult(index=0, verdict=Verdict.SAT, model={"x": 9}, objectives=goals),  # type: ignore[list-item]
        CandidateResult(index=1, verdict=Verdict.SAT, model={"x": 9})])
    text = run_text(result)
    assert "objective: maximize x + y = 13; minimize <script>" in text and "\x1b" not in text
    assert "maximize x + y = 13" in run_html(result) and "<script>" not in run_html(result)
    first, second = run_json(result)["candidates"]
    assert first["objective"].startswith("maximize x + y = 13; minimize")
    assert first["objectives"][1]["value"] == {"fraction": [1, 2]}
    assert "objective" not in second and "objectives" not in second
    assert "optimum: maximize x + y = 13" in repr(result[0])


def test_results_import_no_presentation_until_shown_and_the_presentation_has_no_circle() -> None:
    import subprocess
    import sys

    probe = (
        "import sys\n"
        "from z3sandbox_kernel.contracts.results import RunResult, CandidateResult\n"
        "from z3sandbox_kernel.protocol.verdicts import Verdict\n"
        "assert not any(m.startswith('z3sandbox_kernel.presentation') for m in sys.modules),"
        " 'results imported presentation'\n"
        "import z3sandbox_kernel.presentation.html, z3sandbox_kernel.presentation.textview\n"
        "assert 'z3sandbox_kernel.presentation.render' not in sys.modules, 'html/textview imported render'\n"
        "bare = repr(RunResult(candidates=[CandidateResult(index=0, verdict=Verdict.SAT)]))\n"
        "from z3sandbox_kernel import RunResult as Public\n"
        "shown = repr(Public(candidates=[CandidateResult(index=0, verdict=Verdict.SAT)]))\n"
        "print(bare.splitlines()[0]); print(shown.splitlines()[0])\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["RunResult: sat", "RunResult: sat"]


def test_a_row_says_who_confirmed_its_answer_or_that_it_is_disputed() -> None:
    run = RunResult(candidates=[
        CandidateResult(index=0, verdict=Verdict.UNSAT, confirmed_by=("z3", "cvc5")),
        CandidateResult(index=1, verdict=Verdict.UNSAT, disputed="z3 finds them satisfiable",
                        reason="z3 finds them satisfiable"),
    ])
    text = run_text(run)
    assert "confirmed by z3, cvc5" in text and "disputed" in text
    assert "confirmed by z3, cvc5" in run_html(run)
    document = run_json(run)["candidates"]
    assert document[0]["confirmed_by"] == ["z3", "cvc5"] and "disputed" not in document[0]
    assert document[1]["shown"] == "disputed" and document[1]["disputed"] == "z3 finds them satisfiable"


def test_the_download_lists_every_payload_save_payloads_writes(tmp_path, kernel_sandbox) -> None:
    """Issue 41.4: --models 3 on a seed, two candidates: every payload (further models too) is in
    the document's list, under the names save_payloads gives them, even where the first models
    share a payload."""
    script = ("b = [BitVec(f'byte_{i}', 8) for i in range(2)]\n"
              "s.add(b[0] == 0x41, b[1] < 3)\n")
    result = kernel_sandbox.run([script, script], models=3, seed=b"\x00\x00\x00",
                                limits=Limits(timeout_s=5, wall_s=20, cpu_s=10))
    assert [len(c.payloads) for c in result] == [3, 3]
    written = result.save_payloads(tmp_path)
    document = run_json(result)
    files = document["payload_files"]
    assert sorted(f["name"] for f in files) == sorted(path.name for path in written)
    assert len(files) == len(set(result.payloads)) >= 3  # each distinct payload once
    entries = {c["index"]: c for c in document["candidates"]}
    for file, path in zip(files, written, strict=True):
        entry = entries[file["index"]]
        where, _, at = file["at"].partition("/")
        held = entry[where][int(at)]["payload_hex"] if at else entry["payload_hex"]
        assert bytes.fromhex(held) == path.read_bytes()
    assert result.payloads == [p for c in result for p in c.payloads]  # one form: lists both


def test_a_run_of_prove_calls_counts_in_their_words() -> None:
    """Issue 41.6: "1 proved, 1 counterexample", not "1 sat, 1 unsat", in every header."""
    result = RunResult(candidates=[
        CandidateResult(index=0, verdict=Verdict.UNSAT, stdout="proved\n", confirmed_by=("z3",)),
        CandidateResult(index=1, verdict=Verdict.SAT, stdout="counterexample\n[p = False]\n",
                        confirmed_by=("z3",), model={"p": False})])
    first = run_text(result).splitlines()[0]
    assert first.startswith("RunResult: counterexample (1 proved, 1 counterexample)")
    caption = html.unescape(re.sub(r"<[^>]+>", "", run_html(result).split("</caption>")[0]))
    assert "1 proved, 1 counterexample" in caption and "sat" not in caption.replace("counterexample", "")
    assert run_json(result)["words"] == {"sat": "counterexample", "unsat": "proved"}
    plain = RunResult(candidates=[CandidateResult(index=0, verdict=Verdict.SAT, confirmed_by=("z3",))])
    assert "words" not in run_json(plain)


def test_further_models_of_an_optimize_check_say_they_need_not_be_optimal() -> None:
    from z3sandbox_kernel.contracts.results import ModelResult

    result = RunResult(candidates=[CandidateResult(
        index=0, verdict=Verdict.SAT, model={"x": 9, "y": 1}, confirmed_by=("z3",),
        objectives=[{"term": "x", "direction": "maximize", "value": 9, "optimal": True, "checked": True}],
        more_models=[ModelResult({"x": 2, "y": 1}, verified=True)])])
    line = "model 2: x=2, y=1 (maximize x = 2; need not be optimal)"
    assert line in run_text(result) and line in html.unescape(run_html(result))
    assert run_json(result)["candidates"][0]["further_models"] == [line]


words = st.lists(st.text(st.sampled_from("ab(),:`-é"), min_size=1, max_size=14), max_size=14)


@settings(max_examples=400, deadline=None)
@given(text=st.tuples(words, st.sampled_from([" ", "  ", "\t", "\u00a0", "\n"])).map(
    lambda split: split[1].join(split[0])), width=st.integers(0, 60))
def test_a_reason_that_fits_is_wrapped_as_textwrap_would(text: str, width: int) -> None:
    """``wrap_reason`` skips textwrap for a reason that fits its line: the same lines."""
    from z3sandbox_kernel.presentation.reasons import WRAP_LINES, wrap_reason

    fitted = fit_reason(text, width)
    expected = textwrap.wrap(fitted, max(width, 20), break_on_hyphens=False) or [""]
    if len(expected) <= WRAP_LINES:
        assert wrap_reason(text, width) == expected
