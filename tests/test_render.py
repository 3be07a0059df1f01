"""The text, HTML and JSON renderings of a RunResult built from CandidateResult objects (what each
row shows without a click: test_render_rows.py)."""

from __future__ import annotations

import configparser
import dataclasses
import html
import json
import re
from pathlib import Path

from tests.rendering import ISOLATION, make_result
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
from z3sandbox_kernel.protocol.verdicts import style_table


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
        "shown", "core_answer", "show_output", "model_omitted", "cells", "reason_shown", "confirmation",
    }
    assert first["cells"] == {"model": "00 41 42", "reason": "", "kill": ""}
    assert first["confirmation"] == ["verified", "model verified"]
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
