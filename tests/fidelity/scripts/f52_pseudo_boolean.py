from z3 import *

xs = [Bool(f"x{i}") for i in range(10)]
s = Solver()
s.add(PbEq([(x, i + 1) for i, x in enumerate(xs)], 17))
s.add(PbLe([(x, 1) for x in xs], 3))
s.add(Or(xs[0], xs[9]))
print(s.check())
m = s.model()
print([i for i, x in enumerate(xs) if is_true(m.eval(x))])
