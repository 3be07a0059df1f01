from z3 import *

f = Function("f", IntSort(), IntSort())
x, y = Ints("x y")
s = Solver()
s.add(ForAll([x], f(x) >= x))
s.add(f(3) < 5, f(y) == 2)
print(s.check())
m = s.model()
print(m.eval(f(3)), m.eval(y), m.eval(f(y)))
