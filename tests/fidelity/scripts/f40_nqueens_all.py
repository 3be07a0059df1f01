from z3 import *

N = 5
Q = [Int(f"Q_{i}") for i in range(N)]
s = Solver()
s.add(*[And(1 <= q, q <= N) for q in Q], Distinct(Q))
s.add(*[If(i == j, True, And(Q[i] - Q[j] != i - j, Q[i] - Q[j] != j - i))
       for i in range(N) for j in range(i)])
solutions = []
while s.check() == sat:
    m = s.model()
    sol = [m[q].as_long() for q in Q]
    solutions.append(sol)
    s.add(Or([q != v for q, v in zip(Q, sol)]))
print(len(solutions))
for sol in solutions:
    print(sol)
