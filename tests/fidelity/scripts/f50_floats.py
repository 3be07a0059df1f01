from z3 import *

x, y = FPs("x y", Float32())
s = Solver()
s.add(fpAdd(RNE(), x, y) == FPVal(1.5, Float32()), fpGT(x, FPVal(0.25, Float32())), fpGT(y, x))
print(s.check())
m = s.model()
print(m[x], m[y])
print(m.eval(fpToReal(x)))
