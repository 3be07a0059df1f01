from z3 import *

x, y = Ints("x y")
solve(x > 2, y < 10, x + 2 * y == 7)
solve(x > 2, x < 1)
p, q = Bools("p q")
solve(Or(p, q), Not(And(p, q)))
