from z3 import *

x, y, z = Ints("x y z")
s = Solver()
s.add(x > 5)
s.check()
m = s.model()
print(m.eval(y + x))
print(m.eval(y + x, model_completion=True))
print(m.eval(z * 2 + x, model_completion=True))
print(m)
print(len(m), m.decls())
