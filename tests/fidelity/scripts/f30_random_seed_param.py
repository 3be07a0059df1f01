from z3 import *

set_param("smt.random_seed", 7)
set_param("sat.random_seed", 7)
v = [Bool(f"b{i}") for i in range(12)]
s = Solver()
s.add(AtLeast(*v, 5), AtMost(*v, 7))
print(s.check())
print(sorted(str(b) for b in v if is_true(s.model().eval(b))))
