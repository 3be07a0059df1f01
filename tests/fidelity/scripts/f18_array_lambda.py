from z3 import *

x = Int("x")
sq = Lambda([x], x * x)
a = Array("a", IntSort(), IntSort())
k = Int("k")
s = Solver()
s.add(a == Store(sq, 3, 10), a[k] == 49, k > 0)
print(s.check())
print(s.model()[k])
print(simplify(sq[5]))
