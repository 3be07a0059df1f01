from z3 import *

Person = DeclareSort("Person")
likes = Function("likes", Person, Person, BoolSort())
a, b = Consts("a b", Person)
p, q = Consts("p q", Person)
s = Solver()
s.add(ForAll([p], Exists([q], likes(p, q))))
s.add(ForAll([p, q], Implies(likes(p, q), likes(q, p))))
s.add(Not(likes(a, b)), Not(likes(b, a)))
print(s.check())
s.add(ForAll([p], Not(likes(p, a))))
print(s.check())
