# Solvers and models made in a function and let go when it returns, one problem after another,
# as real models do: a harness that kept them alive changed the ids of the next problem's terms.
from z3 import *


def magic(n):
    sol = SimpleSolver()
    x = [Int(f"x{i}") for i in range(n)]
    for v in x:
        sol.add(v >= 0, v < n)
    for i in range(n):
        sol.add(x[i] == Sum([If(v == i, 1, 0) for v in x]))
    if sol.check() == sat:
        mod = sol.model()
        return [mod.eval(v).as_long() for v in x]
    return None


for n in range(1, 9):
    print(n, magic(n))
