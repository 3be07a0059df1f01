from z3 import *

x = Int("x")
s = Solver()
s.add(x > 3)
print(s.check())
print("before the error")
raise ValueError("the script gives up")
