from z3 import *

A = Array("A", IntSort(), IntSort())
i, j = Ints("i j")
s = Solver()
s.add(Select(Store(A, i, 5), j) == 7, i != j, A[i] == 3, j > 0, i > j)
print(s.check())
m = s.model()
print(m[i], m[j], m.eval(A[i]), m.eval(A[j]))
print(m[A])
