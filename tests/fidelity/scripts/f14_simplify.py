from z3 import *

x, y = Ints("x y")
print(simplify(x + y + 2 * x + 3 - 1))
print(simplify(And(x > 1, x > 2, Or(y < 3, y < 4))))
print(simplify((x + 1) * (x + 2), som=True))
print(simplify(If(x > 0, x, -x) >= 0, arith_lhs=True))
b = BitVec("b", 8)
print(simplify(b ^ b ^ 0x0F | 0x30))
