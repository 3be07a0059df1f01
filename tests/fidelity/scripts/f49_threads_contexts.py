import threading
from z3 import *

results = {}


def job(i):
    c = Context()
    b = BitVec("b", 16, c)
    s = Solver(ctx=c)
    s.add(b * (i + 3) == 0x1000 + i, UGT(b, 5))
    results[i] = (str(s.check()), s.model()[b].as_long() if s.check() == sat else None)


threads = [threading.Thread(target=job, args=(i,)) for i in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(sorted(results.items()))
