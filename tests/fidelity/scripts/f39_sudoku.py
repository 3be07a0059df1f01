from z3 import *

X = [[Int(f"x_{i}_{j}") for j in range(4)] for i in range(4)]
s = Solver()
for i in range(4):
    s.add(Distinct(X[i]), Distinct([X[j][i] for j in range(4)]))
    for j in range(4):
        s.add(X[i][j] >= 1, X[i][j] <= 4)
for bi in (0, 2):
    for bj in (0, 2):
        s.add(Distinct([X[bi + a][bj + b] for a in (0, 1) for b in (0, 1)]))
s.add(X[0][0] == 1, X[1][2] == 2)
print(s.check())
m = s.model()
for row in X:
    print(" ".join(str(m[c]) for c in row))
