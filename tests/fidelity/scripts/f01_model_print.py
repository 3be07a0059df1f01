from z3 import *

x, y, z = Ints("x y z")
s = Solver()
s.add(x + y + z == 10, x > 0, y > 0, z > 0, x != y)
print(s.check())
print(s.model())
