from z3 import *

A, B = Consts("A B", SetSort(IntSort()))
x = Int("x")
s = Solver()
s.add(IsMember(1, A), IsMember(2, B), SetIntersect(A, B) == EmptySet(IntSort()))
s.add(IsSubset(SetAdd(EmptySet(IntSort()), 3), SetUnion(A, B)), Not(IsMember(3, A)))
print(s.check())
m = s.model()
print(m.eval(IsMember(3, B)), m.eval(IsMember(1, B)))
