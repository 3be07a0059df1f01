"""z3-aware hints where Python's own words mislead (child/hints.py): each class with several
members, run in a real sandbox.  The hint ends the structured error's message; stderr stays what
``python script.py`` prints."""

from __future__ import annotations

import re

import pytest

from z3sandbox_kernel import Limits, Sandbox, Verdict

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("zygote_is_clean")]

QUICK = Limits(timeout_s=1, wall_s=5, cpu_s=4)
SOLVED = "x = Int('x')\ns.add(x > 1)\ns.check()\n"
HARD = "x, y, z = Ints('x y z')\ns.add(x > 0, y > 0, z > 0, x**3 + y**3 == z**3)\n"

# name -> (script, plain, what the message must say, what it must not)
CASES = {
    # a value method z3 names otherwise: Python suggests a wrong one (is_int) or nothing
    "as_int": (SOLVED + "print(s.model()[x].as_int())\n", False, "Did you mean: 'as_long'?", "is_int"),
    "as_integer": (SOLVED + "print(s.model()[x].as_integer())\n", False, "Did you mean: 'as_long'?", None),
    "bitvec_value": ("b = BitVec('b', 8)\ns.add(b > 1)\ns.check()\nprint(s.model()[b].value())\n", False,
                     "Did you mean: 'as_long'?", None),
    "real_as_float": ("r = Real('r')\ns.add(r > 1, r < 2)\ns.check()\nprint(s.model()[r].as_float())\n",
                      False, "Did you mean: 'as_fraction'?", None),
    "bool_as_bool": ("b = Bool('b')\ns.add(b)\ns.check()\nprint(s.model()[b].as_bool())\n", False,
                     "is_true(value)", None),
    "solver_get_model": (SOLVED + "print(s.get_model())\n", False, "Did you mean: 'model'?", None),
    "own_solver_get_model": ("t = Solver()\nt.add(Int('x') > 1)\nt.check()\nprint(t.get_model())\n", False,
                             "Did you mean: 'model'?", None),
    "solver_minimize": ("x = Int('x')\ns.add(x > 1)\ns.minimize(x)\n", False, "belong to Optimize()", None),
    "term_as_long": (SOLVED + "print(x.as_long())\n", False, "take it from a model", None),
    "missing_model_entry": ("x, y = Ints('x y')\ns.add(x > 1)\ns.check()\nprint(s.model()[y].as_long())\n",
                            False, "model_completion=True", None),
    # a z3 name undefined: plain mode without the import; Python suggests int, bool...
    "plain_Int": ("x = Int('x')\n", True, "add `from z3 import *`", "Did you mean: 'int'"),
    "plain_Solver": ("t = Solver()\n", True, "add `from z3 import *`", None),
    "plain_sat": ("import z3\nt = z3.Solver()\nprint(t.check() == sat)\n", True, "add `from z3 import *`",
                  None),
    "misspelt_Integer": ("x = Integer('x')\n", False, "Did you mean: 'Int'?", None),
    "misspelt_AllDifferent": ("x, y = Ints('x y')\ns.add(AllDifferent(x, y))\n", False,
                              "Did you mean: 'Distinct'?", None),
    "lowercase_solver": ("solver = solver()\n", False, "Did you mean: 'Solver'?", None),
    "lowercase_bitvec": ("b = bitvec('b', 8)\n", False, "Did you mean: 'BitVec'?", None),
    "python_int": ("x = int('x')\n", False, "Int('name')", None),
    # Python's and/or/if on z3 terms
    "python_and": ("x = Int('x')\ns.add(x > 1 and x < 5)\n", False, "And(...)", None),
    "python_if": ("x = Int('x')\nif x > 2:\n    s.add(x < 5)\n", False, "If(c, a, b)", None),
    "python_not": ("b = Bool('b')\ns.add(not b)\n", False, "Not(...)", None),
    "chained": ("x = Int('x')\ns.add(0 < x < 5)\n", False, "chained", None),
    "range_of_term": ("x = Int('x')\nfor i in range(x):\n    pass\n", False, "not a Python int", None),
    # sorts that do not meet
    "bitvec_widths": ("a, b = BitVec('a', 8), BitVec('b', 16)\ns.add(a + b == 3)\n", False, "ZeroExt", None),
    "bitvec_equal_widths": ("a, b = BitVec('a', 8), BitVec('b', 16)\ns.add(a == b)\n", False, "ZeroExt",
                            None),
    "int_and_bitvec": ("x = Int('x')\nb = BitVec('b', 8)\ns.add(x + b > 1)\n", False, "BV2Int", None),
    # model() after a check that was not sat: z3's reason
    "model_after_timeout": (HARD + "r = s.check()\nm = s.model()\n", False,
                            "the last check() on line 3 answered unknown (solver timeout)", None),
    "model_after_unsat": ("x = Int('x')\ns.add(x > 1, x < 0)\ns.check()\nm = s.model()\n", False,
                          "the last check() answered unsat", None),
    "model_of_another_solver": ("t = Solver()\nt.add(Int('x') > 1)\nu = Solver()\nu.add(False)\nu.check()\n"
                                "t.check()\nm = u.model()\n", False,
                                "no check() of this solver answered sat", None),
    "model_after_a_change": (SOLVED + "s.add(x > 5)\nm = s.model()\n", False, "the solver changed", None),
    "model_before_check": ("x = Int('x')\ns.add(x > 1)\nm = s.model()\n", False, "no check() came before it",
                           None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_z3_aware_hint_ends_the_message(kernel_sandbox: Sandbox, name: str):
    script, plain, said, not_said = CASES[name]
    candidate = kernel_sandbox.run(script, limits=QUICK, plain=plain)[0]
    assert candidate.verdict is Verdict.RUNTIME_ERROR, candidate.reason
    message = candidate.error["message"]
    assert said in message
    if not_said:
        assert not_said not in message
    assert ". . " not in message and not re.search(r"\w\.\. ", message)  # one full stop where they join


def test_stderr_stays_what_python_prints(kernel_sandbox: Sandbox):
    candidate = kernel_sandbox.run("x = Int('x')\n", limits=QUICK, plain=True)[0]
    assert candidate.stderr.endswith("NameError: name 'Int' is not defined. Did you mean: 'int'?\n")
    assert "from z3 import" in candidate.error["message"]


def test_a_name_python_can_suggest_keeps_pythons_suggestion(kernel_sandbox: Sandbox):
    candidate = kernel_sandbox.run("t = Solver()\nt.check()\nm = t.Model()\n", limits=QUICK)[0]
    assert candidate.error["message"].endswith("Did you mean: 'model'?")
