"""A failing script's stderr is what the same Python prints for ``python candidate.py``, byte for
byte (its file's folder aside: a plain run names the script by its absolute path, the sandbox by
``candidate.py``), the interpreter's suggestions included; the structured error carries them."""

from __future__ import annotations

import re

import pytest

from z3sandbox_kernel import Limits, Sandbox, Verdict

from .plain import run_plain

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("zygote_is_clean")]

HEAD = "from z3 import *\nx = Int('x')\nsolver = Solver()\nsolver.add(x > 1)\n"
SCRIPTS = {
    "attribute_suggestion": HEAD + "solver.check()\nm = solver.Model()\n",
    "name_suggestion": HEAD + "print(solvr.check())\n",
    "z3_exception": HEAD + "print(solver.model())\n",
    "chained": HEAD + "def f():\n    try:\n        1 / 0\n    except ZeroDivisionError as e:\n"
                      "        raise ValueError('bad') from e\nf()\n",
    "syntax_error": HEAD + "print(x\n",
}


def _as_the_sandbox_names_it(stderr: str) -> str:
    return re.sub(r'File "/[^"]*/candidate\.py"', 'File "candidate.py"', stderr)


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_stderr_is_what_python_prints(kernel_sandbox: Sandbox, name: str):
    script = SCRIPTS[name]
    candidate = kernel_sandbox.run(script, limits=Limits(wall_s=30, cpu_s=10), plain=True)[0]
    assert candidate.verdict in (Verdict.RUNTIME_ERROR, Verdict.SYNTAX_ERROR)
    assert candidate.stderr == _as_the_sandbox_names_it(run_plain(script).stderr)


def test_did_you_mean_is_kept_in_the_structured_error(kernel_sandbox: Sandbox):
    candidate = kernel_sandbox.run(SCRIPTS["attribute_suggestion"])[0]
    assert candidate.error == {"type": "AttributeError", "line": 6,
                               "message": "'Solver' object has no attribute 'Model'. Did you mean: 'model'?"}
    assert "Did you mean: 'model'?" in candidate.stderr
