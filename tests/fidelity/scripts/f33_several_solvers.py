from z3 import *

x, y = Ints("x y")
s1 = Solver()
s2 = SolverFor("QF_LIA")
s3 = SimpleSolver()
for s in (s1, s2, s3):
    s.add(x + y == 12, x - y == 4 + len(str(s)) % 2, x > 0)
    print(s.check(), s.model() if s.check() == sat else "")
