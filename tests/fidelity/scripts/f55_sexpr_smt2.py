from z3 import *

x, y = Ints("x y")
f = Function("f", IntSort(), IntSort())
s = Solver()
s.add(f(x) > y, Or(x == 1, y == f(2)), Distinct(x, y, 3))
print(s.sexpr())
print(s.to_smt2())
print(s.check())
print(s.model().sexpr())
