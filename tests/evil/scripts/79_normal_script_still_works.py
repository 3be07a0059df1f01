# Tries: nothing hostile: what a normal script uses (tempfile's default folder, a ThreadPool, whose
# locks are POSIX semaphores in /dev/shm, json, re, fractions, ctypes callbacks through z3's
# on_model, tactics and Optimize) under every layer, the new seccomp classes included.
# Must get: sat with x == 3 and y == 4.
import json, re, tempfile
from fractions import Fraction
from multiprocessing.pool import ThreadPool

with tempfile.TemporaryDirectory() as folder:
    with tempfile.NamedTemporaryFile("w+", dir=folder, suffix=".json") as handle:
        json.dump({"bound": 10}, handle)
        handle.seek(0)
        bound = json.load(handle)["bound"]
with ThreadPool(2) as pool:
    squares = pool.map(lambda n: n * n, range(5))
assert squares == [0, 1, 4, 9, 16] and re.fullmatch(r"\d+", str(bound))
x, y = Ints("x y")
goal = Goal()
goal.add(x > 0, y > x, x + y <= bound)
assert len(Then("simplify", "solve-eqs", "smt")(goal)) == 1
optimize = Optimize()
optimize.add(x > 0, y > x, x + y <= bound, x * x + y * y == 25)
optimize.maximize(y)
models = []
optimize.set_on_model(lambda model: models.append(model))
assert optimize.check() == sat and models
best = optimize.model()
half = Fraction(bound, 20)
s.add(x == best[x], y == best[y], ToReal(x) * RealVal(str(half)) == RealVal("3/2"))
print(s.check(), best)
