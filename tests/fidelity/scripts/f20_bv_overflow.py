from z3 import *

a, b = BitVecs("a b", 16)
s = Solver()
s.add(Not(BVAddNoOverflow(a, b, True)), a > 0, b > 0)
print(s.check())
m = s.model()
print(m[a].as_signed_long(), m[b].as_signed_long(), m.eval(a + b).as_signed_long())
prove(a + b == b + a)
prove(a * 2 == a << 1)
