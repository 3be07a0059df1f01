from z3 import *

xs = [Int(f"x{i}") for i in range(6)]
o = Optimize()
for i, x in enumerate(xs):
    o.add(x >= 0, x <= 10 - i)
o.add(Sum(xs) == 25)
o.minimize(Sum(xs[:3]) + 2 * xs[1])
o.maximize(xs[5] - xs[0])
print(o.check())
print(o.model())
st = o.statistics()
print(sorted(k for k in st.keys() if "memory" not in k and "time" not in k and "alloc" not in k))
