from z3 import *

x, y, z = Reals("x y z")
s = Solver()
s.add(x * y == 2, y * z == 3, x + z == 4, x > 0)
print(s.check())
m = s.model()
print(m)
for v in (x, y, z):
    val = m[v]
    print(v, val.approx(8) if is_algebraic_value(val) else val)
