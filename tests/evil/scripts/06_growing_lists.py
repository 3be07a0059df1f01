# Tries: grow a list of lists until the machine runs out of memory.
# Must get: memory_limit, kill "memory", at every level.
hoard = []
while True:
    hoard.append([0] * 100_000)
