# Tries: make z3 write every command as SMT-LIB outside scratch with the smtlib2_log parameter
# (global "solver.smtlib2_log" and the solver's own).
# Must get: the log never appears (Landlock); sat or an error from z3 are both fine.
import os
set_param("solver.smtlib2_log", "{{WATCHED}}/z3_smtlib2_log.smt2")
s2 = Solver()
s2.set("smtlib2_log", "{{WATCHED}}/z3_smtlib2_log_solver.smt2")
x = Int("x_{{TOKEN}}")
s2.add(x == 1)
s2.check()
s.add(x == 1)
s.check()
for name in ("z3_smtlib2_log.smt2", "z3_smtlib2_log_solver.smt2"):
    if os.path.exists("{{WATCHED}}/" + name):
        print("ESCAPED: smtlib2_log wrote", name)
