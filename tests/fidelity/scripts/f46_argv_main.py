import os
import sys
from z3 import *

print(len(sys.argv), os.path.basename(sys.argv[0]))
print(__name__, os.path.isabs(__file__), os.path.basename(__file__) == os.path.basename(sys.argv[0]))
print(os.path.dirname(os.path.abspath(__file__)) == os.getcwd())
print(sys.argv[0].endswith(".py"), sys.argv[1:] == [])
n = int(sys.argv[1]) if len(sys.argv) > 1 else 3
xs = IntVector("x", n)
solve(Sum(xs) == 10, *[v > i for i, v in enumerate(xs)])
