from z3 import *

S = DeclareSort("S")
f = Function("f", S, S)
g = Function("g", S, S, S)
a, b, c = Consts("a b c", S)
s = Solver()
s.add(f(f(a)) == a, f(a) != a, g(a, b) == f(c), c != a, b == f(a))
print(s.check())
print(s.model())
print(s.model().get_universe(S))
