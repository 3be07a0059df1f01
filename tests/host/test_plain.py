"""Plain mode runs a script as ``python file.py`` would; the default mode says when the sandbox
checked for a script that never did."""

from __future__ import annotations

import pytest

from z3sandbox_kernel import Limits, Sandbox, Verdict

pytestmark = [pytest.mark.timeout(60), pytest.mark.usefixtures("zygote_is_clean")]

QUICK = Limits(timeout_s=2, wall_s=10, cpu_s=4)
NO_IMPORT = "x = Int('x')\nsolver = Solver()\nsolver.add(x > 1)\nprint(solver.check())\n"
UNCHECKED = "from z3 import *\nx = Int('x')\nsolver = Solver()\nsolver.add(x > 1)\n"
HARNESS_CHECKED = "the script never called check(): the sandbox checked its assertions"


def test_plain_mode_gives_a_name_error_on_line_1_for_a_missing_import(sandbox: Sandbox):
    candidate = sandbox.run(NO_IMPORT, limits=QUICK, plain=True)[0]
    assert candidate.verdict is Verdict.RUNTIME_ERROR
    assert candidate.error["type"] == "NameError" and candidate.error["line"] == 1
    assert "name 'Int' is not defined" in candidate.error["message"]
    assert candidate.stderr.endswith("NameError: name 'Int' is not defined. Did you mean: 'int'?\n")


def test_the_default_mode_still_does_the_import(sandbox: Sandbox):
    candidate = sandbox.run(NO_IMPORT, limits=QUICK)[0]
    assert candidate.verdict is Verdict.SAT and candidate.stdout == "sat\n"


def test_plain_mode_binds_no_s_and_checks_nothing_for_the_script(sandbox: Sandbox):
    no_s = sandbox.run("from z3 import *\ns.add(Int('x') > 1)\n", limits=QUICK, plain=True)[0]
    assert no_s.error["type"] == "NameError" and no_s.error["line"] == 2
    unchecked = sandbox.run(UNCHECKED, limits=QUICK, plain=True)[0]
    assert unchecked.verdict is Verdict.NO_CHECK
    assert HARNESS_CHECKED not in unchecked.reason


def test_the_harness_says_when_it_checked_for_the_script(sandbox: Sandbox):
    unchecked = sandbox.run(UNCHECKED, limits=QUICK)[0]
    assert unchecked.verdict is Verdict.SAT and unchecked.verified
    assert unchecked.reason == HARNESS_CHECKED
    checked = sandbox.run(UNCHECKED + "solver.check()\n", limits=QUICK)[0]
    assert checked.verdict is Verdict.SAT and checked.reason == ""


def test_the_plain_option_is_a_run_option_of_every_face():
    from z3sandbox_kernel.contracts.options import RUN_OPTIONS, options_for

    (plain,) = [option for option in RUN_OPTIONS if option.name == "plain"]
    assert plain.flag == "--plain" and plain.default is False
    assert {"magic", "config", "cli"} <= {place for place in ("magic", "config", "cli")
                                          if plain in options_for(place)}
