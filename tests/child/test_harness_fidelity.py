"""The harness runs a candidate as ``python candidate.py`` would: its main context, its argv, its
tracebacks and its output as a plain run has them (a fresh interpreter where z3's main context
matters).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from z3sandbox_kernel.protocol import decode_value, split_pairs

from .running import HARD, run_child, run_child_in_a_fresh_zygote

pytestmark = pytest.mark.usefixtures("prepared")


def test_prepare_leaves_the_main_context_as_a_fresh_import_does() -> None:
    """The zygote's warm-up uses contexts of its own: a candidate's first term gets the id it gets
    in a fresh ``python -c 'import z3'`` process."""
    fresh = subprocess.run([sys.executable, "-c", "import z3; print(z3.Int('x').get_id())"],
                           capture_output=True, text=True, check=True).stdout
    assert run_child_in_a_fresh_zygote("print(Int('x').get_id())\n").stdout == fresh


def test_a_parameter_set_before_the_first_term_applies_to_the_main_context() -> None:
    run = run_child_in_a_fresh_zygote(
        "set_param(proof=True)\nx = Int('x')\nt = Solver()\nt.add(x > 2, x < 1)\n"
        "t.check()\nprint(t.proof().decl())\n")
    assert run.report["outcome"] == "unsat", run.report
    assert run.stdout == "unit-resolution\n"


def test_script_sees_argv_file_and_path_of_a_plain_run() -> None:
    run = run_child("import os, sys\nprint(sys.argv, __name__, __file__ == os.path.join(os.getcwd(),"
                    " sys.argv[0]), sys.path[0] == os.getcwd())\n")
    assert run.stdout == "['candidate.py'] __main__ True True\n"


def test_escaped_exception_prints_pythons_traceback_on_stderr() -> None:
    run = run_child("def f():\n    raise KeyError('k')\nf()\n")
    lines = run.stderr.splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[1].endswith("candidate.py\", line 3, in <module>")
    assert lines[-1] == "KeyError: 'k'"
    assert "harness" not in run.stderr


def test_sys_exit_with_a_message_prints_it_on_stderr() -> None:
    run = run_child("import sys\nsys.exit('giving up')\n")
    assert run.stderr == "giving up\n" and run.report["outcome"] == "exception"


def test_the_prebound_solver_is_made_at_first_use() -> None:
    unused = run_child("print(type(s).__name__, isinstance(s, Solver), 'ctx' in vars(s))\n")
    used = run_child("s.add(Int('x') == 2)\nprint(s.check(), s.model())\n")
    assert unused.stdout == "Solver True False\n"
    assert used.stdout == "sat [x = 2]\n"


def test_solver_timeout_interrupts_without_setting_a_parameter() -> None:
    run = run_child(HARD + "print(s.check(), s.reason_unknown())\n", timeout_s=0.2)
    assert run.stdout == "unknown interrupted\n"  # a timeout parameter would say "timeout"
    assert run.report["solver_timeout"] is True


def test_smt2_output_is_what_z3_prints() -> None:
    run = run_child("(declare-const x Int)\n(assert (> x 41))\n(check-sat)\n(get-value (x))\n"
                    "(echo \"done\")\n(assert (< x 0))\n(check-sat)\n", language="smt2")
    assert run.stdout == "sat\n((x 42))\ndone\nunsat\n"
    assert run.report["outcome"] == "unsat"


def test_smt2_model_is_the_one_z3_printed() -> None:
    run = run_child("(declare-const v (_ BitVec 8))\n(declare-const n Int)\n(assert (bvugt v #x40))\n"
                    "(assert (< n (- 3)))\n(check-sat)\n(get-model)\n", language="smt2")
    assert run.report["outcome"] == "sat"
    model = {name: decode_value(value) for name, value in run.report["model"].items()}
    n = int(run.stdout.split("define-fun n () Int")[1].split(")")[0].replace("(- ", "-").strip())
    assert model == {"v": int(run.stdout.split("#x")[1][:2], 16), "n": n} and n < -3
    assert sorted(name for name, _ in split_pairs(run.report["model_smt2"])) == ["n", "v"]
