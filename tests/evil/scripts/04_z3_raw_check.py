# Tries: the same endless nonlinear problem, checked through z3's C API directly
# (Z3_solver_check), so no Python wrapper can set a timeout first.
# Must get: cpu_limit or timeout (wall); the rlimits and the zygote's deadline stop it.
import z3
a, b, c = Ints("a b c")
s.add(a > 0, b > 0, c > 0, a * a * a + b * b * b == c * c * c)
z3.Z3_solver_set_params(s.ctx.ref(), s.solver, ParamsRef().params)
p = ParamsRef(); p.set("timeout", 4294967295)
z3.Z3_solver_set_params(s.ctx.ref(), s.solver, p.params)
z3.Z3_solver_check(s.ctx.ref(), s.solver)
print("ESCAPED: the raw check returned")
