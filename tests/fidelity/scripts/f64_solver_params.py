from z3 import *

x, y = Ints("x y")
s = Solver()
s.set("smt.arith.solver", 2)
s.set(timeout=60000)
s.add(x + 3 * y == 17, x > y, y > 0)
print(s.check(), s.model())
o = Optimize()
o.set(timeout=60000, maxsat_engine="wmax")
o.add(x + 3 * y == 17, x > y)
o.maximize(y)
print(o.check(), o.model())
