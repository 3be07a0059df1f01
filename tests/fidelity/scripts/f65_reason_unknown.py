from z3 import *

x = Real("x")
s = Solver()
s.add(2 ** x == 3)
r = s.check()
print(r)
print(s.reason_unknown() != "")
