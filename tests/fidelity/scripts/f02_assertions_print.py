from z3 import *

a, b = Reals("a b")
s = Solver()
s.add(a * 2 + b >= 3, a - b < 1, Or(a > 5, b < -2))
print(s.assertions())
print(s.check())
m = s.model()
for d in sorted(m.decls(), key=str):
    print(d.name(), "=", m[d])
