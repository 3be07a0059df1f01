from z3 import *

out = Z3_eval_smtlib2_string(main_ctx().ref(), "(declare-const k Int)(assert (> k 7))(check-sat)(get-value (k))")
print(out, end="")
k = Int("k")
s = Solver()
s.add(k * k == 64)
print(s.check(), s.model())
