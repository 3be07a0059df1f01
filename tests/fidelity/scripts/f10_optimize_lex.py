from z3 import *

x, y, z = Ints("x y z")
o = Optimize()
o.add(And(x >= -5, x <= 5, y >= -5, y <= 5, z >= -5, z <= 5))
o.add(x + y + z == 3, x * y >= -6)
o.minimize(x + y)
o.maximize(z - x)
print(o.check(), o.model())
print(o.statistics().get_key_value("maxres-cores") if "maxres-cores" in o.statistics().keys() else "-")
