# Tries: nothing hostile: z3's own threads (parallel mode and the timer thread) under every layer.
# Must get: sat with x == 5 (seccomp must let clone(CLONE_THREAD) through).
set_param("parallel.enable", True)
set_param("parallel.threads.max", 4)
x, y = Ints("x y")
s.set("timeout", 5000)
s.add(x * y == 35, x > 1, y > x)
print(s.check())
