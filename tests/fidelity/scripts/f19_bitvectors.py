from z3 import *

x, y = BitVecs("x y", 32)
s = Solver()
s.add(x & (x - 1) == 0, x != 0, UGT(x, 1000), y == RotateLeft(x, 3) ^ 0xDEADBEEF)
print(s.check())
m = s.model()
print(hex(m[x].as_long()), hex(m[y].as_long()))
print(m)
