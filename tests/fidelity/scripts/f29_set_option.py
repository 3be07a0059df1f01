from z3 import *

set_option(max_args=5, max_depth=4)
set_option(rational_to_decimal=True, precision=6)
x = Real("x")
s = Solver()
s.add(3 * x == 1)
print(s.check())
print(s.model())
print(Sum([Int(f"v{i}") for i in range(12)]))
set_option(html_mode=False)
