from z3 import *

x, y, z = Ints("x y z")
o = Optimize()
o.add(x + y + z <= 20, x >= 0, y >= 0, z >= 0, x - y <= 3)
h1 = o.maximize(x + 2 * y)
h2 = o.minimize(z)
print(o.check())
print(o.model())
print(h1.value(), h2.value())
