import traceback
from z3 import *

try:
    Int("x") + Bool("b")
except Z3Exception as exc:
    print("caught:", type(exc).__name__)
try:
    {}["missing"]
except KeyError:
    print(traceback.format_exc().splitlines()[-1])
s = Solver()
s.add(Int("x") > 2)
print(s.check())
