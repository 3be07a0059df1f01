"""The text, HTML and JSON renderings of a RunResult built from CandidateResult objects."""

from __future__ import annotations

import configparser
import dataclasses
import html
import json
import re
import textwrap
from fractions import Fraction
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from z3sandbox_kernel import CandidateResult, Limits, RunResult, Verdict
from z3sandbox_kernel.presentation.html import MAX_ROWS, run_html
from z3sandbox_kernel.presentation.phrases import (
    SAVED_COLUMNS,
    TABLE_COLUMNS,
    isolation_summary,
    limits_summary,
)
from z3sandbox_kernel.presentation.reasons import fit_reason
from z3sandbox_kernel.presentation.render import MIME_TYPE, SCHEMA_VERSION, run_json, run_mimebundle
from z3sandbox_kernel.presentation.textview import run_text
from z3sandbox_kernel.protocol.messages import KNOWN_LAYERS
from z3sandbox_kernel.protocol.verdicts import style_table

ISOLATION = {
    "level": "kernel",
    "layers": [
        {"name": "userns", "active": True, "detail": ""},
        {"name": "landlock", "active": True, "detail": "ABI 7, 12 rules"},
        {"name": "seccomp", "active": True, "detail": ""},
        {"name": "netns", "active": False, "error": "EPERM"},
    ],
}
HOSTILE = "<script>alert('x')</script>\x1b[31m"


def make_result(wall: float = 0.5) -> RunResult:
    return RunResult(
        candidates=[
            CandidateResult(
                index=0, verdict=Verdict.SAT, model={"x": 3, "r": Fraction(1, 2)},
                payload=b"\x00AB", verified=True, wall_s=wall, cpu_s=wall / 2, peak_rss_mb=41.0,
                exit_code=0,
            ),
            CandidateResult(
                index=1, verdict=Verdict.RUNTIME_ERROR, reason="ZeroDivisionError: " + "x" * 200,
                wall_s=wall, cpu_s=0.1, peak_rss_mb=40.0, exit_code=1,
            ),
            CandidateResult(
                index=2, verdict=Verdict.TIMEOUT, reason=HOSTILE, kill="wall", wall_s=wall,
            ),
        ],
        limits=Limits(timeout_s=2.0),
        isolation=ISOLATION,  # type: ignore[arg-type]
        elapsed_s=wall * 3,
    )


def test_text_table_has_one_row_per_candidate_and_no_figures() -> None:
    text = run_text(make_result(wall=1.2345))
    lines = text.splitlines()
    assert lines[0] == "RunResult: sat (1 sat, 1 runtime_error, 1 timeout)"
    rows = [line for line in lines if re.match(r"^\s+\d+\s", line)]
    assert [row.split()[1] for row in rows] == ["sat", "runtime_error", "timeout"]
    assert "00 41 42" in rows[0]  # the payload, in hex
    assert "1.2345" not in text and "1.23" not in text


def test_text_escapes_control_characters_from_candidates() -> None:
    text = run_text(make_result())
    assert "\x1b" not in text
    assert "\\x1b[31m" in text


def test_text_marks_an_interrupted_run_and_unfinished_candidates() -> None:
    result = make_result()
    result.candidates.append(CandidateResult(index=3, verdict=None, state="running"))
    result.interrupted = True
    text = run_text(result)
    assert text.splitlines()[0].startswith("RunResult: pending (")
    assert "interrupted" in text.splitlines()[0]
    assert text.splitlines()[-1].split()[:2] == ["3", "running"]


def test_html_escapes_everything_a_candidate_wrote() -> None:
    page = run_html(make_result())
    assert "<script>" not in page
    assert "&lt;script&gt;" in page
    assert "\x1b" not in page


def test_html_labels_every_verdict_with_text_and_colour() -> None:
    page = run_html(make_result())
    expected = {"sat": "#1a7f37", "runtime_error": "#cf222e", "timeout": "#9a6700"}
    for verdict, colour in expected.items():
        assert re.search(f"background:{colour}[^>]*>{verdict}</span>", page), verdict


def test_html_shows_a_long_message_whole_and_folds_only_its_source_line() -> None:
    page = run_html(make_result())
    assert "ZeroDivisionError: " + "x" * 200 + "</td>" in page  # a message is never cut
    source = "print(" + "y" * 80 + ")"
    cut = RunResult(candidates=[CandidateResult(
        index=0, verdict=Verdict.RUNTIME_ERROR,
        reason=f"NameError: name 'y' is not defined (line 2: `{source}`)\nScript traceback: ...")])
    folded = re.search(r"<details><summary[^>]*>([^<]*)</summary>", html.unescape(run_html(cut)))
    assert folded is not None
    assert folded.group(1).startswith("NameError: name 'y' is not defined (line 2: `print(yyy")
    assert folded.group(1).endswith("…`)") and len(folded.group(1)) == 60
    assert source in run_html(cut) and "Script traceback" in run_html(cut)  # one click away


FIGURE = re.compile(r'(class="z3-figure"[^>]*>)[^<]*')


def test_html_keeps_each_candidate_s_figures_and_the_elapsed_time_each_marked() -> None:
    """Issue 41.8: nbconvert's HTML is where a shared notebook's figures are compared; each is
    in an element notebooks/sanitize.cfg masks, and nothing else changes from run to run."""
    fast, slow = run_html(make_result(wall=0.25)), run_html(make_result(wall=7.5))
    assert fast != slow and FIGURE.sub(r"\1F", fast) == FIGURE.sub(r"\1F", slow)
    assert re.findall(r'class="z3-figure">([^<]*)<', fast) == [
        "0.75 s elapsed", "0.25 s", "0.12 s", "41.00 MB", "0.25 s", "0.10 s", "40.00 MB",
        "0.25 s", "0.00 s", "0.00 MB"]
    assert "wall" in re.findall(r"<th[^>]*>([^<]*)</th>", fast)
    never_ran = RunResult(candidates=[CandidateResult(index=0, verdict=Verdict.CANCELLED, reason="x"),
                                      CandidateResult(index=1, verdict=Verdict.SAT, wall_s=1.0)])
    assert re.findall(r'class="z3-figure">([^<]*)<', run_html(never_ran))[:3] == ["—", "—", "—"]
    assert "z3-figure" in make_result()[0]._repr_mimebundle_()[0]["text/html"]
    sanitize = configparser.ConfigParser()
    sanitize.read(Path(__file__).parent.parent / "notebooks" / "sanitize.cfg")
    masked = [re.sub(sanitize["html-figures"]["regex"], sanitize["html-figures"]["replace"], page)
              for page in (fast, slow)]
    assert masked[0] == masked[1] and "FIGURE" in masked[0]


def test_html_caption_shows_vote_counts_limits_and_missing_isolation() -> None:
    page = run_html(make_result())
    caption = re.search(r"<caption[^>]*>(.*?)</caption>", page)
    assert caption is not None
    text = re.sub(r"<[^>]+>", "", caption.group(1))
    assert "sat" in text and "1 runtime_error" in text
    assert "timeout 2 s" in text
    assert "kernel: userns landlock(ABI 7) seccomp; missing: netns pidns" in text


def test_html_caps_the_rows_and_says_how_many_are_left_out() -> None:
    many = RunResult(
        candidates=[CandidateResult(index=i, verdict=Verdict.UNSAT) for i in range(MAX_ROWS + 7)]
    )
    page = run_html(many)
    assert page.count("<tr>") == 1 + MAX_ROWS + 1  # header, rows, the summary row
    assert "7 more candidates" in page


def test_json_document_follows_schema_version_1() -> None:
    document = run_json(make_result())
    assert document["schema"] == "z3sandbox.run"
    assert document["version"] == SCHEMA_VERSION == 1
    assert document["verdict"] == "sat"
    assert document["counts"] == {"sat": 1, "runtime_error": 1, "timeout": 1}
    assert document["limits"]["timeout_s"] == 2.0
    assert document["isolation"]["level"] == "kernel"
    first = document["candidates"][0]
    assert first["payload_hex"] == "004142"
    assert first["model"] == {"x": 3, "r": {"fraction": [1, 2]}}
    assert set(first) == {
        "index", "verdict", "reason", "model", "payload_hex", "payload_error", "unsat_core",
        "stdout", "stderr", "stdout_truncated", "stderr_truncated", "kill", "exit_code",
        "signal", "verified", "label", "source_preview", "output_truncated", "error",
        "shown", "core_answer", "show_output", "model_omitted", "cells", "reason_shown",
    }
    assert first["cells"] == {"model": "00 41 42", "reason": "", "kill": ""}
    assert document["isolation_summary"] == isolation_summary(ISOLATION)  # type: ignore[arg-type]
    assert ["timeout", "2 s"] in document["limits_shown"]
    assert {"key": "wall_s", "title": "wall", "unit": "s"} in document["columns"]
    assert document["finished"] is True and document["progress"] == {"done": 3, "total": 3}
    assert document["tie"] is None and document["view"] == "run"
    assert [c["key"] for c in document["columns"]] == [c.key for c in TABLE_COLUMNS]
    json.dumps(document)  # JSON-ready as it is


def test_mimebundle_keeps_volatile_figures_in_metadata_only() -> None:
    data, metadata = run_mimebundle(make_result(wall=0.25))
    data_again, metadata_again = run_mimebundle(make_result(wall=7.5))
    assert set(data) == {"text/plain", "text/html", MIME_TYPE}
    assert data["text/plain"] == data_again["text/plain"] and data[MIME_TYPE] == data_again[MIME_TYPE]
    assert metadata[MIME_TYPE]["timings"][0] == {
        "index": 0, "wall_s": 0.25, "cpu_s": 0.125, "peak_rss_mb": 41.0
    }
    assert metadata[MIME_TYPE]["elapsed_s"] == 0.75
    assert metadata != metadata_again


def test_result_objects_render_through_repr_mimebundle() -> None:
    result = make_result()
    data, _ = result._repr_mimebundle_()
    assert data["text/plain"] == repr(result)
    single, _ = result[1]._repr_mimebundle_()
    assert [c["index"] for c in single[MIME_TYPE]["candidates"]] == [1]


def test_limits_summary_shows_headline_limits_and_changed_ones() -> None:
    assert limits_summary(Limits()) == "timeout 5 s, wall 10 s, cpu 8 s, memory 512 MB"
    changed = dataclasses.replace(Limits(), files=32)
    assert limits_summary(changed).endswith(", files 32")


def test_isolation_summary_is_one_line() -> None:
    assert isolation_summary(None) == "unknown"
    assert isolation_summary({"level": "process", "layers": []}) == "process: no layers"


def test_text_and_html_tables_have_the_same_columns() -> None:
    result = make_result()
    result.candidates[0].label = "first"
    titles = [column.title for column in SAVED_COLUMNS]
    assert run_text(result).splitlines()[1].split() == ["#", "candidate", "verdict", "kill",
                                                          "model", "/", "payload", "reason"]
    figures = ["wall", "cpu", "memory"]  # the HTML's measured figures: the text has none
    assert [title for title in re.findall(r"<th[^>]*>([^<]*)</th>", run_html(result))
            if title not in figures] == titles
    assert "first" in run_text(result).splitlines()[3]


def test_a_live_document_shows_progress_and_the_final_one_does_not() -> None:
    result = make_result()
    result.candidates.append(CandidateResult(index=3, verdict=None, state="running"))
    live, _ = run_mimebundle(result)
    assert live[MIME_TYPE]["finished"] is False
    assert live[MIME_TYPE]["progress"] == {"done": 3, "total": 4}
    assert live[MIME_TYPE]["candidates"][3]["state"] == "running"
    assert "3/4 done" in live["text/plain"] and 'role="progressbar"' in live["text/html"]
    final, _ = run_mimebundle(make_result())
    assert "progress" not in final["text/plain"] and "progressbar" not in final["text/html"]


def test_a_tie_is_shown_as_a_tie_with_its_rule() -> None:
    tie = RunResult(candidates=[
        CandidateResult(index=0, verdict=Verdict.SAT, verified=True, model={"x": 1}),
        CandidateResult(index=1, verdict=Verdict.UNSAT),
    ])
    assert run_text(tie).splitlines()[0].startswith("RunResult: sat (1 sat, 1 unsat) -- tie 1 sat / 1 unsat")
    assert "a confirmed answer beats an unconfirmed one, so sat wins" in run_text(tie)
    assert run_json(tie)["tie"] == {"sat": 1, "unsat": 1, "winner": "sat",
                                    "rule": "a confirmed answer beats an unconfirmed one, so sat wins"}
    assert ">tie</span>" in run_html(tie)


def test_a_long_reason_keeps_its_message_and_its_limit_whole() -> None:
    reason = "MemoryError: " + "allocation failed " * 5 + "(memory limit 512 MB)"
    assert fit_reason(reason, 60) == reason


def test_the_payload_error_is_in_the_reason_column() -> None:
    failed = CandidateResult(index=0, verdict=Verdict.SAT, payload_error="byte_3 > 255",
                             confirmed_by=("z3",))
    result = RunResult(candidates=[failed])
    assert "(payload: byte_3 > 255)" in run_text(result)
    assert "(payload: byte_3 &gt; 255)" in run_html(result)


def test_a_candidate_alone_shows_the_candidate_not_a_vote() -> None:
    candidate = make_result()[0]
    candidate.label, candidate.source_preview = "mine", "x = Int('x')"
    data, _ = candidate._repr_mimebundle_()
    assert data["text/plain"].splitlines()[0] == "candidate 0 'mine': sat (model verified)"
    assert "vote" not in data["text/plain"] and "isolation" not in data["text/plain"]
    assert repr(candidate) == data["text/plain"]
    assert data[MIME_TYPE]["view"] == "candidate"
    assert "mine" in data["text/html"] and "vote" not in data["text/html"]


def _luminance(colour: str) -> float:
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_every_badge_colour_has_at_least_4_5_to_1_contrast() -> None:
    table = style_table()
    entries = {**table["verdicts"], **table["states"]}
    assert set(table["verdicts"]) == {v.value for v in Verdict}
    for name, entry in entries.items():
        for theme in ("light", "dark"):
            pair = entry[theme]
            assert _contrast(pair["text"], pair["background"]) >= 4.5, (name, theme)
            assert _contrast(pair["background"], table["themes"][theme]["page"]) >= 4.5, (name, theme)


def test_identical_models_are_grouped_in_the_summary() -> None:
    def sat(index: int, x: int) -> CandidateResult:
        return CandidateResult(index=index, verdict=Verdict.SAT, model={"x": x}, verified=True)

    result = RunResult(candidates=[sat(0, 2), sat(1, 3), sat(2, 2), CandidateResult(
        index=3, verdict=Verdict.UNSAT), sat(4, 2), sat(5, 3)])
    assert [[c.index for c in group] for group in result.model_groups()] == [[0, 2, 4], [1, 5]]
    assert run_text(result).splitlines()[1] == "identical models: x=2 (#0 #2 #4); x=3 (#1 #5)"
    assert "identical models: x=2 (#0 #2 #4); x=3 (#1 #5)" in run_html(result)
    assert "identical models" not in run_text(make_result())  # one sat: nothing to group


def test_a_live_document_leaves_the_output_for_the_final_one() -> None:
    result = make_result()
    result.candidates[0].stdout = "x" * 50_000
    assert run_json(result)["candidates"][0]["stdout"] == "x" * 50_000
    result.candidates.append(CandidateResult(index=3, verdict=None, state="running"))
    assert run_json(result)["candidates"][0]["stdout"] == ""


def test_html_keeps_a_limit_whole_and_its_source_line_cut() -> None:
    reason = ("MemoryError (line 1: `a = bytearray(900 * 1024 * 1024)  # the buffer we need`), "
              "with a peak of 579 MB of the 512 MB memory limit")
    result = RunResult(candidates=[
        CandidateResult(index=0, verdict=Verdict.MEMORY_LIMIT, reason=reason)])
    summary = re.search(r"<summary[^>]*>([^<]*)</summary>", run_html(result))
    assert summary is not None
    assert summary.group(1) == "MemoryError (line 1), with a peak of 579 MB of the 512 MB memory limit"


def test_html_keeps_cores_whole_models_and_payloads_for_an_export() -> None:
    model = {f"v{i}": i for i in range(30)}
    result = RunResult(candidates=[
        CandidateResult(index=0, verdict=Verdict.SAT, model=model),
        CandidateResult(index=1, verdict=Verdict.UNSAT,
                        unsat_core=[(2, "s.add(x > 1)"), (3, "s.add(x < 0)")]),
        CandidateResult(index=2, verdict=Verdict.SAT, payload=bytes(range(256)) * 20),
    ])
    page = run_html(result)
    assert "v29=29" in page  # the whole model, folded behind its preview
    assert "core: <code>line 2: s.add(x &gt; 1); line 3: s.add(x &lt; 0)</code>" in page
    assert "… (5120 bytes)" in page and page.count("ff 00 01") == 15  # the first 4 KB, folded


# ---------------------------------------------------------------- what a row shows without a click

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
