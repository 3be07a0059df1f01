# A z3 error caught and its traceback printed: z3's own source lines show, as in a plain run.
import os
import traceback

from z3 import *

x = Int("x")
try:
    s = Solver()
    s.add(x + "a" > 1)
except Z3Exception:
    frames = traceback.extract_tb(__import__("sys").exc_info()[2])
    for frame in frames:
        print(os.path.basename(frame.filename), frame.name, frame.line)
