from z3 import *

a = BitVec("a", 8)
s = Solver()
s.add(a & 0x0F == 0x05, UGT(a, 0x30))
found = []
while s.check() == sat:
    v = s.model()[a]
    found.append(v.as_long())
    s.add(a != v)
print(found)
