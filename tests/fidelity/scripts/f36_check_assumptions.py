from z3 import *

p1, p2, p3 = Bools("p1 p2 p3")
x = Int("x")
s = Solver()
s.add(Implies(p1, x > 5), Implies(p2, x < 3), Implies(p3, x == 4))
print(s.check(p1, p2))
print(s.unsat_core())
print(s.check(p1, p3), s.check(p3))
print(s.model())
