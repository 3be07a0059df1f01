"""%%z3sandbox and %z3sandbox through IPython's own shell, running real candidates: what a run binds,
what each option gives, and the cell lines a candidate's reasons name."""

from __future__ import annotations

from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell

from tests.jupyter.cells import FAST, SAT, UNSAT, run_cell
from z3sandbox_kernel import RunResult, Verdict
from z3sandbox_kernel.jupyter.magic import magics_of


def test_cell_result_is_bound_to_underscore_z3(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    shell.user_ns.pop("_z3", None)
    run_cell(shell, FAST, SAT)
    result = shell.user_ns["_z3"]
    assert isinstance(result, RunResult)
    assert result.verdict is Verdict.SAT
    assert result.model == {"x": 2}
    captured = capsys.readouterr()
    assert "RunResult: sat\n" in captured.out  # the final display (one candidate: no vote)
    assert captured.err == ""  # stderr is not a terminal: no progress line


def test_out_names_the_variable(shell: InteractiveShell) -> None:
    run_cell(shell, f"{FAST} --out answer --quiet", UNSAT)
    assert shell.user_ns["answer"].verdict is Verdict.UNSAT


def test_candidates_variable_runs_each_script(shell: InteractiveShell) -> None:
    shell.user_ns["llm_output"] = [SAT, UNSAT, "s.add(Int('y') == "]
    run_cell(shell, f"{FAST} --candidates llm_output --out many --quiet", "\n")
    result = shell.user_ns["many"]
    assert [c.verdict for c in result] == [Verdict.SAT, Verdict.UNSAT, Verdict.SYNTAX_ERROR]


def test_candidate_lines_split_the_cell(shell: InteractiveShell) -> None:
    run_cell(shell, f"{FAST} --quiet", SAT + "# %% candidate\n" + UNSAT)
    assert [c.verdict for c in shell.user_ns["_z3"]] == [Verdict.SAT, Verdict.UNSAT]


def test_seed_bytes_become_the_payload(shell: InteractiveShell) -> None:
    shell.user_ns["seed_input"] = memoryview(b"HELLO")
    script = 'b = BitVec("byte_1", 8)\ns.add(b == 0x41)\n'
    run_cell(shell, f"{FAST} --seed seed_input --quiet", script)
    assert shell.user_ns["_z3"].payload == b"HALLO"


def test_a_seed_file_is_read_as_the_cli_reads_it(shell: InteractiveShell) -> None:
    """Issue 41.7: the example's own comment, `--seed-file examples/packet.bin`, works in a cell."""
    root = Path(__file__).resolve().parents[2]
    header = (root / "examples" / "header.py").read_text()
    run_cell(shell, f"{FAST} -k 2 --seed-file {root / 'examples' / 'packet.bin'} --quiet", header)
    seed = (root / "examples" / "packet.bin").read_bytes()
    payload = shell.user_ns["_z3"].payload
    assert payload is not None and payload[4:] == seed[4:] and payload[:2] == b"\x7fZ"


def test_models_gives_each_sat_candidate_its_further_models(shell: InteractiveShell) -> None:
    script = "x = Int('x')\ns.add(x > 0, x < 4)\ns.check()\n"
    run_cell(shell, f"{FAST} --models 3 --quiet", script)
    candidate = shell.user_ns["_z3"][0]
    assert sorted([candidate.model["x"]] + [m.model["x"] for m in candidate.more_models]) == [1, 2, 3]


def test_k_runs_the_script_k_times(shell: InteractiveShell) -> None:
    run_cell(shell, f"{FAST} -k 3 --quiet", SAT)
    assert len(shell.user_ns["_z3"]) == 3
    assert shell.user_ns["_z3"].counts == {"sat": 3}


def test_config_default_reaches_the_run(shell: InteractiveShell) -> None:
    shell.run_line_magic("config", "Z3Sandbox.wall_s = 4.0")
    try:
        run_cell(shell, "--quiet", SAT)
        assert shell.user_ns["_z3"].limits.wall_s == 4.0
        run_cell(shell, "--quiet --wall 3", SAT)
        assert shell.user_ns["_z3"].limits.wall_s == 3.0
    finally:
        shell.run_line_magic("config", "Z3Sandbox.wall_s = 10.0")


def test_line_magic_runs_the_candidates_variable(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    shell.user_ns["pair"] = [UNSAT, SAT]
    returned = shell.run_line_magic("z3sandbox", f"--candidates pair --out from_line {FAST}")
    assert returned is None
    assert [c.verdict for c in shell.user_ns["from_line"]] == [Verdict.UNSAT, Verdict.SAT]
    assert "RunResult: " in capsys.readouterr().out


def test_smt2_option_runs_smt_lib(shell: InteractiveShell) -> None:
    script = "(declare-const x Int)\n(assert (> x 4))\n(assert (< x 6))\n(check-sat)\n"
    run_cell(shell, f"{FAST} --smt2 --quiet", script)
    assert shell.user_ns["_z3"].model == {"x": 5}


def test_dask_option_runs_the_cell_on_the_cluster_of_a_client_variable(shell: InteractiveShell) -> None:
    import distributed  # the [dask] extra, installed by `make test`

    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=":0") as cluster, distributed.Client(cluster) as client:
        shell.user_ns["cluster_client"] = client
        run_cell(shell, "--quiet --dask cluster_client --out on_cluster -k 2", SAT)
        result = shell.user_ns["on_cluster"]
        assert [c.verdict for c in result] == [Verdict.SAT, Verdict.SAT]
        assert all(c.host and c.host.startswith(("tcp://", "inproc://")) for c in result)


def test_candidates_dict_keys_label_the_rows(shell: InteractiveShell) -> None:
    shell.user_ns["named"] = {"alice": SAT, "bob": UNSAT}
    run_cell(shell, f"{FAST} --candidates named --out labelled --quiet", "\n")
    result = shell.user_ns["labelled"]
    assert [(c.label, c.verdict) for c in result] == [("alice", Verdict.SAT), ("bob", Verdict.UNSAT)]
    assert result[0].source_preview == 'x = Int("x")'
    assert "alice" in result._repr_mimebundle_()[0]["text/plain"]


def test_an_error_reports_the_line_the_user_sees_in_the_cell(shell: InteractiveShell) -> None:
    body = SAT + "# %% candidate broken\nx = 1\n1 / 0\n"
    run_cell(shell, f"{FAST} --quiet --out broken", body)
    candidate = shell.user_ns["broken"][1]
    assert candidate.label == "broken" and candidate.verdict is Verdict.RUNTIME_ERROR
    # cell line 1 is %%z3sandbox, SAT is lines 2-3, the separator line 4: 1 / 0 is cell line 6
    assert "line 6 [candidate line 2]" in candidate.reason


# A cell whose every kind of line a view shows: an error, a check read twice, an unsat core.
CHECKS = 'x = Int("x")\ns.add(x > 1)\nprint(s.check(), s.model())\ns.add(x > 5)\nprint(s.check())\n'
CORE = ('x = Int("x")\ns.set(unsat_core=True)\ns.assert_and_track(x > 2, "a")\n'
        's.assert_and_track(x < 1, "b")\nprint(s.check())\n')
ERROR = 'x = Int("x")\ns.add(x > 1)\nprint(undefined_name)\n'


def _views(result: RunResult) -> list[str]:
    from z3sandbox_kernel.presentation.render import MIME_TYPE

    data, _ = result._repr_mimebundle_()
    document = data[MIME_TYPE]
    kernel_said = [" ".join([*c.get("core_places", []), *c.get("further_models", []), c["cells"]["reason"]])
                   for c in document["candidates"]]
    return [data["text/plain"], data["text/html"], *kernel_said]


@pytest.mark.parametrize("cell, lines", [
    # one script alone: the cell's lines (the %%z3sandbox line is cell line 1), no bracket
    (ERROR, ["line 4"]),
    (CHECKS, ["check 1 (line 4): x=2"]),
    (CORE, ['core: line 4: s.assert_and_track(x > 2, "a"); line 5: s.assert_and_track(x < 1, "b")']),
])
def test_a_one_script_cell_counts_every_line_as_the_cell_does(
        shell: InteractiveShell, cell: str, lines: list[str]) -> None:
    run_cell(shell, f"{FAST} --quiet --cores --out counted", cell)
    result = shell.user_ns["counted"]
    for view in _views(result):
        assert "[candidate line" not in view, view
    text = " ".join(result._repr_mimebundle_()[0]["text/plain"].split())
    assert all(line in text for line in lines), text


def test_a_cell_of_several_candidates_adds_each_candidate_s_own_line(shell: InteractiveShell) -> None:
    body = SAT + "# %% candidate errs\n" + ERROR + "# %% candidate core\n" + CORE
    run_cell(shell, f"{FAST} --quiet --cores --out several", body)
    result = shell.user_ns["several"]
    text = " ".join(result._repr_mimebundle_()[0]["text/plain"].split())
    # SAT is cell lines 2-3, ERROR 5-7 (its line 3: cell line 7), CORE 9-13 (its lines 3-4: 11-12)
    assert "line 7 [candidate line 3]" in result[1].reason and "(line 7 [candidate line 3]" in text
    assert ('core: line 11 [candidate line 3]: s.assert_and_track(x > 2, "a"); '
            'line 12 [candidate line 4]: s.assert_and_track(x < 1, "b")') in text
    document = result._repr_mimebundle_()[0]["application/vnd.z3sandbox.run+json"]
    assert document["candidates"][2]["core_places"] == ["line 11 [candidate line 3]",
                                                        "line 12 [candidate line 4]"]
    assert "line 11 [candidate line 3]" in result._repr_mimebundle_()[0]["text/html"]


def test_scripts_from_a_variable_keep_their_own_lines(shell: InteractiveShell) -> None:
    shell.user_ns["listed"] = [ERROR, CORE]
    run_cell(shell, f"{FAST} --quiet --cores --candidates listed --out own", "\n")
    text = " ".join(shell.user_ns["own"]._repr_mimebundle_()[0]["text/plain"].split())
    assert "(line 3)" in text and 'core: line 3: s.assert_and_track(x > 2, "a"); line 4:' in text
    assert "[candidate line" not in text


def test_a_candidate_alone_prints_as_the_candidate(shell: InteractiveShell) -> None:
    run_cell(shell, f"{FAST} --quiet --out alone", SAT)
    text = repr(shell.user_ns["alone"][0])
    assert text.startswith("candidate 0: sat (model verified)\n")
    assert "model:   x=2" in text and "RunResult" not in text


def test_run_options_come_from_one_model(shell: InteractiveShell) -> None:
    from z3sandbox_kernel.cli import build_parser
    from z3sandbox_kernel.contracts.options import options_for

    doc = " ".join(shell.find_cell_magic("z3sandbox").__doc__.split())
    traits = magics_of(shell).options.traits(config=True)  # type: ignore[union-attr]
    cli_flags = {flag for action in build_parser()._subparsers._group_actions[0].choices["run"]._actions
                 for flag in action.option_strings}
    for option in options_for("magic"):
        assert option.flag in doc and (option.flag_help or option.help) in doc
    for option in options_for("config"):
        assert traits[option.name].default_value == option.default, option.name
        assert option.help in traits[option.name].help
    assert {option.flag for option in options_for("cli")} <= cli_flags


def test_config_record_dir_records_each_run_with_its_candidate_names(shell: InteractiveShell,
                                                                      tmp_path: Path) -> None:
    import json

    shell.run_line_magic("config", f"Z3Sandbox.record_dir = {str(tmp_path)!r}")
    try:
        run_cell(shell, f"--quiet {FAST}", f"# %% candidate yes\n{SAT}# %% candidate no\n{UNSAT}")
    finally:
        shell.run_line_magic("config", "Z3Sandbox.record_dir = None")
    (record,) = tmp_path.glob("*.jsonl")
    header = json.loads(record.read_text().splitlines()[0])
    assert header["run_id"] == shell.user_ns["_z3"].run_id == record.stem
    assert [c["label"] for c in header["candidates"]] == ["yes", "no"]


def test_expected_and_record_scripts_reach_the_record(shell: InteractiveShell, tmp_path: Path) -> None:
    import json

    shell.run_line_magic("config", f"Z3Sandbox.record_dir = {str(tmp_path)!r}")
    shell.run_line_magic("config", "Z3Sandbox.record_scripts = True")
    try:
        run_cell(shell, f"--quiet --expected sat,unsat {FAST}",
                 f"# %% candidate yes\n{SAT}# %% candidate no\n{UNSAT}")
        shell.user_ns["_z3"].rerun([1])  # one script again: its own expected verdict
    finally:
        shell.run_line_magic("config", "Z3Sandbox.record_dir = None")
        shell.run_line_magic("config", "Z3Sandbox.record_scripts = False")
    first, again = (json.loads(path.read_text().splitlines()[0]) for path in sorted(tmp_path.glob("*.jsonl")))
    assert [(c["label"], c["expected"]) for c in first["candidates"]] == [("yes", "sat"), ("no", "unsat")]
    assert [c["script"] for c in first["candidates"]] == [SAT, UNSAT]
    assert [(c["label"], c["expected"]) for c in again["candidates"]] == [("no", "unsat")]


def test_a_name_error_on_a_notebook_variable_says_so(shell: InteractiveShell) -> None:
    shell.user_ns["bound"] = 3
    run_cell(shell, f"--quiet {FAST}", 'x = Int("x")\ns.add(x > bound)\n')
    candidate = shell.user_ns["_z3"][0]
    assert candidate.verdict is Verdict.RUNTIME_ERROR
    assert "notebook variables are not visible inside the sandbox" in candidate.error["message"]
