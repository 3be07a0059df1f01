from multiprocessing.pool import ThreadPool
from z3 import *


def work(n):
    ctx = Context()
    x, y = Ints("x y", ctx)
    s = Solver(ctx=ctx)
    s.add(x * y == n, x > 1, y > x)
    r = s.check()
    return n, str(r), (s.model()[x].as_long() if r == sat else None)


with ThreadPool(3) as pool:
    for n, r, x in pool.map(work, [15, 21, 13, 35, 77, 17]):
        print(n, r, x)
