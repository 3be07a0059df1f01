from z3 import *

x, y = Ints("x y")
g = Goal()
g.add(x > 0, y > 0, x == y + 2, y < 5, x + y > 4)
t = Then(Tactic("simplify"), Tactic("solve-eqs"), Tactic("propagate-ineqs"))
r = t(g)
print(r)
print(len(r), r[0])
