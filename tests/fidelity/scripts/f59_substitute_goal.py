from z3 import *

x, y, z = Ints("x y z")
e = x + 2 * y - z
print(substitute(e, (y, IntVal(3)), (z, x)))
print(simplify(substitute(e, (y, IntVal(3)), (z, x))))
g = Goal()
g.add(x + y == 4, y == 2 * z, z > 0)
print(g)
print(Tactic("solve-eqs")(g))
print(Probe("num-consts")(g), Probe("is-lia")(g))
