# Tries: nothing hostile: z3's own parallel example style, multiprocessing.pool.ThreadPool over
# separate Contexts (its semaphores need a writable /dev/shm).
# Must get: sat with x == 3 and the four results printed: the sandbox's /dev/shm (a folder of the
# candidate's scratch tmpfs) serves POSIX semaphores.
from multiprocessing.pool import ThreadPool
import z3


def solve(n):
    ctx = z3.Context()
    y = z3.Int("y", ctx)
    solver = z3.Solver(ctx=ctx)
    solver.add(y * y == n * n, y > 0)
    solver.check()
    return solver.model()[y].as_long()


with ThreadPool(4) as pool:
    print("pool", pool.map(solve, [1, 2, 3, 4]))
x = Int("x")
s.add(x == 3)
