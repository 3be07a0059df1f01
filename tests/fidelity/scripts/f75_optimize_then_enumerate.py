# The value an Optimize model gives, then an enumeration that depends on it: reading a model in
# the script's own context (the context keeps the last term a call returned) reorders this search.
from z3 import *
W = [3000, 1800, 2500]
def best(fixed=None):
    s = Optimize() if fixed is None else SimpleSolver()
    x = [Int(f"x[{i}]") for i in range(3)]
    z = Real("z")
    for v in x:
        s.add(v >= 0)
    s.add(z == Sum([ToReal(x[i]) * W[i] for i in range(3)]))
    s.add(Sum([[0.025, 0.015, 0.002][i] * ToReal(x[i]) for i in range(3)]) <= 0.25)
    s.add(Sum([[0.3, 0.2, 2.0][i] * ToReal(x[i]) for i in range(3)]) <= 25.0)
    if fixed is None:
        s.maximize(z)
    else:
        s.add(z == fixed)
    while s.check() == sat:
        m = s.model()
        print([m[v] for v in x])
        if fixed is None:
            return m[z].as_long()
        s.add(Or([v != m[v] for v in x]))
best(best())
