import threading

from z3 import *

x = Int("x")
s = Solver()
s.add(x > 3, x < 10)
print(s.check())
# The sandbox's timeout watchdog is a thread of its own, started at the first check: a script
# that lists its threads sees only its own, as in a plain run.
print(threading.active_count(), [thread.name for thread in threading.enumerate()])
