from z3 import *

x = Int("x")
s = Solver()
s.add(x > 0)
for bound in (5, 3, 1, 0):
    s.push()
    s.add(x < bound)
    r = s.check()
    print(bound, r, s.model() if r == sat else "-")
    s.pop()
print(s.num_scopes(), s.check())
