"""Observing without touching (child/observer.py): between the script's own calls the harness leaves
z3 as a plain run would.  One test per mechanism that would change it (a call into the script's
solver, a term made in its context, an object kept alive longer than the script keeps it), each
compared with ``python candidate.py`` in a new interpreter, and what the script can see of z3.
"""

from __future__ import annotations

from ..fidelity.plain import run_plain
from .running import run_child_in_a_fresh_zygote


def same_as_plain(body: str) -> dict:
    """Run ``body`` as a whole script (it imports z3 and makes its solver ``s`` as a plain script
    must) in the harness and plainly; the same stdout, and the harness's report.  The harness runs
    in a fork of a fresh prepared interpreter, as a zygote's: term ids depend on what the process
    did with z3 before (this test process runs the whole suite)."""
    script = "from z3 import *\ns = Solver()\n" + body
    child, plain = run_child_in_a_fresh_zygote(script), run_plain(script)
    assert child.stdout == plain.stdout, (child.stdout, plain.stdout, child.stderr[-500:])
    return child.report


def test_a_qf_fd_solver_keeps_its_model_after_the_check() -> None:
    """A call: ``assertions()`` after a check makes a QF_FD solver drop its model."""
    report = same_as_plain("s2 = SolverFor('QF_FD')\nx = Bool('x')\ns2.add(x)\n"
                           "print(s2.check())\nprint(s2.model())\n")
    assert report["outcome"] == "sat" and report["model"] == {"x": True}
    assert "(declare-fun x () Bool)" in report["assertions_smt2"]


TERM_IDS = "print([Int(f'fresh{i}').get_id() for i in range(3)], BitVec('b', 9).get_id())\n"


def test_checking_and_reading_a_model_make_no_term() -> None:
    """A term: a term made between the script's calls takes the id the script's next term gets."""
    same_as_plain("x, y = Ints('x y')\ns.add(x > y, y > 3)\nprint(s.check())\n"
                  "def show():\n    m = s.model()\n    print(m[x], m[y])\n"
                  "show()\n" + TERM_IDS + "s.add(x < 100)\n" + TERM_IDS + "print(s.check())\n")


def test_a_solver_and_model_let_go_are_freed_as_in_a_plain_run() -> None:
    """A lifetime: a solver and model the script lets go free their terms at once; the ids they
    held are the next terms' ids, as in a plain run (kept alive, they would not be)."""
    same_as_plain(
        "def solve(n):\n"
        "    t = SimpleSolver()\n"
        "    xs = [Int(f'x{n}_{i}') for i in range(4)]\n"
        "    t.add(Distinct(xs), Sum(xs) == 10 + n, *[v > 0 for v in xs])\n"
        "    if t.check() == sat:\n"
        "        m = t.model()\n"
        "        return sorted(m[v].as_long() for v in xs)\n"
        "for n in range(3):\n"
        "    print(solve(n))\n" + TERM_IDS)


def test_the_last_checks_model_is_reported_after_its_solver_and_model_are_gone() -> None:
    report = same_as_plain(
        "def solve():\n"
        "    t = SolverFor('QF_FD')\n"
        "    a, b = Bools('a b')\n"
        "    t.add(Or(a, b), Not(a))\n"
        "    print(t.check(), t.model())\n"
        "solve()\n")
    assert report["outcome"] == "sat" and report["model"] == {"a": False, "b": True}
    assert report["assertions_smt2"].count("(assert ") == 2


def test_assertions_popped_after_the_check_are_still_the_reported_ones() -> None:
    report = same_as_plain("x = Int('x')\ns.add(x > 1)\ns.push()\ns.add(x < 3)\nprint(s.check())\n"
                           "print(s.model())\ns.pop()\ns.add(x > 7)\n")
    assert report["outcome"] == "sat" and report["model"] == {"x": 2}
    assert report["assertions_smt2"].count("(assert ") == 2 and "7" not in report["assertions_smt2"]


def test_z3s_classes_are_what_the_script_sees_in_a_plain_run() -> None:
    same_as_plain("import inspect\nfor f in (Solver.check, Solver.model, Solver.add, Optimize.check,"
                  " Solver.unsat_core, main_ctx, set_param):\n"
                  "    print(f.__qualname__, f.__module__, len(f.__doc__ or ''), inspect.signature(f))\n")


def test_z3s_own_doctests_find_and_pass_as_many_examples_as_plainly() -> None:
    report = same_as_plain("import doctest, z3\nr = doctest.testmod(z3.z3, report=False)\n"
                           "print(r.attempted, r.failed)\n")
    assert report["outcome"] in ("sat", "unsat", "unknown", "no_check")


def test_the_first_context_is_a_spare_made_before_the_fork() -> None:
    """Making a context costs milliseconds: the script's first one is made ahead, unless global
    parameters changed first (then it is made as in a plain run, with them)."""
    count = ("print(len(__import__('z3sandbox_kernel.child.instrument', "
             "fromlist=['_ADOPTED'])._ADOPTED))\n")
    assert run_child_in_a_fresh_zygote("x = Int('x')\n" + count).stdout == "1\n"
    run = run_child_in_a_fresh_zygote("set_param('smt.arith.solver', 2)\nx = Int('x')\n" + count)
    assert run.stdout == "0\n"
