import sys
from z3 import *

s = Solver()
s.add(Bool("p"))
print(s.check())
sys.exit("no more ideas")
