from z3 import *

x, y = BitVecs("x y", 16)
s = Solver()
s.add(x * y == 0x1234, x > 1, y > 1, ULT(x, y))
print(s.check())
print(s.model())
st = s.statistics()
for key in st.keys():
    if "memory" not in key and "time" not in key and "alloc" not in key:
        print(key, st.get_key_value(key))
