import sys
from z3 import *

x = Int("x")
s = Solver()
s.add(x > 1, x < 1)
r = s.check()
print(r)
if r == unsat:
    sys.exit(3)
