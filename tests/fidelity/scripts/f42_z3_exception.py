from z3 import *

x = Int("x")
b = BitVec("b", 8)
print("start")
s = Solver()
s.add(x + b > 0)
print("never")
