from z3 import *

a, b = BitVecs("a b", 8)
t = Then("simplify", OrElse(Tactic("bit-blast"), Tactic("skip")), "sat")
s = t.solver()
s.add(a + b == 200, a * 3 == b, UGT(a, 10))
print(s.check())
if s.check() == sat:
    print(s.model())
print(describe_tactics.__name__)
