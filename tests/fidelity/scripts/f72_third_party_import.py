# Any package of the environment can be imported, as `python script.py` can (a regular install
# hid site-packages from the candidate: issue 18).
import importlib.metadata

import traitlets

from z3 import *

print(traitlets.__name__, importlib.metadata.version("traitlets") == traitlets.__version__)
x = Int("x")
solve(x > 2, x < 4)
