from z3 import *

a, b = Strings("a b")
s = Solver()
s.add(Concat(a, b) == StringVal("helloworld"), Length(a) > 3, PrefixOf("he", a), Contains(b, "or"))
print(s.check())
m = s.model()
print(m[a], m[b])
