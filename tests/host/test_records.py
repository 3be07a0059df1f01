"""Run records: one JSON Lines file per run, written as verdicts land; load_runs, diff_runs, and a
result saved in a notebook read back with RunResult.from_json."""

from __future__ import annotations

import json

import pytest

from tests.conftest import require_extra
from z3sandbox_kernel import Limits, RunResult, Sandbox, Verdict, diff_runs, load_runs
from z3sandbox_kernel.contracts.results import CandidateResult
from z3sandbox_kernel.host.plan import MAX_LABEL_CHARS
from z3sandbox_kernel.host.records import new_run_id, read_record, sha256
from z3sandbox_kernel.host.run_diff import VERDICT_RANK
from z3sandbox_kernel.presentation.render import run_mimebundle

pytestmark = [pytest.mark.timeout(60), pytest.mark.usefixtures("zygote_is_clean")]

SAT = "x = Int('x')\ns.add(x > 1)\ns.check()\n"
UNSAT = "x = Int('x')\ns.add(x > 1, x < 0)\ns.check()\n"
BROKEN = "x = Int('x')\nhelper(x)\n"
QUICK = Limits(timeout_s=2, wall_s=5, cpu_s=4)


def test_a_recorded_run_has_a_header_a_line_per_candidate_and_an_end(kernel_sandbox: Sandbox, tmp_path):
    result = kernel_sandbox.run([SAT, BROKEN], limits=QUICK, record_dir=tmp_path, labels=["good", "bad"])
    path = tmp_path / f"{result.run_id}.jsonl"
    header, *candidates, end = read_record(path)
    assert header["record"] == "run" and header["run_id"] == result.run_id
    assert header["limits"] == QUICK.to_dict()
    assert header["isolation"]["level"] == "kernel"
    assert header["z3_version"] and header["package_version"] and header["host"]
    assert [c["sha256"] for c in header["candidates"]] == [sha256(SAT), sha256(BROKEN)]
    assert [c["label"] for c in header["candidates"]] == ["good", "bad"]
    assert sorted(c["index"] for c in candidates) == [0, 1]
    assert {c["record"] for c in candidates} == {"candidate"}
    assert end["record"] == "end" and end["verdict"] == "sat"
    assert [c.label for c in result] == ["good", "bad"]


def test_a_sandbox_records_every_run_in_its_record_dir(tmp_path):
    with Sandbox(isolation="process", record_dir=tmp_path) as sandbox:
        first = sandbox.run(SAT, limits=QUICK)
        second = sandbox.run(UNSAT, limits=QUICK)
    assert sorted(p.stem for p in tmp_path.glob("*.jsonl")) == sorted([first.run_id, second.run_id])


def test_load_runs_gives_one_row_per_candidate_with_its_run_id(kernel_sandbox: Sandbox, tmp_path):
    require_extra("pandas", "records")
    first = kernel_sandbox.run([SAT, BROKEN], limits=QUICK, record_dir=tmp_path)
    second = kernel_sandbox.run(UNSAT, k=2, limits=QUICK, record_dir=tmp_path)
    frame = load_runs(tmp_path)
    assert len(frame) == 4
    assert set(frame["run_id"]) == {first.run_id, second.run_id}
    broken = frame[(frame["run_id"] == first.run_id) & (frame["index"] == 1)].iloc[0]
    assert broken["verdict"] == "runtime_error"
    assert broken["error_type"] == "NameError" and broken["error_line"] == 2
    assert broken["sha256"] == sha256(BROKEN)
    assert list(frame[frame["run_id"] == second.run_id]["random_seed"]) == [0, 1]
    assert len(load_runs(tmp_path / f"{first.run_id}.jsonl")) == 2


def test_a_record_cut_short_loads_what_it_holds(kernel_sandbox: Sandbox, tmp_path):
    require_extra("pandas", "records")
    result = kernel_sandbox.run([SAT, UNSAT], limits=QUICK, record_dir=tmp_path)
    path = tmp_path / f"{result.run_id}.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:2]) + lines[2][:20])  # the writer died mid-line
    assert len(load_runs(path)) == 1


def test_diff_runs_says_a_change_that_is_not_strictly_better_is_a_regression(kernel_sandbox, tmp_path):
    names = ["first", "second", "third"]  # the same candidates, whose scripts were edited
    before = kernel_sandbox.run([SAT, BROKEN, SAT], limits=QUICK, record_dir=tmp_path, labels=names)
    after = kernel_sandbox.run([UNSAT, SAT, SAT], limits=QUICK, record_dir=tmp_path, labels=names)
    diff = diff_runs(before, after)
    assert [(c.index, c.before, c.after, c.kind) for c in diff.changes] == [
        (0, "sat", "unsat", "regression"), (1, "runtime_error", "sat", "improvement")]
    assert diff.unchanged == 1
    from_files = diff_runs(tmp_path / f"{before.run_id}.jsonl", tmp_path / f"{after.run_id}.jsonl")
    assert from_files.changes == diff.changes
    assert "1 regressions, 1 improvements" in str(diff)


def test_the_verdict_ranks_follow_benchexec():
    assert VERDICT_RANK[Verdict.SAT] > VERDICT_RANK[Verdict.TIMEOUT] > VERDICT_RANK[Verdict.RUNTIME_ERROR]
    assert VERDICT_RANK[Verdict.RUNTIME_ERROR] > VERDICT_RANK[Verdict.INVALID_MODEL]


def test_from_json_reads_the_document_a_saved_notebook_holds(kernel_sandbox: Sandbox):
    result = kernel_sandbox.run([SAT, BROKEN], limits=QUICK)
    data, metadata = run_mimebundle(result)
    output = json.loads(json.dumps({"output_type": "display_data", "data": data, "metadata": metadata}))
    for saved in (output, output["data"], output["data"]["application/vnd.z3sandbox.run+json"],
                  json.dumps(output)):
        again = RunResult.from_json(saved)
        assert again.verdict is Verdict.SAT
        assert [c.verdict for c in again] == [c.verdict for c in result]
        assert again[0].model == result[0].model
        assert again[1].error == result[1].error
    assert RunResult.from_json(output)[0].wall_s == round(result[0].wall_s, 4)  # from the metadata


def test_to_json_keeps_the_run_id():
    result = RunResult(candidates=[CandidateResult(index=0, verdict=Verdict.SAT)], run_id="r1")
    assert RunResult.from_json(result.to_json()).run_id == "r1"


def test_run_ids_sort_by_the_time_their_runs_started(tmp_path):
    ids = [new_run_id() for _ in range(2000)]  # many within one clock tick
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    with Sandbox(isolation="process", record_dir=tmp_path) as sandbox:
        runs = [sandbox.run(SAT, limits=QUICK).run_id for _ in range(3)]
    assert runs == sorted(runs)
    assert [p.stem for p in sorted(tmp_path.glob("*.jsonl"))] == runs


def test_diff_runs_of_the_same_scripts_in_another_order_shows_no_change(kernel_sandbox, tmp_path):
    before = kernel_sandbox.run([SAT, BROKEN, UNSAT], limits=QUICK, record_dir=tmp_path)
    after = kernel_sandbox.run([UNSAT, SAT, BROKEN], limits=QUICK, record_dir=tmp_path)
    for diff in (diff_runs(before, after),
                 diff_runs(tmp_path / f"{before.run_id}.jsonl", tmp_path / f"{after.run_id}.jsonl")):
        assert diff.changes == () and diff.unchanged == 3


def test_diff_runs_matches_by_label_before_script(kernel_sandbox):
    before = kernel_sandbox.run([SAT, UNSAT], limits=QUICK, labels=["a", "b"])
    after = kernel_sandbox.run([UNSAT, UNSAT], limits=QUICK, labels=["b", "a"])
    (change,) = diff_runs(before, after).changes
    assert (change.label, change.index, change.index_before, change.before, change.after) == (
        "a", 1, 0, "sat", "unsat")


def test_expected_verdicts_are_a_column_and_counted_by_diff_runs(kernel_sandbox: Sandbox, tmp_path):
    require_extra("pandas", "records")
    before = kernel_sandbox.run([SAT, BROKEN], limits=QUICK, record_dir=tmp_path, expected=["sat", "unsat"])
    after = kernel_sandbox.run([SAT, UNSAT], limits=QUICK, record_dir=tmp_path, labels=["s", "u"],
                               expected=["sat", "unsat"])
    frame = load_runs(tmp_path / f"{before.run_id}.jsonl")
    assert list(frame["expected"]) == ["sat", "unsat"]
    assert list(frame["as_expected"]) == [True, False]
    diff = diff_runs(tmp_path / f"{before.run_id}.jsonl", tmp_path / f"{after.run_id}.jsonl")
    assert (diff.expected_before, diff.expected_after) == ((1, 2), (2, 2))
    assert [(c.before, c.after, c.kind, c.expected) for c in diff.changes] == [
        ("runtime_error", "unsat", "improvement", "unsat")]
    assert "as expected 1/2 -> 2/2" in str(diff)
    with pytest.raises(ValueError, match=r"not a verdict \(did you mean 'unsat'"):
        kernel_sandbox.run(SAT, expected=["unsta"])


def test_a_sat_that_was_expected_unsat_is_a_regression_to_unsat_an_improvement(kernel_sandbox):
    before = kernel_sandbox.run([SAT], limits=QUICK, expected=["unsat"])
    after = kernel_sandbox.run([UNSAT], limits=QUICK, expected=["unsat"])
    (change,) = diff_runs(before, after).changes
    assert change.kind == "improvement"  # sat -> unsat is no better by rank; it is what was expected


def test_record_scripts_keeps_the_scripts_and_the_isolation_report_is_in_the_header_only(
        kernel_sandbox: Sandbox, tmp_path):
    result = kernel_sandbox.run([SAT, UNSAT], limits=QUICK, record_dir=tmp_path, record_scripts=True)
    header, *candidates, _ = read_record(tmp_path / f"{result.run_id}.jsonl")
    assert [c["script"] for c in header["candidates"]] == [SAT, UNSAT]
    assert header["isolation"]["level"] == "kernel"
    assert all("isolation" not in line for line in candidates)
    again = diff_runs(tmp_path / f"{result.run_id}.jsonl", result)
    assert again.changes == ()
    plain = kernel_sandbox.run(SAT, limits=QUICK, record_dir=tmp_path)
    (entry,) = read_record(tmp_path / f"{plain.run_id}.jsonl")[0]["candidates"]
    assert "script" not in entry


def test_labels_are_capped_in_size_and_count_before_anything_runs(kernel_sandbox: Sandbox):
    with pytest.raises(ValueError, match=f"label 0 is {MAX_LABEL_CHARS + 1} characters"):
        kernel_sandbox.run(SAT, labels=["x" * (MAX_LABEL_CHARS + 1)])
    with pytest.raises(ValueError, match="20000 labels for 2 scripts"):
        kernel_sandbox.run([SAT, UNSAT], labels=["x" * 1000] * 20_000)
    assert [c.label for c in kernel_sandbox.run(SAT, k=2, limits=QUICK, labels=["one"])] == ["one", "one"]


# --------------------------------------------------------------------- records as an eval log

# Every character Python's str.splitlines() breaks a line on (\n, \r, \v, \f, \x1c-\x1e, \x85,
# U+2028, U+2029): a record holding any of them raw would read as two lines.
LINE_BREAKS = [chr(code) for code in range(0x110000) if len(f"a{chr(code)}b".splitlines()) > 1]


def test_every_line_break_python_knows_is_in_the_class():
    assert len(LINE_BREAKS) == 10 and "\u2028" in LINE_BREAKS and "\x85" in LINE_BREAKS


def test_no_candidate_text_breaks_a_record_folder(kernel_sandbox: Sandbox, tmp_path):
    """A candidate printing each line-breaking character, or naming a constant with one, leaves
    its record readable: load_runs and diff_runs read the whole folder, and the text comes back."""
    require_extra("pandas", "records")
    printed = "".join(f"<{char}>" for char in LINE_BREAKS)
    scripts = [f"print({printed!r})\nx = Int('x')\ns.add(x > 1)\ns.check()\n",
               *(f"v = Int({('a' + char + 'b')!r})\ns.add(v > 1)\ns.check()\n" for char in LINE_BREAKS)]
    before = kernel_sandbox.run(scripts, limits=QUICK, record_dir=tmp_path, record_scripts=True)
    after = kernel_sandbox.run(scripts, limits=QUICK, record_dir=tmp_path)
    for path in tmp_path.glob("*.jsonl"):
        text = path.read_text(encoding="utf-8")
        assert all(char not in text for char in LINE_BREAKS if char != "\n")
        assert len(text.splitlines()) == len(scripts) + 2  # header, candidates, end: any reader agrees
    frame = load_runs(tmp_path)
    assert len(frame) == 2 * len(scripts) and set(frame["verdict"]) == {"sat"}
    first = frame[(frame["run_id"] == before.run_id) & (frame["index"] == 0)].iloc[0]
    assert first["stdout"] == printed + "\n"
    names = {name for model in frame["model"] for name in model}
    assert names == {"x"} | {f"a{char}b" for char in LINE_BREAKS}
    diff = diff_runs(tmp_path / f"{before.run_id}.jsonl", tmp_path / f"{after.run_id}.jsonl")
    assert diff.changes == () and diff.unchanged == len(scripts)
    assert read_record(tmp_path / f"{before.run_id}.jsonl")[0]["candidates"][1]["script"] == scripts[1]


def test_json_line_escapes_every_break_and_reads_back():
    from z3sandbox_kernel.host.records_read import json_line

    value = {"text": "".join(LINE_BREAKS) + "\ud800", "ok": "é\u202e"}
    line = json_line(value)
    assert len(line.splitlines()) == 1 and "\n" not in line
    assert json.loads(line) == value and "é" in line  # readable text stays readable


def test_load_runs_reads_the_runs_under_a_parent_folder(kernel_sandbox: Sandbox, tmp_path):
    require_extra("pandas", "records")
    before = kernel_sandbox.run([SAT, BROKEN], limits=QUICK, record_dir=tmp_path / "before")
    after = kernel_sandbox.run([SAT, SAT], limits=QUICK, record_dir=tmp_path / "after" / "seed-1")
    frame = load_runs(tmp_path)
    assert list(frame["run_id"]) == [before.run_id] * 2 + [after.run_id] * 2  # oldest run first
    assert list(frame["folder"]) == ["before"] * 2 + ["after/seed-1"] * 2
    (tmp_path / "empty" / "deeper").mkdir(parents=True)
    with pytest.raises(FileNotFoundError, match=r"no run records .* in .*empty"):
        load_runs(tmp_path / "empty")


def test_one_expected_verdict_for_one_script(kernel_sandbox: Sandbox, tmp_path):
    require_extra("pandas", "records")
    kernel_sandbox.run(UNSAT, limits=QUICK, record_dir=tmp_path, expected="unsat")
    kernel_sandbox.run([SAT, UNSAT], limits=QUICK, record_dir=tmp_path, expected="sat")
    frame = load_runs(tmp_path)
    assert list(frame["expected"]) == ["unsat", "sat", "sat"]
    assert list(frame["as_expected"]) == [True, True, False]
    with pytest.raises(ValueError, match="not a verdict"):
        kernel_sandbox.run(SAT, expected="sta")


def test_the_isolation_report_is_kept_once_per_folder_and_referenced(kernel_sandbox: Sandbox, tmp_path):
    runs = [kernel_sandbox.run(SAT, limits=QUICK, record_dir=tmp_path) for _ in range(3)]
    (kept,) = tmp_path.glob("isolation-*.json")
    assert json.loads(kept.read_text())["level"] == "kernel"
    for run in runs:
        path = tmp_path / f"{run.run_id}.jsonl"
        raw = json.loads(path.read_text().split("\n")[0])
        assert raw["isolation_ref"] == kept.name and "isolation" not in raw
        assert '"layers"' not in path.read_text()  # the report is in no line of the record
        assert read_record(path)[0]["isolation"] == json.loads(kept.read_text())
    assert diff_runs(tmp_path / f"{runs[0].run_id}.jsonl", runs[1]).changes == ()


def test_a_record_with_the_report_inline_still_reads(kernel_sandbox: Sandbox, tmp_path):
    """Records written before the report moved to its own file hold it in the header."""
    from z3sandbox_kernel.host.records import run_from_record

    result = kernel_sandbox.run(SAT, limits=QUICK, record_dir=tmp_path)
    path = tmp_path / f"{result.run_id}.jsonl"
    (kept,) = tmp_path.glob("isolation-*.json")
    header, rest = path.read_text().split("\n", 1)
    old = json.loads(header)
    old["isolation"] = json.loads(kept.read_text())
    del old["isolation_ref"]
    kept.unlink()
    path.write_text(json.dumps(old) + "\n" + rest)
    assert run_from_record(path).isolation["level"] == "kernel"


# Pigeonhole, 9 into 8: z3 needs about 0.2 s to refute it (well over a 10 ms verification budget)
PIGEONHOLE = ("n = 9\np = [[Bool(f'p{i}_{j}') for j in range(n - 1)] for i in range(n)]\n"
              "for i in range(n):\n    s.add(Or(p[i]))\n"
              "for j in range(n - 1):\n    for i in range(n):\n        for k in range(i + 1, n):\n"
              "            s.add(Not(And(p[i][j], p[k][j])))\nprint(s.check())\n")


def test_what_no_verifier_checked_is_said_in_the_record(kernel_sandbox: Sandbox, tmp_path):
    require_extra("pandas", "records")
    optimize = "x = Int('x')\no = Optimize()\no.add(x < 10)\no.maximize(x)\nprint(o.check())\n"
    kernel_sandbox.run([optimize, UNSAT, SAT], limits=QUICK, record_dir=tmp_path / "off", verify=False)
    kernel_sandbox.run(PIGEONHOLE, limits=Limits(verify_s=0.01, wall_s=10, cpu_s=8),
                       record_dir=tmp_path / "budget")
    kernel_sandbox.run([optimize, UNSAT, SAT], limits=QUICK, record_dir=tmp_path / "checked")
    frame = load_runs(tmp_path).set_index(["folder", "index"])["unchecked"]
    assert frame["off", 0] == ("unconfirmed: the run did not verify answers (verify=False); maximize x = 9: "
                               "the candidate's claim, not checked by a verifier")
    assert frame["off", 1] == frame["off", 2] == "unconfirmed: the run did not verify answers (verify=False)"
    assert frame["budget", 0].startswith("unconfirmed: its check ran out of the verification budget")
    assert frame["checked"].isna().all()


def test_diff_runs_compares_two_eval_folders_pairing_by_label(kernel_sandbox: Sandbox, tmp_path):
    """An eval before and after a change: the same tasks (labels) in other runs, another order,
    other scripts; unlabelled candidates pair by their script."""
    before, after = tmp_path / "before", tmp_path / "after"
    kernel_sandbox.run([SAT, BROKEN], limits=QUICK, record_dir=before, labels=["t1", "t2"], expected="sat")
    kernel_sandbox.run([UNSAT], limits=QUICK, record_dir=before, labels=["t3"], expected="unsat")
    kernel_sandbox.run(SAT, limits=QUICK, record_dir=before)  # unlabelled: paired by its script
    kernel_sandbox.run([UNSAT, SAT], limits=QUICK, record_dir=after, labels=["t3", "t2"],
                       expected=["unsat", "sat"])
    kernel_sandbox.run([SAT], limits=QUICK, record_dir=after, labels=["t1"], expected="sat")
    kernel_sandbox.run(SAT, limits=QUICK, record_dir=after)
    diff = diff_runs(before, after)
    (change,) = diff.changes
    assert (change.label, change.before, change.after, change.kind) == ("t2", "runtime_error", "sat",
                                                                        "improvement")
    assert change.run_before != change.run_after and diff.unchanged == 3  # t1, t3, the unlabelled one
    assert diff.expected_before == (2, 3) and diff.expected_after == (3, 3)
    text = str(diff)
    assert text.startswith(f"folder {before} -> {after}; 0 regressions, 1 improvements")
    assert "'t2': runtime_error -> sat (expected sat)" in text
    (tmp_path / "nothing-here").mkdir()
    with pytest.raises(FileNotFoundError, match="no run records"):
        diff_runs(before, tmp_path / "nothing-here")


def test_diff_runs_of_folders_counts_each_repair_loop_by_its_last_round(kernel_sandbox: Sandbox, tmp_path):
    """Unlabelled loops pair by their repair id: a folder with a loop's first round only, against
    the folder with the whole loop, shows what the later rounds changed and the rounds taken."""
    import shutil

    from z3sandbox_kernel import repair

    whole, partial = tmp_path / "whole", tmp_path / "partial"
    scripts = iter([BROKEN, SAT])
    result = repair(lambda feedback: next(scripts), rounds=3, sandbox=kernel_sandbox, limits=QUICK,
                    record_dir=whole)
    assert [r.verdict.value for r in result.rounds] == ["runtime_error", "sat"]
    shutil.copytree(whole, partial)
    (partial / f"{result.rounds[-1].run_id}.jsonl").unlink()
    (change,) = diff_runs(partial, whole).changes
    assert (change.before, change.after, change.kind) == ("runtime_error", "sat", "improvement")
    assert (change.rounds_before, change.rounds_after) == (1, 2)
    assert diff_runs(whole, whole).changes == ()
    assert "[rounds 1 -> 2]" in str(diff_runs(partial, whole))
