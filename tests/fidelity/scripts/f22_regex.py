from z3 import *

w = String("w")
r = Concat(Plus(Range("a", "c")), Option(Re("-")), Star(Union(Re("x"), Re("yz"))))
s = Solver()
s.add(InRe(w, r), Length(w) == 6, Contains(w, "-"))
print(s.check())
print(s.model()[w])
