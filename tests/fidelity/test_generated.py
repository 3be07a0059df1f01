"""Random Z3Py scripts (hypothesis): each prints the same in the sandbox as plainly, and its
verdict is the result of its last check, which it prints on its last line.

A script declares integer, Boolean and bit-vector variables, asserts random constraints over them,
and then checks once, enumerates models with blocking clauses, or optimizes; each of these paths is
sensitive to z3's search order, which is what the harness must not disturb.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from z3sandbox_kernel import Limits, Sandbox

from .plain import disagreement, run_plain

pytestmark = pytest.mark.timeout(240)

LIMITS = Limits(timeout_s=20, wall_s=40, cpu_s=40)
INTS = ["x", "y", "z"]
BOOLS = ["p", "q"]
BVS = ["a", "b"]


@st.composite
def int_term(draw: st.DrawFn) -> str:
    left = draw(st.sampled_from(INTS))
    op = draw(st.sampled_from(["+", "-", "*"]))
    right = draw(st.one_of(st.sampled_from(INTS), st.integers(-9, 9).map(str)))
    return f"({left} {op} {right})"


@st.composite
def constraint(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["int", "int", "bool", "bv", "mixed"]))
    if kind == "int":
        relation = draw(st.sampled_from(["<", "<=", ">", ">=", "==", "!="]))
        return f"{draw(int_term())} {relation} {draw(st.integers(-20, 20))}"
    if kind == "bool":
        first, second = draw(st.sampled_from(BOOLS)), draw(st.sampled_from(BOOLS))
        return draw(st.sampled_from([f"Or({first}, Not({second}))", f"Xor({first}, {second})",
                                     f"Implies({first}, {second})"]))
    if kind == "bv":
        left, right = draw(st.sampled_from(BVS)), draw(st.sampled_from(BVS))
        op = draw(st.sampled_from(["+", "&", "|", "^", "*"]))
        return f"ULT({left} {op} {right}, {draw(st.integers(1, 255))})"
    return f"If({draw(st.sampled_from(BOOLS))}, x > y, y > z)"


@st.composite
def script(draw: st.DrawFn) -> str:
    constraints = draw(st.lists(constraint(), min_size=1, max_size=6))
    lines = ["from z3 import *", "", "x, y, z = Ints('x y z')", "p, q = Bools('p q')",
             "a, b = BitVecs('a b', 8)"]
    mode = draw(st.sampled_from(["check", "enumerate", "optimize"]))
    solver = "Optimize()" if mode == "optimize" else draw(
        st.sampled_from(["Solver()", "SimpleSolver()", "SolverFor('QF_ALL')"]))
    lines += [f"s = {solver}", "s.add(x >= -10, x <= 10, y >= -10, y <= 10, z >= -10, z <= 10)"]
    lines += [f"s.add({c})" for c in constraints]
    if mode == "optimize":
        lines.append(f"s.{draw(st.sampled_from(['maximize', 'minimize']))}({draw(int_term())})")
    if mode == "enumerate":
        lines += ["r = s.check()", "n = 0", "while r == sat and n < 5:",
                  "    m = s.model()", "    print(m)", "    n += 1",
                  "    s.add(Or(x != m.eval(x, True), p != m.eval(p, True), a != m.eval(a, True)))",
                  "    r = s.check()"]
    else:
        lines += ["r = s.check()", "if r == sat:", "    print(s.model())"]
    lines.append("print('last check:', r)")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def generated_sandbox() -> Iterator[Sandbox]:
    with Sandbox() as sandbox:
        yield sandbox


@settings(max_examples=25, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(text=script())
def test_random_script_prints_the_same_and_its_verdict_is_its_last_check(
        text: str, generated_sandbox: Sandbox) -> None:
    plain = run_plain(text)
    candidate = generated_sandbox.run(text, limits=LIMITS, verify=False)[0]
    problem = disagreement(plain, candidate)
    assert problem is None, f"{problem}\nscript:\n{text}"
    assert candidate.verdict is not None
    assert plain.stdout.splitlines()[-1] == f"last check: {candidate.verdict.value}", text
