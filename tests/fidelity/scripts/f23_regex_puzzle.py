from z3 import *

cells = [String(f"c{i}") for i in range(3)]
s = Solver()
for c in cells:
    s.add(Length(c) == 2, InRe(c, Star(Range("a", "d"))))
s.add(InRe(Concat(*cells), Concat(Star(Re("a")), Re("b"), Star(Range("a", "d")))))
s.add(cells[0] != cells[1], cells[1] != cells[2], SuffixOf("c", cells[2]))
print(s.check())
print(s.model())
