from z3 import *

Color, (red, green, blue) = EnumSort("Color", ["red", "green", "blue"])
a, b, c = Consts("a b c", Color)
s = Solver()
s.add(Distinct(a, b, c), a != red, b != blue)
sols = []
while s.check() == sat:
    m = s.model()
    sols.append((m[a], m[b], m[c]))
    s.add(Or(a != m[a], b != m[b], c != m[c]))
print(sols)
