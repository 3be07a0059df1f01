# A candidate that never ends: the wall-clock limit kills it (verdict timeout, kill "wall";
# the demo runs with --wall 2, below the 8 s CPU limit, which would otherwise end it as cpu_limit).
while True:
    pass
