from z3 import *

p, q = Bools("p q")
prove(Implies(And(p, q), p))
x = Int("x")
prove(x * x >= 0)
prove(x > 0)
prove(Not(And(p, Not(p))))
