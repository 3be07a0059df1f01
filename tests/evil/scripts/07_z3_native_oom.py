# Tries: make z3 itself exhaust memory in native code: bit-blast a chain of huge multiplications.
# Must get: memory_limit (z3's "out of memory", MemoryError, or a crash at the limit).
set_param("memory_max_size", 0)
x, y = BitVecs("x y", 4096)
e = x
for _ in range(24):
    e = e * y + x
g = Goal()
g.add(e == 12345)
print(Then("simplify", "bit-blast", "tseitin-cnf")(g))
