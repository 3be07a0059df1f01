from z3 import *

x, y = Ints("x y")
s = Solver()
s.add(x >= 0, y >= 0, x + y <= 4)
count = 0
while s.check() == sat:
    m = s.model()
    print(m[x], m[y])
    s.add(Or(x != m[x], y != m[y]))
    count += 1
print("solutions:", count)
