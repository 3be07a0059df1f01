# A pop that z3 refuses, caught: the solver keeps its scope, and so x == 42.
from z3 import *

x = Int("x")
s = Solver()
s.push()
s.add(x == 42)
try:
    s.pop(3)
except Z3Exception:
    print("refused")
print(s.check())
print("x =", s.model()[x])
