# A candidate that never ends: the wall-clock limit kills it (verdict timeout, kill "wall").
while True:
    pass
