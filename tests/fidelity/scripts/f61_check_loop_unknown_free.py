from z3 import *

x = Int("x")
s = Solver()
s.add(x >= 0)
prev = []
for i in range(8):
    s.push()
    s.add(x * x > i * 7, x < 50)
    s.check()
    prev.append(s.model()[x].as_long())
    s.pop()
    s.add(x != prev[-1])
print(prev)
