# Tries: a frame header announcing 4 GB, then a trickle of bytes (a zygote that trusted the header
# would allocate or wait for it).
# Must get: internal_error, killed as "report" at the header.
import os, time

os.write(3, b"\xff\xff\xff\xff")
for _ in range(100):
    os.write(3, b"x")
    time.sleep(0.01)
os._exit(0)
