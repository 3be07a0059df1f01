"""%%z3sandbox and %z3sandbox through IPython's own shell (terminal IPython: printed rows)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from z3sandbox_kernel import RunResult, Verdict
from z3sandbox_kernel.jupyter.magic import Z3SandboxMagics, magics_of
from z3sandbox_kernel.jupyter.scripts import Script, cell_lines, split_cell
from z3sandbox_kernel.presentation.phrases import number

SAT = 'x = Int("x")\ns.add(x > 1, x < 3)\n'
UNSAT = 'x = Int("x")\ns.add(x > 1, x < 1)\n'
FAST = "--timeout 2 --wall 5 --cpu 4 --memory 256"


def child_pids() -> set[int]:
    """Direct children of this process, read from /proc (no helper process)."""
    me = str(os.getpid())
    children = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if stat[stat.rindex(")") + 2 :].split()[1] == me:
            children.add(int(entry.name))
    return children


@pytest.fixture(scope="module")
def shell() -> Iterator[InteractiveShell]:
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "z3sandbox_kernel")
    yield shell
    magics = magics_of(shell)
    if magics is not None:
        magics.close()


@pytest.fixture
def fresh(shell: InteractiveShell) -> Iterator[Z3SandboxMagics]:
    """A magics object with no sandbox yet: any run would start a zygote, a new child process."""
    previous = magics_of(shell)
    magics = Z3SandboxMagics(shell)
    shell.register_magics(magics)
    yield magics
    magics.close()
    shell.configurables.remove(magics.options)
    if previous is not None:
        shell.register_magics(previous)


def run_cell(shell: InteractiveShell, line: str, body: str) -> object:
    return shell.run_cell_magic("z3sandbox", line, body)


# ------------------------------------------------------------------------------------ usage errors

USAGE_ERRORS = [
    ("--bogus", SAT, "unrecognized arguments: --bogus"),
    ("-k 0", SAT, "argument -k: 0 is less than 1"),
    ("--memory lots", SAT, "argument --memory: invalid int value: 'lots'"),
    ("--memory 1", SAT, "--memory 1: not allowed: it must be at least 64 MB"),
    ("--timeout -1", SAT, "--timeout -1.0: not allowed"),
    ("--isolation vm", SAT, "argument --isolation: invalid choice: 'vm'"),
    ("--models 0", SAT, "argument --models: 0 is less than 1"),
    ("--models two", SAT, "argument --models: 'two' is not a whole number"),
    ("", "   \n\n", "the cell is empty"),
    ("--candidates no_such_variable", "\n", "--candidates no_such_variable: no variable"),
    ("--seed no_such_variable", SAT, "--seed no_such_variable: no variable"),
    ("--seed not_bytes", SAT, "--seed not_bytes: expected bytes, bytearray or memoryview, not str"),
    ("--seed-file /no/such/file.bin", SAT, "--seed-file /no/such/file.bin: No such file or directory"),
    ("--seed seed_input --seed-file x.bin", SAT, "either with --seed VAR or with --seed-file PATH"),
    ("--candidates not_a_list", "\n", "expected a list (or dict) of script strings, not int"),
    ("--candidates empty_list", "\n", "--candidates empty_list: the list is empty"),
    ("--candidates mixed_list", "\n", "item 1 is of type int, not a string"),
    ("--candidates two_scripts", SAT, "either in the cell body or with --candidates, not both"),
    ("--out 1abc", SAT, "--out 1abc: not a valid Python name"),
    ("--dask not_a_client", SAT, "--dask not_a_client: expected a distributed.Client or a scheduler"),
    ("--script-size 1", "#" * 2000, "candidate 0 is 2.0 KB, over the script size limit of 1 KB"),
    ("", SAT + "# %% candidate\n\n# %% candidate\n" + UNSAT, "candidate 1 of the cell is empty"),
]


@pytest.mark.parametrize(("line", "body", "message"), USAGE_ERRORS)
def test_usage_error_is_one_clear_line_and_starts_no_process(
    shell: InteractiveShell, fresh: Z3SandboxMagics, line: str, body: str, message: str
) -> None:
    shell.user_ns.update(
        not_bytes="abc", not_a_list=3, empty_list=[], mixed_list=[SAT, 3], two_scripts=[SAT, UNSAT],
        not_a_client=3,
    )
    before = child_pids()
    with pytest.raises(UsageError) as error:
        run_cell(shell, line, body)
    assert message in str(error.value)
    assert fresh.sandbox_count() == 0
    assert child_pids() <= before


def test_wrong_option_lists_the_valid_options(
    shell: InteractiveShell, fresh: Z3SandboxMagics
) -> None:
    with pytest.raises(UsageError) as error:
        run_cell(shell, "--timout 3", SAT)
    text = str(error.value)
    assert text.splitlines()[0] == "unrecognized arguments: --timout 3 (did you mean --timeout?)"
    for option in ("--timeout S", "--memory MB", "--candidates VAR", "--seed VAR", "--out NAME"):
        assert option in text
    assert "::" not in text


def test_cell_magic_with_no_body_runs_as_the_line_magic(shell: InteractiveShell) -> None:
    # IPython refuses a cell magic with an empty body; the extension's input transformer turns
    # `%%z3sandbox --candidates VAR` alone in a cell into the line magic (the README's example).
    shell.user_ns["answers"] = [SAT, UNSAT]
    outcome = shell.run_cell(f"%%z3sandbox --candidates answers --race --out raced --quiet {FAST}\n")
    assert outcome.success, outcome.error_in_exec
    raced = shell.user_ns["raced"]
    assert raced.verdict.decisive and raced.counts.get("cancelled", 0) <= 1


def test_a_half_typed_cell_magic_waits_for_its_body(shell: InteractiveShell) -> None:
    # Terminal IPython asks check_complete on Enter: "%%z3sandbox --cores" alone must not run
    # at once as the line magic (a usage error); it waits for the body as any cell magic does.
    check = shell.input_transformer_manager.check_complete
    assert check("%%z3sandbox --cores\n")[0] == "incomplete"
    assert check("%%z3sandbox --cores\nx = Int('x')\n")[0] == "incomplete"
    assert check("%%z3sandbox --cores\nx = Int('x')\n\n")[0] == "complete"


def test_an_interrupted_run_ends_with_one_line_and_rerun_picks_up_the_rest(
    shell: InteractiveShell,
) -> None:
    from z3sandbox_kernel import CandidateResult, Limits
    from z3sandbox_kernel.jupyter.outcome import RunInterrupted, interrupted_line

    partial = RunResult(candidates=[
        CandidateResult(index=0, verdict=Verdict.SAT),
        CandidateResult(index=1, verdict=Verdict.CANCELLED, kill="interrupt"),
        CandidateResult(index=2, verdict=Verdict.CANCELLED, reason="interrupt before it started"),
    ], limits=Limits(), interrupted=True)
    line = interrupted_line(partial, "_z3")
    assert line == ("z3sandbox: interrupted: kept 1 finished candidate in _z3 (1 sat); "
                    "1 stopped and 1 never started: _z3.rerun() runs them")
    assert " ".join(RunInterrupted(line)._render_traceback_()) == line  # wrapped at words
    assert RunInterrupted.__name__ == "KeyboardInterrupt" and isinstance(RunInterrupted(), KeyboardInterrupt)
    assert partial.unfinished == [1, 2]
    partial.candidates.append(CandidateResult(index=3, verdict=Verdict.CANCELLED, kill="cancel"))
    assert partial.unfinished == [1, 2]  # stopped on purpose: not picked up again
    shell.user_ns["pair"] = [SAT, UNSAT, SAT]
    shell.run_cell(f"%z3sandbox --candidates pair --quiet --out paired {FAST}")
    paired = shell.user_ns["paired"]
    paired.candidates[1] = CandidateResult(index=1, verdict=Verdict.CANCELLED, kill="interrupt")
    again = paired.rerun()
    assert [c.verdict for c in again] == [Verdict.SAT, Verdict.UNSAT, Verdict.SAT]
    assert shell.user_ns["paired"] is again
    # one merged table, the cell's own indices, the row run again marked
    assert [(c.index, c.label) for c in again] == [(0, None), (1, "(rerun)"), (2, None)]
    assert "(rerun)" in next(line for line in repr(again).splitlines() if line.startswith("  1  "))
    # one script with -k: rerun() cannot run its seeds alone, the line says what to do
    seeded = RunResult(candidates=partial.candidates[:3], interrupted=True)
    assert interrupted_line(seeded, "_z3", rerun=False).endswith(
        "1 stopped and 1 never started: run the cell again to run them")


def test_a_rerun_shows_one_merged_table_that_ends_as_one_line(shell: InteractiveShell) -> None:
    """In a kernel: the rerun's live table holds every row of the cell (its indices), the rows
    run again marked; it ends as one line, and rerun()'s result is the one table."""
    from z3sandbox_kernel import CandidateResult
    from z3sandbox_kernel.jupyter.outcome import rerun_rows, rerun_table

    base = RunResult(candidates=[CandidateResult(index=0, verdict=Verdict.SAT, label="a"),
                                 CandidateResult(index=1, verdict=Verdict.CANCELLED, label="b"),
                                 CandidateResult(index=2, verdict=Verdict.CANCELLED, label="c")])
    rows = rerun_table(base, [1, 2])
    assert [(c.index, c.label, c.state) for c in rows] == [
        (0, "a", "done"), (1, "b (rerun)", "queued"), (2, "c (rerun)", "queued")]
    mark = rerun_rows([1, 2])
    assert (mark(CandidateResult(index=1, verdict=Verdict.SAT, label="c")).index,
            mark(CandidateResult(index=0, verdict=Verdict.SAT, label="b (rerun)")).label) == (2, "b (rerun)")


def test_a_row_stopped_by_its_stop_button_says_so_with_its_kill() -> None:
    from z3sandbox_kernel import CandidateResult
    from z3sandbox_kernel.jupyter.scripts import annotator

    annotate = annotator([Script(SAT), Script(UNSAT)], None, stopped={0, 1})
    running = annotate(CandidateResult(index=0, verdict=Verdict.CANCELLED, kill="cancel", reason="cancelled"))
    queued = annotate(CandidateResult(index=1, verdict=Verdict.CANCELLED, reason="skipped before it started"))
    assert running.reason == "stopped (Stop button)"
    assert queued.reason == "stopped (Stop button) before it started"
    row = repr(RunResult(candidates=[running, queued])).splitlines()[3]
    assert " cancel " in row and row.endswith("stopped (Stop button)")
    interrupted = RunResult(candidates=[CandidateResult(index=0, verdict=Verdict.CANCELLED, kill="interrupt",
                                                        reason="interrupted")])
    assert " interrupt " not in repr(interrupted).splitlines()[3]  # its reason says it: said once


def test_line_magic_without_candidates_says_what_it_needs(
    shell: InteractiveShell, fresh: Z3SandboxMagics
) -> None:
    with pytest.raises(UsageError, match="needs --candidates VAR"):
        shell.run_line_magic("z3sandbox", FAST)
    assert fresh.sandbox_count() == 0


def test_help_lists_every_limit_option_with_its_config_default(shell: InteractiveShell) -> None:
    from z3sandbox_kernel.contracts.limits import LIMIT_FIELDS

    doc = shell.find_cell_magic("z3sandbox").__doc__
    for spec in LIMIT_FIELDS:
        assert spec.metadata["flag"] in doc
        unit = spec.metadata["unit"]
        default = f"default {number(spec.default)}{(' ' + unit) if unit else ''})"
        assert f"Z3Sandbox.{spec.name}, {default}" in " ".join(doc.split())
    assert "e+" not in doc and not doc.startswith("::")
    assert "what it asserted" in " ".join(doc.split())  # what a hostile candidate still decides


# ---------------------------------------------------------------------------- splitting candidates

def test_cell_body_splits_on_candidate_lines() -> None:
    body = "# preamble\n" + SAT + "#  %%  candidate \n" + UNSAT
    assert [script.source for script in split_cell(body)] == ["# preamble\n" + SAT, UNSAT]
    assert [script.source for script in split_cell("\n# %% candidate\n" + SAT)] == [SAT]
    assert [script.source for script in split_cell("x = 1  # %% candidate\n")] == ["x = 1  # %% candidate\n"]


def test_candidate_lines_name_candidates_and_know_their_cell_lines() -> None:
    body = SAT + "# %% candidate second try\n" + UNSAT + "#%%candidate third\n" + SAT
    assert split_cell(body) == [
        Script(SAT, None, 2), Script(UNSAT, "second try", 5), Script(SAT, "third", 8),
    ]
    assert split_cell("\n# %% candidate only\n" + SAT) == [Script(SAT, "only", 4)]


def test_reason_lines_are_counted_in_the_cell() -> None:
    assert cell_lines("ZeroDivisionError (line 2: `1/0`)", 5, several=True) == \
        "ZeroDivisionError (line 6 [candidate line 2]: `1/0`)"
    assert cell_lines("ZeroDivisionError (line 2: `1/0`)", 5, several=False) == \
        "ZeroDivisionError (line 6: `1/0`)"


# ------------------------------------------------------------------------------------- config

def test_config_lists_the_grace_periods_apart_from_everyday_options(
        shell: InteractiveShell, capsys: pytest.CaptureFixture[str]) -> None:
    shell.run_line_magic("config", "Z3Sandbox")
    shown = capsys.readouterr().out
    everyday, graces = shown.split("Grace periods (rarely changed)")
    grace_names = ("watchdog_grace_s", "cancel_grace_s", "exit_grace_s", "shutdown_grace_s")
    assert all(f"Z3Sandbox.{name}=" in graces and f"Z3Sandbox.{name}=" not in everyday
               for name in grace_names)
    limits, options = everyday.split("Run options and the live display")
    assert "Z3Sandbox.timeout_s=" in limits and "Z3Sandbox.models=" in options


def test_config_traits_are_made_from_the_limits_model(shell: InteractiveShell) -> None:
    from z3sandbox_kernel.contracts.limits import LIMIT_FIELDS

    options = magics_of(shell).options  # type: ignore[union-attr]
    traits = options.traits(config=True)
    for spec in LIMIT_FIELDS:
        assert traits[spec.name].default_value == spec.default
        assert spec.metadata["help"] in traits[spec.name].help


def test_config_magic_sets_a_default_limit(shell: InteractiveShell) -> None:
    options = magics_of(shell).options  # type: ignore[union-attr]
    shell.run_line_magic("config", "Z3Sandbox.timeout_s = 3.5")
    try:
        assert options.limits().timeout_s == 3.5
        assert options.limits(timeout_s=1.0).timeout_s == 1.0
    finally:
        shell.run_line_magic("config", "Z3Sandbox.timeout_s = 5.0")


def test_grace_traits_are_made_from_the_graces_model_and_reach_the_sandbox(shell: InteractiveShell) -> None:
    """As jupyter_client's shutdown_wait_time: how long the kernel waits on a sandbox process."""
    import dataclasses

    from z3sandbox_kernel.host.plan import Graces

    magics = magics_of(shell)
    assert magics is not None
    traits = magics.options.traits(config=True)
    for spec in dataclasses.fields(Graces):
        assert traits[spec.name].default_value == spec.default
        assert spec.metadata["help"] in traits[spec.name].help
    shell.run_line_magic("config", "Z3Sandbox.cancel_grace_s = 3.0")
    try:
        assert magics.options.graces() == Graces(cancel_grace_s=3.0)
        assert magics.sandbox("process").graces.cancel_grace_s == 3.0  # made now, or for its next run
    finally:
        shell.run_line_magic("config", "Z3Sandbox.cancel_grace_s = 10.0")
        magics.sandbox("process").graces = Graces()


def test_config_rejects_a_limit_below_its_minimum(shell: InteractiveShell) -> None:
    options = magics_of(shell).options  # type: ignore[union-attr]
    from traitlets import TraitError

    with pytest.raises(TraitError, match="memory_mb"):
        options.memory_mb = 1
    assert options.memory_mb == 512


# ------------------------------------------------------------------------------ runs (the engine)

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
