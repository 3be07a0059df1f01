# Tries: the classic fork bomb through os.fork.
# Must get: blocked (the harness's audit hook refuses os.fork; seccomp would too).
import os
while True:
    if os.fork() == 0:
        print("ESCAPED: forked")
