from z3 import *

set_param(proof=True)
x = Int("x")
s = Solver()
s.add(x > 2, x < 1)
print(s.check())
print(s.proof().decl())
print(main_ctx() == x.ctx)
