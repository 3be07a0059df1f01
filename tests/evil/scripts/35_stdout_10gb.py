# Tries: write 10 GB to stdout.
# Must get: output_limit, kill "output" (the zygote's cap on stdout), at every level.
import sys
chunk = "x" * (1 << 20)
for _ in range(10_000):
    sys.stdout.write(chunk)
