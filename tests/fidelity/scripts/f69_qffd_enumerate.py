# A QF_FD (SAT-based) solver enumerated with blocking clauses, its models printed as they come:
# after a check, a call to assertions() would make it drop its model (issue 18).
from z3 import *

xs = [Bool(f"x{i}") for i in range(4)]
s = SolverFor("QF_FD")
s.add(AtMost(*xs, 2), AtLeast(*xs, 1))
count = 0
while s.check() == sat:
    m = s.model()
    print(sorted(str(v) for v in xs if is_true(m[v])))
    s.add(Or([v != m[v] for v in xs]))
    count += 1
print(count)
