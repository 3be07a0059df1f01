from z3 import *

x, y = Ints("x y")
s = Solver()
s.set(unsat_core=True)
s.assert_and_track(x > 10, "a1")
s.assert_and_track(y > x, "a2")
s.assert_and_track(y < 5, "a3")
s.assert_and_track(x != 100, "a4")
print(s.check())
print(sorted(str(c) for c in s.unsat_core()))
