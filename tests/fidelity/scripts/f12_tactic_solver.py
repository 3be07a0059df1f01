from z3 import *

x, y = Reals("x y")
s = Then("simplify", "nlsat").solver()
s.add(x * x + y * y == 1, x > y, y > 0)
print(s.check())
m = s.model()
print(m[x].approx(5) if is_algebraic_value(m[x]) else m[x])
