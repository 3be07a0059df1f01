from z3 import *

fs = parse_smt2_string("""
(declare-const a Int)
(declare-const b Int)
(assert (> (+ a b) 10))
(assert (< a 3))
(assert (distinct a b 0))
""")
print(fs)
s = Solver()
s.add(fs)
print(s.check())
print(s.model())
s2 = Solver()
s2.from_string("(declare-const p Bool)(declare-const q Bool)(assert (xor p q))(assert p)")
print(s2.check(), s2.model())
