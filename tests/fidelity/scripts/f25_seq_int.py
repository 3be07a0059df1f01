from z3 import *

n = Int("n")
t = String("t")
s = Solver()
s.add(t == IntToStr(n), Length(t) == 3, StrToInt(t) % 7 == 3, n > 500)
print(s.check())
m = s.model()
print(m[n], m[t])
