from z3 import *

set_param("smt.arith.random_initial_value", True)
set_param(proof=False)
x, y, z = Ints("x y z")
s = Solver()
s.add(x + y > z, z > 3, x < y)
print(s.check())
print(s.model())
print(get_param("smt.arith.random_initial_value"))
