# Optimize objects in a loop, each bounded by the last optimum.
from z3 import *

x, y = Ints("x y")
bound = 50
for step in range(4):
    o = Optimize()
    o.add(x + 2 * y <= bound, x >= 0, y >= 0, x - y >= step)
    h = o.maximize(3 * x + y)
    print(step, o.check(), o.model(), h.value())
    bound = o.model()[x].as_long() + 5
