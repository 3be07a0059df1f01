from z3 import *

x, y = Ints("x y")
o = Optimize()
o.set(priority="pareto")
o.add(x + y <= 10, x >= 0, y >= 0, x <= 7, y <= 7)
mx = o.maximize(x)
my = o.maximize(y)
n = 0
while o.check() == sat and n < 6:
    print(mx.value(), my.value())
    n += 1
