from z3 import *

weights = [12, 7, 11, 8, 9, 6, 5, 14, 3, 10]
values = [24, 13, 23, 15, 16, 11, 9, 30, 5, 20]
take = [Bool(f"t{i}") for i in range(len(weights))]
o = Optimize()
o.add(Sum([If(t, w, 0) for t, w in zip(take, weights)]) <= 40)
o.maximize(Sum([If(t, v, 0) for t, v in zip(take, values)]))
print(o.check())
m = o.model()
print([i for i, t in enumerate(take) if is_true(m[t])])
print(m)
