# Tries: a nonlinear integer problem (cubes, no solution z3 can find) after switching every
# timeout off it can reach from Z3Py: the global parameter and the solver's own.
# Must get: timeout with kill "solver" (the harness re-applies the limit at check()).
set_param("timeout", 0)
a, b, c = Ints("a b c")
s.set("timeout", 0)
s.set(timeout=4294967295)
s.add(a > 0, b > 0, c > 0, a * a * a + b * b * b == c * c * c)
print("check says", s.check())
