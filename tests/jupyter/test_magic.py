"""%%z3sandbox and %z3sandbox through IPython's own shell (terminal IPython: printed rows): what the
magic refuses, how a cell splits into candidates, and its configuration (its runs:
test_magic_runs.py)."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from tests.jupyter.cells import FAST, SAT, UNSAT, child_pids, run_cell
from z3sandbox_kernel import RunResult, Verdict
from z3sandbox_kernel.jupyter.magic import Z3SandboxMagics, magics_of
from z3sandbox_kernel.jupyter.scripts import Script, cell_lines, split_cell
from z3sandbox_kernel.presentation.phrases import number

# ------------------------------------------------------------------------------------ usage errors

# Lines of the magic refused before anything runs, for a cell that is a good script: what each says.
REFUSED_LINES = {
    "--bogus": "unrecognized arguments: --bogus",
    "-k 0": "argument -k: 0 is less than 1",
    "--memory lots": "argument --memory: invalid int value: 'lots'",
    "--memory 1": "--memory 1: not allowed: it must be at least 64 MB",
    "--timeout -1": "--timeout -1.0: not allowed",
    "--isolation vm": "argument --isolation: invalid choice: 'vm'",
    "--models 0": "argument --models: 0 is less than 1",
    "--models two": "argument --models: 'two' is not a whole number",
    "--seed no_such_variable": "--seed no_such_variable: no variable",
    "--seed not_bytes": "--seed not_bytes: expected bytes, bytearray or memoryview, not str",
    "--seed-file /no/such/file.bin": "--seed-file /no/such/file.bin: No such file or directory",
    "--seed seed_input --seed-file x.bin": "either with --seed VAR or with --seed-file PATH",
    "--candidates two_scripts": "either in the cell body or with --candidates, not both",
    "--out 1abc": "--out 1abc: not a valid Python name",
    "--dask not_a_client": "--dask not_a_client: expected a distributed.Client or a scheduler",
}
# Cells refused, with the line that goes with each: what each says.
REFUSED_CELLS = [
    ("", "   \n\n", "the cell is empty"),
    ("--candidates no_such_variable", "\n", "--candidates no_such_variable: no variable"),
    ("--candidates not_a_list", "\n", "expected a list (or dict) of script strings, not int"),
    ("--candidates empty_list", "\n", "--candidates empty_list: the list is empty"),
    ("--candidates mixed_list", "\n", "item 1 is of type int, not a string"),
    ("--script-size 1", "#" * 2000, "candidate 0 is 2.0 KB, over the script size limit of 1 KB"),
    ("", SAT + "# %% candidate\n\n# %% candidate\n" + UNSAT, "candidate 1 of the cell is empty"),
]
USAGE_ERRORS = [(line, SAT, message) for line, message in REFUSED_LINES.items()] + REFUSED_CELLS


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
