from z3 import *

x, y = Ints("x y")
s = Solver()
s.add(x + y == 7, x > y, y > 0)
c2 = Context()
s2 = s.translate(c2)
print(s2.check(), s2.model())
e = (x * 2).translate(c2)
print(e, e.ctx == c2)
print(s.check(), s.model())
