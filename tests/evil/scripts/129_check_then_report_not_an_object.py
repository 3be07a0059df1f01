# Tries: make a real check that finds a model (the harness sends it to the zygote as the script runs),
# then end with a result frame that is a list, not an object: the zygote starts the checks' verifier
# early, from a report it could not read.
# Must get: internal_error saying the frame is not an object, like 92, not a kill for its report.
import os
import struct

from z3 import Int, Solver

x = Int("x")
solver = Solver()
solver.add(x > 1)
assert str(solver.check()) == "sat"
print(solver.model())  # a model read at a check: the zygote verifies it
body = b'[{"v": 1, "type": "result", "outcome": "sat"}]'
os.write(3, struct.pack(">I", len(body)) + body)
os._exit(0)
