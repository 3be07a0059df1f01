from z3 import *

a, b, c, d = Bools("a b c d")
o = Optimize()
o.add(Or(a, b), Or(Not(a), c), Or(Not(b), d), Not(And(c, d)))
o.add_soft(a, 3)
o.add_soft(b, 2)
o.add_soft(Not(c), 1)
o.add_soft(d, 2, "other")
print(o.check())
print(o.model())
print(o.objectives())
