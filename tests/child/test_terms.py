"""walk_terms: the one walk over assertions' terms that the verifier and the SMT-LIB model use."""

from __future__ import annotations

import z3

from z3sandbox_kernel.child.terms import walk_terms


def test_each_shared_subterm_is_visited_once() -> None:
    x = z3.Int("x")
    term = x + 1
    for _ in range(200):  # a DAG of 2**200 paths: walked as a tree, this would never end
        term = term + term
    walked = list(walk_terms([term > 0, term < 5]))
    assert len(walked) == len({t.get_id() for t in walked})
    assert sum(1 for t in walked if t.eq(x)) == 1
    assert len(walked) < 220


def test_quantifier_bodies_are_walked_and_bound_variables_are_leaves() -> None:
    x, y = z3.Ints("x y")
    f = z3.Function("f", z3.IntSort(), z3.IntSort())
    walked = list(walk_terms([z3.ForAll([x], f(x) > y)]))
    assert any(z3.is_quantifier(t) for t in walked)
    assert any(t.eq(y) for t in walked)  # free, under the quantifier
    assert any(z3.is_app(t) and t.decl().eq(f) for t in walked)
    assert [t for t in walked if z3.is_var(t)] == [z3.Var(0, z3.IntSort())]
