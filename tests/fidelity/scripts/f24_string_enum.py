from z3 import *

x = String("x")
s = Solver()
s.add(InRe(x, Union(Re("ab"), Re("ba"), Re("aab"), Re("c"))))
out = []
while s.check() == sat:
    v = s.model()[x]
    out.append(v.as_string())
    s.add(x != v)
print(sorted(out), len(out))
