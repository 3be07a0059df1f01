from z3 import *

fact = RecFunction("fact", IntSort(), IntSort())
n = Int("n")
RecAddDefinition(fact, n, If(n <= 0, 1, n * fact(n - 1)))
k = Int("k")
s = Solver()
s.add(fact(k) == 120)
print(s.check())
print(s.model()[k])
print(simplify(fact(5)))
