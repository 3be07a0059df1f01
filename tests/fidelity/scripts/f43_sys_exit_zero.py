import sys
from z3 import *

x = Int("x")
s = Solver()
s.add(x * 3 == 12)
print(s.check(), s.model())
sys.exit(0)
print("unreachable")
